"""`funes ask` against the real agent CLIs, driven by the scripted model of ask_model_stub.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_fixtures import (
    ScriptedModel,
    offered_tool_names,
    request_text,
    running_scripted_model,
    setup_agent,
)
from click.testing import CliRunner

from funes.cli import main
from funes.integrations.ask import AgentFailed, build_prompt, run_agent

pytestmark = pytest.mark.agents

AGENTS = ("claude", "codex", "pi", "hermes", "gemini", "qwen", "opencode", "copilot")


@pytest.fixture
def scripted_model(tmp_path: Path) -> Iterator[ScriptedModel]:
    with running_scripted_model(tmp_path / "model") as model:
        yield model


PASSAGES = """\
== 5f1c2a9e claude_code ~/shop
#1 [2026-03-04 10:11] seq2 assistant → funes get 5f1c2a9e 2
│ We dropped the redis cache because eviction storms doubled p99 latency during the sale."""


@pytest.mark.parametrize("agent", AGENTS)
def test_the_model_gets_the_passages_and_no_tools_and_stdout_is_its_answer(
    agent: str, tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = setup_agent(agent, tmp_path, scripted_model, monkeypatch)
    prompt = build_prompt("why did we drop the redis cache?", PASSAGES)

    answer = run_agent(agent, prompt, timeout_s=240)

    asked = [r for r in scripted_model.model_requests() if "RECALLED PASSAGES" in request_text(r)]
    assert asked, "the model never received the funes prompt"
    for request in asked:
        body = request_text(request)
        assert "why did we drop the redis cache?" in body
        assert "eviction storms doubled p99 latency" in body
        assert "5f1c2a9e" in body
        tools = offered_tool_names(request)
        if agent == "codex":  # Codex keeps a few harmless built-ins (view_image, goals)
            assert not {"exec_command", "shell", "spawn_agent"} & set(tools), tools
            assert not [name for name in tools if "recall" in name or "mcp" in name], tools
        elif agent == "qwen":  # read-only built-ins stay offered; `--max-tool-calls 0` ends a call
            assert not {"run_shell_command", "write_file", "edit"} & set(tools), tools
            assert "mcp__funes__recall" not in body  # no MCP tool named in its prompt either
        else:
            assert tools == []
    assert answer == scripted_model.replies()[-1]
    assert "eviction storms" in answer
    assert not home.mcp_log.exists(), "the funes MCP server was started or called"
    assert not home.hook_log.exists(), "a user hook fired during the ask run"
    if agent == "opencode":  # its session went to a database in the run's own folder
        assert not (home.home / ".local/share/opencode/opencode.db").exists()
    if agent == "copilot":  # and its session to a Copilot home of the run's own
        assert not (home.home / ".copilot" / "session-state").exists()


@pytest.mark.parametrize("agent", AGENTS)
def test_off_topic_passages_get_the_not_supported_answer(
    agent: str, tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_agent(agent, tmp_path, scripted_model, monkeypatch)
    prompt = build_prompt("what is the capital of mongolia?", PASSAGES)

    answer = run_agent(agent, prompt, timeout_s=240)

    assert answer == scripted_model.replies()[-1]
    assert "do not support an answer" in answer
    assert "funes add" in answer


def test_an_unreachable_model_fails_with_the_agent_exit_code(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_agent("claude", tmp_path, scripted_model, monkeypatch)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")

    with pytest.raises(AgentFailed) as failure:
        run_agent("claude", build_prompt("why?", PASSAGES), timeout_s=240)

    assert failure.value.exit_code not in (0, None)
    assert str(failure.value).startswith(f"claude exited with code {failure.value.exit_code}")


def test_an_agent_that_never_answers_is_stopped_at_the_timeout(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Codex keeps reconnecting to a model that is not there; the whole process group is ended.
    setup_agent("codex", tmp_path, scripted_model, monkeypatch)
    config = tmp_path / "home/.codex/config.toml"
    config.write_text(config.read_text().replace(f":{scripted_model.port}/", ":9/"))

    with pytest.raises(AgentFailed) as failure:
        run_agent("codex", build_prompt("why?", PASSAGES), timeout_s=5)

    assert failure.value.exit_code is None
    assert str(failure.value) == "codex timed out: no answer after 5 s"


def _index_sample_memory() -> None:
    from recall_fixtures import build_memory, sample_turns

    build_memory(sample_turns())


@pytest.mark.parametrize("agent", ["claude", "pi"])
def test_funes_ask_prints_only_the_answer_grounded_in_recalled_passages(
    agent: str, tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    _index_sample_memory()
    setup_agent(agent, tmp_path, scripted_model, monkeypatch)

    result = CliRunner().invoke(main, ["ask", agent, "why did we drop the redis cache"])

    assert result.exit_code == 0, result.stderr
    reply = scripted_model.replies()[-1]
    assert result.stdout == reply + "\n"
    assert "invalidation bugs served stale prices" in reply
    assert "Sources: claude_code 2026-03-01 s-shop-0" in reply
    assert f"asking {agent}" in result.stderr  # progress goes to stderr, never stdout


def test_funes_ask_json_names_the_sources_sent_to_the_agent(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    _index_sample_memory()
    setup_agent("codex", tmp_path, scripted_model, monkeypatch)

    result = CliRunner().invoke(main, ["ask", "codex", "why did we drop the redis cache", "--json"])

    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"answer", "sources", "agent", "memory"}
    assert data["answer"] == scripted_model.replies()[-1]
    assert data["agent"] == "codex"
    assert data["memory"].endswith("memory")
    assert {
        "session_id": "s-shop-0001",
        "turn_uuid": "u2",
        "harness": "claude_code",
        "ts": "2026-03-01T10:00:00Z",
    } in data["sources"]
    sent = [r for r in scripted_model.model_requests() if "RECALLED PASSAGES" in request_text(r)]
    for source in data["sources"]:
        assert source["session_id"][:8] in request_text(sent[-1])


def test_a_failing_agent_run_exits_1_quoting_its_exit_code_and_stderr(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    _index_sample_memory()
    setup_agent("claude", tmp_path, scripted_model, monkeypatch)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")

    result = CliRunner().invoke(main, ["ask", "claude", "why did we drop the redis cache"])

    assert result.exit_code == 1
    assert result.stdout == ""
    [error] = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert re.match(r"Error: claude exited with code [1-9]\d*: \S", error), result.stderr


PLAIN_RUNS = {  # how the agent runs non-interactively when nothing is switched off
    "claude": ["-p", "hello"],
    "codex": ["exec", "--skip-git-repo-check", "hello"],
    "pi": ["-p", "hello"],
    "hermes": ["chat", "-Q", "-q", "hello"],
    "qwen": ["-p", "hello"],
    "gemini": ["-p", "hello"],
    "opencode": ["run", "hello"],
    "copilot": ["-p", "hello", "--allow-all-tools"],
}


@pytest.mark.parametrize("agent", AGENTS)
def test_control_the_fixture_agent_offers_funes_tools_when_nothing_is_switched_off(
    agent: str, tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without this, "no tool was offered" above could pass because the fixture never set any up.
    home = setup_agent(agent, tmp_path, scripted_model, monkeypatch)
    binary = shutil.which(agent)
    assert binary is not None

    subprocess.run(
        [binary, *PLAIN_RUNS[agent]],
        cwd=home.home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=240,
        check=False,
    )

    offered = {name for r in scripted_model.model_requests() for name in offered_tool_names(r)}
    if agent == "qwen":  # Qwen Code names MCP tools in its prompt instead of declaring them
        requests = scripted_model.model_requests()
        if any("mcp__funes__recall" in request_text(r) for r in requests):
            offered.add("mcp__funes__recall")
    assert [name for name in offered if "recall" in name], offered
    assert home.hook_log.exists(), "the fixture's hook (or codex notify) did not fire"


def test_qwen_ask_leaves_no_session_and_calls_no_tool(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = setup_agent("qwen", tmp_path, scripted_model, monkeypatch)

    run_agent("qwen", build_prompt("why did we drop the redis cache?", PASSAGES), timeout_s=240)

    assert not list((home.home / ".qwen").glob("projects/*/chats/*.jsonl"))
    messages = [m for r in scripted_model.model_requests() for m in r["body"].get("messages", [])]
    assert messages and all(m.get("role") != "tool" for m in messages)


def test_gemini_ask_leaves_no_session_and_the_users_gemini_folder_as_it_was(
    tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = setup_agent("gemini", tmp_path, scripted_model, monkeypatch)
    before = sorted(p.relative_to(home.home) for p in (home.home / ".gemini").rglob("*"))

    run_agent("gemini", build_prompt("why did we drop the redis cache?", PASSAGES), timeout_s=240)

    assert sorted(p.relative_to(home.home) for p in (home.home / ".gemini").rglob("*")) == before
