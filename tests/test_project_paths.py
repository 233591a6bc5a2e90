"""`--project X` also keeps a session that worked on X from another folder: one whose opening
request names a path through one of X's folders (an overview asked from elsewhere, and the
subagent that read the project's files for it)."""

from __future__ import annotations

from recall_fixtures import build_memory, turn

from funes.inspect.sessions import list_sessions
from funes.retrieve import recall
from funes.retrieve.project_paths import points_into, project_folders


def _memory() -> None:
    build_memory(
        [
            turn("s-home", "h1", 0, "add a retry to the payment client", workdir="/w/shop-api"),
            turn(
                "s-home",
                "h2",
                1,
                "payment client retries twice now",
                role="assistant",
                workdir="/w/shop-api",
            ),
            # Asked from another folder, about the project's folder.
            turn(
                "agent-sub",
                "a1",
                0,
                "Give an overview of the code in /w/shop-api: read every module",
                workdir="/src/experiments",
            ),
            turn(
                "agent-sub",
                "a2",
                1,
                "cli.py does `from git import Repo` for the payment history",
                role="assistant",
                workdir="/src/experiments",
            ),
            # Names the project as a word, not a path: another project's session.
            turn(
                "s-other",
                "o1",
                0,
                "like shop-api does, add a payment history page",
                workdir="/w/blog",
            ),
            turn(
                "s-other",
                "o2",
                1,
                "payment history page added",
                role="assistant",
                workdir="/w/blog",
            ),
        ]
    )


def test_a_session_asked_about_the_projects_folder_is_the_projects() -> None:
    _memory()
    sessions = {hit.session_id for hit in recall("payment history git", project="shop-api").hits}
    assert sessions == {"s-home", "agent-sub"}
    listed = [s.session_id for s in list_sessions(project="shop-api")]
    assert sorted(listed) == ["agent-sub", "s-home"]
    # The project's own filter still decides: another project keeps only its own sessions.
    assert [s.session_id for s in list_sessions(project="blog")] == ["s-other"]


def test_only_a_path_through_a_folder_of_the_project_points_into_it() -> None:
    folders = project_folders(["/Users/d/workspace/claude-code-log/test", "org/share-hf"], "share")
    assert folders == {"share-hf"}
    claude = {"claude-code-log"}
    assert points_into("overview of the /workspace/claude-code-log project", claude)
    assert points_into("look at /workspace/claude-code-log: its cli", claude)
    assert points_into("read `~/ws/Claude-Code-Log/cli.py`", claude)
    assert points_into(r"open C:\code\claude-code-log\README.md", claude)
    assert not points_into("the claude-code-log project", claude)  # a word, not a path
    assert not points_into("see /tmp/claude-code-log-fork/x", claude)  # another folder
    assert not points_into("install to /usr/share/dict", folders)
