"""A pipeline run on gold documents and scored, for the `evaluate` command and the scripts that
report a pipeline's scores.

`evaluate` gives the pipeline the gold TOKENS only (token-only copies of the documents: nothing
gold but the words reaches it) and scores boundaries and trees with `scoring`; `evaluate_raw`
gives it the raw text and scores with the CoNLL 2018 evaluator. `predict` and `predicted_records`
are the run itself: the bias sweeps (`operating_point`) batch and pair their Docs the same way.
"""
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import spacy
from spacy.language import Language

from .corpus import DocRecord
from .corpus.conllu import DEFAULT_SENTS_PER_DOC
from .corpus.docs import doc_to_record
from .corpus.readers import load_gold_docs, tokens_only
from .corpus.writer import write_conllu
from .persist.paths import portable_path
from .scoring import score_records

BASELINES = ("sentencizer",)
"""The names `load_pipeline` builds a baseline for instead of loading a pipeline."""


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

    from .corpus import read_conllu
    from .corpus.writer import write_conllu as write

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
