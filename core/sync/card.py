"""The dataset card (README.md) of a pushed memory: written once, then only its stats refreshed.

funes owns the text between `<!-- funes:stats -->` and `<!-- /funes:stats -->`; everything else
is the user's. A card without both markers (in order) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

STATS_OPEN = "<!-- funes:stats -->"
STATS_CLOSE = "<!-- /funes:stats -->"
# What `funes.sync.published_paths` does to every pushed row, said where readers look.
PATHS_NOTE = (
    "Paths (`workdir`, `source_path`) are published relative to the home folder they were "
    "recorded in\n(`~/code/shop`, and `~-code-shop` where an agent spelled the folder into a "
    "name), so no user name or home\nlayout leaves the machine; they pass the same secret gate "
    "as the text."
)


@dataclass(frozen=True)
class CardStats:
    chunks: int
    sessions: int
    harnesses: tuple[str, ...]
    model_id: str
    updated: str  # YYYY-MM-DD, UTC
    period: tuple[str, str] = ("", "")  # first and last session day (YYYY-MM-DD)
    project: str = ""  # the repository a project memory is named for


def stats_block(stats: CardStats) -> str:
    agents = ", ".join(stats.harnesses) or "—"
    first, last = stats.period
    period = f"{first} → {last}" if first and first != last else first or "—"
    project = [f"| Project | [{stats.project}](https://github.com/{stats.project}) |"]
    return "\n".join(
        [
            STATS_OPEN,
            "| | |",
            "|---|---|",
            *(project if stats.project else []),
            f"| Chunks | {stats.chunks:,} |",
            f"| Sessions | {stats.sessions:,} |",
            f"| Agents | {agents} |",
            f"| Period | {period} |",
            f"| Embedding model | `{stats.model_id}` |",
            f"| Updated | {stats.updated} |",
            STATS_CLOSE,
        ]
    )


def _front_matter(pretty_name: str) -> str:
    """The dataset card's YAML header, the same tags for every funes memory."""
    return f"""---
pretty_name: {pretty_name}
tags:
- funes
- agent-memory
- agent-traces
- embeddings
---
"""


def render_card(spec_label: str, repo_id: str, stats: CardStats) -> str:
    if stats.project:
        return render_project_card(spec_label, repo_id, stats)
    return f"""{_front_matter("funes memory")}
# funes memory

A durable memory of AI coding agent sessions (Claude Code, Codex, pi, Hermes), published by
[funes](https://github.com/huggingface/funes). Each row is one chunk of one turn: its text, its
provenance (session, turn, time, agent, working directory, repository) and its embedding.
Secrets were scanned for before anything was pushed; blocks with a finding were withheld.
{PATHS_NOTE}

## Recall from it

```sh
funes recall --memory {repo_id} "why did we drop the redis cache"
```

or bind it to an agent so its recall reads it: `funes add claude {repo_id}`.

Layout: `data/*.parquet`, one append-only shard per push (`{spec_label}`).

## Stats

{stats_block(stats)}
"""


def render_project_card(spec_label: str, repo_id: str, stats: CardStats) -> str:
    return f"""{_front_matter(f"funes project memory of {stats.project}")}
# Project memory of {stats.project}

The AI coding agent sessions (Claude Code, Codex, pi, Hermes) behind
[{stats.project}](https://github.com/{stats.project}), chosen one by one by its maintainers with
`funes curate` and published by [funes](https://github.com/huggingface/funes): the questions,
the reasoning, the dead ends and the decisions, with the session, turn and time of each. Whole
sessions only; every block was scanned for secrets before it was pushed.
{PATHS_NOTE}

## Recall from it

```sh
funes recall --memory {repo_id} "why was the cache redesigned"
```

A checkout of {stats.project} can declare it in `funes.toml` (`memory = "{repo_id}"`), so
every agent working there recalls from it; or add it to one agent:
`funes add claude {repo_id} --read-only`.

Layout: `data/*.parquet`, one append-only shard per push; `forgotten/*.json`, chunk ids taken
back; `funes.json`, the project it is named for (`{spec_label}`).

## Stats

{stats_block(stats)}
"""


def plan_card(
    existing: str | None, spec_label: str, repo_id: str, stats: CardStats
) -> tuple[str | None, str]:
    """(new card text or None, what happens: created | refreshed | unchanged | kept)."""
    if existing is None:
        return render_card(spec_label, repo_id, stats), "created"
    start = existing.find(STATS_OPEN)
    end = existing.find(STATS_CLOSE, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return None, "kept"
    refreshed = existing[:start] + stats_block(stats) + existing[end + len(STATS_CLOSE) :]
    if refreshed == existing:
        return None, "unchanged"
    return refreshed, "refreshed"
