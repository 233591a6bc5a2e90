"""Checks of every agent `funes add` wired: its files in place, the agent itself loading funes
(asked through the agent's own CLI: `claude plugin list`, `codex mcp list`, `pi list`, `hermes
plugins list`, `gemini extensions list`, `qwen mcp list`, `opencode debug config`, `copilot mcp
list`), and its hook firing after the sessions it writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from funes import paths
from funes.inspect.check import Check, warning

CLI_TIMEOUT_S = 60.0
READD = "run `funes add {agent}` again (it rewrites what is missing), then start a new session"
# A transcript written this long after the hook last fired means the hook is not firing (a turn
# still running writes its transcript before its hook fires, so allow for a long turn).
HOOK_SLACK_S = 15 * 60


def agent_checks(deep: bool = False) -> list[Check]:
    """Three checks per wired agent; with `deep`, also start the MCP server the agent is
    configured to run and list its tools, as the agent would."""
    from funes.integrations.agents import wired_agents

    wired = wired_agents()
    if not wired:
        return [
            Check(
                "agents",
                True,
                "none wired: the memory grows only when you run `funes index`",
            )
        ]
    # The agents' CLIs start slowly (node, python): ask them all at once.
    with ThreadPoolExecutor(max_workers=len(wired)) as pool:
        asked = {agent: pool.submit(_ask_and_probe, agent, deep) for agent in wired}
        checks: list[Check] = []
        for agent, record in wired.items():
            checks.append(_wiring_check(agent, record))
            answer, served = asked[agent].result()
            checks.append(_loaded_check(agent, answer))
            if served is not None:
                checks.append(served)
            checks.append(hook_check(agent, record))
    return checks


def _ask_and_probe(agent: str, deep: bool) -> tuple[tuple[bool | None, str, str], Check | None]:
    from funes.inspect.checks_mcp import configured_server, server_check

    answer, said = ask_agent(agent)
    if not deep:
        return answer, None
    server = configured_server(agent, said) if answer[0] else None
    return answer, server_check(agent, server) if server is not None else None


def _wiring_check(agent: str, record: dict[str, Any]) -> Check:
    from funes.installers import installer_for

    name = f"{agent}: files"
    try:
        status = dict(installer_for(agent).status())
    except Exception as error:
        return Check(
            name,
            False,
            f"cannot read its config: {error}",
            f"fix the config, then `funes add {agent}`",
        )
    problem = status.get("error") or status.get("problem")
    if problem:
        return Check(name, False, str(problem), f"fix the file, then run `funes add {agent}` again")
    files = [Path(p) for p in record.get("files") or []]
    missing = [str(p) for p in files if not p.exists()]
    if not status.get("installed") or missing:
        what = (
            f"missing: {', '.join(missing[:3])}" if missing else "no longer in the agent's config"
        )
        return Check(
            name, False, what, f"run `funes add {agent}` again (it changes only what is missing)"
        )
    memory = record.get("memory") or "local"
    detail = f"{len(files)} file(s) in place, bound to memory {memory}"
    if agent == "codex":
        if status.get("hook_trusted") is False and not status.get("notify"):
            return Check(
                name,
                False,
                detail
                + "; the Stop hook is not trusted and `notify` is not set: no turn is indexed",
                "run `funes add codex --trust-hooks`",
            )
        if status.get("hook_trusted") is False:
            detail += "; Stop hook not trusted yet (`notify` indexes each turn meanwhile)"
    return Check(name, True, detail)


# -- asking the agent ------------------------------------------------------------------------


def ask_agent(agent: str) -> tuple[tuple[bool | None, str, str], str]:
    """((True/False: the agent says it loads funes, None: it could not be asked; the detail;
    what to do when it does not load funes), the agent CLI's raw answer)."""
    asker = _ASKERS.get(agent)
    if asker is None:
        return (None, f"no way to ask {agent}", ""), ""
    binary, args, read = asker
    path = shutil.which(binary)
    if path is None:
        return (None, f"`{binary}` is not on PATH here, so it could not be asked", ""), ""
    try:
        done = subprocess.run(
            [path, *args],
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return (
            None,
            f"`{binary} {' '.join(args)}` did not answer ({type(error).__name__})",
            "",
        ), ""
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        return (None, f"`{binary} {' '.join(args)}` failed: {tail[0][:160]}", ""), ""
    # Gemini CLI prints `extensions list` on stderr.
    said = done.stdout if done.stdout.strip() else done.stderr
    try:
        return read(said), said
    except (ValueError, KeyError, TypeError) as error:
        unread = f"could not read what `{binary} {' '.join(args)}` said ({error})"
        return (None, unread, ""), said


def _command_problem(command: Any) -> str:
    """Why the funes command an agent runs cannot start ("" when it can)."""
    if not isinstance(command, str) or not command:
        return ""
    found = command if os.sep in command else shutil.which(command)
    if not found or not os.access(found, os.X_OK):
        return f"it runs {command}, which no longer exists (funes moved or was reinstalled)"
    return ""


def _read_claude(stdout: str) -> tuple[bool, str, str]:
    plugins = json.loads(stdout)
    entry = next((p for p in plugins if p.get("id") == "funes@funes"), None)
    return _plugin_verdict(entry, "enabled", "Claude Code", "claude plugin list", "funes@funes")


def _plugin_verdict(
    entry: dict[str, Any] | None,
    enabled_key: str,
    agent: str,
    lister: str,
    name: str,
    listed: str = "",
) -> tuple[bool, str, str]:
    """(ok, detail, fix) for funes as a plugin the agent lists (`entry`, None when not listed):
    on (`enabled_key`), and its MCP server's command still there. `agent` names the agent,
    `lister` the command that lists its plugins (`<agent cli> <kind> list`: `<kind> enable`
    turns one on), `name` funes as the list calls it, `listed` as a sentence does (default
    `name`)."""
    cli, kind, _ = lister.split()
    readd = READD.format(agent=cli)
    listed = listed or name
    if entry is None:
        return False, f"`{lister}` does not list {name}", readd
    if not entry.get(enabled_key, False):
        return (
            False,
            f"{agent} lists {listed} but it is disabled",
            f"enable it: `{cli} {kind} enable {name}`, then start a new session",
        )
    server = (entry.get("mcpServers") or {}).get("funes") or {}
    problem = _command_problem(server.get("command"))
    if problem:
        return False, f"{agent} loads {name}, but {problem}", readd
    return True, f"{agent} loads {listed} {entry.get('version', '')}".rstrip(), ""


def _read_codex(stdout: str) -> tuple[bool, str, str]:
    from funes.installers.codex import config_path

    servers = json.loads(stdout)
    entry = next((s for s in servers if s.get("name") == "funes"), None)
    if entry is None:
        return False, "`codex mcp list` does not list the funes server", READD.format(agent="codex")
    if not entry.get("enabled", True):
        reason = entry.get("disabled_reason") or "disabled"
        return (
            False,
            f"Codex lists the funes server but it is {reason}",
            f"delete `enabled = false` under [mcp_servers.funes] in {config_path()}",
        )
    problem = _command_problem((entry.get("transport") or {}).get("command"))
    if problem:
        return False, f"Codex lists the funes server, but {problem}", READD.format(agent="codex")
    return True, "Codex lists the funes MCP server, enabled", ""


def _read_pi(stdout: str) -> tuple[bool, str, str]:
    from funes.installers.pi import package_dir

    if str(package_dir()) in stdout:
        return True, f"pi lists the funes extension ({package_dir()})", ""
    return False, f"`pi list` does not list {package_dir()}", READD.format(agent="pi")


def _read_hermes(stdout: str) -> tuple[bool, str, str]:
    for line in stdout.splitlines():
        words = line.split()
        if words and words[-1] == "funes":
            if words[0] == "enabled":
                return True, "Hermes lists the funes plugin, enabled", ""
            return (
                False,
                f"Hermes lists the funes plugin as {words[0]}",
                "enable it: `hermes plugins enable funes` (or `funes add hermes`)",
            )
    return False, "`hermes plugins list` does not list funes", READD.format(agent="hermes")


def _read_gemini(stdout: str) -> tuple[bool, str, str]:
    from funes.inspect.checks_mcp import gemini_extension

    entry = gemini_extension(stdout)
    extension = "the funes extension"
    return _plugin_verdict(
        entry, "isActive", "Gemini CLI", "gemini extensions list", "funes", extension
    )


def _read_qwen(stdout: str) -> tuple[bool, str, str]:
    """`qwen mcp list`: `✓ funes: <command> (stdio) - Connected` (it starts each server)."""
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", stdout)
    line = next((ln for ln in plain.splitlines() if re.match(r"\W*funes: ", ln)), None)
    if line is None:
        return False, "`qwen mcp list` does not list the funes server", READD.format(agent="qwen")
    command = line.split("funes: ", 1)[1].split(" ")[0]
    problem = _command_problem(command)
    if problem:
        return False, f"Qwen Code lists the funes server, but {problem}", READD.format(agent="qwen")
    if not line.rstrip().endswith("- Connected"):
        state = line.rsplit(" - ", 1)[-1].strip()
        return (
            False,
            f"Qwen Code lists the funes server as {state}",
            f"run `{command} mcp` in a terminal to see why it does not start",
        )
    return True, "Qwen Code lists the funes MCP server, connected", ""


def _read_opencode(stdout: str) -> tuple[bool, str, str]:
    """`opencode debug config`: the config opencode resolved, every file merged."""
    from funes.installers.opencode import plugin_url

    config = json.loads(stdout)
    server = (config.get("mcp") or {}).get("funes")
    if not isinstance(server, dict):
        return False, "opencode's config has no funes MCP server", READD.format(agent="opencode")
    if server.get("enabled") is False:
        return False, "opencode's funes MCP server is disabled", READD.format(agent="opencode")
    if plugin_url() not in (config.get("plugin") or []):
        return False, "opencode does not load the funes plugin", READD.format(agent="opencode")
    problem = _command_problem((server.get("command") or [None])[0])
    if problem:
        return False, f"opencode loads funes, but {problem}", READD.format(agent="opencode")
    return True, "opencode loads the funes plugin and MCP server", ""


def _read_copilot(stdout: str) -> tuple[bool, str, str]:
    """`copilot mcp list --json`: every MCP server Copilot would start (its hooks have no CLI;
    the files check reads them from settings.json)."""
    server = (json.loads(stdout).get("mcpServers") or {}).get("funes")
    if not isinstance(server, dict):
        return False, "`copilot mcp list` does not list funes", READD.format(agent="copilot")
    if server.get("enabled") is False:
        return False, "Copilot lists the funes MCP server as disabled", "`copilot mcp enable funes`"
    problem = _command_problem(server.get("command"))
    if problem:
        return False, f"Copilot lists funes, but {problem}", READD.format(agent="copilot")
    return True, "Copilot lists the funes MCP server, enabled", ""


_ASKERS: dict[str, tuple[str, list[str], Callable[[str], tuple[bool, str, str]]]] = {
    "claude": ("claude", ["plugin", "list", "--json"], _read_claude),
    "codex": ("codex", ["mcp", "list", "--json"], _read_codex),
    "pi": ("pi", ["list"], _read_pi),
    "hermes": ("hermes", ["plugins", "list", "--plain", "--no-bundled"], _read_hermes),
    "gemini": ("gemini", ["extensions", "list", "--output-format", "json"], _read_gemini),
    "qwen": ("qwen", ["mcp", "list"], _read_qwen),
    "opencode": ("opencode", ["debug", "config"], _read_opencode),
    "copilot": ("copilot", ["mcp", "list", "--json"], _read_copilot),
}


def _loaded_check(agent: str, answer: tuple[bool | None, str, str]) -> Check:
    loaded, detail, fix = answer
    name = f"{agent}: loaded"
    if loaded:
        return Check(name, True, detail)
    if loaded is None:
        # Could not ask: not known to be broken, not known to work either.
        return warning(name, detail, f"put `{agent}` on PATH and run `funes doctor` again")
    return Check(name, False, detail, fix)


# -- the hook --------------------------------------------------------------------------------


def newest_transcript(agent: str) -> float | None:
    """The mtime of the newest transcript `agent` wrote (None when it has none)."""
    patterns = {
        "claude": (paths.claude_home() / "projects", "*.jsonl"),
        "codex": (paths.codex_home() / "sessions", "*.jsonl*"),
        "pi": (paths.pi_agent_dir() / "sessions", "*.jsonl"),
        "gemini": (paths.gemini_dir() / "tmp", "session-*.jsonl"),
        "qwen": (paths.qwen_home() / "projects", "*.jsonl"),
        "copilot": (paths.copilot_home() / "session-state", "events.jsonl"),
    }
    if agent == "hermes":
        files = [paths.hermes_home() / "state.db"]
    elif agent == "opencode":  # written in WAL mode: the -wal file moves first
        database = paths.opencode_db()
        files = [database, database.with_name(database.name + "-wal")]
    elif agent in patterns:
        root, pattern = patterns[agent]
        files = list(root.rglob(pattern)) if root.is_dir() else []
    else:
        return None
    newest = None
    for file in files:
        try:
            mtime = file.stat().st_mtime
        except OSError:
            continue
        newest = mtime if newest is None else max(newest, mtime)
    return newest


def _epoch(iso: str | None) -> float:
    from datetime import UTC, datetime

    if not iso:
        return 0.0
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def hook_check(agent: str, record: dict[str, Any]) -> Check:
    import time

    name = f"{agent}: hook"
    last_fired = record.get("hook_last_fired")
    fired = _epoch(last_fired)
    since = max(fired, _epoch(record.get("installed_at") or record.get("updated_at")))
    newest = newest_transcript(agent)
    said = f"last fired {last_fired}" if last_fired else "never fired"
    if newest is None or newest <= since + HOOK_SLACK_S:
        detail = said + ("" if newest else f"; no {agent} session written yet")
        if not last_fired:
            # Nothing shows it works yet: confirmed once the agent runs a turn.
            return warning(name, detail, f"run a turn in {agent}, then `funes doctor` again")
        return Check(name, True, detail)
    wrote = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(newest))
    fixes = {
        "claude": "check `claude plugin list` shows funes@funes enabled; run `funes add claude` "
        "again and start a new session",
        "codex": "run `funes add codex --trust-hooks` (or check `notify` in ~/.codex/config.toml)",
        "gemini": "check `gemini extensions list` shows funes enabled; run `funes add gemini` "
        "again and start a new session",
        "qwen": "check `hooks.Stop` in ~/.qwen/settings.json runs `funes hook qwen`; run "
        "`funes add qwen` again and start a new session",
    }
    return Check(
        name,
        False,
        f"{agent} wrote a session at {wrote} but its hook {said}: new turns are not indexed",
        fixes.get(agent, f"run `funes add {agent}` again and start a new session")
        + "; `funes index` picks up what was missed",
    )
