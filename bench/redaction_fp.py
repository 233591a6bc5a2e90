"""Redaction on the real corpus: what it flags (to judge false positives) and how fast it runs.

The shared corpus holds real transcripts with no live credentials, so every finding is either a
genuine leak in those public files or a false positive; each is printed with its context. Two
views are scanned: parsed block text (what the indexer redacts) and the raw file lines
(JSON-escaped, what a file-level gate sees). Speed is measured on ~1 KB chunks of block text,
against a model2vec encode of the same chunks in the same run (the embedding cost every chunk
pays anyway). Run: `python bench/redaction_fp.py [--corpus DIR] [--snippets N] [--json]`.
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
    from funes.index.redact import scan

    by_kind: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        for finding in scan(text):
            context = text[max(0, finding.start - 50) : finding.end + 30]
            by_kind[finding.kind].append(context.replace("\n", "⏎"))
    return {
        "texts": len(texts),
        "chars": sum(map(len, texts)),
        "findings": {kind: len(found) for kind, found in sorted(by_kind.items())},
        "examples": {kind: found[:snippets] for kind, found in sorted(by_kind.items())},
    }


def speed_report(texts: list[str]) -> dict[str, float]:
    from funes.index.embed import load_embedder
    from funes.index.redact import redact

    chunks = [t[i : i + CHUNK_CHARS] for t in texts for i in range(0, len(t), CHUNK_CHARS)]
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
    return {
        "chunks": len(chunks),
        "mean_chunk_chars": round(sum(map(len, chunks)) / len(chunks)),
        "redact_chunks_per_s": round(len(chunks) / redact_s),
        "redact_us_per_chunk": round(redact_s / len(chunks) * 1e6, 1),
        "redact_us_per_kb": round(redact_s / sum(map(len, chunks)) * 1e9, 1),
        "embed_chunks_per_s": round(len(chunks) / embed_s),
        "redact_cost_vs_embed": round(redact_s / embed_s, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--snippets", type=int, default=5, help="examples shown per kind")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    blocks = block_texts(args.corpus)
    report: dict[str, Any] = {
        "blocks": findings_report(blocks, args.snippets),
        "raw_lines": findings_report(raw_lines(args.corpus), args.snippets),
        "speed": speed_report(blocks),
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for view in ("blocks", "raw_lines"):
        part = report[view]
        total = sum(Counter(part["findings"]).values())
        print(f"== {view}: {part['texts']} texts, {part['chars']:,} chars, {total} findings")
        for kind, count in part["findings"].items():
            print(f"  {kind}: {count}")
            for example in part["examples"][kind]:
                print(f"      …{example}…")
    print("== speed (1 KB chunks of block text)")
    for key, value in report["speed"].items():
        print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
