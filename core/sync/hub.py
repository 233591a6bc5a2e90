"""The Hub as transport: the few dataset-repo operations funes needs, with errors turned into
what they mean for a memory (offline, missing, no token, token rejected, read-only, conflict).

The endpoint is read from `HF_ENDPOINT` at call time, so a process (or a test) can point it at
another Hub after `huggingface_hub` was imported.

Every request is bounded: `huggingface_hub`'s shared client waits forever by default (a Hub that
accepts a connection and never answers hung recall until it was killed), so funes gives it a
connect and a read timeout, and the head check a reader makes before recall (one small request)
a short one of its own: a Hub that does not answer in `FUNES_HUB_TIMEOUT_S` seconds (default 5)
is reported offline, and recall answers from the copy cached here and the other memories.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from funes.memory_spec import RemoteSpec


class HubError(Exception):
    """A Hub operation failed; the message says what to do."""


class HubOffline(HubError):
    pass


class RepoMissing(HubError):
    pass


class NoToken(HubError):
    pass


class TokenRejected(HubError):
    pass


class ReadOnly(HubError):
    pass


class PushConflict(HubError):
    """The remote moved since it was read (HTTP 412/409): re-read and retry."""


# Any request: connecting, and each wait for bytes (a push's commit may take the Hub a while).
CONNECT_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 60.0
# The head check a read makes: one small answer, so a silent Hub is given up on quickly.
DEFAULT_CHECK_TIMEOUT_S = 5.0


def check_timeout_s() -> float:
    """`FUNES_HUB_TIMEOUT_S`: how long a reader waits for the Hub's head (connect, then answer)."""
    raw = os.environ.get("FUNES_HUB_TIMEOUT_S", "").strip()
    try:
        value = float(raw) if raw else DEFAULT_CHECK_TIMEOUT_S
    except ValueError:
        return DEFAULT_CHECK_TIMEOUT_S
    return value if value > 0 else DEFAULT_CHECK_TIMEOUT_S


_bounded = False


def bound_requests() -> None:
    """Give `huggingface_hub`'s shared client connect and read timeouts (once per process; it has
    none by default). Requests that carry their own timeout (downloads) keep it."""
    global _bounded
    if _bounded:
        return
    try:
        from huggingface_hub import set_client_factory
    except ImportError:  # a huggingface_hub before 1.0 has no client factory to bound
        return

    def bounded_client() -> Any:
        import httpx2

        try:  # the library's own client (its offline check and headers), bounded
            from huggingface_hub.utils._http import default_client_factory

            client = default_client_factory()
        except ImportError:
            client = httpx2.Client(follow_redirects=True)
        client.timeout = httpx2.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        return client

    set_client_factory(bounded_client)
    _bounded = True


@dataclass(frozen=True)
class RemoteFile:
    path: str  # path in the repo
    size: int


def hub_endpoint() -> str:
    from huggingface_hub import constants

    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def hub_token() -> str | None:
    """The token huggingface_hub would use (HF_TOKEN, then the saved token file)."""
    from huggingface_hub import get_token

    return get_token()


