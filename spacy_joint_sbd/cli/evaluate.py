"""`evaluate MODEL GOLD`: run a pipeline on the gold TOKENS only and score it (`spacy_joint_sbd.evaluation`)."""
from pathlib import Path
from typing import Dict, Optional

import srsly
import typer
from wasabi import msg

from .. import evaluation
from .._moved import moved_names
from ..corpus.conllu import DEFAULT_SENTS_PER_DOC
from ._app import app
from ._util import atomic_path, split_list, user_errors

__getattr__ = moved_names(__name__)  # the evaluation itself: spacy_joint_sbd.evaluation


def print_scores(result: Dict) -> None:
    keys = ["sents_p", "sents_r", "sents_f", "dep_uas", "dep_las", "dep_las_universal", "dep_uas_nopunct",
            "dep_las_nopunct"]
    if result.get("raw"):
        keys = ["tokens_f", "sentences_f", "words_f", "uas_f", "las_f"]
    rows = [(k, "-" if result[k] is None else f"{100 * result[k]:.2f}") for k in keys]
    rows.append(("words_per_second", f"{result['words_per_second']:.0f}"))
    msg.table(rows, header=("metric", "value"), aligns=("l", "r"))


@app.command("evaluate")
def evaluate_cli(
    model: str = typer.Argument(..., help="pipeline directory, installed package, or 'sentencizer'"),
    gold_path: Path = typer.Argument(..., help="gold .conllu (or .spacy) with whole documents"),
    variant: str = typer.Option("plain", "--variant", "-v", help="plain | star | nosyntax"),
    genres: Optional[str] = typer.Option(None, "--genres", "-g", help="GUM genres to keep, e.g. spoken"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="write predictions as CoNLL-U"),
    metrics: Optional[Path] = typer.Option(None, "--metrics", "-m", help="write scores as JSON"),
    sents_per_doc: int = typer.Option(DEFAULT_SENTS_PER_DOC, "--sents-per-doc", "-n"),
    lang: str = typer.Option("en", "--lang"),
    raw: bool = typer.Option(False, "--raw", help="run on raw text (spaCy's tokenizer) and score with udtools"),
) -> None:
    """Score sentence boundaries (token-level P/R/F, first token of each document excluded) and
    UAS/LAS over whole documents. The pipeline sees only the gold tokens — or, with --raw, the raw
    text, scored by the official CoNLL 2018 evaluator (Tokens, Sentences, UAS, LAS F1)."""
    with user_errors():
        result = evaluation.evaluate(model, gold_path, variant, split_list(genres), output, sents_per_doc, lang, raw)
    msg.info(f"{model} on {gold_path} ({variant}): {result['documents']} documents, {result['words']} words")
    print_scores(result)
    if metrics is not None:
        metrics.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(metrics) as tmp:
            srsly.write_json(tmp, result)
        msg.good(f"wrote {metrics}")
