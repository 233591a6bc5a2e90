"""Recency re-weighting: a gentle preference for newer passages, never a cliff.

funes multiplied scores by 0.5^(age/30 days), which halved its top-1 accuracy on history a few
months old: a year-old passage that answers the question lost to any recent one that didn't. Here
the decay only moves a bounded share of the score (`RECENCY_SHARE`), so an old exact answer
still wins against a new near-miss; `half_life_days == 0` turns recency off.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

# Chosen by measurement on LoCoMo (bench/locomo.py): see AGENTS.md.
DEFAULT_HALF_LIFE_DAYS = 90.0
RECENCY_SHARE = 0.1


def check_half_life(days: float) -> float:
    """`days` if it is a usable half-life (a finite number ≥ 0), else ValueError with the line
    to show: a NaN would make every score NaN and the ranking meaningless."""
    if not isinstance(days, int | float) or not math.isfinite(days) or days < 0:
        raise ValueError(
            f"--half-life must be a number of days ≥ 0 (0 turns recency off), not {days}"
        )
    return float(days)


def parse_ts(ts: str) -> datetime | None:
    if not ts:
        return None
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def recency_weight(
    ts: str, *, now: datetime, half_life_days: float, share: float = RECENCY_SHARE
) -> float:
    """A factor in [1 - share, 1]: 1 for now, sliding towards 1 - share with age.

    Unknown or unreadable timestamps count as fresh (no penalty for a missing clock).
    """
    if half_life_days <= 0:
        return 1.0
    moment = parse_ts(ts)
    if moment is None:
        return 1.0
    age_days = max((now - moment).total_seconds(), 0.0) / 86400.0
    decay = 0.5 ** (age_days / half_life_days)
    return (1.0 - share) + share * decay
