"""`serve [MODEL]`: the `segment --format html` page over HTTP on this machine (`textio.serve`)."""
import typer

from ..segment import check_positive
from ..textio.serve import DEFAULT_MAX_CHARS, PageServer
from . import app
from .segment import DEFAULT_MODEL, NEWLINE_MODES, _fail, _load_error, _say, set_newlines


@app.command("serve")
def serve_cli(
    model: str = typer.Argument(DEFAULT_MODEL, metavar="MODEL", help=f"pipeline (default {DEFAULT_MODEL})"),
    port: int = typer.Option(8000, "--port", "-p", metavar="N", help="port on 127.0.0.1 (0: any free one)"),
    max_chars: int = typer.Option(DEFAULT_MAX_CHARS, "--max-chars", metavar="N",
                                  help="the longest text a request may carry"),
    newlines: str = typer.Option("model", "--newlines", metavar="MODE", help="as segment's --newlines"),
) -> None:
    """Serve a form on http://127.0.0.1:PORT/ that turns a pasted text into segment's html page:
    its sentences shaded by start probability, a threshold slider, a tree per sentence.

    Only this machine can reach it (the loopback address); one request is answered at a time, and
    a text over --max-chars characters is refused. Stop it with Ctrl-C."""
    import spacy

    try:
        if not 0 <= port <= 65535 or isinstance(port, bool):
            raise ValueError(f"--port must be between 0 and 65535, got {port!r}")
        check_positive("--max-chars", max_chars)
        if newlines != "model" and newlines not in NEWLINE_MODES:
            raise ValueError(f"--newlines must be one of model, {', '.join(NEWLINE_MODES)}, got {newlines!r}")
    except ValueError as e:
        _fail(str(e))
    try:
        nlp = spacy.load(model)
    except Exception as e:  # noqa: BLE001 - spaCy, confection, srsly and components raise many types
        _fail(_load_error(model, e))
    set_newlines(nlp, newlines)
    try:
        server = PageServer(nlp, port, max_chars, model_name=model)
    except OSError as e:
        _fail(f"cannot listen on 127.0.0.1:{port} ({e.strerror or e})")
    _say("serving", f"{server.url} (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
