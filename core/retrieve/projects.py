"""A question that names a project ranks that project's passages first.

Developers name the project they ask about ("in chatbot-ui", "the sound recorder repo", "the
tokenizer page"), and the name is in the recorded working directory, not in the passages: full
text and the static vectors cannot see it, and another project's passages that share the
question's other words won. A candidate whose working directory's last folder the question names
gets a multiplier, only when the pool holds other projects too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# The lift of a named project's candidates (on the blended score).
PROJECT_LIFT = 1.2
# A run of the question's words names a folder when, joined, it is this much of the folder's
# name (letters and digits only): "recorder" names JSSoundRecorder, "code" does not name
# claude-code-log.
MIN_SHARE = 0.5
MIN_CHARS = 5
_WORD = re.compile(r"[a-z0-9]+")


def folder_name(workdir: str) -> str:
    last = re.split(r"[\\/]", workdir.rstrip("/\\"))[-1] if workdir else ""
    return "".join(_WORD.findall(last.lower()))


def names(query_words: list[str], folder: str) -> bool:
    """Whether a run of 1–3 consecutive query words, joined, is a large enough part of
    `folder` (see MIN_SHARE)."""
    if len(folder) < MIN_CHARS:
        return False
    for size in (1, 2, 3):
        for start in range(len(query_words) - size + 1):
            run = "".join(query_words[start : start + size])
            if len(run) >= MIN_CHARS and run in folder and len(run) >= MIN_SHARE * len(folder):
                return True
    return False


def project_lift(query: str, workdirs: list[str]) -> np.ndarray:
    """One multiplier per candidate: PROJECT_LIFT where the question names its project."""
    import numpy as np

    query_words = _WORD.findall(query.lower())
    folders = [folder_name(w) for w in workdirs]
    named = {f for f in set(folders) if names(query_words, f)}
    lift = np.ones(len(workdirs), dtype=np.float32)
    if not named or named == set(folders):
        return lift
    for i, folder in enumerate(folders):
        if folder in named:
            lift[i] = PROJECT_LIFT
    return lift
