"""LoCoMo recall benchmark: funes recall against the plain BM25 baseline, in one run.

    .venv/bin/python bench/locomo.py [--out DIR] [--k 50] [--half-life DAYS]
                                     [--reranker none|minilm|FOLDER] [--every N]

Builds the corpus with ../shared/bench/locomo/run_all.sh into a temporary folder (never into
shared/), indexes it into a temporary FUNES_HOME through the indexer, asks every question (or
every Nth) through `funes.retrieve.recall` (the code path of `funes recall`) with the second
pass `--reranker` names (default: funes's default, the first pass alone), writes the scorer's
results format and scores it beside the BM25 baseline. Also prints the split-half figures
(even / odd questions) used to tune weights.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo"


def build_corpus(out: Path) -> None:
    env = {**os.environ, "LOCOMO_OUT": str(out)}
    subprocess.run(["bash", str(SHARED / "run_all.sh")], env=env, check=True, capture_output=True)


def score(questions: Path, results: Path, title: str, extra: list[str] | None = None) -> dict:
    report = results.with_suffix(".score.json")
    cmd = [sys.executable, str(SHARED / "score.py"), str(questions), str(results)]
    cmd += ["--title", title, "--json", str(report), *(extra or [])]
    print(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return json.loads(report.read_text())


def split_half(questions: Path, results: Path) -> None:
    """hit@1 / hit@5 on even and odd questions: the halves weights were tuned and checked on."""
    sys.path.insert(0, str(SHARED))
    from score import evaluate, load_jsonl  # the benchmark's own scorer

    qs = [q for q in load_jsonl(questions) if q.get("scorable", True)]
    res = load_jsonl(results)
    for name, half in (("even (tuning half)", qs[0::2]), ("odd (held-out half)", qs[1::2])):
        overall = evaluate(half, res, 50)["overall"]
        print(
            f"  {name:22s} n={overall['n']:4d}  hit@1 {overall['hit1']:.1%}  "
            f"hit@5 {overall['hit5']:.1%}  hit@10 {overall['hit10']:.1%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="keep corpus and results here (default: temp)")
    parser.add_argument("--k", type=int, default=50, help="hits per question (scored: 50)")
    parser.add_argument("--half-life", type=float, default=None, help="recency half-life, days")
    parser.add_argument("--reranker", help="FUNES_RERANKER for this run (none, minilm, a folder)")
    parser.add_argument(
        "--model", help="embedding model of the memory (a model2vec folder; default: bundled)"
    )
    parser.add_argument("--every", type=int, default=1, help="ask every Nth question only")
    args = parser.parse_args()

    work = args.out or Path(tempfile.mkdtemp(prefix="funes-locomo-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["FUNES_HOME"] = str(work / "funes-home")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    corpus = work / "locomo"
    if not (corpus / "questions.jsonl").is_file():
        started = time.monotonic()
        build_corpus(corpus)
        print(f"corpus built in {time.monotonic() - started:.0f}s → {corpus}")
    questions = corpus / "questions.jsonl"
    home = corpus / "corpus" / "home"

    from funes.index.indexer import index
    from funes.retrieve import recall

    if args.reranker:
        os.environ["FUNES_RERANKER"] = args.reranker

    started = time.monotonic()
    report = index(
        paths=[home / ".claude" / "projects", home / ".codex" / "sessions"],
        everything=True,
        model=args.model,
    )
    print(f"indexed {report.chunks_added} chunks in {time.monotonic() - started:.1f}s")
    if args.every > 1:  # score the asked questions only, the baseline included
        asked = work / f"questions_every_{args.every}.jsonl"
        lines = questions.read_text().splitlines()[:: args.every]
        asked.write_text("".join(line + "\n" for line in lines))
        questions = asked
    results = work / "funes_results.jsonl"
    kwargs: dict = {"k": args.k, "neighbors": 0}
    if args.half_life is not None:
        kwargs["half_life_days"] = args.half_life
    latencies: list[float] = []
    second_passes: set[str] = set()
    with results.open("w") as sink:
        for line in questions.read_text().splitlines():
            q = json.loads(line)
            started = time.perf_counter()
            result = recall(q["question"], **kwargs)
            latencies.append(time.perf_counter() - started)
            second_passes.add(result.second_pass)
            # seq is the turn's index among the session's messages: the scorer's turn_index, which
            # names Codex turns (their uuids are synthetic).
            hits = [
                {"session_id": h.session_id, "turn_uuid": h.turn_uuid, "turn_index": h.seq}
                for h in result.hits
            ]
            sink.write(json.dumps({"id": q["id"], "hits": hits}) + "\n")
    latencies.sort()
    print(
        f"{len(latencies)} questions, second pass {sorted(second_passes)}, recall p50 "
        f"{latencies[len(latencies) // 2] * 1000:.0f} ms, p95 "
        f"{latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms"
    )

    score(questions, corpus / "results" / "bm25_turns.jsonl", "== BM25 baseline (same run)")
    score(questions, results, "== funes recall")
    print("split-half (funes recall):")
    split_half(questions, results)


if __name__ == "__main__":
    main()
