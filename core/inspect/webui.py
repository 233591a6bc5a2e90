"""`funes ui`: a local web page over one memory, served by the standard library.

Only this machine can reach it, and only with the URL it prints:
- it listens on 127.0.0.1, never on another interface;
- every path starts with a random token (`/<token>/…`); any other path is a bare 404;
- the Host header must name the loopback address it serves (a web page elsewhere cannot reach
  it by pointing a DNS name at 127.0.0.1);
- the page loads nothing from the network (its HTML, script and style ship in
  `funes/inspect/static/`, and a Content-Security-Policy pins them to this origin), and it
  writes every piece of recalled text into the page as text, never as markup;
- the browser is never handed the token on its command line (which any user can read in `ps`):
  it opens a redirect page only the owner can read (`launch_page`).
"""

from __future__ import annotations

import hmac
import html
import json
import os
import secrets
import tempfile
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from funes.inspect.webresident import Resident

STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never hand it to anyone
    "Cache-Control": "no-store",
}


def static_file(name: str) -> bytes | None:
    """A file shipped in funes/inspect/static/ (None for anything else, `..` included)."""
    if not name or "/" in name or name.startswith("."):
        return None
    resource = resources.files("funes.inspect").joinpath("static", name)
    return resource.read_bytes() if resource.is_file() else None


class UIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, memory: str | None = None, port: int = 0) -> None:
        self.memory = memory
        self.resident = Resident()  # who answers the API calls: the memory's service, or us
        self.token = secrets.token_urlsafe(18)
        super().__init__(("127.0.0.1", port), _Handler)
        self.port = int(self.server_address[1])
        self.allowed_hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self.token}/"

    def start(self) -> threading.Thread:
        """Serve in a background thread (for tests and embedding); `shutdown()` stops it."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread


def launch_page(url: str) -> Path:
    """A page that sends the browser on to `url`, written where only this user can read it
    (a fresh 0700 folder, a 0600 file): the browser is given this file's path, never the token.
    The caller deletes its folder once the server stops."""
    folder = Path(tempfile.mkdtemp(prefix="funes-ui-"))
    quoted = html.escape(url, quote=True)
    page = (
        '<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={quoted}"><title>funes</title>'
        f'<a href="{quoted}">open funes</a>\n'
    )
    fd = os.open(folder / "open.html", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(page)
    return folder / "open.html"


class _Handler(BaseHTTPRequestHandler):
    server: UIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the terminal shows the URL and nothing else

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        route = self._route(parts.path)
        if route is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return
        if route in ("", "index.html"):
            self._static("index.html")
        elif route.startswith("static/"):
            self._static(route.removeprefix("static/"))
        elif route.startswith("api/"):
            self._api(route.removeprefix("api/"), dict(parse_qsl(parts.query)))
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

    def _route(self, path: str) -> str | None:
        """The path after `/<token>/`, or None when the token or the Host header is wrong."""
        if self.headers.get("Host", "") not in self.server.allowed_hosts:
            return None
        token, _, rest = path.lstrip("/").partition("/")
        if not hmac.compare_digest(token.encode(), self.server.token.encode()):
            return None
        return rest

    def _static(self, name: str) -> None:
        body = static_file(name)
        suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        if body is None or suffix not in STATIC_TYPES:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return
        self._send(HTTPStatus.OK, body, STATIC_TYPES[suffix])

    def _api(self, name: str, params: dict[str, str]) -> None:
        try:
            status, data = self.server.resident.answer(name, self.server.memory, params)
        except Exception as error:  # the page shows the message; the server keeps serving
            status, data = 500, {"error": f"{type(error).__name__}: {error}"}
        body = json.dumps(data, ensure_ascii=False).encode()
        self._send(status, body, "application/json; charset=utf-8")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in SECURITY_HEADERS.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


def warm_up(memory: str | None) -> None:
    """Load the query embedder and the second pass before the first search needs them."""
    try:
        from funes.index.embed import load_embedder
        from funes.retrieve.second_pass import load_second_pass
        from funes.sync.memory import open_memory

        load_embedder(open_memory(memory).store.model_id or None)
        load_second_pass()
    except Exception:
        pass  # the first search reports whatever is wrong, in its own words
