"""`python -m spacy_joint_sbd segment | serve | segment-corpus | convert | evaluate | tune-bias | text-docs | train-prior | stats | download`."""
import inspect

from . import convert, download, evaluate, segment, segment_corpus, serve, stats, text_docs, train_prior, tune_bias  # noqa: F401  (register the commands)
from ._app import app


def _reflow(doc: str) -> str:
    """A command's docstring as help text with each paragraph on one line: Typer's rich help
    keeps the single line breaks of every paragraph after the first, so the terminal would break
    the source's 100-column lines again mid-sentence."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


for _command in app.registered_commands:
    if _command.help is None and _command.callback is not None and _command.callback.__doc__:
        _command.help = _reflow(_command.callback.__doc__)
