"""Nothing funes writes holds what its memory's rows would not: a transcript's open turn, kept
in its resume point, is redacted and stripped of private spans like the rows are, and `funes
scrub` and `funes doctor` look at every such file (resume points an older funes wrote, curation
notes), not only at the rows."""

from __future__ import annotations

import json
import random
import string

from trust_fixtures import claude_transcript, files_holding, funes, stored_texts

from funes.paths import funes_home

_RNG = random.Random(7)
TOKEN = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
PRIVATE = "<private>my NUMBATPIN is 4417</private>"


def _doctor_check(name: str) -> dict:
    done = funes("doctor", "--json")
    checks = json.loads(done.stdout)["checks"]
    return next(c for c in checks if c["name"] == name)


def test_the_open_turn_in_a_resume_point_is_redacted_and_private_spans_are_out() -> None:
    # The last assistant message is the open turn (more records may add to it): its resume
    # point carries it in full.
    claude_transcript(
        "sess-open",
        [f"Set up the CI {PRIVATE}", f"Exported GITHUB_TOKEN={TOKEN} for the QUOLLDEPLOY run"],
    )
    assert funes("index", "--all").returncode == 0
    home = funes_home()
    assert any("QUOLLDEPLOY" in t for t in stored_texts())
    assert files_holding(home / "state.resume", "quolldeploy")  # the open turn is there...
    assert files_holding(home, TOKEN) == []  # ...but not the token
    assert files_holding(home, "numbatpin") == []  # nor the private span
    assert files_holding(home / "state.resume", "[REDACTED:")

    # The session goes on: the turn resumed from its cleaned copy is stored the same.
    claude_transcript(
        "sess-open",
        [
            f"Set up the CI {PRIVATE}",
            f"Exported GITHUB_TOKEN={TOKEN} for the QUOLLDEPLOY run",
            "And the WALLABYCACHE?",
        ],
    )
    assert funes("index", "--all").returncode == 0
    texts = stored_texts()
    assert any("QUOLLDEPLOY" in t and "[REDACTED:" in t for t in texts)
    assert any("WALLABYCACHE" in t for t in texts)
    assert not any(TOKEN in t or "NUMBATPIN" in t for t in texts)


def test_scrub_and_doctor_find_what_an_older_funes_left_in_resume_points_and_notes() -> None:
    claude_transcript("sess-old", ["Deploy it", "Deploying the QUOLLDEPLOY build now"])
    assert funes("index", "--all").returncode == 0
    assert _doctor_check("text at rest")["ok"]
    # What an older funes wrote: the open turn as read, a curation note from an unscrubbed row.
    (resume,) = (funes_home() / "state.resume").glob("*.json")
    token = json.loads(resume.read_text())
    assert token.pop("_clean") == 1  # the mark of a resume point written cleaned
    block = token["carry"]["open"]["blocks"][0]
    block[1] += f" with {TOKEN} {PRIVATE}"
    resume.write_text(json.dumps(token))
    notes = funes_home() / "curation" / "acme--widgets.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text(f"project acme/widgets\ninclude sess-old 2   # 2026-01-01 use {TOKEN}\n")

    check = _doctor_check("text at rest")
    assert check["status"] == "fail", check
    assert "1 curation file(s)" in check["detail"] and "1 resume point(s)" in check["detail"]
    done = funes("scrub")
    assert done.returncode == 0, done.stderr
    assert "cleaned 2 file(s)" in done.stdout
    assert files_holding(funes_home(), TOKEN) == []
    assert files_holding(funes_home(), "numbatpin") == []
    assert "include sess-old 2" in notes.read_text()  # the decision stays
    assert _doctor_check("text at rest")["ok"]
    assert "already clean" in funes("scrub").stdout


def test_doctor_fix_cleans_a_resume_point_an_older_funes_wrote() -> None:
    claude_transcript("sess-fix", ["Deploy it", "Deploying the QUOLLDEPLOY build now"])
    assert funes("index", "--all").returncode == 0
    (resume,) = (funes_home() / "state.resume").glob("*.json")
    token = json.loads(resume.read_text())
    del token["_clean"]
    token["carry"]["open"]["blocks"][0][1] += f" with {TOKEN}"
    resume.write_text(json.dumps(token))
    assert _doctor_check("text at rest")["status"] == "warn"  # counted, not read

    funes("doctor", "--fix")
    assert files_holding(funes_home(), TOKEN) == []
    assert "QUOLLDEPLOY" in resume.read_text()
    assert _doctor_check("text at rest")["ok"]
