"""Wire funes into Hermes: a user plugin in `$HERMES_HOME/plugins/funes/`, enabled in config.yaml.

Why a plugin rather than `mcp_servers:` + shell hooks: the plugin runs with no terminal prompt
(shell hooks need a per-command consent, or `hooks_auto_accept`, which would trust every hook of
the user; `hermes mcp add` asks to enable the tools), it needs no `hermes-agent[mcp]` extra, and
one folder carries both the tools (`funes_recall`, `funes_get`) and the per-turn hook.

config.yaml gains (or loses) one line, `- funes` under `plugins.enabled` (or one item of a
one-line `[a, b]`), so every other byte stays as the user wrote it, whatever their indentation
or line endings; the edit is checked by loading it back. A shape a one-line edit cannot serve
falls back to a ruamel.yaml round trip in the file's own layout (comments, order and quoting
kept).
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

from funes.installers.base import ConfigError, InstallReport, read_config_text, settle_config
from funes.installers.plugin_folder import plugin_status, remove_plugin, render_plugin
from funes.paths import hermes_home

PLUGIN_NAME = "funes"
# The files of `funes.plugins/hermes/` that Hermes loads; funes.json is written next to them.
PLUGIN_FILES: tuple[str, ...] = ("plugin.yaml", "__init__.py")
# (mapping, sequence, offset) indents tried in turn: the first that reproduces the user's file
# byte for byte is the one the edited file is written with. The first is Hermes's own (PyYAML's
# `- item` under its key), also used for a new file.
_INDENT_STYLES = [
    (mapping, sequence, offset)
    for mapping, (sequence, offset) in itertools.product(
        (2, 4), ((2, 0), (4, 2), (3, 1), (4, 0), (6, 4))
    )
]


def plugin_dir() -> Path:
    return hermes_home() / "plugins" / PLUGIN_NAME


def config_path() -> Path:
    return hermes_home() / "config.yaml"


class _Config:
    """config.yaml loaded for a round-trip edit, with the layout needed to write it back."""

    def __init__(self, path: Path) -> None:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.error import MarkedYAMLError

        self.path = path
        self.original = read_config_text(path)
        self.yaml = YAML()
        self.yaml.preserve_quotes = True
        self.yaml.width = 4096  # never re-wrap the user's long lines
        try:
            data = self.yaml.load(self.original) if self.original.strip() else None
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            raise ConfigError(path, line, f"not valid YAML ({exc.problem})") from None
        if data is None:
            data = CommentedMap()
        if not isinstance(data, CommentedMap):
            raise ConfigError(path, 1, "the top level is not a mapping")
        self.data: Any = data
        self._match_layout()

    def _match_layout(self) -> None:
        for mapping, sequence, offset in _INDENT_STYLES:
            self.yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
            if not self.original.strip() or self.dump() == self.original:
                return
        self.yaml.indent(mapping=2, sequence=2, offset=0)

    def dump(self) -> str:
        out = io.StringIO()
        self.yaml.dump(self.data, out)
        return out.getvalue()

    def render(self, edited: str | None) -> str:
        """The text to write for the (edited) data: `edited`, a line-level edit of the user's
        text, when it loads back to exactly that data (so every other byte stays as the user
        wrote it, whatever their indentation); else a ruamel dump in the file's layout."""
        from ruamel.yaml import YAML

        for candidate in (edited, self.original):
            try:
                if candidate is not None and _plain(YAML(typ="safe").load(candidate)) == _plain(
                    self.data
                ):
                    return candidate
            except Exception:  # an edit that does not parse is simply not used
                continue
        return self.dump()

    def text_adding(self, name: str) -> str | None:
        """The user's text with `name` appended to `plugins.enabled` by adding one line, or
        one item to a one-line `[a, b]` (None when the shape needs more than that)."""
        import re

        from ruamel.yaml.comments import CommentedMap

        lines = self.original.splitlines(keepends=True)
        nl = "\r\n" if "\r\n" in self.original else "\n"  # the file's own line ending
        section = self.data.get("plugins")
        if section is None:
            block = f"plugins:{nl}  enabled:{nl}  - {name}"
            if lines and not lines[-1].endswith("\n"):  # keep the file's lack of a last newline
                return self.original + nl + block
            return self.original + block + nl
        if not isinstance(section, CommentedMap) or not section or section.fa.flow_style():
            return None
        enabled = section.get("enabled")
        if enabled is None:
            key_line, indent = section.lc.key(next(iter(section)))
            prefix = lines[key_line][:indent]
            if prefix.strip():
                return None
            plugins_line = self.data.lc.key("plugins")[0]
            lines.insert(plugins_line + 1, f"{prefix}enabled:{nl}{prefix}- {name}{nl}")
            return "".join(lines)
        line, column = enabled.lc.line, enabled.lc.col
        if enabled == [] and lines[line][column:].startswith("["):  # `[]` → `[name]`
            edited = re.sub(r"\[\s*\]", f"[{name}]", lines[line], count=1)
            lines[line] = edited
            return "".join(lines) if edited != self.original.splitlines(True)[line] else None
        if not enabled:
            return None
        line, column = enabled.lc.item(len(enabled) - 1)
        if enabled.fa.flow_style():  # `enabled: [a, b]` on one line: `[a, b, name]`
            close = lines[line].find("]", column)
            if close < 0 or enabled.lc.line != line:
                return None
            lines[line] = f"{lines[line][:close]}, {name}{lines[line][close:]}"
            return "".join(lines)
        prefix = lines[line][:column]
        if prefix.strip() != "-":
            return None
        lines.insert(line + 1, f"{prefix}{name}{nl}")
        return "".join(lines)

    def text_removing(self, name: str) -> str | None:
        """The user's text without the `- name` line of `plugins.enabled` (and without the
        `enabled:` and `plugins:` lines when nothing is left under them)."""
        import re

        lines = self.original.splitlines(keepends=True)
        section = self.data.get("plugins")
        enabled = section.get("enabled") if isinstance(section, dict) else None
        if not enabled or name not in enabled:
            return None
        item_line = enabled.lc.item(enabled.index(name))[0]
        if enabled.fa.flow_style() and len(enabled) == 1:  # `[name]` → `[]`, as the user had
            edited = re.sub(rf"\[\s*([\"']?){re.escape(name)}\1\s*\]", "[]", lines[item_line])
            lines[item_line] = edited
            return "".join(lines)
        if enabled.fa.flow_style():  # `[a, name]` → `[a]`
            text = lines[item_line]
            quoted = rf"([\"']?){re.escape(name)}\1"
            for pattern in (rf",\s*{quoted}(?=\s*[,\]])", rf"(?<=\[)\s*{quoted}\s*,\s*"):
                edited, count = re.subn(pattern, "", text, count=1)
                if count:
                    lines[item_line] = edited
                    return "".join(lines)
            return None
        block_item = rf"\s*-\s+([\"']?){re.escape(name)}\1\s*(#.*)?"
        if not enabled.fa.flow_style() and not re.fullmatch(block_item, lines[item_line]):
            return None  # `[name]` alone goes with its key line, as a block list's last item
        drop = {item_line}
        if len(enabled) == 1:
            drop.add(section.lc.key("enabled")[0])
            if len(section) == 1:
                drop.add(self.data.lc.key("plugins")[0])
        kept = "".join(line for number, line in enumerate(lines) if number not in drop)
        if len(lines) - 1 in drop and not lines[-1].endswith("\n"):
            kept = kept.removesuffix("\n")  # the file ended without a newline: so it ends again
        return kept

    def plugins_section(self, create: bool) -> Any:
        """The `plugins:` mapping (created when asked); ConfigError if it has the wrong shape."""
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

        section = self.data.get("plugins")
        if section is None:
            if not create:
                return None
            section = self.data["plugins"] = CommentedMap()
        if not isinstance(section, dict):
            raise ConfigError(self.path, self._line_of("plugins"), "`plugins` is not a mapping")
        for key in ("enabled", "disabled"):
            value = section.get(key)
            if value is not None and not isinstance(value, list):
                line = self._line_of("plugins")
                raise ConfigError(self.path, line, f"`plugins.{key}` is not a list")
        if create and section.get("enabled") is None:
            section["enabled"] = CommentedSeq()
        return section

    def _line_of(self, key: str) -> int | None:
        try:
            return int(self.data.lc.key(key)[0]) + 1
        except (AttributeError, KeyError, TypeError):
            return None


