"""Scores for joint sentence segmentation and parsing of whole documents.

Sentence boundaries (`sents_p/r/f`) are scored at the token level: a true positive is a token that
both the prediction and the gold standard mark as a sentence start. The first token of every
document is excluded from all counts, since every system trivially gets it right.

This differs from the CoNLL 2018 evaluator's "Sentences" F1 (udtools): that measure aligns whole
sentence *spans* and counts a predicted sentence as correct only if both its start and its end match a
gold sentence, and it includes each document's first sentence. One misplaced boundary therefore
costs two sentences there (the two neighbours) but one start token here; and a document-initial
sentence counts there but its start token does not here. The measures agree in direction, not in
value; `conll18` computes the evaluator's measures on raw text.

Attachment scores are over all tokens of the document, on gold tokens: UAS = head correct (a root
is correct if it is a root in both), LAS = head and label correct. `dep_las_universal` compares
labels before `:` (the CoNLL 2018 evaluator's LAS); the `_nopunct` figures exclude tokens whose
gold UPOS is PUNCT.
"""
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence

from .corpus.labels import from_spacy_dep
from .corpus.record import DocRecord

PUNCT = "PUNCT"
HEAD_FIELDS = ("tokens", "uas", "las", "las_universal", "tokens_nopunct", "uas_nopunct", "las_nopunct")


@dataclass
class HeadCounts:
    """Attachment counts of one tree (or a sum of trees): the only place heads are compared."""

    tokens: int = 0
    uas: int = 0
    las: int = 0
    las_universal: int = 0
    tokens_nopunct: int = 0
    uas_nopunct: int = 0
    las_nopunct: int = 0

    def add(self, other: "HeadCounts") -> None:
        for k in HEAD_FIELDS:
            setattr(self, k, getattr(self, k) + getattr(other, k))


def count_heads(pred_heads: Sequence[int], pred_deps: Optional[Sequence[str]], gold_heads: Sequence[int],
                gold_deps: Optional[Sequence[str]], gold_upos: Optional[Sequence[str]] = None) -> HeadCounts:
    """UAS / LAS counts of a predicted tree against a gold one (same tokens, same head convention:
    absolute or sentence-relative indices, -1 for a root). Without labels (`pred_deps` or `gold_deps`
    None) only UAS counts; without `gold_upos` every token counts as a non-punctuation token."""
    n = len(gold_heads)
    if len(pred_heads) != n:
        raise ValueError(f"prediction has {len(pred_heads)} heads, gold has {n}")
    c = HeadCounts()
    labelled = pred_deps is not None and gold_deps is not None
    for i in range(n):
        head_ok = pred_heads[i] == gold_heads[i]
        las_ok = head_ok and labelled and pred_deps[i] == gold_deps[i]
        c.tokens += 1
        c.uas += head_ok
        c.las += las_ok
        c.las_universal += head_ok and labelled and _universal(pred_deps[i]) == _universal(gold_deps[i])
        if gold_upos is None or gold_upos[i] != PUNCT:
            c.tokens_nopunct += 1
            c.uas_nopunct += head_ok
            c.las_nopunct += las_ok
    return c


