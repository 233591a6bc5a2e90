"""Handoff vs recall on LoCoMo: what each way of carrying memory puts before an agent, and what
it costs.

    .venv/bin/python bench/handoff.py [--out DIR] [--budgets 250,500,565,1000,2000] [--every N]
                                      [--start I]
                                      [--second-pass] [--catchup-tokens N] [--json OUT]

For every LoCoMo question, the context each strategy would hand an agent:

- `handoff-all`: every session summary of the question's conversation (a written handoff that
  grows with each session);
- `handoff-last`: the last session's summary only (the most recent handoff);
- `facts-all`: every observation LoCoMo extracted from the conversation, one line each;
- `facts-top10`: the 10 observations BM25 ranks best for the question;
- `funes-recall`: funes's agent-format answer at its defaults (what the MCP `recall` tool
  returns), over a memory holding all ten conversations, unfiltered;
- `funes-recall-<N>`: the same with `--max-tokens N`;
- `catchup-last`: `funes catchup` of the conversation's last session at its default
  `--max-tokens` (1,500): the digest a fresh session would paste, beside `handoff-last`;
- `catchup-all`: `funes catchup` of every session of the conversation at `--catchup-tokens`
  each (default 200), concatenated: a digest per session, beside `handoff-all`;
- `full-transcript`: the whole conversation;
- `evidence-only`: a ceiling, not a strategy: exactly the dialog turns LoCoMo names as the
  question's evidence, each with its session's date (what a recall that ranked perfectly and
  showed nothing else would hand over).

Measures: tokens per question (characters / 4, the counter funes budgets with; no model
tokenizer is loaded), answer-token recall (the share of the gold answer's content words found
in the context; a question counts as kept when that share is at least 0.5), evidence presence
(a dialog turn LoCoMo names as evidence is in the context: defined for facts, whose lines carry
their turn ids, for funes, whose hits and neighbours name their turns, and for the full
transcript; undefined for summaries), tokens per kept answer, and all of it by category.
`kept, dates as words` is the same count with every ISO date in a context also read as words
(`2023-05-08` as `8 May 2023`): LoCoMo's answers name dates in words, the summaries and the
transcript write them so, and funes writes ISO times; the plain count reads a date funes shows as
missing its month and day.

What it shows: whether the answer's words *reach* the agent, and at what price. What it does
not: whether an agent would answer correctly from that context (no model reads it here), nor
how summaries written by another model, or at other moments, would fare.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coding import GET_LINE_TURN, publish  # beside this script in bench/, as is plain_bm25
from plain_bm25 import BM25

HERE = Path(__file__).resolve().parent
RAW = HERE.parents[1] / "shared" / "bench" / "locomo" / "raw" / "locomo10.json"
WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = (
    "a an the of to in on at for and or but is are was were be been being it its this that "
    "these those with by from as into about over after before than then so not no yes do "
    "does did has have had he she they them his her their him i you we our my me your "
    "what which who whom when where why how"
)
STOP = frozenset(_STOPWORDS.split())
# make_corpus.py names a conversation's session n uuid5(NAMESPACE, "<sample_id>/session_<n>").
LOCOMO_NAMESPACE = uuid.uuid5(
    uuid.NAMESPACE_URL, "https://github.com/snap-research/LoCoMo/data/locomo10.json"
)


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP}


ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# calendar.month_name would follow the locale; LoCoMo's answers are English.
MONTHS = [
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
]


def dates_as_words(text: str) -> str:
    """`text` with each ISO date followed by the same date in words: 2023-05-08 8 May 2023."""

    def spelled(match: re.Match[str]) -> str:
        year, month, day = (int(g) for g in match.groups())
        if not 1 <= month <= 12:
            return match.group(0)
        return f"{match.group(0)} {day} {MONTHS[month - 1]} {year}"

    return ISO_DATE.sub(spelled, text)


@dataclass(frozen=True, slots=True)
class Scored:
    """One strategy's context for one question, measured."""

    tokens: int
    recall: float | None  # answer-token recall; None when the answer has no content word
    recall_dates_as_words: float | None
    found: bool | None  # evidence present; None where a strategy cannot say
    category: str


