"""A model2vec folder read with safetensors and tokenizers alone, without importing model2vec.

A cold `funes recall` embeds one query; importing model2vec for that costs about 0.2 s (it pulls
in huggingface_hub, joblib and its own persistence layer), a sixth of the whole process. The
folder format is simple (an `embeddings` tensor, optional `weights` and `mapping`, a
`tokenizer.json`), and for BERT-tokenized models `funes.index.word_embed` computes the same
vectors from it. Other tokenizers go through model2vec as before (`funes.index.embed`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


class LightStaticModel:
    """The attributes funes uses of `model2vec.StaticModel`, loaded from a local folder. It has
    no `encode` of its own: `funes.index.embed` sums its words for every batch size."""

    # Read by funes.index.embed: texts always take the word-sum path (one word cache a model).
    sums_words = True

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tensors = load_file(str(folder / "model.safetensors"))
        self.embedding: np.ndarray = tensors["embeddings"]
        self.weights: np.ndarray | None = tensors.get("weights")
        self.token_mapping: np.ndarray | None = tensors.get("mapping")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.unk_token_id = _unk_token_id(self.tokenizer)
        self.dim = int(self.embedding.shape[1])


def _unk_token_id(tokenizer: Any) -> int | None:
    # As model2vec decides it: word-piece, BPE and word-level models name their unknown token.
    token = getattr(tokenizer.model, "unk_token", None)
    return tokenizer.token_to_id(token) if token is not None else None


def can_load_light(folder: Path) -> bool:
    """True for a model2vec folder whose tokenizer word_embed handles (BERT-style)."""
    try:
        tokenizer = json.loads((folder / "tokenizer.json").read_text())
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return False
    normalizer = (tokenizer.get("normalizer") or {}).get("type")
    pre_tokenizer = (tokenizer.get("pre_tokenizer") or {}).get("type")
    return (
        config.get("model_type") == "model2vec"
        and normalizer == "BertNormalizer"
        and pre_tokenizer == "BertPreTokenizer"
        and (folder / "model.safetensors").is_file()
    )
