"""Codex CLI: the funes MCP server in `config.toml`, a Stop hook in `hooks.json`, and `notify`.

- `$CODEX_HOME/config.toml` is edited with tomlkit, so the user's comments, key order and other
  tables keep their bytes. funes adds `[mcp_servers.funes]` (with
  `default_tools_approval_mode = "approve"`, without which `codex exec` refuses MCP calls), the
  top-level `mcp_optional_startup_grace_ms` when the user has none (exec otherwise starts before a
  slow MCP server is up; marked `# added by funes` so remove knows it is ours), and `notify`.
- `notify` is the always-on hook: Codex runs it after every turn without asking for trust. A
  user's own `notify` is kept by chaining: ours becomes `funes hook codex --chain <theirs...>`
  and `funes hook` runs theirs with the same payload. Their line (value and comment; a string,
  which Codex does not document, too) is kept in a comment on ours, and remove puts it back
  byte for byte.
- `hooks.json` is written back with its own indentation (spaces or tabs) and non-ASCII text.
- A key funes edits with a shape it cannot edit safely (`mcp_servers = "oops"`, a `Stop` that is
  not a list) is refused with file:line before anything is written.
- `$CODEX_HOME/hooks.json` gets a `Stop` hook (it carries the transcript path). Codex runs
  hooks only once the user trusts them, so `install` says how: `/hooks` in the Codex TUI, or
  `trust_hooks()` (`funes add codex --trust-hooks`), which asks `codex app-server` to trust it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

from funes.installers.base import (
    ConfigError,
    InstallReport,
    dump_json_like,
    read_config_text,
    read_json_config,
    write_atomic,
)
from funes.installers.commands import hook_command, mcp_command, server_environment
from funes.paths import codex_home

SERVER = "funes"
GRACE_KEY = "mcp_optional_startup_grace_ms"
GRACE_MS = 15000
OURS = "added by funes"
CHAIN = "--chain"
MCP_STARTUP_TIMEOUT_S = 30
HOOK_TIMEOUT_S = 30


def config_path() -> Path:
    return codex_home() / "config.toml"


def hooks_path() -> Path:
    return codex_home() / "hooks.json"


def _load_toml(path: Path) -> Any:
    """config.toml parsed for a round-trip edit; ConfigError (nothing written) when it is not
    TOML or a key funes edits has a shape funes cannot edit safely."""
    import tomlkit
    from tomlkit.exceptions import ParseError

    text = read_config_text(path)
    try:
        doc = tomlkit.parse(text)
    except ParseError as error:
        raise ConfigError(path, error.line, f"not valid TOML ({error})") from None
    for key, shape in (("mcp_servers", "a table"), ("hooks", "a table")):
        if key in doc and not isinstance(doc[key], dict):
            raise ConfigError(path, _toml_line(text, key), f"`{key}` is not {shape}")
    state = doc.get("hooks", {}).get("state")
    if state is not None and not isinstance(state, dict):
        raise ConfigError(path, _toml_line(text, "state"), "`hooks.state` is not a table")
    if SERVER in doc.get("mcp_servers", {}) and not isinstance(doc["mcp_servers"][SERVER], dict):
        raise ConfigError(path, _toml_line(text, SERVER), f"`mcp_servers.{SERVER}` is not a table")
    notify = doc.get("notify")
    strings = isinstance(notify, list) and all(isinstance(x, str) for x in notify)
    if notify is not None and not (isinstance(notify, str) or strings):
        raise ConfigError(path, _toml_line(text, "notify"), "`notify` is not a list of strings")
    if isinstance(notify, str):
        try:
            _split_command(notify)
        except ValueError as error:
            raise ConfigError(path, _toml_line(text, "notify"), f"`notify`: {error}") from None
    return doc


def _toml_line(text: str, key: str) -> int | None:
    """The line where `key` is assigned or opens a table, for pointing at it in an error."""
    import re

    pattern = re.compile(rf"^\s*(?:{re.escape(key)}\s*=|\[+\s*(?:[\w.\-]+\.)?{re.escape(key)}\b)")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _load_hooks(path: Path) -> tuple[dict[str, Any], str]:
    """hooks.json parsed, and its text (to write it back in its own layout); ConfigError when
    the `Stop` groups funes edits do not have Codex's shape."""
    text = read_config_text(path)
    data = read_json_config(path)
    if data is None:
        return {"hooks": {}}, text
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise ConfigError(path, 1, 'expected an object {"hooks": {EVENT: [...]}}')
    data.setdefault("hooks", {})
    stop = data["hooks"].get("Stop")
    line = _json_key_line(text, "Stop")
    if stop is not None and not isinstance(stop, list):
        raise ConfigError(path, line, '"hooks.Stop" is not a list of hook groups')
    for group in stop or []:
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise ConfigError(path, line, 'a "hooks.Stop" group is not {"hooks": [...]}')
    return data, text


