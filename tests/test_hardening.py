"""What a careful (or hostile) user runs into: every bad input gets one `Error:` line that says
what to do, a non-zero exit and no change to their files; funes never mangles a file it edits.

Everything runs the real CLI (click's runner, or `python -m funes.cli` where a fresh process
matters) on real files and real Lance memories.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from recall_fixtures import build_memory, sample_turns

from funes.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CODEX_TRANSCRIPT = CORPUS / "generated" / "codex" / "two-turns-exec-resume.jsonl"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def assert_one_error_line(result: Result, *needles: str) -> str:
    """Exit 1, no traceback, and one `Error:` line holding every needle."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), repr(result.exception)
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1, result.output
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


def snapshot(*roots: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for root in roots:
        if root.is_file():
            files[str(root)] = root.read_bytes()
        elif root.is_dir():
            files |= {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    return files


def codex_home() -> Path:
    home = Path(os.environ["CODEX_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home


def hermes_home() -> Path:
    home = Path(os.environ["HERMES_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home


# --- FUNES_HOME that cannot be used ---------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["status"], ["index"], ["scrub"], ["recall", "redis"], ["add", "codex", "--yes"]],
    ids=lambda a: a[0],
)
def test_funes_home_that_is_a_file_is_one_line(args, tmp_path, monkeypatch) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("a file\n")
    monkeypatch.setenv("FUNES_HOME", str(home))
    (codex_home() / "config.toml").write_text('model = "o3"\n')
    before = snapshot(home, codex_home())

    assert_one_error_line(run(*args), f"FUNES_HOME {home} is a file", "folder")
    assert snapshot(home, codex_home()) == before


READ_ONLY = Path("/sys/kernel")  # even root cannot create files here


def _read_only_home() -> Path:
    if not READ_ONLY.is_dir():
        pytest.skip("no /sys/kernel on this system")
    try:
        (READ_ONLY / ".funes-probe").touch()
    except OSError:
        return READ_ONLY
    pytest.skip("no folder on this machine refuses writes")


@pytest.mark.parametrize(
    "args", [["index"], ["scrub"], ["add", "codex", "--yes"], ["remove", "codex"]], ids=str
)
def test_read_only_funes_home_is_one_line_and_agent_config_untouched(args, monkeypatch) -> None:
    monkeypatch.setenv("FUNES_HOME", str(_read_only_home()))
    config = codex_home() / "config.toml"
    config.write_text('notify = ["notify-send"]\n')
    before = snapshot(codex_home())

    result = run(*args)

    if args == ["scrub"]:  # nothing to write to: there is no memory there either
        assert result.exit_code == 1 and "Traceback" not in result.output
    else:
        assert_one_error_line(result, str(READ_ONLY), "FUNES_HOME")
    assert snapshot(codex_home()) == before


# --- a damaged memory -----------------------------------------------------------------------


def _truncate_a_data_file(memory: Path) -> None:
    data = sorted((memory / "chunks.lance" / "data").glob("*.lance"))
    assert data, "the memory has no data file"
    with open(data[0], "r+b") as handle:
        handle.truncate(100)


@pytest.mark.parametrize(
    "args",
    [["status"], ["get", "s-shop-0001", "u2"], ["scrub"], ["recall", "redis"]],
    ids=lambda a: a[0],
)
def test_truncated_lance_file_names_the_memory_and_the_way_out(args) -> None:
    memory = build_memory(sample_turns())
    _truncate_a_data_file(memory)

    line = assert_one_error_line(run(*args), f"memory {memory} is damaged", "funes index --all")
    assert "/rustc/" not in line


# --- agent configs funes cannot edit safely -------------------------------------------------


def _with_codex_history() -> None:
    day = codex_home() / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    (day / CODEX_TRANSCRIPT.name).write_bytes(CODEX_TRANSCRIPT.read_bytes())


@pytest.mark.skipif(not CODEX_TRANSCRIPT.exists(), reason="needs the shared corpus")
@pytest.mark.parametrize(
    ("file", "text", "needles"),
    [
        ("config.toml", 'model = "o3"\nmcp_servers = "oops"\n', ["config.toml:2", "mcp_servers"]),
        ("config.toml", "notify = 3\n", ["config.toml:1", "notify"]),
        ("config.toml", "[hooks]\nstate = 1\n", ["config.toml:2", "hooks.state"]),
        ("hooks.json", '{"hooks": {"Stop": {"x": 1}}}', ["hooks.json:1", "hooks.Stop"]),
        ("hooks.json", '{"hooks": {"Stop": [3]}}', ["hooks.json:1", "hooks.Stop"]),
        ("config.toml", b'model = "o3"\nname = "\xff"\n', ["config.toml:2", "UTF-8"]),
    ],
    ids=["mcp_servers-string", "notify-number", "hooks-state", "stop-object", "stop-int", "utf8"],
)
def test_malformed_codex_config_is_refused_before_anything_is_indexed(
    file, text, needles, tmp_funes_home
) -> None:
    _with_codex_history()
    path = codex_home() / file
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    before = snapshot(codex_home())

    assert_one_error_line(run("add", "codex", "--yes"), *needles, "nothing was changed")
    assert snapshot(codex_home()) == before
    assert not (tmp_funes_home / "memory").exists()  # the history was not indexed either
    assert not (tmp_funes_home / "agents.json").exists()
    assert_one_error_line(run("remove", "codex"), *needles)
    assert snapshot(codex_home()) == before


def test_hermes_config_with_invalid_utf8_is_one_line() -> None:
    config = hermes_home() / "config.yaml"
    config.write_bytes(b'model:\n  name: ok\n  note: "caf\xe9"\n')
    before = snapshot(hermes_home())

    assert_one_error_line(run("add", "hermes", "--yes"), "config.yaml:3", "UTF-8")
    assert_one_error_line(run("remove", "hermes"), "config.yaml:3")
    assert snapshot(hermes_home()) == before


@pytest.mark.parametrize(
    ("agent", "variable", "relative"),
    [
        ("pi", "PI_CODING_AGENT_DIR", "settings.json"),
        ("claude", "CLAUDE_CONFIG_DIR", "settings.json"),
        ("opencode", "XDG_CONFIG_HOME", "opencode/opencode.json"),
        ("copilot", "COPILOT_HOME", "settings.json"),
        ("copilot", "COPILOT_HOME", "mcp-config.json"),
    ],
)
def test_json_agent_config_with_invalid_utf8_is_one_line(agent, variable, relative) -> None:
    config = Path(os.environ[variable]) / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b'{\n  "theme": "dark",\n  "name": "caf\xe9"\n}\n')
    before = snapshot(config.parent)

    assert_one_error_line(run("add", agent, "--budget", "0"), f"{relative}:3", "UTF-8")
    assert snapshot(config.parent) == before


def test_agent_config_that_is_a_folder_is_one_line() -> None:
    (codex_home() / "config.toml").mkdir()
    assert_one_error_line(run("add", "codex", "--budget", "0"), "config.toml", "folder")


# --- Codex notify -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ('notify = "notify-send"   # mine', ["notify-send"]),
        ("notify = \"notify-send --urgency 'low'\"", ["notify-send", "--urgency", "low"]),
        ('notify = ["a",  "b c"]', ["a", "b c"]),
        ('notify = [\n  "say",\n  "done",\n]  # multi-line', ["say", "done"]),
    ],
    ids=["string", "string-with-args", "list", "multi-line-list"],
)
def test_users_notify_is_chained_whole_and_restored_byte_for_byte(line, argv, monkeypatch) -> None:
    import tomlkit

    monkeypatch.setenv("FUNES_BIN", "/opt/funes/bin/funes")
    config = codex_home() / "config.toml"
    original = f'model = "o3"\n{line}\n\n[tui]\nanimations = false\n'
    config.write_text(original)

    assert run("add", "codex", "--budget", "0").exit_code == 0
    notify = tomlkit.parse(config.read_text())["notify"]
    assert notify == ["/opt/funes/bin/funes", "hook", "codex", "--chain", *argv]
    assert "changed:" not in run("add", "codex", "--budget", "0").output  # idempotent

    assert run("remove", "codex").exit_code == 0
    assert config.read_text() == original


def test_chained_string_notify_runs_the_users_program(tmp_path) -> None:
    """What Codex runs after a turn: our argv, ending with the payload; theirs gets it too."""
    marker = tmp_path / "notified.json"
    script = tmp_path / "my notify.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{marker}"\n')
    script.chmod(0o755)
    (codex_home() / "config.toml").write_text(f"notify = {json.dumps(str(script))}\n")
    assert run("add", "codex", "--budget", "0").exit_code == 0
    import tomlkit

    from funes.integrations.hook import run_hook

    argv = list(tomlkit.parse((codex_home() / "config.toml").read_text())["notify"])
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": "t1"})
    assert argv[argv.index("hook") + 1 :] == ["codex", "--chain", str(script)]
    assert run_hook("codex", [*argv[argv.index("codex") + 1 :], payload], None, worker=False) == 0
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.read_text() == payload


# --- remove keeps the user's formatting ---------------------------------------------------------


@pytest.mark.parametrize("indent", [4, "\t", None], ids=["4-spaces", "tabs", "one-line"])
def test_remove_gives_back_codex_hooks_json_as_the_user_wrote_it(indent) -> None:
    hooks = codex_home() / "hooks.json"
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say « fini »"}]}]}}
    original = json.dumps(mine, indent=indent, ensure_ascii=False) + "\n"
    hooks.write_text(original)

    assert run("add", "codex", "--budget", "0").exit_code == 0
    added = hooks.read_text()
    assert "« fini »" in added and "funes" in added
    if indent == 4:
        assert '\n    "hooks": {' in added
    assert run("remove", "codex").exit_code == 0
    assert hooks.read_text() == original


HERMES_CONFIGS = {
    "mixed-indent": "# top\nmodel:\n    name: x   # c\nplugins:\n  enabled:\n  - other\n"
    "list:\n    - a\n    - b\n",
    "four-and-indented-seq": "plugins:\n    enabled:\n        - a\n        - b  # keep\n"
    "model:\n  name: x\n",
    "flow-list": 'plugins:\n  enabled: [other, "quoted"]\nmodel:\n    name: x   # c\n',
    "empty-flow-list": "plugins:\n  enabled: []\nmodel:\n    name: x\n",
    "no-plugins-no-final-newline": 'model:\n  name: "x"\n  opts: {a: 1}\n\n\nfoo: bar',
    "plugins-without-enabled": "model:\n    name: x   # c\nplugins:\n    disabled: [a]\n",
    "crlf": "model:\r\n    name: x\r\nplugins:\r\n  enabled:\r\n  - a\r\n",
}


@pytest.mark.parametrize("original", HERMES_CONFIGS.values(), ids=HERMES_CONFIGS.keys())
def test_add_and_remove_hermes_change_only_the_funes_line(original) -> None:
    config = hermes_home() / "config.yaml"
    config.write_bytes(original.encode())

    assert run("add", "hermes", "--budget", "0").exit_code == 0
    added = config.read_bytes().decode()
    kept = [line for line in original.splitlines() if line.strip()]
    assert all(line in added.splitlines() for line in kept if "enabled" not in line)
    assert "funes" in added
    assert "changed:" not in run("add", "hermes", "--budget", "0").output  # idempotent

    assert run("remove", "hermes").exit_code == 0
    assert config.read_bytes() == original.encode()


# --- remote memories ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["recall", "--memory", "some-org/repo", "redis"],
        ["get", "a", "b", "--memory", "some-org/repo"],
    ],
    ids=["recall", "get"],
)
def test_unreachable_remote_memory_without_a_copy_is_an_error_not_the_local_memory(args) -> None:
    build_memory(sample_turns())  # a local memory that must NOT answer instead

    line = assert_one_error_line(run(*args), "some-org/repo", "go online once", "local folder")
    assert "redis" not in line