def _load_plain(text: str) -> Any:
    """config.yaml's text as plain data, to compare it with the backup kept before funes."""
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(text)


def _plain(value: Any) -> Any:
    """ruamel's round-trip containers as plain dicts and lists, to compare two loads."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class HermesInstaller:
    agent = "hermes"

    def check(self) -> None:
        _Config(config_path()).plugins_section(create=False)

    def install(self, memory: str | None = None) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config = _Config(config_path())  # refuse before touching anything
        config.plugins_section(create=False)  # (checks its shape)
        edited = config.text_adding(PLUGIN_NAME)  # planned on the text as the user wrote it
        plugins = config.plugins_section(create=True)

        render_plugin(report, "hermes", PLUGIN_FILES, plugin_dir(), memory)
        if PLUGIN_NAME not in plugins["enabled"]:
            plugins["enabled"].append(PLUGIN_NAME)
        disabled = plugins.get("disabled")
        if disabled and PLUGIN_NAME in disabled:
            disabled.remove(PLUGIN_NAME)
            edited = None  # two edits: leave it to the layout-matched dump
            report.notes.append("funes was in plugins.disabled of config.yaml; it is enabled now")
        report.write(config.path, config.render(edited))
        report.notes.append(
            f"Hermes loads the funes plugin from {plugin_dir()} (enabled in {config.path}; "
            "`hermes plugins list` shows it): tools funes_recall and funes_get, and every turn "
            "is indexed when it ends. Restart running Hermes sessions."
        )
        return report

    def uninstall(self) -> InstallReport:
        report = InstallReport(agent=self.agent)
        config = _Config(config_path())
        plugins = config.plugins_section(create=False)
        if plugins is not None and PLUGIN_NAME in (plugins.get("enabled") or []):
            edited = config.text_removing(PLUGIN_NAME)
            plugins["enabled"].remove(PLUGIN_NAME)
            # An empty allow-list and a missing one both mean "no user plugins"; drop what is left
            # empty so a config funes created ends as it began (a user's own `[]` stays).
            if not plugins["enabled"] and not plugins["enabled"].fa.flow_style():
                del plugins["enabled"]
            if not plugins:
                del config.data["plugins"]
            # No backup now: the file holds funes's entry; the user's is from before `add`.
            report.write(config.path, config.render(edited), backup=False)
            settle_config(report, config.path, _load_plain)
        remove_plugin(report, plugin_dir())
        return report

    def status(self) -> dict[str, object]:
        try:
            plugins = _Config(config_path()).plugins_section(create=False)
        except ConfigError as exc:
            return exc.as_status()
        enabled = plugins is not None and PLUGIN_NAME in (plugins.get("enabled") or [])
        return plugin_status(config_path(), enabled, plugin_dir(), "__init__.py")


INSTALLER = HermesInstaller()
