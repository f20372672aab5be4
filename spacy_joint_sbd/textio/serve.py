"""The `segment` page over HTTP, for one person on their own machine: a form to paste text into,
and the page of its sentences (`textio.html`) in return.

What it guards against, so that a web page open in the same browser, a local program or a stuck
client cannot use it or stall it (`Limits` holds every bound, with safe defaults):

- Reach: it listens on the loopback address only, and answers only requests whose `Host` is that
  address (or `localhost`) with its port, so a web site whose name is re-pointed at 127.0.0.1
  (DNS rebinding) is refused. A POST that a browser marks as coming from another site (`Origin`,
  `Sec-Fetch-Site`) is refused, so no web page can submit the form. Its pages may not be framed
  (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), run no script but their own and load
  nothing (`Content-Security-Policy`); the `Server` header names no version.
- Load: each connection has its own thread (`ThreadingHTTPServer`), so an idle or slow client
  delays no other; a connection that sends nothing for `idle_timeout` seconds, or has not sent its
  whole request after `request_timeout` seconds (a byte now and then does not keep it open), is
  closed. At most `max_connections` are served at once; one more gets a 503 at once, and the
  listen backlog holds a burst of `backlog` connections. The pipeline parses one text at a time.
- Input: a body over `max_chars` characters is refused (413) before it is read; a `Content-Length`
  that is not a plain decimal number is a 400. A request that fails is answered with its status,
  never a traceback.
"""
import html
import socket
import sys
import threading
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from typing import Optional, Set

from spacy.language import Language

from ..segment import check_positive, segment_text
from .html import HtmlWriter

HOST = "127.0.0.1"
"""The only address served: the page is for the machine it runs on."""
DEFAULT_MAX_CHARS = 100_000
"""The longest text a request may carry (characters of the UTF-8 body, a bound on its bytes too)."""
SERVER_NAME = "segment"
"""The `Server` header: no Python or library version for a prober to match."""
SECURITY_HEADERS = (
    ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                                "img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),  # no-referrer would make a browser send its own form as `Origin: null`
    ("Cache-Control", "no-store"),
)
"""Sent with every response, error pages included."""