@pytest.mark.parametrize(
    "args",
    [
        ["recall", "--memory", "{missing}", "redis"],
        ["get", "a", "b", "--memory", "{missing}"],
        ["status", "{missing}"],
    ],
    ids=["recall", "get", "status"],
)
def test_a_memory_folder_that_holds_no_memory_is_named_not_replaced(args, tmp_path) -> None:
    build_memory(sample_turns())  # the local memory must not answer for the folder asked for
    missing = tmp_path / "no-memory-here"
    missing.mkdir()
    args = [a.format(missing=missing) for a in args]

    assert_one_error_line(run(*args), f"no memory at {missing}", "check the path")


@pytest.mark.slow
def test_mcp_recall_from_an_unreachable_remote_is_an_error_line() -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    build_memory(sample_turns())

    async def call() -> str:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "funes.cli", "mcp", "some-org/repo"],
            env={**os.environ, "FUNES_RERANKER": "none"},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("recall", {"query": "why did we drop redis"})
            return result.content[0].text

    text = anyio.run(call)
    assert text.startswith("recall error: memory some-org/repo is unreachable")
    assert "│" not in text  # no passage from the local memory


# --- bad option values --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "-inf"])
def test_half_life_that_is_not_a_number_of_days_is_refused(value) -> None:
    build_memory(sample_turns())
    assert_one_error_line(run("recall", "--half-life", value, "redis"), "--half-life", "≥ 0")


