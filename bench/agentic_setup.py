"""Lay out a run of the agentic benchmark (../shared/bench/agentic/) and break its calls down.

    .venv/bin/python bench/agentic_setup.py setup RUN --home FUNES_HOME --transcripts DIR
                                                  [--funes BIN] [--parts 3]
    .venv/bin/python bench/agentic_setup.py tally RUN

`setup` writes, under RUN: `bin/mem` and `bin/g` (the benchmark's two wrappers with their
environment set: the memory, the funes binary, the call log), `grep-root/transcripts` (a copy of
DIR, the raw transcripts the grep arm searches), the question splits (`agentic.py split`) and one
filled-in brief per agent and arm (`p-<arm>-<i>.md`): start one agent per brief, a blind grader
on `agentic.py items`' output, then `agentic.py score`. The funes brief names this tree's recall
skill (plugins/claude/funes/skills/recall/SKILL.md), as the benchmark asks.

`tally` prints, per arm and per command (recall, get, timeline, ...), the calls and their output
size: where an arm's tokens go. `--help` calls are not counted, as in `agentic.py score`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENTIC = HERE.parents[1] / "shared" / "bench" / "agentic"
SKILL = HERE.parent / "plugins" / "claude" / "funes" / "skills" / "recall" / "SKILL.md"


# The grep arm's tools, as the benchmark names them: a machine without one handicaps that arm
# (round 12 ran without rg: its agents lost a call to "rg: command not found").
GREP_ARM_TOOLS = ("rg", "jq")


def setup(args: argparse.Namespace) -> None:
    missing = [tool for tool in GREP_ARM_TOOLS if shutil.which(tool) is None]
    if missing and not args.allow_missing_tools:
        sys.exit(
            f"the grep arm's {', '.join(missing)} not installed (apt-get install ripgrep jq): "
            "it would run handicapped; --allow-missing-tools to lay the run out anyway"
        )
    run: Path = args.run.resolve()
    (run / "bin").mkdir(parents=True, exist_ok=True)
    fake_home = run / "fakehome"
    fake_home.mkdir(exist_ok=True)
    log = run / "calls.jsonl"
    wrappers = {
        "mem": (
            f"export AGENTIC_HOME={args.home.resolve()} AGENTIC_LOG={log} "
            f"AGENTIC_FUNES={args.funes} AGENTIC_FAKE_HOME={fake_home}"
        ),
        "g": f"export AGENTIC_ROOT={run / 'grep-root'} AGENTIC_LOG={log}",
    }
    for name, env in wrappers.items():
        script = run / "bin" / name
        script.write_text(f'#!/usr/bin/env bash\n{env}\nexec {AGENTIC / name} "$@"\n')
        script.chmod(0o755)
    target = run / "grep-root" / "transcripts"
    if not target.exists():
        shutil.copytree(args.transcripts, target, symlinks=False)
    questions = AGENTIC / "questions-dev.jsonl"
    subprocess.run(
        [sys.executable, str(AGENTIC / "agentic.py"), "split", str(questions), "--parts",
         str(args.parts), "--out", str(run)],
        check=True,
    )  # fmt: skip
    for arm in ("funes", "grep"):
        brief = (AGENTIC / "prompts" / f"agent-{arm}.md").read_text()
        for part in range(args.parts):
            filled = (
                brief.replace("{SKILL}", str(SKILL))
                .replace("{BIN}", str(run / "bin"))
                .replace("{QUESTIONS}", str(run / f"questions_{part}.txt"))
                .replace("{ANSWERS}", str(run / f"answers_{arm}_{part}.jsonl"))
            )
            (run / f"p-{arm}-{part}.md").write_text(filled)
    print(f"{run}: wrappers, transcripts, {args.parts} question files and briefs written")


def tally(args: argparse.Namespace) -> None:
    log = args.run / "calls.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    rows = [json.loads(line) for line in lines if line.strip()]
    sizes: dict[tuple[str, str], list[int]] = defaultdict(list)
    per_question: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        words = row["cmd"].split()
        if "--help" in words or row["qid"].startswith("MARK"):
            continue
        command = words[0] if row["arm"] == "funes" and words else "shell"
        sizes[(row["arm"], command)].append(row["chars"])
        per_question[row["arm"]][row["qid"]] += row["chars"]
    for (arm, command), values in sorted(sizes.items()):
        middle = statistics.median(values)
        print(
            f"{arm:6s} {command:9s} calls {len(values):4d}  median {middle:7,.0f}"
            f"  mean {statistics.mean(values):7,.0f}  total {sum(values):9,d}"
        )
    for arm, totals in sorted(per_question.items()):
        values = list(totals.values())
        print(f"{arm:6s} per question: mean {statistics.mean(values):,.0f} chars")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    lay = sub.add_parser("setup", help="write a run's wrappers, transcripts and briefs")
    lay.add_argument("run", type=Path)
    lay.add_argument("--home", type=Path, required=True, help="the memory's FUNES_HOME")
    lay.add_argument("--transcripts", type=Path, required=True, help="raw transcripts to copy")
    lay.add_argument("--funes", default=str(HERE.parent / ".venv" / "bin" / "funes"))
    lay.add_argument("--parts", type=int, default=3)
    lay.add_argument(
        "--allow-missing-tools", action="store_true", help="lay out a run without rg or jq"
    )
    lay.set_defaults(run_command=setup)
    count = sub.add_parser("tally", help="calls and output size per arm and command")
    count.add_argument("run", type=Path)
    count.set_defaults(run_command=tally)
    args = parser.parse_args()
    args.run_command(args)


if __name__ == "__main__":
    main()
