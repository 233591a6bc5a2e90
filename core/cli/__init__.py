"""The `funes` command line: a thin layer over the library.

Each subcommand lives in its own module (`funes.cli.<module>`, exposing a click command named
`command`) and is imported only when it runs, so `funes hook` starts without loading lancedb or
torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import os

import click

from funes import __version__

# subcommand name → module under funes.cli; order is the order shown in --help.
COMMANDS: dict[str, str] = {
    "index": "index_cmd",
    "status": "status_cmd",
    "recall": "recall_cmd",
    "get": "get_cmd",
    "timeline": "timeline_cmd",
    "sessions": "sessions_cmd",
    "show": "show_cmd",
    "resume": "resume_cmd",
    "catchup": "catchup_cmd",
    "mcp": "mcp_cmd",
    "add": "add_cmd",
    "remove": "remove_cmd",
    "hook": "hook_cmd",
    "push": "push_cmd",
    "curate": "curate_cmd",
    "forget": "forget_cmd",
    "scrub": "scrub_cmd",
    "ask": "ask_cmd",
    "doctor": "doctor_cmd",
    "ui": "ui_cmd",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _module_exists(COMMANDS[name])]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = COMMANDS.get(cmd_name)
        if module_name is None or not _module_exists(module_name):
            return None
        module = importlib.import_module(f"funes.cli.{module_name}")
        return module.command

    def invoke(self, ctx: click.Context) -> object:
        from funes.cli.errors import friendly_errors
        from funes.paths import PRIVATE_UMASK

        # What any command creates is private (also when run as `python -m funes.cli` or
        # in-process, not by the console script); an in-process caller gets its umask back.
        previous = os.umask(PRIVATE_UMASK)
        try:
            # The command line after `funes` (click 9 keeps it all in `args`), to name --memory.
            argv = [*getattr(ctx, "_protected_args", []), *ctx.args]
            with friendly_errors(argv):
                return super().invoke(ctx)
        finally:
            os.umask(previous)


def _module_exists(module_name: str) -> bool:
    return importlib.util.find_spec(f"funes.cli.{module_name}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="funes", message="%(prog)s %(version)s")
def main() -> None:
    """funes: a durable memory for AI coding agents.

    \b
    Set up an agent (indexes its history, installs recall tools and the per-turn hook):
      funes add claude          # or codex, pi, hermes, gemini, qwen, opencode, copilot
    Then ask the memory:
      funes recall "why did we drop the redis cache"
      funes get SESSION SEQ     # read a place a hit came from (--grep WORDS, --full)
      funes timeline SESSION SEQ  # what came before and after, one line a step
    """
