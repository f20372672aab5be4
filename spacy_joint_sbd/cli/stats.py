"""`stats GOLD.conllu`: punctuation-fragment statistics of a treebank (spitkovsky2011 §2.1)."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from ..corpus import read_conllu
from . import app
from ._util import split_list, user_errors


@app.command("stats")
def stats_cli(
    gold_path: Path = typer.Argument(..., help="gold .conllu"),
    genres: Optional[str] = typer.Option(None, "--genres", "-g"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="also write the table to this file"),
) -> None:
    """Sentences with internal punctuation, fragments, and how often gold trees satisfy each of the
    five punctuation constraints (strict, loose, sprawl, tear, thread)."""
    try:
        from ..graph.stats import constraint_stats, format_stats
    except ImportError as e:  # the graph stack is built separately
        msg.fail(f"stats needs spacy_joint_sbd.graph.stats: {e}")
        raise typer.Exit(1)
    with user_errors():
        records = read_conllu(gold_path, "plain", genres=split_list(genres))
        text = format_stats(constraint_stats(records))
    print(text)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text + "\n", encoding="utf8")