@dataclass
class Counts(HeadCounts):
    """Raw counts of boundaries and heads; `add` another document's counts, `scores()` for the ratios."""

    sb_tp: int = 0
    sb_pred: int = 0
    sb_gold: int = 0
    has_parse: bool = True
    per_doc: List[Dict[str, float]] = field(default_factory=list)

    def add(self, other: "Counts") -> None:
        super().add(other)
        for k in ("sb_tp", "sb_pred", "sb_gold"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.has_parse = self.has_parse and other.has_parse
        self.per_doc.extend(other.per_doc)

    def scores(self) -> Dict[str, Optional[float]]:
        p = self.sb_tp / self.sb_pred if self.sb_pred else 0.0
        r = self.sb_tp / self.sb_gold if self.sb_gold else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0

        def ratio(a: int, b: int) -> Optional[float]:
            return a / b if b and self.has_parse else None

        return {
            "sents_p": p, "sents_r": r, "sents_f": f,
            "dep_uas": ratio(self.uas, self.tokens),
            "dep_las": ratio(self.las, self.tokens),
            "dep_las_universal": ratio(self.las_universal, self.tokens),
            "dep_uas_nopunct": ratio(self.uas_nopunct, self.tokens_nopunct),
            "dep_las_nopunct": ratio(self.las_nopunct, self.tokens_nopunct),
        }


def _universal(label: str) -> str:
    return label.split(":", 1)[0].lower()


def count_doc(
    pred_heads: Sequence[int],
    pred_deps: Sequence[str],
    pred_starts: Sequence[bool],
    gold: DocRecord,
    has_parse: bool = True,
) -> Counts:
    """Counts for one document; heads are absolute token indices with -1 for a root."""
    n = len(gold.words)
    if not (len(pred_heads) == len(pred_deps) == len(pred_starts) == n):
        raise ValueError(f"document {gold.doc_id!r}: prediction has {len(pred_heads)} tokens, gold has {n}")
    c = Counts(has_parse=has_parse)
    for i in range(1, n):
        ps, gs = bool(pred_starts[i]), bool(gold.sent_starts[i])
        c.sb_pred += ps
        c.sb_gold += gs
        c.sb_tp += ps and gs
    HeadCounts.add(c, count_heads(pred_heads, pred_deps, gold.heads, gold.deps, gold.upos))
    c.per_doc.append({"doc_id": gold.doc_id, "tokens": n, "sb_tp": c.sb_tp, "sb_pred": c.sb_pred,
                      "sb_gold": c.sb_gold, "uas": c.uas, "las": c.las})
    return c


def score_records(preds: Iterable[DocRecord], golds: Iterable[DocRecord], has_parse: bool = True,
                  check_tokens: bool = True) -> Counts:
    """Counts over aligned lists of predicted and gold documents (same tokens, same order)."""
    total = Counts(has_parse=has_parse)
    preds, golds = list(preds), list(golds)
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predicted documents but {len(golds)} gold documents")
    for p, g in zip(preds, golds):
        if check_tokens and p.words != g.words:
            raise ValueError(f"document {g.doc_id!r}: predicted tokens differ from the gold tokens")
        total.add(count_doc(p.heads, p.deps, p.sent_starts, g, has_parse))
    return total


def score_docs(pred_docs, gold_docs) -> Dict[str, Optional[float]]:
    """Scores for spaCy Docs (predicted vs gold, same tokens); UAS/LAS are None without a parse."""
    from .corpus.docs import doc_to_record

    preds = [doc_to_record(d) for d in pred_docs]
    golds = [doc_to_record(d) for d in gold_docs]
    has_parse = all(d.has_annotation("DEP") for d in pred_docs if len(d))
    return score_records(preds, golds, has_parse).scores()


def _projected_record(eg) -> DocRecord:
    """The prediction projected onto the gold tokens, for Examples whose tokenizations differ
    (e.g. `spacy evaluate` re-tokenizes the text). A gold token without a one-to-one predicted
    token gets head None, label "" and no sentence start, so it counts as an error."""
    from spacy.training import Example

    from .corpus.docs import doc_to_record

    flipped = Example(eg.reference, eg.predicted)
    heads, deps = flipped.get_aligned_parse(projectivize=False)
    starts = flipped.get_aligned_sent_starts()
    rec = doc_to_record(eg.reference)
    rec.heads = [-2 if h is None else (-1 if h == i else h) for i, h in enumerate(heads)]
    rec.deps = ["" if d is None else from_spacy_dep(d) for d in deps]
    rec.sent_starts = [i == 0 or s is True for i, s in enumerate(starts)]
    return rec


def score_examples(examples, **kwargs) -> Dict[str, Optional[float]]:
    """A spaCy scorer: `sents_p/r/f`, `dep_uas`, `dep_las` and friends over `Example`s.

    Examples with the same tokens on both sides are scored directly; otherwise the prediction is
    projected onto the gold tokens through spaCy's alignment first."""
    from .corpus.docs import doc_to_record

    examples = list(examples)
    if all(len(eg.predicted) == len(eg.reference) and
           all(a.text == b.text for a, b in zip(eg.predicted, eg.reference)) for eg in examples):
        return score_docs([eg.predicted for eg in examples], [eg.reference for eg in examples])
    preds = [_projected_record(eg) for eg in examples]
    golds = [doc_to_record(eg.reference) for eg in examples]
    has_parse = all(eg.predicted.has_annotation("DEP") for eg in examples if len(eg.predicted))
    return score_records(preds, golds, has_parse, check_tokens=False).scores()


def tag_accuracy(preds: Sequence[DocRecord], golds: Sequence[DocRecord]) -> Dict[str, float]:
    """XPOS and UPOS accuracy of predicted-tag records against the gold ones (same tokens)."""
    tokens = xpos = upos = 0
    for p, g in zip(preds, golds):
        tokens += len(g.words)
        xpos += sum(a == b for a, b in zip(p.xpos, g.xpos))
        upos += sum(a == b for a, b in zip(p.upos, g.upos))
    return {"tokens": tokens, "xpos_acc": xpos / tokens if tokens else 0.0,
            "upos_acc": upos / tokens if tokens else 0.0}


def char_boundary_scores(golds: Sequence[Sequence[int]], preds: Iterable[Iterable[int]]) -> Dict[str, float]:
    """Boundary `sents_p/r/f` (fractions, as `Counts.scores`) over character offsets: for each
    document, its gold sentence starts (first one included, then excluded from the counts, as
    the first token is above) and the predicted ones (offsets at or before the first gold start
    are not counted). For raw text, whose tokens are the pipeline's, not the treebank's
    (`corpus.raw_text`)."""
    tp = n_pred = n_gold = 0
    preds = list(preds)
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predicted documents but {len(golds)} gold documents")
    for gold_starts, pred_starts in zip(golds, preds):
        if not gold_starts:
            continue
        gold = set(gold_starts[1:])
        pred = {p for p in pred_starts if p > gold_starts[0]}
        tp, n_pred, n_gold = tp + len(gold & pred), n_pred + len(pred), n_gold + len(gold)
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return {"sents_p": p, "sents_r": r, "sents_f": 2 * p * r / (p + r) if p + r else 0.0}
