"""Text → vectors with a model2vec static model; the bundled MiniLM distillation by default.

The per-turn hook and the indexer embed on this path, so it never imports torch and never
touches the network: the bundled model ships in the package, and a Hub model is read from the
local Hugging Face cache only.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

BUNDLED_MODEL_ID = "funes-minilm-l6-static-256"
BUNDLED_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "minilm-l6-static-256"
# The files that decide what vectors a model produces: two models with equal hashes embed alike.
HASHED_FILES = ("model.safetensors", "tokenizer.json")


# Batches this large take the word-cache path (funes.index.word_embed); it gives the same
# vectors as model2vec for any text under its 512-token cap, several times faster on
# transcripts, but a single short query is cheaper the plain way.
WORD_PATH_MIN_TEXTS = 64


_word_encoder_lock = threading.Lock()


def _word_encoder(model: Any) -> Any:
    """The model's one word-cache encoder (None when its tokenizer is not BERT-style): threads
    that ask for it at once get the same one, not one each."""
    with _word_encoder_lock:
        return _word_encoder_of(model)


@cache
def _word_encoder_of(model: Any) -> Any:
    from funes.index import word_embed

    return word_embed.WordSumEncoder(model) if word_embed.supports(model) else None


def release_word_caches() -> None:
    """Drop every model's word cache (up to ~170 MB after a long run); the next batch relearns
    the words it needs. The indexer calls it before the end-of-run index builds, which need
    the memory more."""
    with _word_encoder_lock:
        _word_encoder_of.cache_clear()


class ModelNotAvailable(RuntimeError):
    """The requested embedding model cannot be loaded offline; the message says how to fix it."""


@dataclass(frozen=True)
class Embedder:
    model_id: str
    content_hash: str
    dim: int
    model: Any  # model2vec.StaticModel, typed loosely to keep model2vec out of import time

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (an all-zero row for text with no tokens)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        summed = len(texts) >= WORD_PATH_MIN_TEXTS or getattr(self.model, "sums_words", False)
        words = _word_encoder(self.model) if summed else None
        if words is not None:
            vectors = words.encode(texts)
        else:
            # No multiprocessing: the indexer owns parallelism, and forking a process that
            # holds Lance's threads is unsafe.
            vectors = self.model.encode(list(texts), use_multiprocessing=False)
            vectors = np.asarray(vectors, dtype=np.float32)  # fp16 models return float16
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        np.divide(vectors, norms, out=vectors, where=norms > 0)
        return vectors


def model_content_hash(folder: Path) -> str:
    """sha256 over the weights and tokenizer; stable across copies, paths and file modes."""
    digest = hashlib.sha256()
    for name in HASHED_FILES:
        digest.update(name.encode() + b"\0")
        with (folder / name).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


_load_lock = threading.Lock()


def load_embedder(name: str | None = None) -> Embedder:
    """The embedder for `name`: None or the bundled id, a local model2vec folder, or a Hub
    model id already in the local Hugging Face cache. Loaded once per process."""
    with _load_lock:  # concurrent first calls would otherwise load the model twice
        return _load_cached(name or BUNDLED_MODEL_ID)


@cache
def _load_cached(name: str) -> Embedder:
    folder = _resolve_folder(name)
    from funes.index.static_model import LightStaticModel, can_load_light

    if can_load_light(folder):
        model: Any = LightStaticModel(folder)  # no model2vec import: a cold recall's 0.2 s
    else:
        from model2vec import StaticModel

        # An absolute, existing path: from_pretrained treats anything else as a Hub id.
        model = StaticModel.from_pretrained(str(folder.resolve()))
    return Embedder(
        model_id=name,
        content_hash=model_content_hash(folder),
        dim=int(model.dim),
        model=model,
    )


def _resolve_folder(name: str) -> Path:
    if name == BUNDLED_MODEL_ID:
        if not (BUNDLED_MODEL_DIR / "model.safetensors").is_file():
            raise ModelNotAvailable(
                f"the bundled model is missing from {BUNDLED_MODEL_DIR}; reinstall funes or run "
                "scripts/build_static_model.py"
            )
        return BUNDLED_MODEL_DIR
    local = Path(name).expanduser()
    if local.is_dir():
        return local
    return _hub_cache_folder(name)


def _hub_cache_folder(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        # local_files_only: a missing model fails at once instead of hanging on the network.
        folder = Path(str(snapshot_download(repo_id, local_files_only=True)))
    except (LocalEntryNotFoundError, HFValidationError) as error:
        raise ModelNotAvailable(
            f"embedding model {repo_id!r} is not in the local Hugging Face cache; fetch it first "
            f"with `hf download {repo_id}` or use the bundled model ({BUNDLED_MODEL_ID})"
        ) from error
    missing = [f for f in HASHED_FILES if not (folder / f).is_file()]
    if missing:
        raise ModelNotAvailable(
            f"{repo_id!r} in the Hugging Face cache lacks {', '.join(missing)}: "
            "not a model2vec static model"
        )
    return folder