def _json_key_line(text: str, key: str) -> int | None:
    needle = json.dumps(key)
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return None


def _is_our_argv(argv: list[str]) -> bool:
    """True for a command line that runs `<funes> hook codex` (any funes path)."""
    for i in range(1, len(argv) - 1):
        if argv[i] == "hook" and argv[i + 1] == "codex" and Path(argv[i - 1]).name == "funes":
            return True
    return argv[: len(hook_command("codex"))] == hook_command("codex")


def _is_our_handler(handler: Any) -> bool:
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        return _is_our_argv(shlex.split(handler["command"]))
    except ValueError:
        return False


def _our_group() -> dict[str, Any]:
    command = shlex.join(hook_command("codex"))
    return {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]}


def _notify_argv(doc: Any) -> tuple[list[str], str | None]:
    """`notify` as an argv (a string is split like a shell would), and the comment on its line."""
    raw = doc.get("notify")
    if raw is None:
        return [], None
    comment = doc.item("notify").trivia.comment or None
    if isinstance(raw, str):
        return _split_command(raw), comment
    return [str(x) for x in raw], comment


def _split_command(command: str) -> list[str]:
    """A string `notify` as an argv: one program when it names one (a path may hold spaces),
    else split as a shell would (`notify-send --urgency low`)."""
    if Path(command).expanduser().is_file() or shutil.which(command):
        return [command]
    return shlex.split(command)


_WAS = "yours was "
_JSON = "json:"


def _remember_notify(doc: Any) -> str:
    """Our comment for the `notify` line, carrying the user's line as it was."""
    item = doc.item("notify")
    line = f"{item.as_string()}{item.trivia.comment_ws}{item.trivia.comment}".rstrip()
    if "\n" in line:  # a multi-line array: its text, JSON-quoted, fits on one comment line
        line = _JSON + json.dumps(line)
    return f"{OURS}; {_WAS}{line}"


def _original_notify_in(comment: str | None) -> Any:
    """The user's `notify` item (value and comment) recorded by `_remember_notify`, or None."""
    import tomlkit

    if not comment or OURS not in comment or _WAS not in comment:
        return None
    line = comment.split(_WAS, 1)[1]
    try:
        if line.startswith(_JSON):
            line = json.loads(line[len(_JSON) :])
        return tomlkit.parse("v = " + line).item("v")
    except Exception:  # tomlkit raises several types for a hand-edited comment
        return None


def _user_notify(notify: list[str]) -> list[str] | None:
    """The user's own notify argv that ours chains to, or None when ours chains nothing."""
    if CHAIN in notify:
        return notify[notify.index(CHAIN) + 1 :]
    return None