@dataclass(frozen=True)
class Limits:
    """The bounds `PageServer` keeps (see module doc)."""

    max_chars: int = DEFAULT_MAX_CHARS
    """The longest text a request may carry."""
    max_connections: int = 64
    """Connections served at once; one more is answered 503 at once."""
    idle_timeout: float = 10.0
    """Seconds a connection may send (or take) nothing before it is closed."""
    request_timeout: float = 30.0
    """Seconds a client has to send its whole request (headers and body)."""
    backlog: int = 128
    """Connections the operating system queues while the server accepts others."""

    def check(self) -> None:
        """A ValueError naming the first bound that is no positive number."""
        for name in ("max_chars", "max_connections", "backlog"):
            check_positive(name, getattr(self, name))
        for name in ("idle_timeout", "request_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 86_400:
                raise ValueError(f"{name} must be a number of seconds in (0, 86400), got {value!r}")


_FORM = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>segment</title>
<style>body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em; }}
textarea {{ width: 100%; height: 20em; font: inherit; }} p {{ color: #5b6472; }}</style></head>
<body><h1>segment</h1><p>{note}</p>
<form method="post" action="/" accept-charset="utf-8"><textarea name="text" maxlength="{max_chars}" required
 autofocus></textarea><p><button type="submit">Segment</button> up to {max_chars:,} characters, with {model}</p>
</form></body></html>
"""

_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nServer: " + SERVER_NAME.encode() + b"\r\nRetry-After: 1\r\n"
         b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 38\r\nConnection: close\r\n\r\n"
         b"Busy: too many connections; try again.")


class PageServer(ThreadingHTTPServer):
    """A threaded HTTP server on the loopback address whose POST / answers with the page of the
    text, within `limits`."""

    daemon_threads = True

    def __init__(self, nlp: Language, port: int = 0, max_chars: Optional[int] = None,
                 model_name: str = "the pipeline", limits: Optional[Limits] = None):
        limits = limits or Limits()
        if max_chars is not None:
            limits = Limits(max_chars, limits.max_connections, limits.idle_timeout, limits.request_timeout,
                            limits.backlog)
        limits.check()
        self.nlp, self.limits, self.model_name = nlp, limits, model_name
        self.max_chars = limits.max_chars
        self.lock = threading.Lock()
        """The pipeline parses one text at a time (its layers use every core already)."""
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        self.request_queue_size = limits.backlog
        super().__init__((HOST, port), _Handler)
        port = self.server_address[1]
        names = {f"{HOST}:{port}", f"localhost:{port}"} | ({HOST, "localhost"} if port == 80 else set())
        self.hosts: Set[str] = names
        """The `Host` values answered: this address, as a browser on this machine writes it."""
        self.origins: Set[str] = {f"http://{h}" for h in names}
        """The `Origin` values a POST may come from: the form's own page."""

    @property
    def url(self) -> str:
        """Where the form is."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            _refuse(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        """A connection that failed says so in one line (a client gone or too slow: nothing)."""
        error = sys.exc_info()[1]
        if isinstance(error, (OSError, ValueError)):
            return
        print(f"warning: a request from {client_address[0]} failed: {type(error).__name__}: {error}",
              file=sys.stderr)


def _refuse(request: socket.socket) -> None:
    """Answer 503 on a connection over `max_connections` without a thread: send, then read what
    has arrived (closing with unread data would reset the connection before the answer is read)."""
    try:
        request.settimeout(0.5)
        request.sendall(_BUSY)
        request.shutdown(socket.SHUT_WR)
        request.setblocking(False)
        for _ in range(16):
            if not request.recv(65536):
                break
    except OSError:
        pass


class _Handler(BaseHTTPRequestHandler):
    server: PageServer
    server_version = SERVER_NAME
    sys_version = ""
    default_request_version = "HTTP/1.0"  # a malformed request line is answered with a status line too

    def version_string(self) -> str:
        return SERVER_NAME

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # the command prints the address once; no line per request

    def setup(self) -> None:
        limits = self.server.limits
        self.timeout = limits.idle_timeout
        self.expired = False
        self.deadline = threading.Timer(limits.request_timeout, self._expire)
        self.deadline.daemon = True
        self.deadline.start()
        super().setup()

    def _expire(self) -> None:
        """The whole request did not arrive in time: reading ends (and the request is answered 408)."""
        self.expired = True
        try:
            self.connection.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def finish(self) -> None:
        self.deadline.cancel()
        super().finish()

    def end_headers(self) -> None:
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        super().end_headers()

    def _send(self, status: int, body: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _form(self, note: str = "Paste a text; its sentences come back as a page.") -> str:
        srv = self.server
        return _FORM.format(note=html.escape(note), max_chars=srv.max_chars, model=html.escape(srv.model_name))

    def _refused(self) -> bool:
        """Answer and return True when the request may not be served: it came too late, it names
        another host (DNS rebinding), or a browser sends it from another site."""
        if self.command != "POST":  # the request is all read: its headers
            self.deadline.cancel()
        if self.expired:
            self._send(408, self._form("The request took too long to arrive."))
            return True
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.hosts:
            self._send(403, self._form(f"This server answers only at {self.server.url}"))
            return True
        if self.command == "POST":
            origin = self.headers.get("Origin")
            site = self.headers.get("Sec-Fetch-Site")
            if (origin is not None and origin.strip().lower() not in self.server.origins) or \
                    (site is not None and site.strip().lower() not in ("same-origin", "none")):
                self._send(403, self._form("The form may be sent only from its own page."))
                return True
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self._refused():
            return
        if self.path != "/":
            self._send(404, self._form("No such page."))
            return
        self._send(200, self._form())

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self._refused():
            return
        srv = self.server
        length = (self.headers.get("Content-Length") or "").strip()
        if self.path != "/" or not (length.isascii() and length.isdigit() and len(length) <= 15):
            self._send(400, self._form("Send the form's text."))
            return
        # a form body is percent-encoded: at most 9 bytes (%XX%XX%XX) per character of 4 UTF-8 bytes
        if int(length) > 9 * srv.max_chars + 64:
            self._send(413, self._form(f"That text is longer than {srv.max_chars:,} characters."))
            return
        body = self.rfile.read(int(length))
        self.deadline.cancel()
        if self.expired or len(body) < int(length):
            self._send(408, self._form("The request took too long to arrive."))
            return
        fields = urllib.parse.parse_qs(body.decode("utf-8", "replace"))
        text: Optional[str] = (fields.get("text") or [None])[0]
        if text is not None:  # a browser sends a textarea's line breaks as CRLF, whatever was pasted
            text = text.replace("\r\n", "\n")
        if not text or not text.strip():
            self._send(400, self._form("The text was empty."))
            return
        if len(text) > srv.max_chars:
            self._send(413, self._form(f"That text is longer than {srv.max_chars:,} characters."))
            return
        out = StringIO()
        page = HtmlWriter(out, title=f"Sentences — {srv.model_name}")
        try:
            with srv.lock:
                sentences = segment_text(srv.nlp, text, "text", with_parse=True)
            page.write("text", iter(sentences))
            page.close()
        except Exception as e:  # noqa: BLE001 - a pipeline can raise anything; the server goes on
            self._send(500, self._form(f"The pipeline failed on this text ({type(e).__name__}: {e})."))
            return
        self._send(200, out.getvalue())
