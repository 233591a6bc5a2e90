"""A BERT cross-encoder (`BertForSequenceClassification`, e.g. ms-marco-MiniLM-L6-v2) in numpy.

A cross-encoder reads the question and a passage together, so it can tell the passage that
answers from one that only shares the question's words: what the first pass cannot (BENCHMARKS.md,
"Hard coding questions"). Run through sentence-transformers it needs torch (a 1.9 GB install,
and 7 s to import on a small machine); its forward pass is the same few matrix products as the
MiniLM bi-encoder's, so numpy runs it from the model folder's `model.safetensors` and
`tokenizer.json` (or `vocab.txt`) with what the default install already has (numpy, safetensors,
tokenizers). The score is the model's last logit, as sentence-transformers computes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from funes.retrieve.bert import BertEncoder, BertShape, blas_threads, length_batches, load_float32

if TYPE_CHECKING:
    import numpy as np

ARCHITECTURE = "BertForSequenceClassification"
WEIGHTS = "model.safetensors"
# Padded tokens per numpy batch. Smaller batches stay in the CPU's caches: 30 pairs took 2.9 s
# at 1,024 tokens a batch, 3.4 s at 4,096 and 4.9 s at 8,192 (2 cores, bench/second_pass_cost.py).
_BATCH_TOKENS = 1024


def why_not_numpy(folder: Path) -> str:
    """ "" when `folder` holds a cross-encoder numpy can run; else the reason it cannot."""
    return _why_not(folder, _config(folder))


def _why_not(folder: Path, config: dict[str, Any]) -> str:
    if ARCHITECTURE not in (config.get("architectures") or []):
        found = ", ".join(config.get("architectures") or []) or "none"
        return f"its architecture is {found}, not {ARCHITECTURE}"
    if not (folder / WEIGHTS).is_file():
        return f"it has no {WEIGHTS} (PyTorch .bin weights need torch)"
    if not (folder / "tokenizer.json").is_file() and not (folder / "vocab.txt").is_file():
        return "it has neither tokenizer.json nor vocab.txt"
    try:
        BertShape.from_config(config)
    except (KeyError, ValueError) as error:
        return f"its config.json is not a BERT one ({error})"
    return ""


class NumpyCrossEncoder:
    """Relevance logits of (query, passage) pairs from a BERT cross-encoder folder."""

    def __init__(self, folder: Path, max_tokens: int | None = None) -> None:
        config = _config(folder)
        why = _why_not(folder, config)
        if why:
            raise ValueError(f"{folder}: {why}")
        self._bert = BertEncoder(
            load_float32(str(folder / WEIGHTS)), BertShape.from_config(config), prefix="bert."
        )
        limit = int(config.get("max_position_embeddings", 512))
        self.max_tokens = min(max_tokens or limit, limit)
        self._tokenizer = _tokenizer(folder)
        self._tokenizer.enable_truncation(self.max_tokens, strategy="longest_first")
        self._tokenizer.no_padding()

    def logits(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """The last logit of each (query, text) pair: higher means more relevant."""
        import numpy as np

        out = np.zeros(len(texts), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch([(query, text) for text in texts])
        for batch in length_batches([len(e.ids) for e in encodings], _BATCH_TOKENS):
            with blas_threads(len(batch)):
                out[batch] = self._forward(
                    [encodings[i].ids for i in batch], [encodings[i].type_ids for i in batch]
                )
        return out

    def _forward(self, ids: list[list[int]], type_ids: list[list[int]]) -> np.ndarray:
        import numpy as np

        hidden, _ = self._bert.hidden_states(ids, type_ids)
        pooled = np.tanh(self._bert.linear(hidden[:, 0], "bert.pooler.dense"))
        return self._bert.linear(pooled, "classifier")[:, -1].astype(np.float32)


def _config(folder: Path) -> dict[str, Any]:
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def _tokenizer(folder: Path) -> Any:
    from tokenizers import Tokenizer

    if (folder / "tokenizer.json").is_file():
        return Tokenizer.from_file(str(folder / "tokenizer.json"))
    # Older cross-encoder repositories ship the WordPiece vocabulary only.
    from tokenizers.implementations import BertWordPieceTokenizer

    try:
        settings = json.loads((folder / "tokenizer_config.json").read_text())
    except (OSError, ValueError):
        settings = {}
    lowercase = bool(settings.get("do_lower_case", True))
    return BertWordPieceTokenizer(str(folder / "vocab.txt"), lowercase=lowercase)
