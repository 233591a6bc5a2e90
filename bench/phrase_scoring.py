"""Scoring a question set whose gold is key phrases and lines (../shared/bench/coding-hard).

A hit is right by its *key phrases* when the passage as the agent sees it (the hit's block of
the agent format: its excerpt and its neighbours) holds every key phrase of the question,
case-insensitive, whitespace collapsed; and right by its *line* when the passage is the text of
a gold line (at least 3 shared word 5-grams covering at least half of the smaller set, or, for a
passage too short for three, its words a run of the line's). The BM25 baseline ranks transcript
lines: a line is right by phrases when it holds them all, by line when it is a gold line.

Reported per split, by where the answer lives (`answer_in`) and by word-overlap band.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

DEPTHS = (1, 5, 10, 50)
LOW_OVERLAP = 0.4
WORD = re.compile(r"\w+")
_QUOTE_PREFIX = re.compile(r"^(│ ?|  ~ \[[^\]]*\] |  ~ seq\d+ \w+: |  [⇐⇒] seq\d+ )", re.M)


def collapse(text: str) -> str:
    return " ".join(text.lower().split())


def seen_text(rendered: str) -> str:
    """An agent-format hit block as one string, without the quote bars and neighbour labels
    (a key phrase broken over two quoted lines is still found)."""
    return collapse(_QUOTE_PREFIX.sub("", rendered))


def holds_phrases(text: str, phrases: list[str]) -> bool:
    """`text` already collapsed (see `collapse`)."""
    return bool(phrases) and all(collapse(p) in text for p in phrases)


def grams(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def is_line_text(passage: str, line_text: str, line_grams: set[tuple[str, ...]]) -> bool:
    mine = grams(passage)
    if len(mine) < 3:
        words = " ".join(WORD.findall(passage.lower()))
        return bool(words) and words in " ".join(WORD.findall(line_text.lower()))
    shared = mine & line_grams
    return len(shared) >= 3 and len(shared) * 2 >= min(len(mine), len(line_grams))


def first_rank(flags: list[bool]) -> int | None:
    return next((i for i, ok in enumerate(flags, 1) if ok), None)


def at_depths(rank: int | None) -> dict[str, float]:
    return {f"hit{d}": float(rank is not None and rank <= d) for d in DEPTHS}


def bands(question: dict) -> list[str]:
    """The rows a question counts in: all, its answer's place, its overlap band."""
    overlap = "overlap<0.4" if question.get("overlap", 1.0) < LOW_OVERLAP else "overlap>=0.4"
    return ["all", f"in:{question.get('answer_in', '-')}", overlap]


class Tally:
    """hit@depths per (split, band, ranker, scorer)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, str, str], list[dict[str, float]]] = defaultdict(list)

    def add(self, question: dict, ranker: str, scorer: str, rank: int | None) -> None:
        for split in (question["split"], "all"):
            for band in bands(question):
                self.rows[(split, band, ranker, scorer)].append(at_depths(rank))

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for (split, band, ranker, scorer), rows in sorted(self.rows.items()):
            cell = {"n": len(rows)}
            for name in rows[0]:
                cell[name] = round(sum(r[name] for r in rows) / len(rows), 4)
            out.setdefault(split, {}).setdefault(band, {})[f"{ranker}/{scorer}"] = cell
        return out


def print_summary(summary: dict[str, Any]) -> None:
    head = "  ".join(f"@{d:<4d}" for d in DEPTHS)
    for split in ("heldout", "tuning", "all"):
        if split not in summary:
            continue
        print(f"\n{split}: {'band':14s} {'ranker/scorer':14s}   n  {head}")
        for band, legs in summary[split].items():
            for leg in ("funes/phrase", "funes/returned", "bm25/phrase", "funes/line", "bm25/line"):
                if leg not in legs:
                    continue
                cell = legs[leg]
                values = "  ".join(f"{cell[f'hit{d}']:.3f}" for d in DEPTHS)
                print(f"{'':{len(split) + 1}s} {band:14s} {leg:14s} {cell['n']:3d}  {values}")
