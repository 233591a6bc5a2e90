"""Calibrating the weak-results note: how often it fires on answerable questions (false weak)
and on questions the memory cannot answer (caught).

    .venv/bin/python bench/weak_results.py [--coding-keep DIR] [--locomo-out DIR] [--every N]

Coding: the shared corpus indexed as bench/coding.py does (`--coding-keep` reuses an index),
asked bench/coding_questions.jsonl and ../shared/bench/coding-hard/questions.jsonl; a question
of category `none` has no answer there. LoCoMo: the corpus built with category-5 items
(`make_corpus.py --include-cat5`, into `--locomo-out`), indexed there; the adversarial questions
(category 5) have no answer. Every question is asked as an agent asks it (recall's defaults),
and the note is `funes.retrieve.weak.weak_note` on what came back. The sweep prints the rates
for other values of WEAK_COVERAGE over the same answers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODING_SETS = [
    HERE / "coding_questions.jsonl",
    HERE.parents[1] / "shared/bench/coding-hard/questions.jsonl",
]
LOCOMO_MAKER = HERE.parents[1] / "shared/bench/locomo/make_corpus.py"
SWEEP = (0.25, 0.34, 0.4, 0.5, 0.6, 0.67, 0.75)
# Made-up queries no memory answers: what the note is first for (a typo'd or nonsense search).
NONSENSE = [
    "purple elephant quantum banana recipe",
    "zxqv flurb gnorp blatt",
    "how tall is the moon giraffe in florp county",
    "qwerty asdf zxcv uiop hjkl",
    "which marzipan okapi won the snorkel derby",
    "translate the walrus sonnet into klingon poetry",
    "frobnicate the wibble sprocket velocity",
    "best sourdough starter for a saxophone",
]


def _questions(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _ask(questions: Iterable[tuple[str, bool]]) -> list[tuple[bool, float]]:
    """(answerable, best coverage share) per question, asked with recall's defaults."""
    from funes.retrieve import recall
    from funes.retrieve.weak import WEAK_MIN_TERMS, best_coverage

    rows = []
    for text, answerable in questions:
        result = recall(text)
        matched, total = best_coverage(text, result.hits)
        share = 1.0 if total < WEAK_MIN_TERMS or not result.hits else matched / total
        rows.append((answerable, share))
    return rows


def _rates(rows: list[tuple[bool, float]], threshold: float) -> tuple[float, float, int, int]:
    answerable = [share for ok, share in rows if ok]
    unanswerable = [share for ok, share in rows if not ok]
    false_weak = sum(share < threshold for share in answerable) / max(len(answerable), 1)
    caught = sum(share < threshold for share in unanswerable) / max(len(unanswerable), 1)
    return false_weak, caught, len(answerable), len(unanswerable)


def _report(name: str, rows: list[tuple[bool, float]]) -> dict:
    from funes.retrieve.weak import WEAK_COVERAGE

    print(f"== {name}")
    for threshold in SWEEP:
        false_weak, caught, n_ok, n_none = _rates(rows, threshold)
        mark = "  ← WEAK_COVERAGE" if threshold == WEAK_COVERAGE else ""
        print(
            f"  coverage < {threshold:.2f}: false weak {false_weak:6.1%} of {n_ok} answerable, "
            f"caught {caught:6.1%} of {n_none} unanswerable{mark}"
        )
    false_weak, caught, n_ok, n_none = _rates(rows, WEAK_COVERAGE)
    return {"false_weak": false_weak, "caught": caught, "answerable": n_ok, "unanswerable": n_none}


def coding(keep: Path | None) -> dict:
    sys.path.insert(0, str(HERE))
    import coding as coding_bench  # beside this script

    work = keep or Path(os.environ.get("TMPDIR", "/tmp")) / "funes-weak-coding"
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "funes-home").exists():
        coding_bench.build_memory(work)
    os.environ["FUNES_HOME"] = str(work / "funes-home")
    asked = [
        (q["question"], q["category"] != "none") for path in CODING_SETS for q in _questions(path)
    ]
    rows = _ask(asked)
    report = _report("coding (both question sets)", rows)
    nonsense = _ask((text, False) for text in NONSENSE)
    report["nonsense_caught"] = _report("coding corpus, nonsense queries", nonsense)["caught"]
    return report


def locomo(out: Path, every: int) -> dict:
    questions = out / "questions.jsonl"
    if not questions.is_file():
        subprocess.run(
            [sys.executable, str(LOCOMO_MAKER), "--include-cat5", "--out", str(out / "corpus")],
            env={**os.environ, "LOCOMO_OUT": str(out)},
            check=True,
        )
    os.environ["FUNES_HOME"] = str(out / "funes-home")
    if not (out / "funes-home").exists():
        from funes.index.indexer import index

        home = out / "corpus" / "home"
        index(paths=[home / ".claude" / "projects", home / ".codex" / "sessions"], everything=True)
    asked = [(q["question"], q["category"] != 5) for q in _questions(questions)[::every]]
    return _report(f"LoCoMo (every {every}th question)", _ask(asked))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coding-keep", type=Path, help="index the coding corpus here (reused)")
    parser.add_argument("--locomo-out", type=Path, help="LoCoMo corpus and index here (reused)")
    parser.add_argument("--every", type=int, default=1, help="LoCoMo: ask every Nth question")
    parser.add_argument("--json", type=Path, help="write the rates here as JSON")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    report = {"coding": coding(args.coding_keep)}
    if args.locomo_out:
        report["locomo"] = locomo(args.locomo_out, args.every)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