class CodexInstaller:
    agent = "codex"

    def check(self) -> None:
        _load_toml(config_path())
        _load_hooks(hooks_path())

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config, hooks = config_path(), hooks_path()
        doc = _load_toml(config)  # parse both before writing either: all or nothing
        hooks_doc, hooks_text = _load_hooks(hooks)
        self._patch_config(doc, memory)
        report.write(config, doc.as_string())
        if self._patch_hooks(hooks_doc):
            report.write(hooks, dump_json_like(hooks_doc, hooks_text))
        if hooks in report.changed or not self.hook_trusted():
            report.notes.append(
                "Codex runs the funes Stop hook only once you trust it: run `codex`, type /hooks "
                "and trust it, or run `funes add codex --trust-hooks`. Until then `notify` "
                "indexes each turn."
            )
        return report

    def _patch_config(self, doc: Any, memory: str | None) -> None:
        import tomlkit

        command = mcp_command(memory)
        server = tomlkit.table()
        server["command"] = command[0]
        server["args"] = command[1:]
        server["default_tools_approval_mode"] = "approve"
        server["startup_timeout_sec"] = MCP_STARTUP_TIMEOUT_S
        if environment := server_environment():  # Codex cleans its MCP servers' environment
            server["env"] = environment
        servers = doc.get("mcp_servers")
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc["mcp_servers"] = servers
        if servers.get(SERVER) != server:
            servers[SERVER] = server
        if GRACE_KEY not in doc:
            grace = tomlkit.item(GRACE_MS)
            grace.comment(OURS)
            doc[GRACE_KEY] = grace
        notify, comment = _notify_argv(doc)
        if _is_our_argv(notify):
            user = _user_notify(notify)
        else:
            user = notify or None
            # Chain the user's argv (a string, not Codex's documented form, is split into its
            # words) and keep their exact line (value and comment) in a comment on ours, so
            # remove gives it back byte for byte.
            comment = _remember_notify(doc) if notify else None
        wanted = [*hook_command("codex"), *([CHAIN, *user] if user else [])]
        if notify != wanted or doc.get("notify") != wanted:
            doc["notify"] = wanted
            if comment:
                doc.item("notify").comment(comment)

    def _patch_hooks(self, hooks_doc: dict[str, Any]) -> bool:
        stop = hooks_doc["hooks"].setdefault("Stop", [])
        wanted = _our_group()
        mine = [i for i, g in enumerate(stop) if any(map(_is_our_handler, g.get("hooks", [])))]
        if mine == [len(stop) - 1] and stop[-1] == wanted:
            return False
        for i in reversed(mine):
            del stop[i]
        stop.append(wanted)  # last, so removing it never shifts the user's trusted hook keys
        return True

    def our_hook_keys(self) -> list[str]:
        """Codex's trust keys (`<file>:stop:<group>:<handler>`) for the funes Stop hook."""
        hooks_doc, _ = _load_hooks(hooks_path())
        keys = []
        for g, group in enumerate(hooks_doc["hooks"].get("Stop", [])):
            for h, handler in enumerate(group.get("hooks", [])):
                if _is_our_handler(handler):
                    keys.append(f"{hooks_path()}:stop:{g}:{h}")
        return keys

    def hook_trusted(self) -> bool:
        state = _load_toml(config_path()).get("hooks", {}).get("state", {})
        keys = self.our_hook_keys()
        return bool(keys) and all(key in state for key in keys)

    def trust_hooks(self, cwd: Path | None = None) -> list[str]:
        """Trust the funes Stop hook through `codex app-server` (JSON-RPC on stdio), the way the
        /hooks screen does; return the keys trusted. Raises RuntimeError without `codex`."""
        codex = shutil.which("codex")
        if codex is None:
            raise RuntimeError("`codex` is not on PATH: run `codex`, type /hooks and trust funes")
        ours = set(self.our_hook_keys())
        with subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        ) as server:
            rpc = _JsonRpc(server)
            rpc.call("initialize", {"clientInfo": {"name": "funes", "version": "0"}})
            rpc.notify("initialized")
            listed = rpc.call("hooks/list", {"cwds": [str(cwd or Path.cwd())]})
            hooks = [h for entry in listed["data"] for h in entry["hooks"]]
            edits: list[dict[str, Any]] = [
                {
                    "keyPath": f"hooks.state.{json.dumps(h['key'])}",
                    "mergeStrategy": "upsert",
                    "value": {"trusted_hash": h["currentHash"]},
                }
                for h in hooks
                if h["key"] in ours and h.get("trustStatus") != "trusted"
            ]
            if edits:
                rpc.call("config/batchWrite", {"edits": edits})
            assert server.stdin is not None
            server.stdin.close()
            server.terminate()
        return [str(edit["keyPath"]) for edit in edits]

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config, hooks = config_path(), hooks_path()
        doc = _load_toml(config)
        hooks_doc, hooks_text = _load_hooks(hooks)
        our_keys = self.our_hook_keys() if hooks.exists() else []
        if config.exists():
            before = doc.as_string()
            self._unpatch_config(doc, our_keys)
            after = doc.as_string()
            if after != before:
                if before.endswith("\n"):  # tomlkit leaves the removed table's blank lines
                    after = after.rstrip("\n") + "\n" if after.strip() else ""
                if _delete_if_ours(config, after) or write_atomic(config, after):
                    report.changed.append(config)
        if hooks.exists():
            stop = hooks_doc["hooks"].get("Stop", [])
            kept = [g for g in stop if not any(map(_is_our_handler, g.get("hooks", [])))]
            if len(kept) != len(stop):
                if kept:
                    hooks_doc["hooks"]["Stop"] = kept
                else:
                    del hooks_doc["hooks"]["Stop"]
                text = dump_json_like(hooks_doc, hooks_text)
                emptied = hooks_doc == {"hooks": {}}
                if _delete_if_ours(hooks, "" if emptied else text) or write_atomic(hooks, text):
                    report.changed.append(hooks)
        return report

    def _unpatch_config(self, doc: Any, our_keys: list[str]) -> None:
        servers = doc.get("mcp_servers")
        if servers is not None and SERVER in servers:
            del servers[SERVER]
            if not servers:
                del doc["mcp_servers"]
        if GRACE_KEY in doc and OURS in (doc.item(GRACE_KEY).trivia.comment or ""):
            del doc[GRACE_KEY]
        notify, comment = _notify_argv(doc)
        if _is_our_argv(notify):
            user = _user_notify(notify)
            original = _original_notify_in(comment)
            if original is not None:
                # tomlkit gives the new item the replaced one's comment (ours): put theirs back
                theirs = (original.trivia.comment, original.trivia.comment_ws)
                doc["notify"] = original
                restored = doc.item("notify").trivia
                restored.comment, restored.comment_ws = theirs
            elif user:
                doc["notify"] = user
            else:
                del doc["notify"]
        state = doc.get("hooks", {}).get("state")
        if state is not None:
            for key in our_keys:
                if key in state:
                    del state[key]
            if not state:
                del doc["hooks"]["state"]
            if not doc["hooks"]:
                del doc["hooks"]

    def status(self) -> dict[str, object]:
        try:
            doc = _load_toml(config_path())
            trusted = self.hook_trusted()
        except ConfigError as error:
            return error.as_status()
        server = doc.get("mcp_servers", {}).get(SERVER)
        return {
            "installed": server is not None,
            "hook_trusted": trusted,
            "notify": _is_our_argv(_notify_argv(doc)[0]),
            "files": [str(config_path()), str(hooks_path())],
        }


def _delete_if_ours(path: Path, remaining: str) -> bool:
    """Delete `path` when nothing is left in it and funes created it (no backup of a user
    original exists); return True if deleted."""
    backup = path.with_name(path.name + ".funes-backup")
    if remaining.strip() or backup.exists() or not path.exists():
        return False
    path.unlink()
    return True


class _JsonRpc:
    """Just enough JSON-RPC over a child's stdio for `codex app-server`."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.next_id = 0

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"codex app-server {method}: {message['error']}")
                return message["result"]
        raise RuntimeError(f"codex app-server exited before answering {method}")

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()


INSTALLER = CodexInstaller()
