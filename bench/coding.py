"""Coding-question recall benchmark: does recall find the *turn* that answers, in real transcripts?

    .venv/bin/python bench/coding.py [--k 10] [--split all|tuning|heldout] [--json OUT]
                                     [--second-pass] [--keep DIR] [--show-misses]
                                     [--questions PATH] [--diagnose]

Copies ../shared/corpus to a temporary folder, indexes it into a temporary FUNES_HOME through
the indexer, asks every question of bench/coding_questions.jsonl through `funes.retrieve.recall`
(the code path of `funes recall` and the MCP `recall` tool), maps each hit back to its source
file and line (the turn's coordinates: `<session>:<line>` uuids carry the line, record uuids and
ids are looked up in the file, Hermes rows by id) and scores, per half:

- turn hit@1 / hit@5 and MRR@k: a hit is right when its turn is one of the gold turns;
- session hit@5: a hit comes from a gold source file;
- the same for a BM25 ranking of transcript lines (every string value of a JSON line is its
  text), computed in the same run as the baseline;
- the agent-format answer at the defaults (what the MCP tool returns): median and p90 tokens,
  counted as characters / 4, and turn hit@5 of those default answers.

Questions with no answer in the corpus (category `none`) are not scored for hits; their count
is reported. The first pass alone (the default ranking) is measured unless --second-pass.

`--questions PATH` asks another set. A set whose questions carry `key_phrases` (the shape of
../shared/bench/coding-hard/questions.jsonl) is scored as its README says (bench/phrase_scoring.py):
hit@1/5/10/50 by key phrases in the passage as the agent sees it and by gold line, per split,
per `answer_in` and per overlap band, beside BM25 over lines; `--diagnose` says, for each
question missed at 5, where its answer was lost (not in any one chunk, outside the candidate
pool, ranked below, or cut out of the shown passage).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import phrase_scoring  # beside this script in bench/
from plain_bm25 import BM25

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpus"
QUESTIONS = HERE / "coding_questions.jsonl"
LINE_UUID = re.compile(r":(\d+)(?:\.\d+)?$")
WORD = re.compile(r"[a-z0-9_]+")
# A place's seq, from its `→ funes get` command.
GET_LINE_TURN = re.compile(r" → funes get (?:--memory \S+ )?(?:-- )?\S+ (\S+)$", re.M)
_STOPWORDS = (
    "a an the of to in on for and or is are was were be been it its this that what which who "
    "how why when where did do does we i you our my me with by at from as into about there "
    "their they them can could should would will so not no yes up out"
)
STOP = frozenset(_STOPWORDS.split())
Key = tuple[str, str]  # (corpus-relative file, "L<line>" or "M<message id>")


# ---------------------------------------------------------------------- mapping turns to lines


class Locator:
    """Maps a hit (source path + turn uuid) to the gold coordinates of the question set."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._ids: dict[str, dict[str, int]] = {}
        self._replies: dict[str, dict[int, str]] = {}

    def same_reply(self, rel: str, line: int) -> set[int]:
        """The lines of the model reply `line` belongs to: Claude Code writes one record per
        content block (thinking, text, tool call) of a single reply, all with its message id."""
        if rel not in self._replies:
            replies: dict[int, str] = {}
            path = self.root / rel
            if path.suffix == ".jsonl" and path.is_file():
                with path.open(encoding="utf-8", errors="replace") as lines:
                    for number, text in enumerate(lines, 1):
                        for record in _records(text):
                            message = record.get("message")
                            if isinstance(message, dict) and isinstance(message.get("id"), str):
                                replies[number] = message["id"]
            self._replies[rel] = replies
        reply = self._replies[rel].get(line)
        if reply is None:
            return {line}
        return {n for n, r in self._replies[rel].items() if r == reply}

    def relative(self, source_path: str) -> str:
        try:
            return str(Path(source_path).resolve().relative_to(self.root.resolve()))
        except ValueError:
            return source_path

    def key(self, source_path: str, turn_uuid: str) -> Key:
        rel = self.relative(source_path)
        if rel.endswith((".db", ".json")):  # Hermes rows and legacy logs: the message id
            return rel, "M" + turn_uuid
        match = LINE_UUID.search(turn_uuid)
        if match:
            return rel, "L" + match.group(1)
        line = self._id_lines(rel).get(turn_uuid)
        return rel, ("L" + str(line)) if line else ("M" + turn_uuid)

    def _id_lines(self, rel: str) -> dict[str, int]:
        if rel not in self._ids:
            found: dict[str, int] = {}
            path = self.root / rel
            if path.is_file():
                with path.open(encoding="utf-8", errors="replace") as lines:
                    for number, line in enumerate(lines, 1):
                        for record in _records(line):
                            for field in ("uuid", "id"):
                                value = record.get(field)
                                if isinstance(value, str) and value not in found:
                                    found[value] = number
            self._ids[rel] = found
        return self._ids[rel]


