"""A regular (non-editable) install carries every file the agents load and the bundled model."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _shipped(folder: str, package: str) -> set[str]:
    base = ROOT / folder
    return {
        f"{package}/{path.relative_to(base).as_posix()}"
        for path in base.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_wheel_holds_the_plugins_and_the_model(tmp_path: Path) -> None:
    # Build from a clean copy: a checkout's own egg-info would mask missing package data.
    source = tmp_path / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__"),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    wheel = next(tmp_path.glob("funes-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _shipped("plugins", "funes/plugins") | _shipped("core/models", "funes/models")
    assert "funes/plugins/claude/funes/.claude-plugin/plugin.json" in expected
    assert expected <= names, sorted(expected - names)
    assert "funes/entry.py" in names and "funes/installers/claude.py" in names
    # The default install stays light: torch only ever comes with an extra, never pinned.
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))
    )
    requires = [
        line.split(":", 1)[1].strip()
        for line in metadata.decode().splitlines()
        if line.startswith("Requires-Dist:")
    ]
    default = [r for r in requires if "extra ==" not in r]
    heavy = ("torch", "sentence-transformers", "sentence_transformers", "transformers")
    assert not [r for r in default if r.split()[0].split(">")[0].split("=")[0] in heavy]
    assert not [r for r in requires if r.startswith("torch")]
