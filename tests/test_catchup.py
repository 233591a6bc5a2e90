"""`funes catchup SESSION`: a digest of a past session in its own words: the prompts, the
conclusions, the errors with what followed them, the files changed, each with its `get` line,
packed into --max-tokens."""

from __future__ import annotations

import json

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
