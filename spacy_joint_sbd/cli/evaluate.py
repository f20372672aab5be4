"""`evaluate MODEL GOLD`: run a pipeline on the gold TOKENS only and score it."""
import json
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import spacy
import srsly
import typer
from spacy.language import Language
from wasabi import msg

from ..corpus import DocRecord
from ..corpus.conllu import DEFAULT_SENTS_PER_DOC
from ..corpus.docs import doc_to_record
from ..corpus.readers import load_gold_docs, tokens_only
from ..corpus.writer import write_conllu
from ..scoring import score_records
from ..persist.paths import portable_path
from . import app
from ._util import atomic_path, split_list, user_errors

BASELINES = ("sentencizer",)


def load_pipeline(model: str, lang: str = "en") -> Language:
    """A directory, an installed package, or `sentencizer` (spaCy's punctuation rules on a blank
    pipeline) as a baseline."""
    if model == "sentencizer":
        nlp = spacy.blank(lang)
        nlp.add_pipe("sentencizer")
        return nlp
    try:
        return spacy.load(model)
    except OSError as e:
        raise ValueError(f"cannot load pipeline {model!r}: {e}") from e


PREDICT_BATCH = 32
"""The batch size of `predict` (the bias sweeps stage their Docs in the same batches)."""


def predict(nlp: Language, gold_docs, batch_size: int = PREDICT_BATCH, n_process: int = 1) -> Tuple[List[DocRecord], float]:
    """Run `nlp` on token-only copies of the gold docs; return predicted records and seconds taken."""
    inputs = [tokens_only(nlp.vocab, d) for d in gold_docs]
    start = time.perf_counter()
    preds = list(nlp.pipe(inputs, batch_size=batch_size, n_process=n_process))
    seconds = time.perf_counter() - start
    return predicted_records(preds, gold_docs), seconds


def predicted_records(preds, gold_docs) -> List[DocRecord]:
    """The records of predicted Docs, each under its gold document's id (as the scorers pair them)."""
    return [doc_to_record(p, doc_id=str(g.user_data.get("doc_id", ""))) for p, g in zip(preds, gold_docs)]


def evaluate(
    model: str,
    gold_path: Path,
    variant: str = "plain",
    genres: Optional[List[str]] = None,
    output: Optional[Path] = None,
    sents_per_doc: int = DEFAULT_SENTS_PER_DOC,
    lang: str = "en",
    raw: bool = False,
) -> Dict:
    """Scores of `model` on the documents of `gold_path`: on the gold tokens, or (`raw`) on the raw
    text scored by the CoNLL 2018 evaluator (`evaluate_raw`)."""
    if raw:
        return evaluate_raw(model, gold_path, variant, genres, output, sents_per_doc, lang)
    nlp = load_pipeline(model, lang)
    gold_docs = load_gold_docs(gold_path, nlp.vocab, variant, genres, sents_per_doc)
    preds, seconds = predict(nlp, gold_docs)
    golds = [doc_to_record(d) for d in gold_docs]
    has_parse = "parser" in nlp.pipe_names or any(p.heads.count(-1) < len(p.heads) for p in preds if len(p))
    counts = score_records(preds, golds, has_parse)
    n_words = sum(len(g) for g in golds)
    result = {
        "model": portable_path(model), "gold": portable_path(gold_path), "variant": variant, "genres": genres,
        "documents": len(golds), "words": n_words,
        **counts.scores(),
        "words_per_second": n_words / seconds if seconds else None,
        "per_doc": counts.per_doc,
    }
    if output is not None:
        write_conllu(preds, output)
    return result


def evaluate_raw(model: str, gold_path: Path, variant: str, genres: Optional[List[str]],
                 output: Optional[Path], sents_per_doc: int, lang: str) -> Dict:
    """The CoNLL 2018 shared-task setting: rebuild each document's raw text from the gold words and
    `SpaceAfter=No`, run the WHOLE pipeline (spaCy's tokenizer included) on it, write CoNLL-U and
    score it with the official evaluator (udtools). Returns its Tokens, Sentences, UAS and LAS F1.

    The text is the concatenation of the gold syntactic words with their spaces; for the rare
    multiword token whose words do not spell its surface form this differs from `# text`."""
    import tempfile

    try:
        from udtools import udeval
    except ImportError as e:
        raise ValueError("--raw scores with the official CoNLL 2018 evaluator: pip install udtools") from e

    from ..corpus import read_conllu
    from ..corpus.writer import write_conllu as write

    nlp = load_pipeline(model, lang)
    golds = read_conllu(gold_path, variant, genres=genres, sents_per_doc=sents_per_doc)
    texts = ["".join(w + (" " if sp else "") for w, sp in zip(g.words, g.spaces)).strip() for g in golds]
    start = time.perf_counter()
    docs = list(nlp.pipe(texts, batch_size=32))
    seconds = time.perf_counter() - start
    preds = [doc_to_record(d, doc_id=g.doc_id) for d, g in zip(docs, golds)]
    with tempfile.TemporaryDirectory() as tmp:
        gold_file, pred_file = Path(tmp) / "gold.conllu", Path(tmp) / "pred.conllu"
        write(golds, gold_file)
        write(preds, pred_file)
        ev = udeval.evaluate(udeval.load_conllu_file(str(gold_file)), udeval.load_conllu_file(str(pred_file)))
        if output is not None:
            write(preds, output)
    n_words = sum(len(g) for g in golds)
    return {
        "model": portable_path(model), "gold": portable_path(gold_path), "variant": variant, "genres": genres, "raw": True,
        "documents": len(golds), "words": n_words,
        "tokens_f": ev["Tokens"].f1, "sentences_f": ev["Sentences"].f1, "words_f": ev["Words"].f1,
        "uas_f": ev["UAS"].f1, "las_f": ev["LAS"].f1,
        "words_per_second": n_words / seconds if seconds else None,
    }


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
        result = evaluate(model, gold_path, variant, split_list(genres), output, sents_per_doc, lang, raw)
    msg.info(f"{model} on {gold_path} ({variant}): {result['documents']} documents, {result['words']} words")
    print_scores(result)
    if metrics is not None:
        metrics.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(metrics) as tmp:
            srsly.write_json(tmp, result)
        msg.good(f"wrote {metrics}")
