"""Gemini CLI: the funes extension, linked with Gemini CLI's own `gemini extensions link`, and a
policy file that lets it run funes's read-only tools.

The extension ships in `funes.plugins/gemini/`: `gemini-extension.json` (the `funes` MCP server
and the context file `FUNES.md`, which says when to recall), `hooks/hooks.json` (AfterAgent, once
per turn, and SessionEnd: `funes hook gemini`) and the `recall` skill. `install` renders a copy
under `$FUNES_HOME/integrations/gemini/` with the absolute funes command and the bound memory
baked in, and links it (Gemini CLI then reads it in place, and records the link under
`~/.gemini/extensions/funes/`); the command runs in that folder, because linking also trusts the
folder it runs in. Without `gemini` on PATH it writes the files and prints the command.

Gemini CLI cannot trust an extension's MCP server, and `gemini -p` refuses a tool call that
would need a confirmation: `~/.gemini/policies/funes.toml`, a file funes writes whole and
deletes on remove, allows `recall`, `get` and `status` of the `funes` server. The user's
`settings.json` is never edited. Tools surface as `mcp_funes_recall` / `mcp_funes_get`.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

from funes.installers.agent_cli import changed_since, digests, run_agent_cli
from funes.installers.base import (
    ConfigError,
    InstallReport,
    prune_empty,
    read_config_text,
    read_json_config,
)
from funes.installers.commands import (
    funes_command,
    hook_shell_command,
    mcp_command,
    server_environment,
)
from funes.installers.plugin_folder import bound_memory_in
from funes.paths import funes_home, gemini_dir
from funes.plugins import plugin_dir

EXTENSION = "funes"
# The files of `funes.plugins/gemini/` Gemini CLI loads; funes.json is written next to them.
EXTENSION_FILES: tuple[str, ...] = (
    "gemini-extension.json",
    "FUNES.md",
    "hooks/hooks.json",
    "skills/recall/SKILL.md",
)
POLICY_MARK = "# Written by `funes add gemini`"


def extension_dir() -> Path:
    return funes_home() / "integrations" / "gemini"


def policy_path() -> Path:
    return gemini_dir() / "policies" / "funes.toml"


def link_record() -> Path:
    """Where Gemini CLI records an installed extension's source."""
    return gemini_dir() / "extensions" / EXTENSION / ".gemini-extension-install.json"


def _gemini_state_files() -> list[Path]:
    """The files `gemini extensions link/uninstall` rewrite (reported when they change)."""
    return [
        link_record(),
        gemini_dir() / "extensions" / "extension-enablement.json",
        gemini_dir() / "extension_integrity.json",
    ]


def render_extension(memory: str | None) -> dict[str, bytes]:
    """Relative path → bytes of the extension with funes's absolute command (and memory) in."""
    source = plugin_dir("gemini")
    funes = funes_command()
    files: dict[str, bytes] = {}
    for name in EXTENSION_FILES:
        raw = (source / name).read_bytes()
        if name == "gemini-extension.json":
            manifest = json.loads(raw)
            command = mcp_command(memory)
            server: dict[str, Any] = {"command": command[0], "args": command[1:]}
            if environment := server_environment():
                server["env"] = environment
            manifest["mcpServers"]["funes"] = server
            raw = _json_bytes(manifest)
        elif name == "hooks/hooks.json":
            hooks = json.loads(raw)
            for groups in hooks["hooks"].values():
                for group in groups:
                    for handler in group["hooks"]:
                        handler["command"] = hook_shell_command("gemini")
            raw = _json_bytes(hooks)
        files[name] = raw
    files["funes.json"] = _json_bytes({"command": funes, "memory": memory})
    return files


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()


def _policy_text() -> bytes:
    return (plugin_dir("gemini") / "policy.toml").read_bytes()


class GeminiInstaller:
    agent = "gemini"

    def check(self) -> None:
        """Refuse an extension named funes linked from elsewhere, a malformed link record, or a
        policy file of the same name that funes did not write."""
        self._linked()
        policy = policy_path()
        text = read_config_text(policy)
        if text and not text.startswith(POLICY_MARK):
            raise ConfigError(
                policy,
                1,
                "a policy file of this name exists and was not written by funes; rename it",
            )

    def _linked(self) -> bool:
        """True when the installed `funes` extension is funes's own; ConfigError for another."""
        record = link_record()
        data = read_json_config(record)
        if data is None:
            return False
        if not isinstance(data, dict) or not isinstance(data.get("source"), str):
            raise ConfigError(record, 1, 'expected an object {"source": ..., "type": ...}')
        if Path(data["source"]).resolve() != extension_dir().resolve():
            raise ConfigError(
                record,
                None,
                f"a Gemini CLI extension named funes is already installed from {data['source']}; "
                "remove it with `gemini extensions uninstall funes`",
            )
        return True

    def _gemini(self, *args: str) -> None:
        gemini = shutil.which("gemini")
        assert gemini is not None
        folder = extension_dir()
        argv = [gemini, "extensions", *args]
        run_agent_cli(
            argv, f"gemini extensions {' '.join(args)}", cwd=folder if folder.is_dir() else None
        )

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self.check()
        folder = extension_dir()
        for name, data in render_extension(memory).items():
            report.write(folder / name, data, backup=False)
        report.write(policy_path(), _policy_text(), backup=False)
        if self._linked():
            return report
        if shutil.which("gemini") is None:
            report.notes.append(
                "`gemini` is not on PATH: the extension is ready; to load it run\n"
                f"  cd {shlex.quote(str(folder))} && gemini extensions link . --consent"
            )
            return report
        before = digests(_gemini_state_files())
        self._gemini("link", str(folder), "--consent")
        report.changed += changed_since(before)
        report.notes.append(
            "Gemini CLI: tools mcp_funes_recall / mcp_funes_get and the recall skill load in new "
            "sessions; each finished turn is indexed by the AfterAgent hook."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        self.check()
        if self._linked():
            if shutil.which("gemini") is None:
                report.notes.append(
                    "`gemini` is not on PATH: to unload the extension run\n"
                    f"  gemini extensions uninstall {EXTENSION}"
                )
            else:
                before = digests(_gemini_state_files())
                self._gemini("uninstall", EXTENSION)
                report.changed += changed_since(before)
        policy = policy_path()
        if policy.exists():
            policy.unlink()
            report.changed.append(policy)
            prune_empty(policy.parent)
        folder = extension_dir()
        if folder.exists():
            report.changed += sorted(p for p in folder.rglob("*") if p.is_file())
            shutil.rmtree(folder)
        return report

    def status(self) -> dict[str, object]:
        try:
            linked = self._linked()
            self.check()
        except ConfigError as error:
            return error.as_status()
        folder = extension_dir()
        present = (folder / "gemini-extension.json").exists()
        allowed = policy_path().exists()
        files = [str(p) for p in sorted(folder.rglob("*")) if p.is_file()] if present else []
        files += [str(policy_path())] if allowed else []
        return {
            "installed": linked and present and allowed,
            "linked": linked,
            "policy": allowed,
            "extension_dir": str(folder),
            "files": files,
            "memory": bound_memory_in(folder),
        }


INSTALLER = GeminiInstaller()