def _records(line: str) -> list[dict]:
    decoder = json.JSONDecoder()
    out, position, line = [], 0, line.strip()
    while position < len(line):
        try:
            value, end = decoder.raw_decode(line, position)
        except json.JSONDecodeError:
            break
        if isinstance(value, dict):
            out.append(value)
        position = end
        while position < len(line) and line[position].isspace():
            position += 1
    return out


def gold_keys(question: dict, locator: Locator) -> set[Key]:
    """The gold turns, each widened to the whole model reply it is part of."""
    keys: set[Key] = set()
    for gold in question["gold"]:
        for line in gold.get("lines", []):
            keys |= {(gold["file"], f"L{n}") for n in locator.same_reply(gold["file"], line)}
        keys |= {(gold["file"], f"M{mid}") for mid in gold.get("message_ids", [])}
    return keys


# ---------------------------------------------------------------------- BM25 over lines


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def tokens(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP]


def corpus_units(root: Path) -> list[tuple[Key, str]]:
    """Every transcript line (or Hermes message) with its text: the baseline's documents."""
    units: list[tuple[Key, str]] = []
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8", errors="replace") as lines:
                for number, line in enumerate(lines, 1):
                    parts: list[str] = []
                    for record in _records(line):
                        _strings(record, parts)
                    if parts:
                        units.append(((rel, f"L{number}"), " ".join(parts)))
        elif path.suffix == ".db":
            with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
                for row_id, content, calls in conn.execute(
                    "select id, content, tool_calls from messages"
                ):
                    units.append(((rel, f"M{row_id}"), f"{content or ''} {calls or ''}"))
        elif path.suffix == ".json" and "hermes" in rel:
            data = json.loads(path.read_text())
            session = str(data.get("session_id") or path.stem)
            for index, message in enumerate(data.get("messages") or []):
                parts = []
                _strings(message, parts)
                mid = str(message.get("id") or f"{session}:{index}")
                units.append(((rel, f"M{mid}"), " ".join(parts)))
    return units


# ---------------------------------------------------------------------- scoring


def score_ranking(ranked: list[Key], gold: set[Key], k: int) -> dict[str, float]:
    files = {f for f, _ in gold}
    rank = next((i for i, key in enumerate(ranked[:k], 1) if key in gold), None)
    return {
        "hit1": float(rank == 1),
        "hit5": float(rank is not None and rank <= 5),
        "mrr": 1.0 / rank if rank else 0.0,
        "session5": float(any(f in files for f, _ in ranked[:5])),
    }


