"""Publishing failures told as they are, against the loopback Hub: `funes add AGENT ORG/NEW`
never claims to publish in the background when it cannot, and a push that may not create a
dataset says so instead of calling a missing dataset read-only."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sync_fixtures import SESSIONS_A, add_sessions, use_home

from funes.cli import main

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture


def test_a_push_that_may_not_create_the_dataset_says_so(hub, monkeypatch, tmp_path) -> None:
    from funes.sync.hub import HubError
    from funes.sync.push import push

    use_home(monkeypatch, tmp_path / "home")
    add_sessions(SESSIONS_A)
    with pytest.raises(HubError) as raised:
        push("other-org/new-memory", yes=True)
    message = str(raised.value)
    assert message.startswith("cannot create hf://datasets/other-org/new-memory: your token")
    assert "may not create datasets under other-org" in message
    assert "read-only" not in message
    assert "other-org/new-memory" not in hub.state.repos


def test_add_with_a_dataset_that_does_not_exist_says_it_was_not_published(
    hub, monkeypatch, tmp_path
) -> None:
    use_home(monkeypatch, tmp_path / "home")
    out = CliRunner().invoke(main, ["add", "codex", "team/new", "--yes", "--budget", "0"])
    assert out.exit_code == 0, out.output
    assert "in the background" not in out.output
    assert (
        "bound to team/new; not published yet: team/new doesn't exist on the Hub — "
        "`funes push team/new --yes` creates it (private) and publishes"
    ) in out.output
    assert not (tmp_path / "home" / "logs" / "push.log").exists()  # no push was started


def test_add_without_a_token_says_it_was_not_published(hub, monkeypatch, tmp_path) -> None:
    use_home(monkeypatch, tmp_path / "home")
    hub.create_repo("team/shared")
    monkeypatch.delenv("HF_TOKEN")
    out = CliRunner().invoke(main, ["add", "codex", "team/shared", "--yes", "--budget", "0"])
    assert out.exit_code == 0, out.output
    assert "bound to team/shared; not published yet: no Hugging Face token" in out.output


def test_add_with_a_dataset_it_can_write_publishes_in_the_background(
    hub, monkeypatch, tmp_path
) -> None:
    use_home(monkeypatch, tmp_path / "home")
    hub.create_repo("team/shared")
    out = CliRunner().invoke(main, ["add", "codex", "team/shared", "--yes", "--budget", "0"])
    assert out.exit_code == 0, out.output
    assert "bound to team/shared; publishing the local memory there in the background" in out.output


def test_add_with_a_read_only_token_says_it_was_not_published(hub, monkeypatch, tmp_path) -> None:
    from sync_fixtures import READ_TOKEN

    use_home(monkeypatch, tmp_path / "home")
    hub.create_repo("team/shared")
    monkeypatch.setenv("HF_TOKEN", READ_TOKEN)
    out = CliRunner().invoke(main, ["add", "codex", "team/shared", "--yes", "--budget", "0"])
    assert out.exit_code == 0, out.output
    assert (
        "bound to team/shared; not published yet: your Hugging Face token is read-only"
    ) in out.output
