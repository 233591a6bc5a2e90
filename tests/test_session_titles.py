"""Session titles and subagents as people recognise them: a session is titled by its first real
request (not `/clear`, a wrapper tag or `Warmup`), stray subagent transcripts are marked and kept
together, `Warmup` probes are left out, and a subagent is named by the Task that started it."""

from __future__ import annotations

from pathlib import Path

from funes.index.indexer import index
from funes.inspect.sessions import (
    format_sessions_human,
    format_show_human,
    list_sessions,
    session_page,
    show_session,
)
from funes.retrieve.said import is_acknowledgement, request_text, strip_wrappers
from funes.retrieve.subagents import describe, task_calls
from funes.sync.memory import open_memory

REAL = "claude/daaain__claude-code-log__real_projects"
TOKENIZER = "f852ad25-1024-47da-964e-5eaae5bd6e6a"  # `/clear`, then a code review request
PARENT = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # six Agent calls, six subagent files
CODERABBIT = "-Users-dain-workspace-coderabbit-review-helper"


def test_request_text_skips_what_the_harness_wrote() -> None:
    assert request_text("<command-name>/clear</command-name>") == ""
    assert request_text("/model opus") == ""
    assert request_text("Warmup") == ""
    assert request_text("<local-command-stdout>See ya!</local-command-stdout>") == ""
    assert request_text("[Request interrupted by user for tool use]") == ""
    assert (
        request_text("<ide_selection>The user selected x</ide_selection>\nFix this line.")
        == "Fix this line."
    )
    # A pasted path is a request, not a slash command.
    assert request_text("/var/folders/x/screenshot.png what is wrong here?").startswith("/var")
    assert strip_wrappers("<bash-input>uv run ty check</bash-input>") == "uv run ty check"
    for ack in ("ok", "OK!", "yes, thanks", "👍", "continue", "Done."):
        assert is_acknowledgement(ack), ack
    assert not is_acknowledgement("ok, now rename the handler")


def test_the_session_list_titles_by_the_real_request_and_folds_subagents(corpus: Path) -> None:
    real = corpus / REAL
    index([real / "-Users-dain-workspace-danieldemmel-me-next", real / CODERABBIT])
    index([real / "-experiments-worktrees"])
    page = session_page(limit=500)
    titles = {s.session_id: s.first_prompt for s in page.rows}
    assert titles[TOKENIZER].startswith("Can you please read @public/tokenizer.css")
    assert not any(t == "Warmup" or t.startswith("/") for t in titles.values())
    assert page.warmups >= 16  # the coderabbit project's `Warmup` probes are left out
    # The coderabbit subagents whose session file is empty are marked, kept together, and
    # name the parent they belong to.
    strays = [s for s in page.rows if s.stray]
    assert strays and all(s.session_id.startswith("agent-") and s.parent for s in strays)
    for parent in {s.parent for s in strays}:
        at = [i for i, s in enumerate(page.rows) if s.stray and s.parent == parent]
        assert at == list(range(at[0], at[0] + len(at)))
    # A parent's subagents follow it, and each is named by the task its Agent call gave it.
    at = [s.session_id for s in page.rows].index(PARENT)
    family = page.rows[at + 1 : at + 7]
    assert {s.parent for s in family} == {PARENT}
    assert [s.task for s in family][:3] == [
        "Research Claude Code plan mode",
        "Research Claude Code teammates",
        "Research Steve Yegge Beads",
    ]
    # A text filter finds a session by its title, its project or its id.
    found = session_page(limit=50, text="TOKENIZER.CSS").rows
    assert TOKENIZER in [s.session_id for s in found] and len(found) == 2
    assert [s.session_id for s in session_page(limit=50, text="f852ad25").rows] == [TOKENIZER]
    plain = format_sessions_human(list_sessions(limit=0), width=200)
    assert "Warmup" not in plain and "warm-up subagent(s) left out" in plain
    assert "  ↳ subagent of 741790a4 (not in the memory): Investigate" in plain
    store = open_memory(None).store
    calls = task_calls(store, PARENT)
    assert [c.description for c in calls][:3] == [
        "Research Claude Code plan mode",
        "Research Claude Code teammates",
        "Research Steve Yegge Beads",
    ]
    assert {c.subagent for c in calls} == {s.session_id for s in family}
    alice = describe(store, "agent-a4ca7529859c158c2")
    assert alice is not None and alice.parent == PARENT and alice.parent_in_memory
    assert alice.task == "Research Claude Code plan mode"
    shown = format_show_human(show_session("agent-a4ca7529859c158c2"), width=100)
    assert f"\nsubagent of {PARENT} · task: Research Claude Code plan mode\n" in shown
