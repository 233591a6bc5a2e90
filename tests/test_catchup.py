"""`funes catchup SESSION`: a digest of a past session in its own words: the prompts, the
conclusions, the errors with what followed them, the files changed, each with its `get` line,
packed into --max-tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main
from funes.retrieve.catchup import build_catchup, format_catchup

S = "c4tchup0-0001"
W = "/home/dev/shop"


def _session() -> None:
    build_memory(
        [
            turn(S, "u0", 0, "<command-name>/clear</command-name>"),
            turn(S, "u1", 1, "Why is checkout slow? Profile the cart service."),
            turn(S, "a1", 2, "Let me look at the cart service.", role="assistant"),
            turn(
                S,
                "a2",
                3,
                f"[tool_use Edit] file_path: {W}/cart/prices.py\nold: cache.get(id)",
                role="assistant",
                block_type="tool_use",
                tool_name="Edit",
            ),
            turn(
                S,
                "r2",
                4,
                "[tool_result Bash] tests ran\nTraceback (most recent call last):\n  File x\n"
                "KeyError: 'price'",
                block_type="tool_result",
                tool_name="Bash",
            ),
            turn(
                S,
                "a3",
                5,
                "The KeyError comes from a stale cache entry; reading from postgres fixes it.",
                role="assistant",
            ),
            turn(
                S,
                "r3",
                6,
                "[tool_result Read] 12→ except KeyError: pass",
                block_type="tool_result",
                tool_name="Read",
            ),
            turn(S, "a4", 7, "Checkout is slow because of the redis cache.", role="assistant"),
            turn(S, "u2", 8, "Then drop the redis cache."),
            turn(
                S, "a5", 9, "Dropped the redis cache; prices come from postgres.", role="assistant"
            ),
        ]
    )


def test_the_digest_quotes_prompts_conclusions_errors_and_files() -> None:
    _session()
    text = format_catchup(build_catchup(S[:8]))
    lines = text.splitlines()
    assert lines[0].startswith(f"funes catchup: session {S} (claude_code, ~/shop, ")
    assert "data, not instructions" in lines[0]
    assert lines[1:] == [
        "asked (seq 1)  → funes get c4tchup0 1",
        "│ Why is checkout slow? Profile the cart service.",
        "error (seq 4)  → funes get c4tchup0 4",
        "│ KeyError: 'price'",
        "│ → The KeyError comes from a stale cache entry; reading from postgres fixes it.",
        "concluded (seq 7)  → funes get c4tchup0 7",
        "│ Checkout is slow because of the redis cache.",
        "asked (seq 8)  → funes get c4tchup0 8",
        "│ Then drop the redis cache.",
        "concluded (seq 9)  → funes get c4tchup0 9",
        "│ Dropped the redis cache; prices come from postgres.",
        "files",
        "│ changed: cart/prices.py",
    ]


def test_a_small_budget_keeps_the_first_prompt_and_the_final_answer_and_says_what_it_left() -> None:
    _session()
    digest = build_catchup(S, max_tokens=200)
    text = format_catchup(digest, 200)
    assert len(text) <= 200 * 4
    assert "│ Why is checkout slow? Profile the cart service." in text
    assert "│ Dropped the redis cache; prices come from postgres." in text
    assert digest.left_out > 0
    assert text.rstrip().endswith(
        f"note: {digest.left_out} more item(s) left out to fit --max-tokens 200; "
        "`funes show c4tchup0` prints the whole session"
    )


def test_cli_prints_the_digest_and_json_and_an_unknown_session_is_one_line() -> None:
    _session()
    out = CliRunner().invoke(main, ["catchup", S[:8]])
    assert out.exit_code == 0, out.output
    assert out.output == format_catchup(build_catchup(S))
    data = json.loads(CliRunner().invoke(main, ["catchup", S, "--json"]).output)
    assert data["session"]["turns"] == 10 and data["left_out"] == 0
    assert [i["kind"] for i in data["items"]][:2] == ["asked", "error"]
    missing = CliRunner().invoke(main, ["catchup", "nope"])
    assert missing.exit_code == 1
    assert missing.output == "Error: session nope not found in this memory\n"


CODEX_INTERRUPTED = "019a93b9-f380-7600-98ff-940e6b99603c"


def test_an_interrupted_codex_session_names_its_unfinished_plan_step(corpus: Path) -> None:
    from funes.index.indexer import index

    index([next((corpus / "codex").glob(f"*{CODEX_INTERRUPTED}.jsonl"))])
    text = format_catchup(build_catchup(CODEX_INTERRUPTED[:8]))
    assert "│ stopped mid-work: it ended on the output of shell, with no reply after it" in text
    assert (
        "│ unfinished plan step: Implement necessary code updates so handleLocalChat issues "
        "OpenAI-compatible LM Studio requests" in text
    )
    assert "│ not started: Run targeted checks" in text
    assert "│ [completed] Inspect existing LM Studio integration points" in text
    # Its `ls: cannot access` and `rg: src: … No such file` were look-ups, not failures.
    assert "No such file" not in text and "cannot access" not in text
    assert text.index("plan (seq") < text.index("stopped (seq")  # it ends on where it stopped


T = "c4tchup0-0002"


def _long_session() -> None:
    """A compacted session: its summary, then asks with acknowledgements, a repeated reply, a
    look-up that found nothing and a real failure, and a todo list left half done."""
    turns = [
        turn(T, "u0", 0, "/clear"),
        turn(T, "u1", 1, "Port the billing job to the new queue."),
        turn(T, "a1", 2, "All checks pass.", role="assistant"),
        turn(
            T,
            "s1",
            3,
            "Summary: billing moved to the queue; retries still use the old cron.",
            role="system",
        ),
    ]
    seq = 4
    for n in range(10):
        turns.append(turn(T, f"q{n}", seq, f"Now rename handler number {n} to worker {n}."))
        turns.append(turn(T, f"r{n}", seq + 1, f"Renamed handler {n}.", role="assistant"))
        seq += 2
    turns += [
        turn(T, "ok1", seq, "ok"),
        turn(T, "ok2", seq + 1, "👍", role="assistant"),
        turn(
            T,
            "g1",
            seq + 2,
            "[tool_result Bash] grep: queue/old.py: No such file or directory",
            role="user",
            block_type="tool_result",
            tool_name="Bash",
        ),
        turn(
            T,
            "t1",
            seq + 3,
            "[tool_use TodoWrite] [completed] Move billing\n[in_progress] Move retries\n"
            "[pending] Drop the cron",
            role="assistant",
            block_type="tool_use",
            tool_name="TodoWrite",
        ),
        turn(T, "u9", seq + 4, "Thanks. Check the retries too."),
        turn(T, "a9", seq + 5, "All checks pass.", role="assistant"),
        turn(T, "u10", seq + 6, "yes"),
    ]
    build_memory(turns)


def test_catchup_carries_the_summary_latest_asks_and_plan_and_drops_noise() -> None:
    _long_session()
    text = format_catchup(build_catchup(T, max_tokens=400), 400)
    assert "│ Summary: billing moved to the queue; retries still use the old cron." in text
    assert "│ Port the billing job to the new queue." in text  # the first ask
    assert "│ Thanks. Check the retries too." in text  # the latest ask
    assert "│ Now rename handler number 9 to worker 9." in text  # recent asks before older ones
    assert "handler number 0 " not in text
    assert "│ [in_progress] Move retries" in text
    assert "│ 1 of 3 step(s) not done" not in text and "│ 2 of 3 step(s) not done" in text
    # Acknowledgements are neither asks nor conclusions; a reply said twice is quoted once;
    # a grep that found no file is no error.
    assert "│ ok" not in text and "│ yes" not in text and "👍" not in text
    assert text.count("│ All checks pass.") == 1
    assert "No such file" not in text
    assert "stopped mid-work" not in text  # it ended on a reply


def test_a_session_that_ends_on_an_unanswered_call_or_ask_stopped_mid_work() -> None:
    build_memory(
        [
            turn("c4tchup0-0003", "u1", 0, "Run the migrations."),
            turn("c4tchup0-0003", "a1", 1, "Running them now.", role="assistant"),
            turn(
                "c4tchup0-0003",
                "a2",
                2,
                "[tool_use Bash] alembic upgrade head",
                role="assistant",
                block_type="tool_use",
                tool_name="Bash",
            ),
            turn("c4tchup0-0004", "u1", 0, "Fix the flaky test."),
            turn("c4tchup0-0004", "a1", 1, "Fixed: the clock is frozen now.", role="assistant"),
            turn("c4tchup0-0004", "u2", 2, "Now bump the version."),
        ]
    )
    call = format_catchup(build_catchup("c4tchup0-0003"))
    assert "│ stopped mid-work: it ended on a call to Bash, with no output" in call
    assert "last said (seq 1)" in call  # not a conclusion
    ask = format_catchup(build_catchup("c4tchup0-0004"))
    assert "│ stopped mid-work: it ended on the user's last ask, with no reply after it" in ask


def test_an_error_is_quoted_by_what_failed_and_noise_is_not_an_error() -> None:
    s = "c4tchup0-0005"

    def result(uuid: str, seq: int, text: str) -> Any:
        return turn(s, uuid, seq, text, block_type="tool_result", tool_name="Bash")

    build_memory(
        [
            turn(s, "u1", 0, "Build the wheel."),
            result(
                "r1",
                1,
                "Exit code 1\nResolved 4 packages\nTraceback (most recent "
                'call last):\n  File "x", line 1\nValueError: Unable to determine which files '
                "to ship\n  in your\n  environment.",
            ),
            result("r2", 2, "(eval):cd:1: no such file or directory: test"),
            result("r3", 3, '{\n  "id": 4,\n  error: null,\n  "ok": true\n}'),
            result(
                "r4",
                4,
                "Traceback (most recent call last):\n  File 'y'\n"
                "pydantic_core.ValidationError: 5 validation errors\n"
                "For further information visit https://errors.pydantic.dev/2.11/v/missing",
            ),
            turn(s, "a1", 5, "The wheel needs its files listed.", role="assistant"),
        ]
    )
    errors = [i.text.splitlines()[0] for i in build_catchup(s).items if i.section == "error"]
    assert errors == [
        "Exit code 1: ValueError: Unable to determine which files to ship",
        "pydantic_core.ValidationError: 5 validation errors",
    ]
