"""`stats GOLD.conllu`: punctuation-fragment statistics of a treebank (spitkovsky2011 §2.1)."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from ..corpus import read_conllu
from ._app import app
from ._util import split_list, user_errors


@app.command("stats")
def stats_cli(
    gold_path: Path = typer.Argument(..., help="gold .conllu"),
    genres: Optional[str] = typer.Option(None, "--genres", "-g"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="also write the tables to this file"),
    ideographic_comma: bool = typer.Option(False, "--ideographic-comma", help="count 、 as split punctuation"),
) -> None:
    """Punctuation statistics of a gold treebank: sentences with internal punctuation, fragments,
    and how often gold trees satisfy each of the five punctuation constraints (spitkovsky2011
    §2.1); then Li et al.'s Table I (split-punctuation fragments, well-formed fragments, sub-roots)."""
    from ..graph.split_punct import format_table1, split_chars, table1_stats
    from ..graph.stats import constraint_stats, format_stats

    with user_errors():
        records = read_conllu(gold_path, "plain", genres=split_list(genres))
        text = format_stats(constraint_stats(records), title=str(gold_path))
        table1 = table1_stats(records, chars=split_chars(ideographic_comma=ideographic_comma))
        text += "\n\nLi et al. Table I (split punctuation):\n" + format_table1({gold_path.stem: table1})
    print(text)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text + "\n", encoding="utf8")
