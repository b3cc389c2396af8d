"""A small local web server for the viewer page: the static files shipped beside this module
and a JSON API over one run directory.

GET /                      the page
GET /static/NAME           the page's ES modules (app.js and what it imports, feed.js),
                           style.css: only the files shipped in static/
GET /api/meta              meta.json, plus "total_steps", "available" (whole event lines so
                           far), "follow" (whether the page should follow a live run),
                           "emoji_words" (emoji -> the word it was chosen by) and
                           "agent_colors" (resident -> colour, as the report draws them)
GET /api/world             world.json as written by the simulation
GET /feed, /api/feed        a feed run's page and board (see simulacra/viewer/feed.py)
GET /api/events?from=N&limit=M
                           {"from": N, "available": A, "total_steps": T, "events": [...]}:
                           the step records (simulacra/sim/record.py) of steps N.. (at
                           most M), whole lines only, lines of older runs upgraded

With a live run (`simulacra play`) it also serves the play API (see play_api.py): GET
/api/play, and POSTs that change the town. Those are taken only from the page this server
sent: the Host check below, an Origin (when the browser sends one) of this server, and the
session's token, which is written into the page and must come back as the X-Simulacra-Token
header; another site cannot read the page, so cannot learn it, and cannot send the header
without a CORS preflight, which is never answered.

It listens on 127.0.0.1 only: a run holds every thought of every agent.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from simulacra.cognition.emoji import EMOJI
from simulacra.errors import UserError
from simulacra.feed.run import is_feed_run
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, parse_line
from simulacra.sim.record import CURRENT
from simulacra.viewer.palette import agent_colors

if TYPE_CHECKING:
    from simulacra.sim.live import LiveRun

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
STATIC_DIR = Path(__file__).parent / "static"
DEFAULT_LIMIT = 500
MAX_LIMIT = 5000
TOKEN_HEADER = "X-Simulacra-Token"
TOKEN_SLOT = b'<meta name="simulacra-token" content="">'

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}

# The page needs nothing from anywhere else; the policy makes sure it never tries.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class EventIndex:
    """Byte spans of the whole lines of events.jsonl, extended as the file grows.

    A running simulation appends lines; a resumed one first cuts the lines past its checkpoint
    by replacing the file, so a new inode or a shorter file means starting over.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._spans: list[tuple[int, int]] = []  # by step
        self._end = 0  # where the next unread line starts
        self._identity: tuple[int, int] | None = None

    def refresh(self) -> int:
        """Read any new whole lines; returns how many steps are available."""
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                self._reset(None)
                return 0
            identity = (st.st_dev, st.st_ino)
            if identity != self._identity or st.st_size < self._end:
                self._reset(identity)
            if st.st_size > self._end:
                self._scan()
            return len(self._spans)

    def lines(self, start: int, limit: int) -> list[bytes]:
        with self._lock:
            spans = self._spans[start : start + limit]
            if not spans:
                return []
            with self.path.open("rb") as f:
                f.seek(spans[0][0])
                block = f.read(spans[-1][1] - spans[0][0])
            base = spans[0][0]
            return [block[a - base : b - base] for a, b in spans]

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self._spans, self._end, self._identity = [], 0, identity

    def _scan(self) -> None:
        with self.path.open("rb") as f:
            f.seek(self._end)
            data = f.read()
        pos = 0
        while True:
            nl = data.find(b"\n", pos)
            if nl < 0:
                break  # a line still being written: wait for its end
            start, end = self._end + pos, self._end + nl
            line = data[pos:nl]
            pos = nl + 1
            try:
                step = json.loads(line)["step"]
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill, then overwritten by a resume
            if not isinstance(step, int) or step < 0 or step > len(self._spans):
                continue  # steps come in order without gaps; anything else is not a step
            del self._spans[step:]
            self._spans.append((start, end))
        self._end += pos


class _Server(ThreadingHTTPServer):
    # A page opens several connections at once, and a busy town may be slow to accept them:
    # the default backlog of 5 reset some of 32 clients' POSTs.
    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A page closed or reloaded mid-request is nothing to report in the terminal.
        if isinstance(sys.exc_info()[1], ConnectionError):
            log.debug("%s went away mid-request", client_address)
            return
        super().handle_error(request, client_address)


