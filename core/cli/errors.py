"""One line for the failures a user can fix, instead of a traceback.

Every command runs under `friendly_errors`: an OSError about funes's home (a file where the
folder should be, a read-only folder) or a memory whose Lance files cannot be read becomes one
`Error: …` line that says what is wrong and what to do, with exit status 1. Anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click


@contextmanager
def friendly_errors(args: Sequence[str]) -> Iterator[None]:
    """Turn the errors `describe` knows into a `click.ClickException` (exit 1, one line)."""
    from funes.paths import funes_home

    home = funes_home()
    if home.exists() and not home.is_dir():
        raise click.ClickException(_home_is_a_file(home))
    from funes.index.diskfull import DiskFull, disk_full, is_disk_full, needed_for_memory
    from funes.index.store import MemoryUnavailable

    try:
        yield
    except (MemoryUnavailable, DiskFull) as error:
        raise click.ClickException(str(error)) from None
    except click.ClickException as error:
        # A command that reports a failed search in its own words (`recall`: "vector search
        # failed (lance error: …) — run `funes index`") would send the user to a fix that does
        # not mend a damaged file: name the damage and the way out instead.
        if is_disk_full(error) and "disk" not in error.message:
            label = memory_label(memory_spec_in(args))
            where = Path(label)
            needed = needed_for_memory(where) if where.is_dir() else 0
            raise click.ClickException(str(disk_full(where, needed))) from None
        if is_damaged_memory(error) and "damaged" not in error.message:
            first = error.message.split("(", 1)[-1]
            raise click.ClickException(
                damaged_memory_message(memory_label(memory_spec_in(args)), RuntimeError(first))
            ) from None
        raise
    except (OSError, RuntimeError) as error:
        message = describe(error, memory_spec_in(args))
        if message is None:
            raise
        raise click.ClickException(message) from None


def describe(error: BaseException, memory_spec: str | None = None) -> str | None:
    """The one-line explanation of `error`, or None when it is not one a user can act on."""
    from funes.index.diskfull import disk_full, is_disk_full, needed_for_memory
    from funes.paths import funes_home, is_within

    home = funes_home()
    if is_disk_full(error):  # before the damage test: Lance words both alike
        where = Path(memory_label(memory_spec))
        return str(disk_full(where, needed_for_memory(where) if where.is_dir() else 0))
    if is_damaged_memory(error):
        return damaged_memory_message(memory_label(memory_spec), error)
    if not isinstance(error, OSError):
        return None
    if home.exists() and not home.is_dir():
        return _home_is_a_file(home)
    where = error.filename or error.filename2
    path = Path(str(where)) if where else None
    inside_home = path is not None and is_within(path, home)
    if path is not None and path.name.startswith(".write-probe"):
        path = path.parent  # funes.paths.ensure_writable_home's probe: name the folder
    if isinstance(error, PermissionError):
        if inside_home:
            return (
                f"cannot write {path} (permission denied): make {home} writable, or set "
                "FUNES_HOME to a folder you own"
            )
        return f"{where or 'a file'}: permission denied"
    if isinstance(error, (NotADirectoryError, IsADirectoryError, FileExistsError)) and path:
        kind = "a folder" if isinstance(error, IsADirectoryError) else "a file"
        return f"{path} is {kind} where funes expects something else: move it away and run again"
    if isinstance(error, OSError) and error.errno is not None and path is not None:
        return f"{path}: {error.strerror or os.strerror(error.errno)}"
    return None


def _home_is_a_file(home: Path) -> str:
    return (
        f"FUNES_HOME {home} is a file, not a folder: point FUNES_HOME at a folder "
        "(or move that file away) and run again"
    )


def is_damaged_memory(error: BaseException) -> bool:
    """Lance reports an unreadable data file as `lance error: LanceError(IO)…` (RuntimeError or
    OSError): a truncated or missing fragment of the table."""
    text = str(error)
    return "LanceError" in text or text.startswith("lance error")


def damaged_memory_message(label: str, error: BaseException) -> str:
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    from funes.lance import without_source_paths

    detail = without_source_paths(detail)
    if len(detail) > 160:
        detail = detail[:157] + "…"
    from funes.memory_spec import is_remote_spec

    if is_remote_spec(label):  # the damage is in this machine's copy: fetch it again
        from funes.memory_spec import parse_remote_spec
        from funes.sync.remote import RemoteCache

        copy = RemoteCache(parse_remote_spec(label)).dir
        rebuild = f"delete this machine's copy (`rm -r {copy}`) and read it again"
    elif "_indices" in str(error):  # derived from the rows: rebuilt, nothing lost
        return (
            f"an index of memory {label} cannot be read ({detail}): `funes doctor --fix` "
            "rebuilds it from the stored rows"
        )
    else:
        rebuild = (
            "`funes doctor --fix` keeps every row that still reads (a lost or cut data file "
            "costs only its own rows), then `funes index --all` restores the rest from the "
            "transcripts still on disk"
        )
    return f"memory {label} is damaged ({detail}): {rebuild}"


def memory_spec_in(args: Sequence[str]) -> str | None:
    """The `--memory` a command line names (or `$FUNES_MEMORY`), for naming it in an error."""
    for i, arg in enumerate(args):
        if arg == "--memory" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--memory="):
            return arg.split("=", 1)[1]
    return os.environ.get("FUNES_MEMORY", "").strip() or None


def memory_label(spec: str | None) -> str:
    """How a memory is named: its folder for a local one, the spec for a remote one."""
    from funes.memory_spec import is_remote_spec
    from funes.paths import local_memory_dir

    if not spec or spec == "local":
        return str(local_memory_dir())
    if is_remote_spec(spec):
        return spec
    return str(Path(spec).expanduser().resolve())
