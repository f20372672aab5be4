"""`serve [MODEL]`: the `segment --format html` page over HTTP on this machine (`textio.serve`).

Exit codes follow `segment`'s: 2 a bad option value, 1 the pipeline does not load or the port
cannot be taken, 128+N a signal N stopped it (130 Ctrl-C, 143 SIGTERM: the server closed, no
traceback)."""
import typer

from ..textio.runner import guarded
from ..textio.serve import DEFAULT_MAX_CHARS, HOST, Limits, PageServer
from ._app import app
from .segment import DEFAULT_MODEL, NEWLINE_MODES, USAGE_EXIT, _fail, _load_error, _say, set_newlines

_DEFAULTS = Limits()


@app.command("serve")
def serve_cli(
    model: str = typer.Argument(DEFAULT_MODEL, metavar="MODEL", help=f"pipeline (default {DEFAULT_MODEL})"),
    port: int = typer.Option(8000, "--port", "-p", metavar="N", help="port on 127.0.0.1 (0: any free one)"),
    max_chars: int = typer.Option(DEFAULT_MAX_CHARS, "--max-chars", metavar="N",
                                  help="the longest text a request may carry"),
    newlines: str = typer.Option("model", "--newlines", metavar="MODE", help="as segment's --newlines"),
    max_connections: int = typer.Option(_DEFAULTS.max_connections, "--max-connections", metavar="N",
                                        help="connections served at once; more are answered 503"),
    idle_timeout: float = typer.Option(_DEFAULTS.idle_timeout, "--idle-timeout", metavar="S",
                                       help="seconds a connection may stay silent before it is closed"),
    request_timeout: float = typer.Option(_DEFAULTS.request_timeout, "--request-timeout", metavar="S",
                                          help="seconds a client has to send its whole request"),
) -> None:
    """Serve a form on http://127.0.0.1:PORT/ that turns a pasted text into segment's html page:
    its sentences shaded by start probability, a threshold slider, a tree per sentence.

    For one person on their own machine: only this machine can reach it (the loopback address),
    only under its own address (no other site's name, no form posted from another site, no
    framing); every connection is bounded in time, at most --max-connections are served at once,
    and a text over --max-chars characters is refused. Stop it with Ctrl-C (exit 130)."""
    with guarded():  # Ctrl-C exits 130 and SIGTERM 143, the server closed, as segment's runs end
        _serve(model, port, max_chars, newlines, max_connections, idle_timeout, request_timeout)


def _serve(model: str, port: int, max_chars: int, newlines: str, max_connections: int, idle_timeout: float,
           request_timeout: float) -> None:
    import spacy

    limits = Limits(max_chars, max_connections, idle_timeout, request_timeout, _DEFAULTS.backlog)
    try:
        if not 0 <= port <= 65535 or isinstance(port, bool):
            raise ValueError(f"--port must be between 0 and 65535, got {port!r}")
        limits.check()
        if newlines != "model" and newlines not in NEWLINE_MODES:
            raise ValueError(f"--newlines must be one of model, {', '.join(NEWLINE_MODES)}, got {newlines!r}")
    except ValueError as e:
        _fail(_option_names(str(e)), USAGE_EXIT)
    try:
        nlp = spacy.load(model)
    except Exception as e:  # noqa: BLE001 - spaCy, confection, srsly and components raise many types
        _fail(_load_error(model, e))
    set_newlines(nlp, newlines)
    try:
        server = PageServer(nlp, port, model_name=model, limits=limits)
    except OSError as e:
        _fail(f"cannot listen on {HOST}:{port} ({e.strerror or e})")
    _say("serving", f"{server.url} (Ctrl-C stops)")
    try:
        server.serve_forever()
    finally:
        server.server_close()


def _option_names(message: str) -> str:
    """`Limits.check`'s message with the setting named as the option is."""
    for name in ("max_chars", "max_connections", "idle_timeout", "request_timeout"):
        if message.startswith(name + " "):
            return "--" + name.replace("_", "-") + message[len(name):]
    return message
