"""Redaction in both directions: what it flags in history that holds no secret (false
positives), which credentials it catches (true positives), and how fast it runs.

- False positives: the shared corpus (real transcripts, no live credentials) or, with
  `--haystack DIR`, a generated heavy-user history (`../shared/bench/haystack`) whose tool
  outputs are real source code. Every finding there is either a genuine leak in those public
  files or a false positive; each is counted by kind and printed with its context (⟦…⟧ marks
  what would be replaced). Texts are parsed by funes's own trace sources, as the indexer does;
  for the corpus the raw JSON lines are scanned too (what a file-level gate sees).
- True positives: the credentials `tests/test_redact.py` builds at run time (one or more per
  kind, plus the forms detect-secrets' plugins hold back at push time): how many are caught.
- Speed: ~1 KB chunks of block text, against a model2vec encode of the same chunks in the same
  run (the embedding cost every chunk pays anyway).

Run: `python bench/redaction_fp.py [--corpus DIR | --haystack DIR] [--snippets N] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
TESTS = Path(__file__).resolve().parents[1] / "tests"
CHUNK_CHARS = 1000


def block_texts(corpus: Path) -> list[str]:
    """Every block's text, parsed by the trace source that owns each corpus file."""
    from funes.traces import all_sources

    sources = all_sources()
    texts: list[str] = []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        source = next((s for s in sources if s.owns(path)), None)
        if source is None:
            continue
        try:
            result = source.read(path)
        except Exception as error:  # a parser bug must not hide the redaction figures
            print(f"skip {path.name}: {error!r}", file=sys.stderr)
            continue
        texts.extend(block.text for turn in result.turns for block in turn.blocks if block.text)
    return texts


def raw_lines(corpus: Path) -> list[str]:
    lines: list[str] = []
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.suffix in {".jsonl", ".json", ".md", ".txt"}:
            lines.extend(path.read_text(errors="replace").splitlines())
    return lines


def findings_report(texts: list[str], snippets: int) -> dict[str, Any]:
    """Findings by kind, each with its context; the same passage found N times (a file read
    in several sessions) is listed once with its count."""
    from funes.index.redact import scan

    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    texts_flagged = 0
    for text in texts:
        found = scan(text)
        texts_flagged += bool(found)
        for finding in found:
            before = text[max(0, finding.start - 60) : finding.start]
            after = text[finding.end : finding.end + 30]
            context = f"{before}⟦{text[finding.start : finding.end]}⟧{after}"
            by_kind[finding.kind][context.replace("\n", "⏎")] += 1
    return {
        "texts": len(texts),
        "chars": sum(map(len, texts)),
        "texts_flagged": texts_flagged,
        "findings": {kind: sum(found.values()) for kind, found in sorted(by_kind.items())},
        "distinct": {kind: len(found) for kind, found in sorted(by_kind.items())},
        "examples": {
            kind: [f"{n}× {context}" for context, n in found.most_common(snippets)]
            for kind, found in sorted(by_kind.items())
        },
    }


def detection_report() -> dict[str, Any]:
    """The credentials the tests build at run time: how many are caught, per kind."""
    from funes.index.redact import redact

    sys.path.insert(0, str(TESTS))
    import test_redact  # the tests own the credential builders

    cases = [(kind, text, secret) for kind, text, secret in test_redact.PLANTED]
    cases += [
        (f"detect-secrets {name}", f"value: {secret}", secret)
        for name, secret in test_redact.DETECT_SECRETS_FORMS.items()
    ]
    missed = [kind for kind, text, secret in cases if secret in redact(text)[0]]
    return {
        "credentials": len(cases),
        "kinds": len({kind for kind, _, _ in cases}),
        "caught": len(cases) - len(missed),
        "missed": missed,
    }


def load_redactor(path: Path) -> Any:
    """Another version of `funes/index/redact.py` (e.g. `git show REF:core/index/redact.py`), to
    time it against the current one on the same chunks in the same run."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("redact_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["redact_baseline"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def speed_report(
    texts: list[str], max_chunks: int, against: Path | None = None
) -> dict[str, float]:
    from funes.index.embed import load_embedder
    from funes.index.redact import redact

    chunks = [t[i : i + CHUNK_CHARS] for t in texts for i in range(0, len(t), CHUNK_CHARS)]
    if len(chunks) > max_chunks:  # an even sample over the whole history
        chunks = chunks[:: len(chunks) // max_chunks][:max_chunks]
    embedder = load_embedder()
    embedder.encode(chunks[:100])  # warm-up

    def timed(run: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - started)
        return best

    redact_s = timed(lambda: [redact(c) for c in chunks])
    embed_s = timed(lambda: embedder.encode(chunks))
    versus: dict[str, float] = {}
    if against is not None:
        baseline = load_redactor(against).redact
        baseline_s = timed(lambda: [baseline(c) for c in chunks])
        redact_s = min(redact_s, timed(lambda: [redact(c) for c in chunks]))  # same conditions
        versus = {"redact_cost_vs_baseline_redactor": round(redact_s / baseline_s, 2)}
    return {
        "chunks": len(chunks),
        "mean_chunk_chars": round(sum(map(len, chunks)) / len(chunks)),
        "redact_chunks_per_s": round(len(chunks) / redact_s),
        "redact_us_per_chunk": round(redact_s / len(chunks) * 1e6, 1),
        "redact_us_per_kb": round(redact_s / sum(map(len, chunks)) * 1e9, 1),
        "embed_chunks_per_s": round(len(chunks) / embed_s),
        "redact_cost_vs_embed": round(redact_s / embed_s, 3),
        **versus,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--haystack",
        type=Path,
        help="scan this generated history (e.g. /tmp/funes-haystack/home) instead of the corpus",
    )
    parser.add_argument("--snippets", type=int, default=5, help="examples shown per kind")
    parser.add_argument("--speed-chunks", type=int, default=40_000, help="chunks timed at most")
    parser.add_argument(
        "--against", type=Path, help="an older redact.py to time against, in the same run"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    source = args.haystack or args.corpus
    blocks = block_texts(source)
    report: dict[str, Any] = {
        "source": str(source),
        "blocks": findings_report(blocks, args.snippets),
    }
    if args.haystack is None:
        report["raw_lines"] = findings_report(raw_lines(args.corpus), args.snippets)
    report["detection"] = detection_report()
    report["speed"] = speed_report(blocks, args.speed_chunks, args.against)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for view in ("blocks", "raw_lines"):
        part = report.get(view)
        if part is None:
            continue
        total = sum(Counter(part["findings"]).values())
        print(
            f"== {view} of {source}: {part['texts']:,} texts, {part['chars']:,} chars, "
            f"{total} findings in {part['texts_flagged']} texts"
        )
        for kind, count in part["findings"].items():
            print(f"  {kind}: {count} ({part['distinct'][kind]} distinct)")
            for example in part["examples"][kind]:
                print(f"      {example}")
    detection = report["detection"]
    print(
        f"== detection: {detection['caught']}/{detection['credentials']} credentials of "
        f"{detection['kinds']} kinds caught; missed: {detection['missed'] or 'none'}"
    )
    print("== speed (1 KB chunks of block text)")
    for key, value in report["speed"].items():
        print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
