"""The `segment` page over HTTP, for one person on their own machine: a form to paste text into,
and the page of its sentences (`textio.html`) in return.

Bounded by design: the server listens on the loopback address only, answers one request at a
time, refuses a body over `max_chars` characters (413) before reading it, and gives up on a client
that sends nothing for `REQUEST_TIMEOUT` seconds.
"""
import html
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
from io import StringIO
from typing import Optional

from spacy.language import Language

from ..segment import segment_text
from .html import HtmlWriter

HOST = "127.0.0.1"
"""The only address served: the page is for the machine it runs on."""
DEFAULT_MAX_CHARS = 100_000
"""The longest text a request may carry (characters of the UTF-8 body, a bound on its bytes too)."""
REQUEST_TIMEOUT = 30.0
"""Seconds a client may leave the connection idle."""

_FORM = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>segment</title>
<style>body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em; }}
textarea {{ width: 100%; height: 20em; font: inherit; }} p {{ color: #5b6472; }}</style></head>
<body><h1>segment</h1><p>{note}</p>
<form method="post" action="/" accept-charset="utf-8"><textarea name="text" maxlength="{max_chars}" required
 autofocus></textarea><p><button type="submit">Segment</button> up to {max_chars:,} characters, with {model}</p>
</form></body></html>
"""


class PageServer(HTTPServer):
    """An `HTTPServer` on the loopback address whose POST / answers with the page of the text."""

    def __init__(self, nlp: Language, port: int = 0, max_chars: int = DEFAULT_MAX_CHARS,
                 model_name: str = "the pipeline"):
        self.nlp, self.max_chars, self.model_name = nlp, max_chars, model_name
        self.lock = threading.Lock()
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        """Where the form is."""
        return f"http://{HOST}:{self.server_address[1]}/"


class _Handler(BaseHTTPRequestHandler):
    server: PageServer
    timeout = REQUEST_TIMEOUT

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # the command prints the address once; no line per request

    def _send(self, status: int, body: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
                                                    "script-src 'unsafe-inline'; img-src data:")
        self.end_headers()
        self.wfile.write(data)

    def _form(self, note: str = "Paste a text; its sentences come back as a page.") -> str:
        srv = self.server
        return _FORM.format(note=html.escape(note), max_chars=srv.max_chars, model=html.escape(srv.model_name))

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path != "/":
            self._send(404, self._form("No such page."))
            return
        self._send(200, self._form())

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        srv = self.server
        length = self.headers.get("Content-Length")
        if self.path != "/" or length is None or not length.isdigit():
            self._send(400, self._form("Send the form's text."))
            return
        # a form body is percent-encoded: at most 9 bytes (%XX%XX%XX) per character of 4 UTF-8 bytes
        if int(length) > 9 * srv.max_chars + 64:
            self._send(413, self._form(f"That text is longer than {srv.max_chars:,} characters."))
            return
        fields = urllib.parse.parse_qs(self.rfile.read(int(length)).decode("utf-8", "replace"))
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
        with srv.lock:
            page.write("text", iter(segment_text(srv.nlp, text, "text", with_parse=True)))
        page.close()
        self._send(200, out.getvalue())