class ViewerServer:
    """Serves one run directory until :meth:`close`. ``port=0`` picks any free port."""

    def __init__(
        self,
        directory: Path,
        *,
        port: int = 0,
        follow: bool = False,
        live: LiveRun | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.live = live  # a run being played: the page may act on it
        self.token = secrets.token_urlsafe(32)  # this session's, for the play API
        self.feed = is_feed_run(self.directory)
        if not self.feed:
            self._check_town()
        self.follow = follow
        self.events = EventIndex(self.directory / EVENTS_FILE)
        handler = type("Handler", (_Handler,), {"viewer": self})
        try:
            self.httpd = _Server((HOST, port), handler)
        except OSError as e:
            raise UserError(
                f"cannot listen on {HOST}:{port}: {e.strerror or e}",
                field="--port",
                fix="pick another port, or 0 for any free one",
            ) from None
        self._thread: threading.Thread | None = None

    def _check_town(self) -> None:
        rundir.read_meta(self.directory)  # a clear error now rather than a broken page
        world = self.directory / rundir.MAP_FILE
        if not world.is_file():
            raise UserError(
                "no world.json in the run directory",
                file=world,
                fix="give a directory written by `simulacra run`",
            )

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> ViewerServer:
        """Serve from a background thread (for tests and embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()

    def __enter__(self) -> ViewerServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The API, as bytes ready to send.

    def meta(self) -> bytes:
        meta = rundir.read_meta(self.directory)  # again: a resumed run may end later
        data = json.loads((self.directory / rundir.META_FILE).read_text(encoding="utf-8"))
        data["total_steps"] = meta.total_steps
        data["available"] = self.events.refresh()
        data["follow"] = self.follow or self.live is not None
        data["play"] = self.live is not None
        # The word each bubble's emoji stands for, for browsers without colour emoji.
        data["emoji_words"] = {mark: word for word, mark in EMOJI.items()}
        data["agent_colors"] = agent_colors(meta.agents)
        return json.dumps(data, ensure_ascii=False).encode("utf-8")

    def world(self) -> bytes:
        return (self.directory / rundir.MAP_FILE).read_bytes()

    def events_from(self, start: int, limit: int) -> bytes:
        available = self.events.refresh()
        total = rundir.read_meta(self.directory).total_steps
        lines = [
            self._current(line, start + i) for i, line in enumerate(self.events.lines(start, limit))
        ]
        head = json.dumps({"from": start, "available": available, "total_steps": total})
        # The lines are JSON already: splice them in rather than parse and re-encode.
        return head[:-1].encode() + b', "events": [' + b",".join(lines) + b"]}"

    def _current(self, line: bytes, step: int) -> bytes:
        """A line as the current record version: lines of older runs are upgraded."""
        if any(b'"v":%d,' % v in line[:16] for v in CURRENT):
            return line  # valid as it stands
        path = self.directory / EVENTS_FILE
        return parse_line(line, path=path, number=step + 1).line().encode()


class _Handler(BaseHTTPRequestHandler):
    viewer: ViewerServer
    server_version = "simulacra-viewer"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        self._get(head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._get(head=True)

    def _get(self, *, head: bool) -> None:
        if not self._host_ok():
            self._send(HTTPStatus.FORBIDDEN, b"forbidden host\n", "text/plain", head)
            return
        url = urlsplit(self.path)
        path = url.path
        try:
            if path in ("/", "/index.html"):
                self._static("feed.html" if self.viewer.feed else "index.html", head)
            elif path.startswith("/static/"):
                self._static(path[len("/static/") :], head)
            elif path == "/feed":
                self._static("feed.html", head)
            elif path == "/api/feed":
                from simulacra.viewer.feed import feed_json

                self._json(feed_json(self.viewer.directory), head)
            elif path == "/api/meta":
                self._json(self.viewer.meta(), head)
            elif path == "/api/world":
                self._json(self.viewer.world(), head)
            elif path == "/api/play" and self.viewer.live is not None:
                self._json(json.dumps(self.viewer.live.status()).encode(), head)
            elif path == "/api/events":
                query = parse_qs(url.query)
                start = _int(query, "from", 0)
                limit = _int(query, "limit", DEFAULT_LIMIT)
                if start is None or limit is None:
                    bad = "from" if start is None else "limit"
                    message = f"bad query: {bad} must be a whole number, 0 or more\n"
                    self._send(HTTPStatus.BAD_REQUEST, message.encode(), "text/plain", head)
                    return
                self._json(self.viewer.events_from(start, min(limit, MAX_LIMIT)), head)
            else:
                self._not_found(head)
        except UserError as e:
            self._send(HTTPStatus.CONFLICT, f"{e}\n".encode(), "text/plain", head)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page went away mid-answer

    def do_POST(self) -> None:  # noqa: N802
        from simulacra.viewer import play_api

        refused = self._refused()
        if refused:
            self.close_connection = True  # the body, unread, must not pass for a request
            self._send(HTTPStatus.FORBIDDEN, f"{refused}\n".encode(), "text/plain", False)
            return
        path = urlsplit(self.path).path
        action = path[len("/api/play/") :] if path.startswith("/api/play/") else ""
        if action != "control" and action not in play_api.ACTIONS:
            self.close_connection = True
            self._not_found(False)
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= play_api.MAX_BODY:
            self.close_connection = True
            self._error(HTTPStatus.BAD_REQUEST, "the request has no length, or is too long")
            return
        raw = self.rfile.read(length)
        if len(raw) < length:  # the page went away mid-body: no one to answer
            self.close_connection = True
            return
        try:
            answer = play_api.handle(self.viewer.live, action, raw)
        except play_api.BadRequest as e:
            self._error(HTTPStatus.BAD_REQUEST, str(e))
        except Exception as e:  # the model failed, the town stopped: say so in the page
            log.exception("play action %s failed", action)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(e).__name__}: {e}")
        else:
            self._json(json.dumps(answer, ensure_ascii=False).encode("utf-8"), False)

    def _refused(self) -> str | None:
        """Why a state-changing request is not taken, or None: it must come from our page."""
        if self.viewer.live is None:
            return "this server only shows a run (start it with `simulacra play` to act on it)"
        if not self._host_ok():
            return "forbidden host"
        ours = (f"http://127.0.0.1:{self.viewer.port}", f"http://localhost:{self.viewer.port}")
        origin = self.headers.get("Origin")
        if origin is not None and origin not in ours:
            return "forbidden origin"
        if self.headers.get("Sec-Fetch-Site") not in (None, "same-origin"):
            return "forbidden: not from this page"
        token = self.headers.get(TOKEN_HEADER) or ""
        if not hmac.compare_digest(token.encode(), self.viewer.token.encode()):
            return "forbidden: missing or wrong session token (reload the page)"
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            return "forbidden: the body must be application/json"
        return None

    def _error(self, status: HTTPStatus, message: str) -> None:
        body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json", False)

    def _host_ok(self) -> bool:
        # A page elsewhere could point a name it controls at 127.0.0.1 (DNS rebinding) and
        # then read the run; the browser still sends that name as Host, so only ours pass.
        host = (self.headers.get("Host") or "").strip().lower()
        port = self.viewer.port
        return host in (f"127.0.0.1:{port}", f"localhost:{port}")

    def _static(self, name: str, head: bool) -> None:
        # Only names of files shipped in static/, so nothing like ../ can ever be served.
        shipped = {p.name: p for p in STATIC_DIR.iterdir() if p.is_file()}
        file = shipped.get(name)
        if file is None:
            self._not_found(head)
            return
        body = file.read_bytes()
        if name == "index.html" and self.viewer.live is not None:
            body = body.replace(TOKEN_SLOT, TOKEN_SLOT[:-2] + self.viewer.token.encode() + b'">')
        self._send(HTTPStatus.OK, body, _TYPES.get(file.suffix, "application/octet-stream"), head)

    def _json(self, body: bytes, head: bool) -> None:
        self._send(HTTPStatus.OK, body, "application/json", head)

    def _not_found(self, head: bool) -> None:
        self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", head)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        # A followed run changes under the same URLs.
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", _CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        log.debug("%s " + format, self.address_string(), *args)


def _int(query: dict[str, list[str]], name: str, default: int) -> int | None:
    values = query.get(name)
    if not values:
        return default
    try:
        value = int(values[0])
    except ValueError:
        return None
    return value if value >= 0 else None
