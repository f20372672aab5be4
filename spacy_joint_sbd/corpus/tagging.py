"""Predicted tags for gold-token documents: the one way the package tags records with a spaCy tagger.

Parsers are trained and scored on gold tokens with *predicted* tags (never gold ones at test time).
`load_tagger` keeps only ``tok2vec`` and ``tagger`` of a saved pipeline; `predict_tags` runs it on
the tokens alone (no gold annotation reaches the tagger) and returns copies of the records whose
XPOS (and, given a `upos_map`, UPOS) are the tagger's.
"""
import dataclasses
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Union

from spacy.language import Language
from spacy.tokens import Doc

from .record import DocRecord

UposMap = Callable[[Sequence[str], Sequence[str]], List[str]]
"""(words, predicted XPOS) → UPOS, for taggers that predict XPOS only."""

TAGGER_PIPES = ("tok2vec", "tagger")


def load_tagger(path: Union[str, Path]) -> Language:
    """The ``tok2vec`` + ``tagger`` components of a saved pipeline (directory or package name)."""
    import spacy

    nlp = spacy.load(path)
    if "tagger" not in nlp.pipe_names:
        raise ValueError(f"{path} has no 'tagger' component (pipeline: {nlp.pipe_names})")
    nlp.select_pipes(enable=[p for p in nlp.pipe_names if p in TAGGER_PIPES])
    return nlp


def tokens_only_doc(vocab, rec: DocRecord, start: int = 0, end: Optional[int] = None) -> Doc:
    """A Doc of the record's tokens [start, end) and nothing else: what a pipeline may see."""
    end = len(rec.words) if end is None else end
    return Doc(vocab, words=rec.words[start:end], spaces=list(rec.spaces[start:end]))


def predict_tags(nlp: Language, records: Sequence[DocRecord], *, by_sentence: bool = False,
                 upos_map: Optional[UposMap] = None, batch_size: int = 16) -> List[DocRecord]:
    """Copies of `records` with the tagger's XPOS (and UPOS from `upos_map`, else the gold UPOS
    is kept and the caller must not read it at test time).

    by_sentence: tag each gold sentence as its own Doc (for parsers that work inside given
        sentences); False tags whole documents (boundaries are never seen)."""
    spans = [(r, s, e) for r, rec in enumerate(records)
             for s, e in (rec.sentences() if by_sentence else [(0, len(rec.words))])]
    xpos = [list(rec.xpos) for rec in records]
    docs = (tokens_only_doc(nlp.vocab, records[r], s, e) for r, s, e in spans)
    for doc, (r, s, e) in zip(nlp.pipe(docs, batch_size=batch_size), spans):
        xpos[r][s:e] = [t.tag_ for t in doc]
    out = []
    for rec, xs in zip(records, xpos):
        upos = upos_map(rec.words, xs) if upos_map is not None else list(rec.upos)
        out.append(dataclasses.replace(rec, xpos=xs, upos=upos))
    return out