class HubRemote:
    def __init__(self, spec: RemoteSpec, token: str | None = None) -> None:
        from huggingface_hub import HfApi

        bound_requests()
        self.spec = spec
        self.token = token or hub_token()
        self.api = HfApi(endpoint=hub_endpoint(), token=self.token)

    @contextmanager
    def _translated(self, action: str) -> Iterator[None]:
        import httpx2
        from huggingface_hub.errors import (
            HfHubHTTPError,
            LocalEntryNotFoundError,
            OfflineModeIsEnabled,
            RepositoryNotFoundError,
        )

        uri = self.spec.uri
        try:
            yield
        except httpx2.TimeoutException as err:
            raise HubOffline(
                f"the Hub did not answer in time to {action} {uri} ({type(err).__name__})"
            ) from err
        # hf_hub_download reports an unreachable Hub as LocalEntryNotFoundError (no cached copy).
        except (OfflineModeIsEnabled, httpx2.TransportError, LocalEntryNotFoundError) as err:
            raise HubOffline(
                f"cannot reach the Hub to {action} {uri}: {type(err).__name__}"
            ) from err
        except RepositoryNotFoundError as err:
            hint = "" if self.token else " (or it is private: set HF_TOKEN or run `hf auth login`)"
            raise RepoMissing(f"{uri} does not exist on the Hub{hint}") from err
        except HfHubHTTPError as err:
            status = err.response.status_code if err.response is not None else 0
            if status == 401:
                raise TokenRejected(
                    f"the Hub rejected your token while trying to {action} {uri}: "
                    "set a valid HF_TOKEN or run `hf auth login`"
                ) from err
            if status == 403 and action == "create":
                raise ReadOnly(
                    f"cannot create {uri}: your token may not create datasets under "
                    f"{self.spec.repo_id.split('/')[0]} — create the dataset on the Hub first, "
                    "or push to a namespace you own"
                ) from err
            if status == 403:
                raise ReadOnly(
                    f"{uri} is read-only for your token — recall can read it, but publishing "
                    "needs a token with write access"
                ) from err
            if status in (409, 412):
                raise PushConflict(f"{uri} changed while pushing") from err
            if status >= 500:
                raise HubOffline(f"the Hub answered {status} to {action} {uri}") from err
            raise HubError(f"could not {action} {uri}: {err}") from err

    # -- reads ----------------------------------------------------------------------------------

    def head(self) -> str:
        """The commit `main` points at: one cheap request (the one `list_repo_refs` makes), no
        retries, given up after `check_timeout_s()` to connect and as long to answer."""
        import httpx2
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        wait = check_timeout_s()
        try:
            with self._translated("read"):
                response = get_session().get(
                    f"{hub_endpoint()}/api/datasets/{self.spec.repo_id}/refs",
                    headers=build_hf_headers(token=self.token),
                    timeout=httpx2.Timeout(wait),
                )
                hf_raise_for_status(response)
                branches = response.json().get("branches") or []
        except HubOffline as err:
            if isinstance(err.__cause__, httpx2.TimeoutException):
                raise HubOffline(
                    f"the Hub did not answer within {wait:g} s (FUNES_HUB_TIMEOUT_S) for "
                    f"{self.spec.uri}"
                ) from err.__cause__
            raise
        for branch in branches:
            if isinstance(branch, dict) and branch.get("name") == "main":
                return str(branch.get("targetCommit") or "")
        raise HubError(f"{self.spec.uri} has no main branch")

    def info(self) -> Any:
        with self._translated("read"):
            return self.api.repo_info(self.spec.repo_id, repo_type="dataset")

    def list_files(self, folder: str, commit: str) -> list[RemoteFile]:
        from huggingface_hub.errors import EntryNotFoundError
        from huggingface_hub.hf_api import RepoFile

        try:
            with self._translated("list"):
                entries = self.api.list_repo_tree(
                    self.spec.repo_id,
                    path_in_repo=self.spec.path_in_repo(folder),
                    recursive=True,
                    revision=commit,
                    repo_type="dataset",
                )
                return [
                    RemoteFile(path=e.path, size=e.size) for e in entries if isinstance(e, RepoFile)
                ]
        except HubError as err:
            if isinstance(err.__cause__, EntryNotFoundError):
                return []
            raise

    def download(self, path: str, commit: str, cache_dir: Path) -> Path:
        from huggingface_hub import hf_hub_download

        with self._translated("download from"):
            return Path(
                hf_hub_download(
                    self.spec.repo_id,
                    path,
                    repo_type="dataset",
                    revision=commit,
                    cache_dir=cache_dir,
                    endpoint=hub_endpoint(),
                    token=self.token,
                )
            )

    def read_text(self, path: str, commit: str, cache_dir: Path) -> str | None:
        """A small file's text at `commit`, or None when it is not there."""
        from huggingface_hub.errors import EntryNotFoundError

        try:
            return self.download(path, commit, cache_dir).read_text(encoding="utf-8")
        except HubError as err:
            if isinstance(err.__cause__, EntryNotFoundError):
                return None
            raise

    # -- writes ---------------------------------------------------------------------------------

    def require_token(self) -> None:
        if not self.token:
            raise NoToken(
                "no Hugging Face token: set HF_TOKEN or run `hf auth login` — pushing needs one"
            )

    def create_private(self) -> None:
        self.require_token()
        with self._translated("create"):
            self.api.create_repo(self.spec.repo_id, repo_type="dataset", private=True)

    def commit(
        self,
        files: dict[str, Path | bytes],
        message: str,
        parent: str,
        deletions: tuple[str, ...] = (),
    ) -> str:
        """One commit adding `files` (path in repo → content) and deleting `deletions`, only if
        `main` is still `parent`."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        operations: list[Any] = [
            CommitOperationAdd(
                path_in_repo=path, path_or_fileobj=str(c) if isinstance(c, Path) else c
            )
            for path, c in files.items()
        ]
        operations += [CommitOperationDelete(path_in_repo=path) for path in deletions]
        with self._translated("push to"):
            info = self.api.create_commit(
                self.spec.repo_id,
                operations,
                commit_message=message,
                repo_type="dataset",
                parent_commit=parent,
            )
        return info.oid

    def squash_history(self, message: str) -> None:
        """Rewrite `main` as one commit holding its current files: older commits are gone."""
        with self._translated("rewrite the history of"):
            self.api.super_squash_history(
                self.spec.repo_id, branch="main", commit_message=message, repo_type="dataset"
            )

    def delete_unreferenced_lfs(self, commit: str) -> int:
        """Permanently delete the repo's LFS objects that no file at `commit` points to (what a
        squashed history left stored); returns how many."""
        from huggingface_hub.hf_api import RepoFile

        with self._translated("clean up"):
            entries = self.api.list_repo_tree(
                self.spec.repo_id, recursive=True, revision=commit, repo_type="dataset"
            )
            kept = {e.lfs.sha256 for e in entries if isinstance(e, RepoFile) and e.lfs is not None}
            stale = [
                f
                for f in self.api.list_lfs_files(self.spec.repo_id, repo_type="dataset")
                if f.file_oid not in kept
            ]
            if stale:
                self.api.permanently_delete_lfs_files(
                    self.spec.repo_id, stale, rewrite_history=True, repo_type="dataset"
                )
        return len(stale)
