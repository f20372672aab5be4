"""`python -m spacy_joint_sbd segment | segment-corpus | convert | evaluate | tune-bias | text-docs | train-prior | stats | download`."""
import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

from . import convert, download, evaluate, segment, segment_corpus, stats, text_docs, train_prior, tune_bias  # noqa: E402,F401  (register the commands)
