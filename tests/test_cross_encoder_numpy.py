"""A BERT cross-encoder runs in numpy: the same scores as transformers, no torch imported, and
the default one is picked up from the Hugging Face cache without the `rerank` extra."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from model_fixtures import random_bert_cross_encoder
from recall_fixtures import build_memory, sample_turns

from funes.retrieve import recall, second_pass_status
from funes.retrieve.cross_encoder import NumpyCrossEncoder, why_not_numpy
from funes.retrieve.minilm import model_folder
from funes.retrieve.second_pass import (
    DEFAULT_CROSS_ENCODER,
    RUNTIME_NUMPY,
    RUNTIME_SENTENCE_TRANSFORMERS,
    CrossEncoderPass,
    choose_second_pass,
)

QUERY = "why did we drop the redis cache"
PASSAGES = [
    "We dropped the redis cache because invalidation kept serving stale sessions.",
    "def stitch(pieces): return ''.join(pieces)  # überschüssig, ÜNÏCÖDÉ",
    "pytest output:\n" + "FAILED tests/test_cache.py::test_ttl - AssertionError\n" * 60,
    "",
]


@pytest.fixture(scope="module")
def bert_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bert-cross-encoder")
    return random_bert_cross_encoder(folder, hidden=64, layers=2, heads=4)


def reference_logits(folder: Path, query: str, texts: list[str]) -> list[float]:
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    model = transformers.BertForSequenceClassification.from_pretrained(str(folder)).eval()
    batch = tokenizer(
        [query] * len(texts),
        texts,
        padding=True,
        truncation=True,
        max_length=512,
        return_tensors="pt",
    )
    with torch.no_grad():
        return model(**batch).logits[:, -1].tolist()


def test_numpy_scores_match_transformers(bert_cross_encoder: Path) -> None:
    ours = NumpyCrossEncoder(bert_cross_encoder).logits(QUERY, PASSAGES)
    expected = reference_logits(bert_cross_encoder, QUERY, PASSAGES)
    assert ours.tolist() == pytest.approx(expected, abs=1e-4)
    # The 60-line output is longer than 512 tokens: truncated as transformers does it.
    assert len(set(ours.tolist())) == len(PASSAGES)


def test_a_folder_with_only_a_vocabulary_scores_the_same(
    bert_cross_encoder: Path, tmp_path: Path
) -> None:
    older = tmp_path / "vocab-only"
    shutil.copytree(bert_cross_encoder, older)
    (older / "tokenizer.json").unlink()
    shutil.copy(model_folder() / "vocab.txt", older / "vocab.txt")  # type: ignore[operator]
    assert why_not_numpy(older) == ""
    assert NumpyCrossEncoder(older).logits(QUERY, PASSAGES).tolist() == pytest.approx(
        NumpyCrossEncoder(bert_cross_encoder).logits(QUERY, PASSAGES).tolist(), abs=1e-5
    )


def test_what_numpy_cannot_run_is_named(bert_cross_encoder: Path, tmp_path: Path) -> None:
    bin_only = tmp_path / "bin-only"
    shutil.copytree(bert_cross_encoder, bin_only)
    (bin_only / "model.safetensors").rename(bin_only / "pytorch_model.bin")
    assert "need torch" in why_not_numpy(bin_only)
    roberta = tmp_path / "roberta"
    shutil.copytree(bert_cross_encoder, roberta)
    config = json.loads((roberta / "config.json").read_text())
    config["architectures"] = ["XLMRobertaForSequenceClassification"]
    (roberta / "config.json").write_text(json.dumps(config))
    assert "XLMRobertaForSequenceClassification" in why_not_numpy(roberta)


def test_a_folder_without_weights_is_not_used_and_says_why(
    bert_cross_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "config-only"
    empty.mkdir()
    shutil.copy(bert_cross_encoder / "config.json", empty / "config.json")
    monkeypatch.setenv("FUNES_RERANKER", str(empty))
    status = second_pass_status()
    assert status["kind"] == "none"
    assert "no model weights" in status["note"]


def test_sentence_transformers_and_numpy_give_one_score(bert_cross_encoder: Path) -> None:
    """The rerank extra's path scores a folder as numpy does (one sigmoid over the logit)."""
    pytest.importorskip("sentence_transformers")
    numpy_pass = CrossEncoderPass(bert_cross_encoder, "tiny", RUNTIME_NUMPY)
    torch_pass = CrossEncoderPass(bert_cross_encoder, "tiny", RUNTIME_SENTENCE_TRANSFORMERS)
    assert torch_pass.score(QUERY, PASSAGES).tolist() == pytest.approx(
        numpy_pass.score(QUERY, PASSAGES).tolist(), abs=1e-4
    )


def test_recall_reranks_with_a_cross_encoder_without_importing_torch(
    bert_cross_encoder: Path,
) -> None:
    build_memory(sample_turns())
    probe = (
        "import os, sys; from funes.retrieve import recall; "
        f"os.environ['FUNES_RERANKER'] = {str(bert_cross_encoder)!r}; "
        f"result = recall({QUERY!r}, k=3); "
        "print(result.second_pass, len(result.hits), "
        "sorted(m for m in ('torch', 'sentence_transformers', 'transformers') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["cross-encoder", "3", "[]"]


def test_the_default_cross_encoder_is_used_from_the_hub_cache(
    bert_cross_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "hf-cache"
    repo = cache / f"models--{DEFAULT_CROSS_ENCODER.replace('/', '--')}"
    commit = "1" * 40
    shutil.copytree(bert_cross_encoder, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.delenv("FUNES_RERANKER", raising=False)

    choice = choose_second_pass()
    assert (choice.kind, choice.model_id, choice.runtime) == (
        "cross-encoder",
        DEFAULT_CROSS_ENCODER,
        RUNTIME_NUMPY,
    )
    status = second_pass_status()
    assert status["summary"] == f"cross-encoder ({DEFAULT_CROSS_ENCODER}, numpy)"
    assert "hint" not in status
    build_memory(sample_turns())
    result = recall(QUERY, k=3)
    assert result.second_pass == "cross-encoder"
    assert len(result.hits) == 3


def test_threads_scoring_at_once_leave_blas_as_they_found_it() -> None:
    """The resident service scores several recalls at once: BLAS's thread count is the
    process's, so each call setting and restoring it alone left it at one for good."""
    import numpy  # noqa: F401 (loads BLAS)
    from threadpoolctl import threadpool_info

    from funes.retrieve.bert import blas_threads

    def blas() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    before = blas()
    first, second = blas_threads(1), blas_threads(1)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first call ends while the second one scores
    assert set(blas()) <= {1}
    second.__exit__(None, None, None)
    assert blas() == before
