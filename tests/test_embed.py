"""The bundled static embedding model: offline, torch-free, normalised, with a stable identity."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from funes.index.embed import (
    BUNDLED_MODEL_DIR,
    BUNDLED_MODEL_ID,
    ModelNotAvailable,
    load_embedder,
    model_content_hash,
)

# Printed by scripts/build_static_model.py; a rebuild that changes it changes every memory's
# vector space, so updating this pin must be a deliberate act.
BUNDLED_CONTENT_HASH = "19831ca8345b1e87ac8f9be21b2da2d9a59e2aaaa460aa310fca2eadf3059a0d"


def test_bundled_model_identity() -> None:
    embedder = load_embedder()
    assert embedder.model_id == BUNDLED_MODEL_ID
    assert embedder.dim == 256
    assert embedder.content_hash == BUNDLED_CONTENT_HASH
    assert load_embedder(BUNDLED_MODEL_ID) is embedder  # loaded once per process


def test_bundled_model_ships_licence_and_card() -> None:
    card = (BUNDLED_MODEL_DIR / "README.md").read_text()
    assert "license: apache-2.0" in card
    assert "base_model: sentence-transformers/all-MiniLM-L6-v2" in card
    assert BUNDLED_CONTENT_HASH in card
    assert "Apache License, Version 2.0" in (BUNDLED_MODEL_DIR / "NOTICE").read_text()
    config = json.loads((BUNDLED_MODEL_DIR / "config.json").read_text())
    assert config["tokenizer_name"] == "sentence-transformers/all-MiniLM-L6-v2"  # no build path


def test_encode_returns_normalised_float32_rows() -> None:
    vectors = load_embedder().encode(["fix the flaky login test", "x", "   "])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 256)
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[:2], 1.0, atol=1e-5)
    assert norms[2] == 0.0  # whitespace has no tokens: a zero row, never NaN
    assert not np.isnan(vectors).any()


def test_encode_empty_batch() -> None:
    assert load_embedder().encode([]).shape == (0, 256)


def test_vectors_carry_meaning() -> None:
    cat, kitten, revenue = load_embedder().encode(
        ["the cat sat on the mat", "a kitten sleeping on a rug", "quarterly revenue forecast"]
    )
    assert float(cat @ kitten) > float(cat @ revenue) + 0.1


def test_content_hash_ignores_location(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere"
    shutil.copytree(BUNDLED_MODEL_DIR, copy)
    embedder = load_embedder(str(copy))
    assert embedder.content_hash == BUNDLED_CONTENT_HASH
    assert np.allclose(embedder.encode(["same words"]), load_embedder().encode(["same words"]))


def test_content_hash_sees_changed_weights(tmp_path: Path) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(BUNDLED_MODEL_DIR, copy)
    with (copy / "tokenizer.json").open("a") as handle:
        handle.write(" ")
    assert model_content_hash(copy) != BUNDLED_CONTENT_HASH


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import huggingface_hub.constants

    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache


def test_uncached_hub_model_fails_fast_with_the_fix(hub_cache: Path) -> None:
    with pytest.raises(ModelNotAvailable, match="not in the local Hugging Face cache"):
        load_embedder("minishlab/potion-retrieval-32M")


def test_cached_hub_model_loads_offline(hub_cache: Path) -> None:
    """A model in the standard cache layout loads without any network access."""
    repo = hub_cache / "models--someorg--static-test"
    commit = "0" * 40
    snapshot = repo / "snapshots" / commit
    shutil.copytree(BUNDLED_MODEL_DIR, snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    embedder = load_embedder("someorg/static-test")
    assert embedder.model_id == "someorg/static-test"
    assert embedder.content_hash == BUNDLED_CONTENT_HASH
    assert embedder.encode(["hello"]).shape == (1, 256)


def test_embedding_never_imports_torch() -> None:
    probe = (
        "import sys; from funes.index.embed import load_embedder; "
        "load_embedder().encode(['does this pull in torch?']); "
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_the_bundled_model_loads_without_model2vec_and_embeds_as_it_does() -> None:
    probe = (
        "import sys; from funes.index.embed import load_embedder; "
        "load_embedder().encode(['a cold recall embeds one query']); "
        "print('model2vec' in sys.modules, 'huggingface_hub' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "False"]

    texts = [
        "why did we drop the redis cache",
        "def stitch(pieces): return ''.join(pieces)  # überschüssig",
        "ÜNÏCÖDÉ, CamelCaseIdentifiers and [UNK] tokens",
        "",
    ] * 20  # 80 texts: the word-cache path as well as the single-text one
    ours = load_embedder().encode(texts)
    reference = model2vec_unit_vectors(texts)
    assert np.allclose(ours, reference, atol=1e-5)
    assert np.allclose(load_embedder().encode(texts[:1]), reference[:1], atol=1e-5)


def model2vec_unit_vectors(texts: list[str]) -> np.ndarray:
    """What model2vec itself makes of `texts` with the bundled model, scaled to unit length as
    funes stores vectors: the reference funes's own numpy embedder must match."""
    from model2vec import StaticModel

    reference = np.asarray(
        StaticModel.from_pretrained(str(BUNDLED_MODEL_DIR)).encode(texts), dtype=np.float32
    )
    norms = np.linalg.norm(reference, axis=1, keepdims=True)
    np.divide(reference, norms, out=reference, where=norms > 0)
    return reference


def test_a_corpus_sized_batch_embeds_as_model2vec_does_without_scipy() -> None:
    """The default install has no scipy: the indexer's big batches are summed with numpy."""
    source = Path(subprocess.__file__).read_text()  # real code: many distinct words
    # 400 characters: under model2vec's 512-token cap, past which it truncates and funes does not.
    texts = [source[i : i + 400] for i in range(0, len(source), 400)] * 3  # ~25k words
    texts += ["", "   "]
    probe = (
        "import sys, json; from funes.index.embed import load_embedder; "
        "texts = json.load(sys.stdin); load_embedder().encode(texts); "
        "print('scipy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == "False"

    ours = load_embedder().encode(texts)
    reference = model2vec_unit_vectors(texts)
    assert np.allclose(ours, reference, atol=1e-5)


def test_threads_embedding_at_once_get_what_one_thread_gets() -> None:
    """The resident service embeds several callers' queries at once with one word cache: two
    threads extending it together failed ("operands could not be broadcast") or, worse, gave
    one query another word's vector."""
    from funes.index.word_embed import WordSumEncoder

    model = load_embedder().model
    # Every query brings words no other has: each call extends the cache.
    texts = [
        f"why did deploy{i} fail on host{i * 7} with error{i * 13} code{i}" for i in range(400)
    ]
    expected = WordSumEncoder(model).encode(texts)
    shared = WordSumEncoder(model)
    got: dict[int, np.ndarray] = {}
    failures: list[BaseException] = []
    start = threading.Barrier(8)

    def embed(first: int) -> None:
        start.wait()
        for i in range(first, len(texts), 8):
            try:
                got[i] = shared.encode([texts[i]])[0]
            except Exception as error:
                failures.append(error)

    threads = [threading.Thread(target=embed, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert all(np.array_equal(got[i], expected[i]) for i in range(len(texts)))
