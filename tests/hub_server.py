"""A loopback Hugging Face Hub for tests: the slice of the Hub protocol funes drives.

It speaks what the real `huggingface_hub` client (2.x, legacy LFS transfer, i.e. with
`HF_HUB_DISABLE_XET`) sends and expects: whoami, repo create/info with visibility, refs, paginated
tree listing, preupload, the LFS batch API (basic transfer + verify, pre-signed upload URLs),
NDJSON commits guarded by `parentCommit` (412 when stale), and file resolve with `ETag`,
`X-Repo-Commit`, `X-Linked-Etag`/`X-Linked-Size` and a redirect to a CDN URL for LFS files,
and the history tools: super-squash of a branch, listing and permanently deleting LFS files.
`go_silent` turns it into a Hub that accepts and never answers.
Errors carry the headers the client turns into typed exceptions (`X-Error-Code: RepoNotFound`).

Every request is recorded in `HubServer.requests`, so tests can count network use, and
`fail_next` injects one-off error answers (e.g. a 409 on the next commit).
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import hashlib
import json
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

LFS_PATTERNS = ("*.parquet", "*.lance", "*.arrow", "*.bin", "*.safetensors", "*.zst")
LFS_SIZE_THRESHOLD = 10 * 1024 * 1024
GITATTRIBUTES = "".join(f"{p} filter=lfs diff=lfs merge=lfs -text\n" for p in LFS_PATTERNS)


@dataclass
class StoredFile:
    content: bytes | None  # None for LFS files (content lives in the LFS store)
    size: int
    git_oid: str  # sha1 of the git blob (or of the LFS pointer file)
    lfs_oid: str | None = None  # sha256 of the content


@dataclass
class Commit:
    oid: str
    parent: str | None
    message: str
    files: dict[str, StoredFile]
    at: float = field(default_factory=time.time)


@dataclass
class Repo:
    repo_id: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    head: str = ""
    # LFS objects pushed to this repo: sha256 → {"filename", "pushedAt", "size", "ref"}
    lfs_files: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Token:
    user: str
    write: bool


def _git_blob_oid(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _lfs_pointer(oid: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n".encode()


class HubState:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.repos: dict[str, Repo] = {}
        self.lfs: dict[str, bytes] = {}  # sha256 → content
        self.tokens: dict[str, Token] = {}
        self.upload_signatures: dict[str, str] = {}  # signature → oid it may upload
        self.requests: list[tuple[str, str]] = []
        self.fail_next: list[tuple[str, str, int]] = []  # (method, path regex, status)
        self.tree_page_size = 1000
        self.lfs_bytes_received = 0
        self.connections: set[Any] = set()  # open client sockets, cut when the server stops
        # A Hub that accepts every connection and request and answers none (`go_silent`):
        # requests wait on this until the server stops.
        self.silent = False
        self.stopped = threading.Event()

    def create_repo(self, repo_id: str, private: bool) -> None:
        with self.lock:
            repo = Repo(repo_id=repo_id, private=private)
            self.repos[repo_id] = repo
            content = GITATTRIBUTES.encode()
            files = {".gitattributes": StoredFile(content, len(content), _git_blob_oid(content))}
            self.new_commit(repo, files, "initial commit", None)

    def new_commit(
        self, repo: Repo, files: dict[str, StoredFile], message: str, parent: str | None
    ) -> Commit:
        oid = hashlib.sha1(secrets.token_bytes(20)).hexdigest()
        commit = Commit(oid=oid, parent=parent, message=message, files=files)
        repo.commits[oid] = commit
        repo.head = oid
        return commit


class HubServer:
    """Start with `HubServer()`, use `.url` as HF_ENDPOINT, `.stop()` when done."""

    def __init__(self, port: int = 0) -> None:
        self.state = HubState()
        handler = type("BoundHubHandler", (HubHandler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        handler.base_url = self.url
        handler.cdn_url = f"http://localhost:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    # -- test helpers -------------------------------------------------------------------------

    def add_token(self, token: str, user: str = "alice", write: bool = True) -> None:
        self.state.tokens[token] = Token(user=user, write=write)

    def create_repo(self, repo_id: str, private: bool = True) -> None:
        self.state.create_repo(repo_id, private)

    def files(self, repo_id: str) -> dict[str, bytes]:
        """Every file at the head of `repo_id`, with its content (LFS resolved)."""
        with self.state.lock:
            repo = self.state.repos[repo_id]
            out = {}
            for path, f in repo.commits[repo.head].files.items():
                out[path] = f.content if f.content is not None else self.state.lfs[f.lfs_oid or ""]
            return out

    def head(self, repo_id: str) -> str:
        return self.state.repos[repo_id].head

    def commit_count(self, repo_id: str) -> int:
        return len(self.state.repos[repo_id].commits)

    @property
    def requests(self) -> list[tuple[str, str]]:
        return self.state.requests

    def fail_next(self, method: str, path_regex: str, status: int) -> None:
        self.state.fail_next.append((method, path_regex, status))

    def go_silent(self) -> None:
        """From now on accept every connection and read every request, but never answer (a Hub
        or proxy that hangs); `stop` lets the waiting handlers go."""
        self.state.silent = True

    def stop(self) -> None:
        """Go away as a real outage does: kept-alive connections are cut too."""
        self.state.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.state.lock:
            for conn in list(self.state.connections):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)


class HubError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


REPO = r"(?P<rtype>models|datasets|spaces)/(?P<repo>[^/]+/[^/]+?)"
ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(r"^/api/whoami-v2$"), "whoami"),
    ("POST", re.compile(r"^/api/repos/create$"), "create_repo"),
    ("POST", re.compile(r"^/api/validate-yaml$"), "validate_yaml"),
    ("GET", re.compile(rf"^/api/{REPO}/refs$"), "refs"),
    ("GET", re.compile(rf"^/api/{REPO}/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?$"), "tree"),
    ("POST", re.compile(rf"^/api/{REPO}/preupload/(?P<rev>[^/]+)$"), "preupload"),
    ("POST", re.compile(rf"^/api/{REPO}/commit/(?P<rev>[^/]+)$"), "commit"),
    ("POST", re.compile(rf"^/api/{REPO}/super-squash/(?P<rev>[^/]+)$"), "super_squash"),
    ("GET", re.compile(rf"^/api/{REPO}/lfs-files$"), "lfs_files"),
    ("POST", re.compile(rf"^/api/{REPO}/lfs-files/batch$"), "lfs_files_batch"),
    ("GET", re.compile(rf"^/api/{REPO}(?:/revision/(?P<rev>[^/]+))?$"), "repo_info"),
    ("POST", re.compile(rf"^/{REPO}\.git/info/lfs/objects/batch$"), "lfs_batch"),
    ("POST", re.compile(rf"^/{REPO}\.git/info/lfs/objects/verify$"), "lfs_verify"),
    ("PUT", re.compile(r"^/lfs-upload/(?P<oid>[0-9a-f]{64})$"), "lfs_put"),
    ("GET", re.compile(r"^/cdn/(?P<oid>[0-9a-f]{64})$"), "cdn"),
    ("HEAD", re.compile(r"^/cdn/(?P<oid>[0-9a-f]{64})$"), "cdn"),
    ("GET", re.compile(rf"^/{REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)$"), "resolve"),
    ("HEAD", re.compile(rf"^/{REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)$"), "resolve"),
]


class HubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: HubState
    base_url: str
    cdn_url: str

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        with self.state.lock:
            self.state.connections.add(self.connection)

    def finish(self) -> None:
        with self.state.lock:
            self.state.connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    # -- plumbing -----------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        split = urlsplit(self.path)
        path = unquote(split.path)
        self.query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        self.body = self._read_body()
        with self.state.lock:
            self.state.requests.append((method, path))
        if self.state.silent:
            self.state.stopped.wait()
            self.close_connection = True
            return
        with self.state.lock:
            for i, (m, regex, status) in enumerate(self.state.fail_next):
                if m == method and re.search(regex, path):
                    del self.state.fail_next[i]
                    self._send_json(status, {"error": f"injected {status}"})
                    return
        for route_method, pattern, name in ROUTES:
            match = pattern.match(path)
            if route_method == method and match:
                try:
                    getattr(self, f"h_{name}")(**match.groupdict())
                except HubError as err:
                    headers = {"X-Error-Message": err.message}
                    if err.code:
                        headers["X-Error-Code"] = err.code
                    self._send_json(err.status, {"error": err.message}, headers)
                return
        self._send_json(404, {"error": f"no route for {method} {path}"})

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        merged = {"Content-Type": "application/json", **(headers or {})}
        self._send(status, json.dumps(payload).encode(), merged)

    def _token(self) -> Token | None:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return None
        token = self.state.tokens.get(auth.removeprefix("Bearer ").strip())
        if token is None:
            raise HubError(401, "Invalid credentials in Authorization header")
        return token

    def _repo(self, repo: str, rtype: str = "datasets") -> Repo:
        """The repo if it exists and this caller may read it; else the Hub's 401/404 answer."""
        token = self._token()
        found = self.state.repos.get(repo) if rtype == "datasets" else None
        if found is None or (found.private and (token is None or not self._owns(token, found))):
            # The Hub does not reveal private repos: same answer as a missing one.
            status = 401 if token is None else 404
            raise HubError(status, "Repository not found", "RepoNotFound")
        return found

    @staticmethod
    def _owns(token: Token, repo: Repo) -> bool:
        return repo.repo_id.split("/")[0] in (token.user, "team")

    def _writable_repo(self, repo: str, rtype: str) -> Repo:
        found = self._repo(repo, rtype)
        token = self._token()
        if token is None or not token.write:
            raise HubError(403, "You don't have the rights to write to this repo")
        return found

    def _commit_at(self, repo: Repo, rev: str) -> Commit:
        rev = unquote(rev)
        if rev in ("main", "refs/heads/main"):
            return repo.commits[repo.head]
        if rev in repo.commits:
            return repo.commits[rev]
        raise HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound")

    # -- handlers -----------------------------------------------------------------------------

    def h_whoami(self) -> None:
        token = self._token()
        if token is None:
            raise HubError(401, "Invalid credentials in Authorization header")
        role = "write" if token.write else "read"
        self._send_json(
            200,
            {
                "type": "user",
                "name": token.user,
                "orgs": [{"name": "team", "type": "org"}],
                "auth": {"type": "access_token", "accessToken": {"role": role}},
            },
        )

    def h_create_repo(self) -> None:
        token = self._token()
        if token is None:
            raise HubError(401, "You must be authenticated to create a repo")
        payload = json.loads(self.body or b"{}")
        if payload.get("type", "model") != "dataset":
            raise HubError(400, "this test Hub only holds datasets")
        namespace = payload.get("organization") or token.user
        repo_id = f"{namespace}/{payload['name']}"
        if not token.write or namespace not in (token.user, "team"):
            raise HubError(403, "no rights to create a dataset under this namespace")
        private = payload.get("private")
        if private is None:
            private = payload.get("visibility", "public") != "public"
        with self.state.lock:
            if repo_id in self.state.repos:
                raise HubError(409, "You already created this dataset repo")
            self.state.create_repo(repo_id, private=bool(private))
        self._send_json(200, {"url": f"{self.base_url}/datasets/{repo_id}", "name": repo_id})

    def h_validate_yaml(self) -> None:
        from ruamel.yaml import YAML, YAMLError

        content = json.loads(self.body)["content"]
        match = re.match(r"^---\n(.*?)\n---\n", content, re.S)
        try:
            header = YAML(typ="safe").load(match.group(1)) if match else {}
        except YAMLError as err:
            self._send_json(400, {"errors": [{"message": str(err)}]})
            return
        if header is not None and not isinstance(header, dict):
            self._send_json(400, {"errors": [{"message": "metadata must be a mapping"}]})
            return
        self._send_json(200, {"errors": [], "warnings": []})

    def h_repo_info(self, rtype: str, repo: str, rev: str | None = None) -> None:
        with self.state.lock:
            found = self._repo(repo, rtype)
            commit = self._commit_at(found, rev or "main")
            siblings = [{"rfilename": p} for p in sorted(commit.files)]
        self._send_json(
            200,
            {
                "_id": hashlib.sha1(repo.encode()).hexdigest()[:24],
                "id": repo,
                "author": repo.split("/")[0],
                "sha": commit.oid,
                "private": found.private,
                "gated": False,
                "disabled": False,
                "lastModified": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(commit.at)),
                "siblings": siblings,
                "tags": [],
                "downloads": 0,
                "likes": 0,
            },
        )

    def h_refs(self, rtype: str, repo: str) -> None:
        with self.state.lock:
            found = self._repo(repo, rtype)
            head = found.head
        main = {"name": "main", "ref": "refs/heads/main", "targetCommit": head}
        self._send_json(200, {"branches": [main], "converts": [], "tags": [], "pullRequests": []})

    def h_tree(self, rtype: str, repo: str, rev: str, path: str | None = None) -> None:
        with self.state.lock:
            found = self._repo(repo, rtype)
            commit = self._commit_at(found, rev)
            entries = self._tree_entries(commit, (path or "").strip("/"))
        recursive = self.query.get("recursive", "false").lower() == "true"
        if not recursive:
            base = (path or "").strip("/")
            depth = base.count("/") + 1 if base else 0
            entries = [e for e in entries if e["path"].count("/") == depth]
        if (
            not entries
            and path
            and not any(
                f.startswith(path.strip("/") + "/") or f == path.strip("/") for f in commit.files
            )
        ):
            raise HubError(404, f"{path} does not exist on {rev}", "EntryNotFound")
        expand = self.query.get("expand", "false").lower() == "true"
        page_size = min(self.state.tree_page_size, 50 if expand else 1000)
        start = int(self.query.get("cursor", "0"))
        page = entries[start : start + page_size]
        headers = {}
        if start + page_size < len(entries):
            query = f"recursive={str(recursive).lower()}&expand={str(expand).lower()}"
            next_url = (
                f"{self.base_url}/api/{rtype}/{repo}/tree/{quote(rev, safe='')}"
                + (f"/{quote(path, safe='')}" if path else "")
                + f"?{query}&cursor={start + page_size}"
            )
            headers["Link"] = f'<{next_url}>; rel="next"'
        self._send_json(200, page, headers)

    def _tree_entries(self, commit: Commit, base: str) -> list[dict[str, Any]]:
        prefix = base + "/" if base else ""
        folders: set[str] = set()
        files = []
        for path in sorted(commit.files):
            if not path.startswith(prefix):
                continue
            parts = path.split("/")
            for i in range(base.count("/") + (1 if base else 0), len(parts) - 1):
                folders.add("/".join(parts[: i + 1]))
            f = commit.files[path]
            entry: dict[str, Any] = {"type": "file", "oid": f.git_oid, "size": f.size, "path": path}
            if f.lfs_oid:
                pointer = _lfs_pointer(f.lfs_oid, f.size)
                entry["lfs"] = {"oid": f.lfs_oid, "size": f.size, "pointerSize": len(pointer)}
            files.append(entry)
        dirs = [
            {"type": "directory", "oid": hashlib.sha1(d.encode()).hexdigest(), "size": 0, "path": d}
            for d in sorted(folders)
        ]
        return sorted(dirs + files, key=lambda e: e["path"])

    def h_preupload(self, rtype: str, repo: str, rev: str) -> None:
        with self.state.lock:
            found = self._writable_repo(repo, rtype)
            commit = self._commit_at(found, rev)
        payload = json.loads(self.body)
        out = []
        for item in payload["files"]:
            sample = base64.b64decode(item["sample"])
            lfs = (
                any(fnmatch.fnmatch(item["path"].split("/")[-1], p) for p in LFS_PATTERNS)
                or item["size"] >= LFS_SIZE_THRESHOLD
                or b"\0" in sample
            )
            existing = commit.files.get(item["path"])
            out.append(
                {
                    "path": item["path"],
                    "uploadMode": "lfs" if lfs else "regular",
                    "shouldIgnore": False,
                    "oid": existing.git_oid if existing else None,
                }
            )
        self._send_json(200, {"files": out, "commitOid": commit.oid})

    def h_lfs_batch(self, rtype: str, repo: str) -> None:
        with self.state.lock:
            self._writable_repo(repo, rtype)
        payload = json.loads(self.body)
        objects = []
        for obj in payload["objects"]:
            oid, size = obj["oid"], obj["size"]
            entry: dict[str, Any] = {"oid": oid, "size": size, "authenticated": True}
            if oid not in self.state.lfs:
                signature = secrets.token_hex(16)
                self.state.upload_signatures[signature] = oid
                entry["actions"] = {
                    "upload": {
                        "href": f"{self.base_url}/lfs-upload/{oid}?X-Signature={signature}",
                        "header": {},
                    },
                    "verify": {
                        "href": f"{self.base_url}/{rtype}/{repo}.git/info/lfs/objects/verify",
                        "header": {},
                    },
                }
            objects.append(entry)
        self._send_json(200, {"transfer": "basic", "objects": objects, "hash_algo": "sha256"})

    def h_lfs_put(self, oid: str) -> None:
        # Pre-signed URL: the signature, not a token, authorises the upload (as on S3).
        if self.state.upload_signatures.get(self.query.get("X-Signature", "")) != oid:
            raise HubError(403, "bad upload signature")
        if hashlib.sha256(self.body).hexdigest() != oid:
            raise HubError(400, "content does not match its sha256")
        with self.state.lock:
            self.state.lfs[oid] = self.body
            self.state.lfs_bytes_received += len(self.body)
        self._send(200, b"", {"ETag": f'"{hashlib.md5(self.body).hexdigest()}"'})

    def h_lfs_verify(self, rtype: str, repo: str) -> None:
        with self.state.lock:
            self._writable_repo(repo, rtype)
        payload = json.loads(self.body)
        content = self.state.lfs.get(payload["oid"])
        if content is None or len(content) != payload["size"]:
            raise HubError(404, "object not found")
        self._send_json(200, {"success": True})

    def h_commit(self, rtype: str, repo: str, rev: str) -> None:
        lines = [json.loads(line) for line in self.body.splitlines() if line.strip()]
        with self.state.lock:
            found = self._writable_repo(repo, rtype)
            if unquote(rev) != "main":
                raise HubError(400, "this test Hub commits to main only")
            header = next(item["value"] for item in lines if item["key"] == "header")
            parent = header.get("parentCommit")
            if parent is not None and parent != found.head:
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            files = dict(found.commits[found.head].files)
            for item in lines:
                key, value = item["key"], item["value"]
                if key == "file":
                    content = base64.b64decode(value["content"])
                    files[value["path"]] = StoredFile(content, len(content), _git_blob_oid(content))
                elif key == "lfsFile":
                    oid, size = value["oid"], value["size"]
                    if oid not in self.state.lfs or len(self.state.lfs[oid]) != size:
                        raise HubError(422, f"LFS object {oid} was not uploaded")
                    pointer = _lfs_pointer(oid, size)
                    files[value["path"]] = StoredFile(None, size, _git_blob_oid(pointer), oid)
                    found.lfs_files.setdefault(
                        oid,
                        {
                            "filename": value["path"],
                            "pushedAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                            "size": size,
                            "ref": "refs/heads/main",
                        },
                    )
                elif key == "deletedFile":
                    if files.pop(value["path"], None) is None:
                        raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
                elif key == "deletedFolder":
                    folder = value["path"].rstrip("/") + "/"
                    for path in [p for p in files if p.startswith(folder)]:
                        del files[path]
            commit = self.state.new_commit(found, files, header["summary"], found.head)
        self._send_json(
            200,
            {
                "success": True,
                "commitOid": commit.oid,
                "commitUrl": f"{self.base_url}/datasets/{repo}/commit/{commit.oid}",
                "commitMessage": header["summary"],
                "pullRequestUrl": None,
            },
        )

    def h_super_squash(self, rtype: str, repo: str, rev: str) -> None:
        """The branch becomes one parentless commit holding its current files; every older
        commit is gone (their LFS objects stay stored until deleted, as on the Hub)."""
        payload = json.loads(self.body or b"{}")
        with self.state.lock:
            found = self._writable_repo(repo, rtype)
            if unquote(rev) != "main":
                raise HubError(400, "this test Hub squashes main only")
            files = dict(found.commits[found.head].files)
            found.commits = {}
            message = payload.get("message") or "Super-squash branch 'main'"
            commit = self.state.new_commit(found, files, message, None)
        self._send_json(200, {"commitId": commit.oid})

    def h_lfs_files(self, rtype: str, repo: str) -> None:
        with self.state.lock:
            found = self._writable_repo(repo, rtype)  # storage management: owners only
            listed = [
                {
                    "fileOid": oid,
                    "oid": _git_blob_oid(_lfs_pointer(oid, info["size"])),
                    **info,
                }
                for oid, info in sorted(found.lfs_files.items())
            ]
        self._send_json(200, listed)

    def h_lfs_files_batch(self, rtype: str, repo: str) -> None:
        payload = json.loads(self.body or b"{}")
        deletions = payload.get("deletions", {})
        shas = set(deletions.get("sha", []))
        with self.state.lock:
            found = self._writable_repo(repo, rtype)
            for sha in shas:
                found.lfs_files.pop(sha, None)
            if deletions.get("rewriteHistory"):
                for commit in found.commits.values():
                    for path in [p for p, f in commit.files.items() if f.lfs_oid in shas]:
                        del commit.files[path]
            still_used = {oid for r in self.state.repos.values() for oid in r.lfs_files}
            for sha in shas - still_used:
                self.state.lfs.pop(sha, None)
        self._send_json(200, {})

    def h_resolve(self, rtype: str, repo: str, rev: str, path: str) -> None:
        with self.state.lock:
            found = self._repo(repo, rtype)
            commit = self._commit_at(found, rev)
            stored = commit.files.get(path)
        if stored is None:
            raise HubError(404, "Entry not found", "EntryNotFound")
        headers = {"X-Repo-Commit": commit.oid, "Accept-Ranges": "bytes"}
        if stored.lfs_oid:
            headers.update(
                {
                    "ETag": f'"{stored.git_oid}"',
                    "X-Linked-Etag": f'"{stored.lfs_oid}"',
                    "X-Linked-Size": str(stored.size),
                    # Another host, as the Hub's CDN is: the client stops at this redirect,
                    # reads the metadata above, then fetches the content without its token.
                    "Location": f"{self.cdn_url}/cdn/{stored.lfs_oid}",
                }
            )
            self._send(302, b"", headers)
            return
        headers["ETag"] = f'"{stored.git_oid}"'
        self._send_ranged(stored.content or b"", headers)

    def h_cdn(self, oid: str) -> None:
        content = self.state.lfs.get(oid)
        if content is None:
            raise HubError(404, "no such object")
        self._send_ranged(content, {"ETag": f'"{oid}"', "Accept-Ranges": "bytes"})

    def _send_ranged(self, content: bytes, headers: dict[str, str]) -> None:
        match = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if not match:
            self._send(200, content, headers)
            return
        start = int(match.group(1))
        end = int(match.group(2)) if match.group(2) else len(content) - 1
        headers["Content-Range"] = f"bytes {start}-{end}/{len(content)}"
        self._send(206, content[start : end + 1], headers)
