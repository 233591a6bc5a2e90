"""The secret gate: planted credentials never reach the remote; ordinary transcript noise does.

Credentials are assembled at run time from random characters so the repository holds no
credential literal.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest
from sync_fixtures import SESSIONS_A, add_sessions, remote_text, use_home

pytest_plugins = ("sync_fixtures",)  # the `hub` fixture

REPO = "alice/memory"
CORPUS = Path("/work/shared/corpus")
_rng = random.Random(20260101)
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def _r(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _private_key() -> str:
    body = "\n".join(_r(ALNUM + "+/", 64) for _ in range(6))
    kind = "RSA PRIVATE KEY"
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def planted_credentials() -> dict[str, str]:
    """Kind → a line holding a real-shaped credential of that kind."""
    jwt = ".".join(
        [
            _b64url({"alg": "HS256", "typ": "JWT"}),
            _b64url({"sub": "1234", "name": "x"}),
            _r(ALNUM, 43),
        ]
    )
    return {
        "aws_access_key": f"aws_access_key_id = {'AKIA' + _r(UPPER_DIGITS, 16)}",
        "aws_secret_key": f"aws_secret_access_key = {_r(ALNUM + '/+', 40)}",
        "github_pat": f"token: {'ghp_' + _r(ALNUM, 36)}",
        "github_fine": f"GITHUB_TOKEN={'github_pat_' + _r(ALNUM, 22) + '_' + _r(ALNUM, 59)}",
        "gitlab": f"export GITLAB_TOKEN={'glpat-' + _r(ALNUM, 20)}",
        "openai": f"OPENAI_API_KEY={'sk-' + _r(ALNUM, 20) + 'T3Blbk' + 'FJ' + _r(ALNUM, 20)}",
        "anthropic": "ANTHROPIC_API_KEY=" + "sk-ant-api03-" + _r(ALNUM + "-_", 93) + "AA",
        "huggingface": f"HF_TOKEN={'hf_' + _r(string.ascii_letters, 34)}",
        "slack_bot": "slack: xoxb-"
        + "-".join([_r(string.digits, 12), _r(string.digits, 13), _r(ALNUM, 24)]),
        "slack_webhook": "https://hooks.slack.com/services/T"
        + _r(UPPER_DIGITS, 8)
        + "/B"
        + _r(UPPER_DIGITS, 8)
        + "/"
        + _r(ALNUM, 24),
        "stripe": f"stripe.api_key = '{'sk_live_' + _r(ALNUM, 24)}'",
        "sendgrid": f"SENDGRID_API_KEY={'SG.' + _r(ALNUM, 22) + '.' + _r(ALNUM, 43)}",
        "npm": f"//registry.npmjs.org/:_authToken={'npm_' + _r(ALNUM, 36)}",
        "pypi": f"password = {'pypi-AgEIcHlwaS5vcmc' + _r(ALNUM + '-_', 70)}",
        "twilio": f"TWILIO_API_KEY={'SK' + _r(HEX, 32)}",
        "telegram": f"TELEGRAM_BOT_TOKEN={_r(string.digits, 10)}:{'AA' + _r(ALNUM + '_-', 33)}",
        "google_api": f"GOOGLE_API_KEY={'AIza' + _r(ALNUM + '_-', 35)}",
        "jwt": f"Authorization: Bearer {jwt}",
        "private_key": _private_key(),
        "url_password": f"DATABASE_URL=postgres://admin:{_r(ALNUM, 16)}@db.internal:5432/prod",
        "dotenv_password": f'DB_PASSWORD="{_r(ALNUM + "!#%", 18)}"',
        "mailchimp": f"MAILCHIMP_KEY={_r(HEX, 32)}-us{_rng.randint(1, 20)}",
        "azure_storage": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        + _r(ALNUM + "+/", 86)
        + "==",
    }


def _sessions_with(lines: dict[str, str]) -> dict[str, list[str]]:
    return {
        f"sess-{kind}": [f"Here is the config I used:\n{line}\nthen it worked."]
        for kind, line in lines.items()
    }


def _assert_absent(text: str, secrets: dict[str, str]) -> None:
    for kind, line in secrets.items():
        for token in line.replace("=", " ").replace(":", " ").split():
            if len(token) >= 16 and any(c.isdigit() for c in token):
                assert token not in text, f"{kind} reached the remote"


def test_no_planted_credential_reaches_the_remote(hub, monkeypatch, tmp_path):
    from funes.sync.push import push

    secrets = planted_credentials()
    assert len(secrets) >= 20
    use_home(monkeypatch, tmp_path / "home")
    add_sessions(SESSIONS_A)
    add_sessions(_sessions_with(secrets))
    # JSON-escaped: a private key and a token inside a tool result's JSON string.
    escaped = json.dumps({"stdout": _private_key() + "\n" + "ghp_" + _r(ALNUM, 36)})
    add_sessions({"sess-json": [f"tool output: {escaped}"]})
    # Split across chunks: the key straddles the boundary between two splits of one block.
    key = "AKIA" + _r(UPPER_DIGITS, 16)
    filler = "The deploy log follows. " * 49  # ~1176 chars: the key lands on the split
    add_sessions({"sess-split": [filler + key + " " + "more log text. " * 80]})

    report = push(REPO, yes=True)
    assert report.pushed == 4  # the clean sessions only
    held_sessions = {f"sess-{kind}" for kind in secrets} | {"sess-json", "sess-split"}
    assert report.held.sessions == held_sessions
    stored = remote_text(hub, REPO)
    _assert_absent(stored, secrets)
    assert key not in stored and key[:12] not in stored
    assert "ghp_" not in stored and "PRIVATE KEY" not in stored


def test_everything_held_exits_2_and_says_what_was_held(hub, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from funes.cli import main

    use_home(monkeypatch, tmp_path / "home")
    add_sessions({"sess-leak": ["export GITLAB_TOKEN=glpat-" + _r(ALNUM, 20)]})
    result = CliRunner().invoke(main, ["push", REPO, "--yes"])
    assert result.exit_code == 2, result.output
    assert "nothing published" in result.output and "sess-lea" in result.output
    assert not any(p.endswith(".parquet") for p in hub.files(REPO))


@pytest.mark.parametrize("failure", ["missing", "crash"])
def test_a_missing_or_crashing_scanner_publishes_nothing(hub, monkeypatch, tmp_path, failure):
    import sys

    from funes.sync.gate import ScannerFailed
    from funes.sync.push import push

    use_home(monkeypatch, tmp_path / "home")
    add_sessions(SESSIONS_A)
    if failure == "missing":
        monkeypatch.setitem(sys.modules, "detect_secrets.core.scan", None)  # import fails
    else:
        import detect_secrets.core.scan as ds_scan

        def explode(line: str):
            raise RuntimeError("scanner bug")

        monkeypatch.setattr(ds_scan, "scan_line", explode)
    with pytest.raises(ScannerFailed):
        push(REPO, yes=True)
    assert not any(p.endswith(".parquet") for p in hub.files(REPO))


def _corpus_texts(limit: int = 400) -> list[str]:
    """Text blocks from the real corpus: hashes, UUIDs, base64 images, code."""
    texts: list[str] = []
    for path in sorted(CORPUS.rglob("*.jsonl"))[:40]:
        for line in path.read_text(errors="replace").splitlines()[:200]:
            if len(texts) >= limit:
                return texts
            if any(marker in line for marker in ("sha", "uuid", "base64", "commit")):
                texts.append(line[:6000])
    return texts


@pytest.mark.skipif(not CORPUS.is_dir(), reason="needs the shared corpus")
def test_real_transcript_noise_does_not_trip_the_gate():
    from funes.sync.gate import scan_block

    samples = [
        "commit 3f9c2a7e1b4d5c6f7a8b9c0d1e2f3a4b5c6d7e8f (HEAD -> main)",
        "session 0b7e3c1a-5d2f-4e8a-9c6b-1f2e3d4c5b6a resumed",
        "sha256:" + "ab12" * 16,
        "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 8).decode(),
    ]
    assert [scan_block(s) for s in samples] == [[] for _ in samples]
    texts = _corpus_texts()
    assert texts
    flagged = [t for t in texts if scan_block(t)]
    # Real agent traffic: a few genuine keyword hits are tolerable, noise is not.
    assert len(flagged) <= len(texts) // 20, flagged[:3]
