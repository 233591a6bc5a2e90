"""Calls made together answer in any order: a call and its output pair by the agent's tool-use
id, on the recall page (`⇐`), in `get` and in `timeline`. On the corpus, pairing first in,
first out named the wrong call for 120 of 2,586 outputs (an agent read README's text as
.gitignore's and spent three more calls); memories from before the column keep that order."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from recall_fixtures import build_memory, turn

from funes.cli import main
from funes.model import Block
from funes.retrieve import format_agent, recall

S = "s-reads-0001"
H = S[:8]
FILES = ("pyproject.toml", "README.md", ".gitignore")
# What each Read returned, answered out of order: .gitignore first, README last.
CONTENT = {
    "pyproject.toml": "[build-system]\nrequires = ['hatchling']",
    "README.md": "# Review Extractor\nExtracts review comments from a pull request.",
    ".gitignore": "reviewer_extractor.egg-info",
}


@pytest.fixture(autouse=True)
def first_pass_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNES_RERANKER", "none")


def reads_answered_out_of_order() -> list:
    reads = turn(S, "c1", 1, "", role="assistant")
    reads.blocks = [
        Block("tool_use", f"file_path: /app/{name}", tool_name="Read", tool_use_id=f"toolu_{i}")
        for i, name in enumerate(FILES)
    ]
    answered = [(2, ".gitignore"), (3, "pyproject.toml"), (4, "README.md")]
    outputs = []
    for seq, name in answered:
        output = turn(S, f"r{seq}", seq, CONTENT[name], block_type="tool_result", tool_name="Read")
        output.blocks[0].tool_use_id = f"toolu_{FILES.index(name)}"
        outputs.append(output)
    return [turn(S, "u0", 0, "What does this project ignore?"), reads, *outputs]


def cli(*args: str) -> str:
    out = CliRunner().invoke(main, [*args])
    assert out.exit_code == 0, out.output
    return out.output


def test_each_output_names_the_call_that_made_it() -> None:
    build_memory(reads_answered_out_of_order())
    result = recall("reviewer_extractor.egg-info", k=1)
    (hit,) = result.hits
    assert hit.turn_uuid == "r2"
    assert "  ⇐ seq1 Read: /app/.gitignore" in format_agent(result)


def test_timeline_and_get_follow_the_ids() -> None:
    build_memory(reads_answered_out_of_order())
    steps = cli("timeline", H).splitlines()
    assert any(s.startswith("seq1 10:00 Read: /app/.gitignore → seq2 ok") for s in steps)
    assert any(s.startswith("seq1 10:00 Read: /app/README.md → seq4 ok") for s in steps)
    assert not any(" Read output: " in s for s in steps)  # nothing left unpaired
    got = cli("get", H, "1", "--format", "agent")
    # Each call's output once: the README's text is not shown as another file's.
    assert got.count("│ # Review Extractor") == 1 and got.count("│ reviewer_extractor") == 1


def test_a_memory_from_before_the_column_still_pairs_and_gains_it_on_index(tmp_path) -> None:
    """An older memory has no tool-use ids: its calls pair first in, first out, and the next
    index adds the column so new turns carry theirs."""
    from funes.index.indexer import index
    from funes.index.store import TOOL_USE_ID, ChunkStore
    from funes.paths import local_memory_dir

    in_order = reads_answered_out_of_order()
    in_order[2:] = sorted(in_order[2:], key=lambda t: FILES.index(_name_of(t.blocks[0].text)))
    for seq, output in enumerate(in_order[2:], 2):
        output.seq = seq
    build_memory(in_order)
    ChunkStore.open(local_memory_dir()).table.drop_columns([TOOL_USE_ID])
    steps = cli("timeline", H).splitlines()
    assert any(s.startswith("seq1 10:00 Read: /app/.gitignore → seq4 ok") for s in steps)

    transcript = tmp_path / "s.jsonl"
    transcript.write_text(
        '{"type":"user","uuid":"x1","sessionId":"s-new","timestamp":"2026-03-02T10:00:00Z",'
        '"cwd":"/app","message":{"role":"user","content":"hello"}}\n'
    )
    index([transcript])
    assert TOOL_USE_ID in ChunkStore.open(local_memory_dir()).table.schema.names


def _name_of(content: str) -> str:
    return next(name for name, text in CONTENT.items() if text == content)


def test_a_real_sessions_five_reads_answered_out_of_order(corpus) -> None:
    """Claude Code subagent agent-ea02459f read five files at once; .gitignore's content came
    back fourth (seq12), README's third: the timeline says so."""
    from funes.index.indexer import index

    index([corpus / "claude"])
    text = cli("timeline", "agent-ea", "9", "--steps", "8")
    assert "Read: .gitignore → seq12 ok (6 lines): coderabbit_review_extractor" in text
    assert "Read: README.md → seq11 ok (29 lines): # CodeRabbit Review Extractor" in text


def test_an_id_used_twice_pairs_each_output_with_the_call_just_before_it() -> None:
    """A trimmed transcript repeats one id on every call: each output still names the call
    made before it (the page pairs as the timeline does), never a later one."""
    same = "toolu_trimmed"

    def block(uuid: str, seq: int, text: str, kind: str) -> object:
        made = turn(S, uuid, seq, text, role="assistant", block_type=kind, tool_name="Bash")
        made.blocks[0].tool_use_id = same
        return made

    build_memory(
        [
            block("c1", 1, "command: make lint", "tool_use"),
            block("r2", 2, "lint: 0 problems in the quiltwork module", "tool_result"),
            block("c3", 3, "command: make test", "tool_use"),
            block("r4", 4, "tests: 12 passed", "tool_result"),
        ]
    )
    (hit,) = recall("lint problems quiltwork module", k=1).hits
    assert hit.turn_uuid == "r2" and hit.partner is not None and hit.partner.turn_uuid == "c1"
    steps = cli("timeline", H).splitlines()
    assert any(s.startswith("seq1 10:00 Bash: make lint → seq2 ok") for s in steps)
    assert any(s.startswith("seq3 10:00 Bash: make test → seq4 ok") for s in steps)