def tokens_of(text: str) -> int:
    return -(-len(text) // 4)


def _ordered(mapping: dict[str, Any], kind: str) -> list[tuple[int, Any]]:
    """`session_<n>_<kind>` entries of a LoCoMo sample, by session number."""
    out = []
    for key, value in mapping.items():
        match = re.fullmatch(rf"session_(\d+)_{kind}", key)
        if match and value:
            out.append((int(match.group(1)), value))
    return sorted(out)


class Conversation:
    """What LoCoMo gives for one conversation: summaries, observations, the dialog."""

    def __init__(self, sample: dict[str, Any]) -> None:
        self.sample_id = str(sample["sample_id"])
        self.session_numbers = [n for n, _ in _sessions(sample["conversation"])]
        self.summaries = [text for _, text in _ordered(sample["session_summary"], "summary")]
        self.facts: list[tuple[str, str]] = []  # (line, dialog id)
        for _, by_speaker in _ordered(sample["observation"], "observation"):
            for speaker, items in by_speaker.items():
                for text, dia in items:
                    for one in dia if isinstance(dia, list) else [dia]:
                        self.facts.append((f"{speaker}: {text}", str(one)))
        conv = sample["conversation"]
        lines = []
        # Each dialog turn as the evidence ceiling shows it: its session's date, then the turn.
        self.turns: dict[str, str] = {}
        for n, turns in _sessions(conv):
            date = conv.get(f"session_{n}_date_time", "")
            lines.append(f"[session {n}, {date}]")
            for t in turns:
                line = f"{t['speaker']}: {t.get('text', '')}"
                lines.append(line)
                self.turns[str(t.get("dia_id"))] = f"[{date}] {line}"
        self.transcript = "\n".join(lines)
        self._bm25 = BM25([words(line) for line, _ in self.facts])

    def top_facts(self, question: str, k: int) -> list[tuple[str, str]]:
        return [self.facts[i] for i in self._bm25.top(words(question), k, STOP)]


def _sessions(conv: dict[str, Any]) -> list[tuple[int, list[dict]]]:
    out = []
    for key, value in conv.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if match and isinstance(value, list):
            out.append((int(match.group(1)), value))
    return sorted(out, key=lambda p: p[0])


# ---------------------------------------------------------------------- strategies


def answer_recall(answer: str, context: str) -> float | None:
    wanted = content_words(answer)
    if not wanted:
        return None
    have = set(words(context))
    return len(wanted & have) / len(wanted)


def funes_context(question: dict, budget: int | None, second_pass: bool) -> tuple[str, bool]:
    """funes's agent-format answer, and whether an evidence turn is among its hits/neighbours."""
    from funes.retrieve import format_agent, recall
    from funes.retrieve.budget import hits_for_budget
    from funes.retrieve.pipeline import DEFAULT_K

    k = hits_for_budget(budget, DEFAULT_K) if budget else DEFAULT_K
    result = recall(question["question"], k=k, second_pass=second_pass)
    text = format_agent(result, max_tokens=budget)
    gold_uuid = {(t["session_id"], t["turn_uuid"]) for t in question["gold_turns"]}
    gold_seq = {(t["session_id"], int(t["turn_index"])) for t in question["gold_turns"]}
    by_uuid = {hit.turn_uuid: hit for hit in result.hits}
    found = False
    for block in text.split("\n---\n"):
        shown = GET_LINE_TURN.search(block)
        hit = by_uuid.get(shown.group(1).strip("'")) if shown else None
        if hit is None:
            continue  # the header, or a hit packed out under the budget
        turns = [(hit.turn_uuid, hit.seq)]
        turns += [(n.turn_uuid, n.seq) for n in hit.neighbours if f" seq{n.seq}] " in block]
        for turn_uuid, seq in turns:
            if (hit.session_id, turn_uuid) in gold_uuid or (hit.session_id, seq) in gold_seq:
                found = True
    return text, found


def catchup_context(conv: Conversation, numbers: list[int], max_tokens: int) -> str:
    """`funes catchup` of each of the conversation's sessions `numbers`, concatenated."""
    from funes.retrieve.catchup import build_catchup, format_catchup

    digests = []
    for n in numbers:
        session_id = str(uuid.uuid5(LOCOMO_NAMESPACE, f"{conv.sample_id}/session_{n}"))
        digests.append(format_catchup(build_catchup(session_id, max_tokens=max_tokens), max_tokens))
    return "\n".join(digests)


def run(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from locomo import build_corpus  # the LoCoMo corpus, built as the recall benchmark builds it

    work = args.out or Path(tempfile.mkdtemp(prefix="funes-handoff-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["FUNES_HOME"] = str(work / "funes-home")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    if not args.second_pass:
        os.environ.setdefault("FUNES_RERANKER", "none")
    corpus = work / "locomo"
    if not (corpus / "questions.jsonl").is_file():
        build_corpus(corpus)
    home = corpus / "corpus" / "home"
    from funes.index.indexer import index

    report = index(
        paths=[home / ".claude" / "projects", home / ".codex" / "sessions"], everything=True
    )
    print(f"indexed {report.chunks_added} new chunks", file=sys.stderr)

    samples = {s["sample_id"]: Conversation(s) for s in json.loads(RAW.read_text())}
    questions = [json.loads(line) for line in (corpus / "questions.jsonl").read_text().splitlines()]
    questions = [
        q for q in questions if q.get("scorable", True) and q.get("answer") not in (None, "")
    ]
    questions = questions[args.start :: args.every]
    budgets = [int(b) for b in args.budgets.split(",") if b]
    names = ["handoff-all", "handoff-last", "facts-all", "facts-top10", "funes-recall"]
    names += [f"funes-recall-{b}" for b in budgets] + ["catchup-last", "catchup-all"]
    names += ["full-transcript", "evidence-only"]
    catchups: dict[str, dict[str, str]] = defaultdict(dict)  # one digest per conversation
    stats: dict[str, list[Scored]] = defaultdict(list)
    started = time.monotonic()
    for q in questions:
        conv = samples[q["sample_id"]]
        evidence = {str(e) for e in q.get("evidence", [])}
        contexts: dict[str, tuple[str, bool | None]] = {
            "handoff-all": ("\n\n".join(conv.summaries), None),
            "handoff-last": (conv.summaries[-1] if conv.summaries else "", None),
            "facts-all": (
                "\n".join(line for line, _ in conv.facts),
                any(d in evidence for _, d in conv.facts),
            ),
            "full-transcript": (conv.transcript, True),
            "evidence-only": ("\n".join(conv.turns.get(e, "") for e in sorted(evidence)), True),
        }
        top = conv.top_facts(q["question"], 10)
        contexts["facts-top10"] = (
            "\n".join(line for line, _ in top),
            any(d in evidence for _, d in top),
        )
        mine = catchups[conv.sample_id]
        if not mine:
            mine["catchup-last"] = catchup_context(conv, conv.session_numbers[-1:], 1500)
            mine["catchup-all"] = catchup_context(conv, conv.session_numbers, args.catchup_tokens)
        contexts["catchup-last"] = (mine["catchup-last"], None)
        contexts["catchup-all"] = (mine["catchup-all"], None)
        contexts["funes-recall"] = funes_context(q, None, args.second_pass)
        for budget in budgets:
            contexts[f"funes-recall-{budget}"] = funes_context(q, budget, args.second_pass)
        answer = str(q["answer"])
        for name in names:
            text, found = contexts[name]
            stats[name].append(
                Scored(
                    tokens_of(text),
                    answer_recall(answer, text),
                    answer_recall(answer, dates_as_words(text)),
                    found,
                    q["category_name"],
                )
            )
    print(f"{len(questions)} questions in {time.monotonic() - started:.0f}s", file=sys.stderr)
    rows = [_row(name, stats[name]) for name in names]
    return {
        "questions": len(questions),
        "token_counter": "characters / 4",
        "kept": "answer-token recall >= 0.5",
        "second_pass": "on" if args.second_pass else "none",
        "rows": rows,
    }


def _row(name: str, items: list[Scored]) -> dict[str, Any]:
    scored = [i for i in items if i.recall is not None]
    kept = sum(1 for i in scored if _kept(i.recall))
    tokens = sum(i.tokens for i in items)
    defined = [i for i in items if i.found is not None]
    by_category: dict[str, dict[str, float]] = {}
    for category in sorted({i.category for i in items}):
        mine = [i for i in scored if i.category == category]
        by_category[category] = {
            "n": len(mine),
            "answer_recall_ge_half": _share(sum(_kept(i.recall) for i in mine), len(mine)),
            "answer_recall_ge_half_dates_as_words": _share(
                sum(_kept(i.recall_dates_as_words) for i in mine), len(mine)
            ),
        }
    return {
        "strategy": name,
        "tokens_per_question": round(tokens / max(1, len(items)), 1),
        "median_tokens": statistics.median(i.tokens for i in items) if items else 0,
        "answer_recall_ge_half": _share(kept, len(scored)),
        "answer_recall_ge_half_dates_as_words": _share(
            sum(_kept(i.recall_dates_as_words) for i in scored), len(scored)
        ),
        "mean_answer_recall": round(sum(i.recall or 0.0 for i in scored) / max(1, len(scored)), 4),
        "evidence_any": _share(sum(bool(i.found) for i in defined), len(defined))
        if defined
        else None,
        "tokens_per_success": round(tokens / kept, 1) if kept else None,
        "by_category": by_category,
    }


def _kept(recall: float | None) -> bool:
    return recall is not None and recall >= 0.5


def _share(count: int, total: int) -> float:
    return round(count / max(1, total), 4)


def print_report(report: dict[str, Any]) -> None:
    print(
        f"{report['questions']} LoCoMo questions with an answer; tokens = "
        f"{report['token_counter']}; kept = {report['kept']}; second pass: {report['second_pass']}"
    )
    rows = report["rows"]
    base = next(r for r in rows if r["strategy"] == "handoff-all")
    print(
        f"{'strategy':20s} {'tok/q':>8s} {'× h-all':>8s} {'kept':>7s} {'evidence':>9s} "
        f"{'tok/kept':>9s} {'kept, dates as words':>21s}"
    )
    for r in rows:
        evidence = "-" if r["evidence_any"] is None else f"{r['evidence_any']:.1%}"
        per = "-" if r["tokens_per_success"] is None else f"{r['tokens_per_success']:.0f}"
        ratio = r["tokens_per_question"] / base["tokens_per_question"]
        print(
            f"{r['strategy']:20s} {r['tokens_per_question']:8.0f} {ratio:8.3f} "
            f"{r['answer_recall_ge_half']:7.1%} {evidence:>9s} {per:>9s} "
            f"{r['answer_recall_ge_half_dates_as_words']:21.1%}"
        )
    categories = sorted(base["by_category"])
    for key, title in (
        ("answer_recall_ge_half", "kept"),
        ("answer_recall_ge_half_dates_as_words", "kept, dates as words"),
    ):
        print(f"{title} by category: " + ", ".join(categories))
        for r in rows:
            cells = " ".join(f"{r['by_category'][c][key]:7.1%}" for c in categories)
            print(f"  {r['strategy']:20s} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="keep (and reuse) corpus and memory here")
    # 565 is an eighth of handoff-all's tokens per question (4,523): the goal line.
    parser.add_argument("--budgets", default="250,500,565,1000,2000", help="--max-tokens budgets")
    parser.add_argument("--every", type=int, default=1, help="every Nth question only")
    parser.add_argument(
        "--start", type=int, default=0, help="from this question (--start 1 --every 2: odd half)"
    )
    parser.add_argument("--second-pass", action="store_true", help="let the second pass run")
    parser.add_argument(
        "--catchup-tokens", type=int, default=200, help="catchup-all: --max-tokens per session"
    )
    parser.add_argument("--json", type=Path, help='write {"rows": [...]} and the rest here')
    args = parser.parse_args()
    publish(run(args), print_report, args.json)


if __name__ == "__main__":
    main()