@pytest.mark.parametrize("value", ["nan", "-1"])
def test_add_budget_that_is_not_a_number_of_seconds_is_refused(value) -> None:
    config = codex_home() / "config.toml"
    config.write_text('model = "o3"\n')

    result = run("add", "codex", "--budget", value, "--yes")

    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--budget" in result.output and "seconds ≥ 0" in result.output
    assert config.read_text() == 'model = "o3"\n'


def test_half_life_zero_still_turns_recency_off() -> None:
    build_memory(sample_turns())
    result = run("recall", "--half-life", "0", "--format", "agent", "redis")
    assert result.exit_code == 0 and "nan" not in result.output


def test_a_commands_flags_in_a_query_are_words_and_a_misspelt_option_is_an_error() -> None:
    """`funes recall ls -la README` searches for those words (an agent lost a call to "No
    such option: -l"); `--harnes codex` is still refused, with the option it meant."""
    build_memory(sample_turns())
    found = run("recall", "pytest", "-q", "tests/test_cart.py", "--format", "agent")
    assert found.exit_code == 0 and "pytest tests/test_cart.py -q" in found.output
    refused = run("recall", "redis", "--harnes", "codex")
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "No such option: --harnes. Did you mean --harness?" in refused.output
    assert run("recall", "redis", "--harness", "codex", "-k", "1").exit_code == 0


