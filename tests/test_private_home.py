"""A memory of someone's work is readable by its owner only: FUNES_HOME's folders are 0700 and
its files 0600 whatever the umask, and a home an older funes left open is tightened on the next
write."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from trust_fixtures import FUNES, claude_transcript, funes

from funes.paths import funes_home


def open_to_others(home: Path) -> list[str]:
    """Everything under `home` (and itself) that its group or others can reach."""
    loose = []
    for path in [home, *home.rglob("*")]:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            continue
        if mode & 0o077:
            loose.append(f"{path.relative_to(home.parent)} {stat.filemode(mode)}")
    return loose


def funes_at_umask(umask: str, *args: str) -> None:
    """`funes ARGS` from a shell whose umask is `umask`, as a user's terminal would run it."""
    command = " ".join([f"umask {umask};", *FUNES, *args])
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr


def test_a_new_home_is_private_at_umask_022() -> None:
    claude_transcript("sess-private", ["the payroll export lives in hr/", "noted"])
    funes_at_umask("022", "index", "--all")
    funes_at_umask("022", "forget", "--before", "2020-01-01", "--yes")
    home = funes_home()
    for folder in ("memory", "state.resume", "forgotten"):
        assert (home / folder).is_dir(), folder
    assert open_to_others(home) == []


def test_an_existing_open_home_is_tightened_on_the_next_write() -> None:
    claude_transcript("sess-open", ["the staging password rotation", "done"])
    funes_at_umask("022", "index", "--all")
    home = funes_home()
    for path in [home, *home.rglob("*")]:  # as an older funes left it at umask 022
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert open_to_others(home)

    claude_transcript("sess-open", ["the staging password rotation", "done", "and prod"])
    funes_at_umask("022", "index", "--all")
    assert open_to_others(home) == []


def test_doctor_fails_on_a_home_it_cannot_write_where_index_fails_too() -> None:
    claude_transcript("sess-ro", ["the read-only home", "noted"])
    assert funes("index", "--all").returncode == 0
    home = funes_home()
    # A read-only mount refuses root too, so the test does not lean on a mode root ignores.
    bound = subprocess.run(["mount", "--bind", str(home), str(home)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], check=True)
        claude_transcript("sess-ro", ["the read-only home", "noted", "a new turn"])
        assert funes("index", "--all").returncode != 0
        doctor = funes("doctor", "--json")
        assert doctor.returncode == 1
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        assert checks["funes home"]["status"] == "fail", checks["funes home"]
        assert "cannot write" in checks["funes home"]["detail"]
        assert checks["writer lock"]["status"] == "fail", checks["writer lock"]
    finally:
        subprocess.run(["umount", str(home)], check=False)


def test_doctor_names_an_open_home_and_fix_makes_it_private() -> None:
    claude_transcript("sess-fix", ["the home left open", "noted"])
    assert funes("index", "--all").returncode == 0
    home = funes_home()
    os.chmod(home, 0o755)
    checks = {c["name"]: c for c in json.loads(funes("doctor", "--json").stdout)["checks"]}
    assert (
        checks["funes home"]["status"] == "fail" and "other users" in checks["funes home"]["detail"]
    )
    fixed = {c["name"]: c for c in json.loads(funes("doctor", "--fix", "--json").stdout)["checks"]}
    assert fixed["funes home"]["ok"], fixed["funes home"]
    assert open_to_others(home) == []