def summarise(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {"n": 0}
    out: dict[str, float] = {"n": len(rows)}
    for name in rows[0]:
        out[name] = round(sum(r[name] for r in rows) / len(rows), 4)
    return out


def approx_tokens(text: str) -> int:
    return (len(text) + 3) // 4


# ---------------------------------------------------------------------- main


def build_memory(work: Path, model: str | None = None) -> Path:
    corpus = work / "corpus"
    shutil.copytree(CORPUS, corpus)
    os.environ["FUNES_HOME"] = str(work / "funes-home")
    from funes.index.indexer import index

    started = time.monotonic()
    report = index(paths=[corpus], everything=True, model=model)
    print(
        f"indexed {report.chunks_added} chunks, {report.turns} turns from {report.units_read} "
        f"files in {time.monotonic() - started:.1f}s",
        file=sys.stderr,
    )
    return corpus


def load_questions(args: argparse.Namespace) -> list[dict]:
    path = args.questions or QUESTIONS
    questions = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if args.split != "all":
        questions = [q for q in questions if q["split"] == args.split]
    return questions


def open_memory(args: argparse.Namespace) -> Path:
    """The corpus copy, indexed into `--keep` (reused when already there) or a temporary folder."""
    work = args.keep or Path(tempfile.mkdtemp(prefix="funes-coding-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    corpus = (
        work / "corpus" if (work / "funes-home").exists() else build_memory(work, args.model)
    )  # --keep reuses an earlier index
    os.environ["FUNES_HOME"] = str(work / "funes-home")
    if args.second_pass:  # the live MiniLM re-score of the pool's top (nothing to precompute)
        os.environ["FUNES_RERANKER"] = "minilm"
    return corpus


def set_up(
    args: argparse.Namespace,
) -> tuple[list[dict], Path, list[tuple[Key, str]], BM25, dict[str, Any]]:
    """What both question sets need: the questions, the indexed corpus, its line units with a
    BM25 index over them, and the extra recall arguments (--recall-kwargs)."""
    questions = load_questions(args)
    corpus = open_memory(args)
    units = corpus_units(corpus)
    bm25 = BM25([tokens(text) for _, text in units])
    extra = json.loads(args.recall_kwargs) if args.recall_kwargs else {}
    return questions, corpus, units, bm25, extra


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions, corpus, units, bm25, extra = set_up(args)
    from funes.retrieve import format_agent, recall

    locator = Locator(corpus)

    per_split: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    by_category: dict[str, list] = defaultdict(list)
    answer_tokens: list[int] = []
    budget_tokens: list[int] = []
    misses: list[str] = []
    latencies: list[float] = []
    second_passes: set[str] = set()
    for question in questions:
        text = question["question"]
        started = time.perf_counter()
        result = recall(text, k=args.k, neighbors=0, second_pass=args.second_pass, **extra)
        latencies.append(time.perf_counter() - started)
        second_passes.add(result.second_pass)
        # The answer as the agent sees it: the MCP tool's defaults, agent format.
        default = recall(text, second_pass=args.second_pass, **extra)
        answer = format_agent(default)
        answer_tokens.append(approx_tokens(answer))
        budget_shown: list = []
        if args.max_tokens:
            budgeted, budget_shown = _budgeted_answer(text, args, extra)
            budget_tokens.append(approx_tokens(budgeted))
        if question["category"] == "none":
            continue
        gold = gold_keys(question, locator)
        ranked = [locator.key(h.source_path, h.turn_uuid) for h in result.hits]
        bm25_ranked = [units[i][0] for i in bm25.top(tokens(text), args.k)]
        default_ranked = [locator.key(h.source_path, h.turn_uuid) for h in default.hits]
        funes = score_ranking(ranked, gold, args.k)
        funes["default_hit5"] = float(any(key in gold for key in default_ranked[:5]))
        if args.max_tokens:
            shown = [locator.key(h.source_path, h.turn_uuid) for h in budget_shown]
            funes["budget_hit5"] = float(any(key in gold for key in shown[:5]))
            funes["budget_hit_any"] = float(any(key in gold for key in shown))
        base = score_ranking(bm25_ranked, gold, args.k)
        for split in (question["split"], "all"):
            per_split[split]["funes"].append(funes)
            per_split[split]["bm25"].append(base)
        by_category[question["category"]].append(funes)
        if args.show_misses and not funes["hit5"]:
            top = ", ".join(f"{f.split('/')[-1][:24]}:{ln}" for f, ln in ranked[:3])
            misses.append(f"[{question['split']}] {question['id']} {text}  → {top}")

    report: dict[str, Any] = {
        "questions": len(questions),
        "unanswerable": sum(q["category"] == "none" for q in questions),
        "k": args.k,
        "second_pass": sorted(second_passes),
        "recall_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "splits": {
            split: {name: summarise(rows) for name, rows in legs.items()}
            for split, legs in sorted(per_split.items())
        },
        "by_category": {c: summarise(rows) for c, rows in sorted(by_category.items())},
        "answer_tokens": _spread(answer_tokens),
    }
    if budget_tokens:
        report["budget_tokens"] = {"max_tokens": args.max_tokens, **_spread(budget_tokens)}
    report["misses"] = misses
    return report


def run_phrases(args: argparse.Namespace) -> dict[str, Any]:
    """A key-phrase set (bench/phrase_scoring.py): hit@1/5/10/50 by phrases and by gold line,
    funes beside BM25 over lines, per split and band."""
    from funes.retrieve import format_agent, recall
    from funes.retrieve.page import page_hit_texts

    questions, corpus, units, bm25, extra = set_up(args)
    unit_text = dict(units)
    depth = max(phrase_scoring.DEPTHS)
    tally = phrase_scoring.Tally()
    diagnosis = Diagnosis(corpus) if args.diagnose else None
    answer_tokens: list[int] = []
    latencies: list[float] = []
    misses: list[str] = []
    for question in questions:
        text = question["question"]
        answer_tokens.append(approx_tokens(format_agent(recall(text, **extra))))
        if question["category"] == "none":
            continue
        started = time.perf_counter()
        result = recall(text, k=depth, **extra)
        latencies.append(time.perf_counter() - started)
        phrases = question["key_phrases"]
        gold_lines = [(g["file"], f"L{n}") for g in question["gold"] for n in g["lines"]]
        gold = [(t, phrase_scoring.grams(t)) for t in (unit_text.get(k, "") for k in gold_lines)]
        # Each hit as the agent reads it in the whole answer (the best hit may be shown longer
        # than the rest).
        seen = [phrase_scoring.seen_text(text) for text in page_hit_texts(result)]
        phrase_rank = phrase_scoring.first_rank(
            [phrase_scoring.holds_phrases(s, phrases) for s in seen]
        )
        line_rank = phrase_scoring.first_rank(
            [any(phrase_scoring.is_line_text(h.text, t, g) for t, g in gold) for h in result.hits]
        )
        tally.add(question, "funes", "phrase", phrase_rank)
        tally.add(question, "funes", "line", line_rank)
        # What recall hands back (`--json`, the library): each hit's whole passage with its
        # neighbours and tool partner, where the page shows places 2-5 as snippets.
        returned = [phrase_scoring.collapse(returned_text(h)) for h in result.hits]
        tally.add(
            question,
            "funes",
            "returned",
            phrase_scoring.first_rank([phrase_scoring.holds_phrases(t, phrases) for t in returned]),
        )
        base = [units[i] for i in bm25.top(tokens(text), depth)]
        tally.add(
            question,
            "bm25",
            "phrase",
            phrase_scoring.first_rank(
                [phrase_scoring.holds_phrases(phrase_scoring.collapse(t), phrases) for _, t in base]
            ),
        )
        gold_set = set(gold_lines)
        tally.add(
            question, "bm25", "line", phrase_scoring.first_rank([k in gold_set for k, _ in base])
        )
        if phrase_rank is None or phrase_rank > 5:
            why = diagnosis.why(question, result, seen, extra) if diagnosis else ""
            misses.append(
                f"[{question['split']}] {question['id']} {question['answer_in']:11s} "
                f"rank={phrase_rank} {why} :: {text}"
            )
    report: dict[str, Any] = {
        "questions": len(questions),
        "unanswerable": sum(q["category"] == "none" for q in questions),
        "recall_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "phrase_sets": tally.summary(),
        "answer_tokens": _spread(answer_tokens),
        "misses": misses,
    }
    if diagnosis:
        report["diagnosis"] = dict(diagnosis.counts)
    return report


def returned_text(hit: Any) -> str:
    """A hit as recall returns it: its passage, its neighbours and its tool partner."""
    parts = [hit.text, *(n.text for n in hit.neighbours)]
    if hit.partner is not None:
        parts.append(hit.partner.text)
    return "\n".join(part or "" for part in parts)


class Diagnosis:
    """Where a missed answer was lost: no single chunk holds its phrases; its chunk is outside
    the candidate pool; in the pool but ranked below 5; or ranked but cut from the shown text."""

    def __init__(self, corpus: Path) -> None:
        from funes.retrieve.search import open_store

        store, _, _ = open_store(None)
        rows = store.table.search().select(["id", "text", "block_type"]).limit(10**7).to_list()
        self.chunks = [
            (r["id"], phrase_scoring.collapse(r["text"] or ""), r["block_type"]) for r in rows
        ]
        self.counts: dict[str, int] = defaultdict(int)

    def why(self, question: dict, result: Any, seen: list[str], extra: dict) -> str:
        from funes.retrieve import recall

        phrases = question["key_phrases"]
        holders = {
            cid: kind
            for cid, text, kind in self.chunks
            if phrase_scoring.holds_phrases(text, phrases)
        }
        if not holders:
            cause, rank = "no-chunk", None
        else:
            whole = recall(question["question"], k=10_000, neighbors=0, **extra)
            ranks = [i for i, h in enumerate(whole.hits, 1) if h.id in holders]
            rank = ranks[0] if ranks else None
            cause = "not-in-pool" if rank is None else "ranked-below" if rank > 5 else "cut"
        self.counts[cause] += 1
        kinds = ",".join(sorted(set(holders.values()))) or "-"
        verdict = cause if rank is None else f"{cause}@{rank}"
        return f"{verdict} ({kinds})"


def _budgeted_answer(text: str, args: argparse.Namespace, extra: dict) -> tuple[str, list]:
    """The `--max-tokens` answer as the CLI and MCP tool build it, and the hits it shows."""
    from funes.retrieve import format_agent, recall
    from funes.retrieve.budget import hits_for_budget
    from funes.retrieve.pipeline import DEFAULT_K

    k = hits_for_budget(args.max_tokens, DEFAULT_K)
    result = recall(text, k=k, second_pass=args.second_pass, **extra)
    answer = format_agent(result, max_tokens=args.max_tokens)
    seqs = {m.strip("'") for m in GET_LINE_TURN.findall(answer)}
    shown = [h for h in result.hits if str(h.seq) in seqs]
    return answer, shown


def _spread(values: list[int]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "p90": ordered[int(len(ordered) * 0.9)],
        "max": ordered[-1],
    }


def print_report(report: dict[str, Any]) -> None:
    print(
        f"{report['questions']} questions ({report['unanswerable']} with no answer, not scored), "
        f"k={report['k']}, second pass {report['second_pass']}, recall p50 "
        f"{report['recall_p50_ms']} ms"
    )
    print(f"{'split':8s} {'ranker':6s}    n  turn@1  turn@5    MRR  sess@5")
    for split, legs in report["splits"].items():
        for name in ("funes", "bm25"):
            s = legs[name]
            print(
                f"{split:8s} {name:6s} {s['n']:4d} {s['hit1']:7.3f} {s['hit5']:7.3f} "
                f"{s['mrr']:6.3f} {s['session5']:7.3f}"
            )
        print(
            f"{split:8s} funes default answer (agent format) turn@5 "
            f"{legs['funes']['default_hit5']:.3f}"
        )
        if "budget_hit5" in legs["funes"]:
            print(
                f"{split:8s} funes --max-tokens answer turn@5 {legs['funes']['budget_hit5']:.3f}, "
                f"any shown {legs['funes']['budget_hit_any']:.3f}"
            )
    print("by category (funes, all splits):")
    for category, s in report["by_category"].items():
        print(f"  {category:10s} n={s['n']:3d} turn@1 {s['hit1']:.3f} turn@5 {s['hit5']:.3f}")
    t = report["answer_tokens"]
    print(
        f"default agent answer tokens (chars/4): median {t['median']}, p90 {t['p90']}, "
        f"max {t['max']}"
    )
    if "budget_tokens" in report:
        b = report["budget_tokens"]
        print(
            f"--max-tokens {b['max_tokens']} answer: median {b['median']}, p90 {b['p90']}, "
            f"max {b['max']}"
        )
    for miss in report["misses"]:
        print("  miss " + miss)


def print_phrase_report(report: dict[str, Any]) -> None:
    print(
        f"{report['questions']} questions ({report['unanswerable']} with no answer, not scored), "
        f"recall(k=50) p50 {report['recall_p50_ms']} ms"
    )
    phrase_scoring.print_summary(report["phrase_sets"])
    t = report["answer_tokens"]
    print(f"\ndefault agent answer tokens: median {t['median']}, p90 {t['p90']}, max {t['max']}")
    if "diagnosis" in report:
        print(f"misses at 5 by cause: {report['diagnosis']}")
    for miss in report["misses"]:
        print("  miss " + miss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=10, help="hits scored per question")
    parser.add_argument("--split", choices=["all", "tuning", "heldout"], default="all")
    parser.add_argument("--json", type=Path, help="write the report here as JSON")
    parser.add_argument("--second-pass", action="store_true", help="run the MiniLM second pass")
    parser.add_argument("--keep", type=Path, help="index into (or reuse) this folder")
    parser.add_argument("--show-misses", action="store_true", help="list questions missed at 5")
    parser.add_argument("--max-tokens", type=int, help="also measure answers packed to N tokens")
    parser.add_argument("--questions", type=Path, help="another question set (JSON lines)")
    parser.add_argument("--diagnose", action="store_true", help="say where each miss was lost")
    parser.add_argument(
        "--model", help="embedding model of a new memory (a model2vec folder; default: bundled)"
    )
    parser.add_argument("--recall-kwargs", help=argparse.SUPPRESS)  # JSON, for experiments
    args = parser.parse_args()
    if not args.second_pass:
        os.environ.setdefault("FUNES_RERANKER", "none")
    if args.questions and "key_phrases" in args.questions.read_text().split("\n", 1)[0]:
        publish(run_phrases(args), print_phrase_report, args.json)
    else:
        publish(run(args), print_report, args.json)


def publish(
    report: dict[str, Any], show: Callable[[dict[str, Any]], None], path: Path | None
) -> None:
    """Print `report` with `show` and, when `path` is given (--json), write it there as JSON."""
    show(report)
    if path:
        path.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