# --- housekeeping a long-lived install needs ----------------------------------------------------


def test_hook_log_is_rotated_past_its_size_limit(tmp_funes_home) -> None:
    from funes.integrations.hook import LOG_MAX_BYTES, log_hook_error

    logs = tmp_funes_home / "logs"
    logs.mkdir(parents=True)
    (logs / "hook.log").write_text("x" * (LOG_MAX_BYTES + 1))

    log_hook_error("codex", RuntimeError("boom"))
    log_hook_error("codex", RuntimeError("again"))

    assert (logs / "hook.log.1").stat().st_size == LOG_MAX_BYTES + 1
    assert (logs / "hook.log").read_text().count("\n") == 2
    assert sorted(p.name for p in logs.iterdir()) == ["hook.log", "hook.log.1"]


def test_worker_log_is_rotated_before_a_worker_starts(tmp_funes_home) -> None:
    from funes.integrations.hook import LOG_MAX_BYTES, rotate_log

    logs = tmp_funes_home / "logs"
    logs.mkdir(parents=True)
    worker_log = logs / "worker.log"
    for generation in ("old", "new"):
        worker_log.write_text(generation * LOG_MAX_BYTES)
        rotate_log(worker_log)
    assert not worker_log.exists()
    assert (logs / "worker.log.1").read_text().startswith("new")  # one generation kept
    worker_log.write_text("small")
    rotate_log(worker_log)
    assert worker_log.read_text() == "small"


def test_stale_state_tmp_files_are_removed_by_the_next_index(tmp_funes_home) -> None:
    tmp_funes_home.mkdir(parents=True)
    stale = tmp_funes_home / ".state.abc123.tmp"
    stale.write_text("{half a state")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    live = tmp_funes_home / ".state.def456.tmp"  # a save in progress right now
    live.write_text("{")

    assert run("index").exit_code == 0

    assert not stale.exists()
    assert live.exists()
    assert json.loads((tmp_funes_home / "state.json").read_text())["version"] == 1


def test_stale_spool_tmp_files_are_removed_when_a_worker_starts(tmp_funes_home) -> None:
    from funes.integrations.hook import queue_dir, remove_stale_spool_tmp

    queue = queue_dir()
    queue.mkdir(parents=True)
    stale, live = queue / ".123-1-ab.json.tmp", queue / ".456-2-cd.json.tmp"
    for leftover in (stale, live):
        leftover.write_text('{"agent": "co')
    old = time.time() - 3600
    os.utime(stale, (old, old))

    remove_stale_spool_tmp()

    assert not stale.exists() and live.exists()


def test_a_binary_file_does_not_hide_other_warnings(tmp_path) -> None:
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "p"
    projects.mkdir(parents=True)
    (projects / "a-binary.jsonl").write_bytes(os.urandom(64 * 1024))
    (projects / "b-text.jsonl").write_text("\n".join(f"garbage line {i}" for i in range(200)))
    (projects / "c-useful.jsonl").write_text('[1, 2]\n{"type": "user"}\n')

    result = CliRunner().invoke(main, ["index"])

    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) <= 20
    assert any("c-useful.jsonl:1: JSON value is not an object" in w for w in warnings)
    assert any("more: not valid JSON; skipped" in w for w in warnings)
