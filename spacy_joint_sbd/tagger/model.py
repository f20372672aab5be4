"""`PerceptronTagger`: a fast hashed averaged-perceptron tagger, cheap enough to jackknife.

The joint parser reads tags as features, so the tags it trains on should be as good (and as bad)
as the tags it will get at prediction time. A tagger that sees its own training documents tags them
almost perfectly; `jackknife` tags each fold with a tagger trained on the other folds instead
(bjorkelund2016 §5 used 10-fold jackknifed MarMoT tags).
"""
import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import LOWER, PREFIX, SHAPE, SUFFIX
from spacy.tokens import Doc

from ..learn import HashedWeights, hash_string
from .greedy import tag_doc

DEFAULT_N_ROWS = 1 << 17
N_WORD_COLS = 6
MAX_CONTEXT = 8
_COLS = [LOWER, PREFIX, SUFFIX, SHAPE]


def encode_doc(doc: Doc, context=None) -> numpy.ndarray:
    """(len(doc), 6 + c) uint64 attributes the tagger reads: LOWER, PREFIX, SUFFIX, SHAPE (spaCy's
    ids) and hashes of the lower-cased 2- and 4-character suffixes; then, with `context` (a
    `context.clusters.ContextClusters`, or anything whose `columns(doc)` gives (n, c)
    uint64 ids), its c cluster columns of the Doc's token vectors."""
    n = len(doc)
    c = 0 if context is None else len(context.ks)
    out = numpy.zeros((n, N_WORD_COLS + c), dtype=numpy.uint64)
    if n == 0:
        return out
    out[:, :4] = doc.to_array(_COLS).reshape((n, 4)).astype(numpy.uint64)
    strings = doc.vocab.strings
    out[:, 4:6] = [_SUFFIX_CACHE.get(i) or _suffixes(i, strings[i]) for i in out[:, 0].tolist()]
    if c:
        out[:, N_WORD_COLS:] = context.columns(doc)
    return out


_SUFFIX_CACHE: Dict[int, Tuple[int, int]] = {}
"""LOWER id → the hashes of its 2- and 4-character suffixes (a LOWER id is the hash of its
string: the same in every vocab), so that a Doc's suffixes cost a dict lookup per token and no
Token objects."""


def _suffixes(lower_id: int, lower: str) -> Tuple[int, int]:
    cached = (hash_string(lower[-2:]), hash_string(lower[-4:]))
    if len(_SUFFIX_CACHE) < 1_000_000:
        _SUFFIX_CACHE[lower_id] = cached
    return cached


class PerceptronTagger:
    """Tags (any string labels) for token-attribute arrays from `encode_doc`, with `n_context`
    context columns (0: words only)."""

    def __init__(self, labels: Sequence[str], n_rows: int = DEFAULT_N_ROWS, n_context: int = 0):
        labels = list(labels)
        if not labels or len(set(labels)) != len(labels) or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"labels must be distinct non-empty strings, got {labels[:10]}")
        if not isinstance(n_rows, int) or n_rows < 1:
            raise ValueError(f"n_rows must be a positive int, got {n_rows!r}")
        if not isinstance(n_context, int) or isinstance(n_context, bool) or not 0 <= n_context <= MAX_CONTEXT:
            raise ValueError(f"n_context must be an int in [0, {MAX_CONTEXT}], got {n_context!r}")
        self.labels: List[str] = labels
        self.n_context = n_context
        self.label_ids = {x: i for i, x in enumerate(labels)}
        self.weights = HashedWeights(n_rows, len(labels))

    def gold_ids(self, tags: Sequence[str]) -> numpy.ndarray:
        """Tag strings → ids; a tag unknown to the model is an error (naming it)."""
        try:
            return numpy.asarray([self.label_ids[t] for t in tags], dtype=numpy.int32)
        except KeyError as e:
            raise ValueError(f"tag {e.args[0]!r} is not among the tagger's {len(self.labels)} labels") from None

    def check_attrs(self, attrs: numpy.ndarray) -> numpy.ndarray:
        """`attrs` if it has this tagger's 6 + n_context columns, else a ValueError saying which."""
        a = numpy.asarray(attrs)
        width = N_WORD_COLS + self.n_context
        if a.ndim != 2 or a.shape[1] != width:
            raise ValueError(f"the tagger reads (n, {width}) attributes ({self.n_context} context columns), got "
                             f"shape {a.shape}: encode_doc(doc, context) with the clusters it was trained with")
        return a

    def train_epoch(self, data: Sequence[Tuple[numpy.ndarray, numpy.ndarray]], seed: int = 0) -> float:
        """One pass over (attrs, gold ids) documents in a seeded random order → training accuracy."""
        for attrs, _ in data:
            self.check_attrs(attrs)
        order = list(range(len(data)))
        random.Random(seed).shuffle(order)
        errors = total = 0
        for i in order:
            attrs, gold = data[i]
            _, e = tag_doc(self.weights, attrs, gold, train=True)
            errors += e
            total += len(gold)
        return 1.0 - errors / max(total, 1)

    def predict(self, attrs: numpy.ndarray) -> List[str]:
        ids, _ = tag_doc(self.weights, self.check_attrs(attrs))
        return [self.labels[i] for i in ids.tolist()]

    def get_params(self) -> Dict[str, numpy.ndarray]:
        """The averaged table: what predicts (training state is not kept)."""
        return {"W": self.weights.average_table()}

    def set_params(self, params: Dict[str, numpy.ndarray], copy: bool = True) -> None:
        """Load the table (`HashedWeights.set_params`; copy=False may adopt `params["W"]`)."""
        self.weights.set_params({"W": params["W"]}, copy=copy)


def train_tagger(data: Sequence[Tuple[numpy.ndarray, Sequence[str]]], *, epochs: int = 5,
                 n_rows: int = DEFAULT_N_ROWS, labels: Optional[Sequence[str]] = None,
                 seed: int = 0) -> PerceptronTagger:
    """A tagger trained on (attrs, gold tags) documents for `epochs` passes; it reads as many
    context columns as the documents' attrs have beyond the 6 word columns."""
    if epochs < 1:
        raise ValueError(f"epochs must be ≥ 1, got {epochs}")
    if not data:
        raise ValueError("train_tagger: no documents")
    widths = {numpy.shape(attrs)[1] if numpy.ndim(attrs) == 2 else -1 for attrs, _ in data}
    if len(widths) != 1 or not N_WORD_COLS <= min(widths) <= N_WORD_COLS + MAX_CONTEXT:
        raise ValueError(f"train_tagger: attrs must all have shape (n, 6 + c), c ≤ {MAX_CONTEXT}; "
                         f"got widths {sorted(widths)}")
    labels = sorted({t for _, tags in data for t in tags}) if labels is None else list(labels)
    tagger = PerceptronTagger(labels, n_rows, n_context=widths.pop() - N_WORD_COLS)
    encoded = [(attrs, tagger.gold_ids(tags)) for attrs, tags in data]
    for epoch in range(epochs):
        tagger.train_epoch(encoded, seed=seed + epoch)
    return tagger


def jackknife(data: Sequence[Tuple[numpy.ndarray, Sequence[str]]], *, folds: int = 10, epochs: int = 5,
              n_rows: int = DEFAULT_N_ROWS, seed: int = 0, learn: Optional[Sequence[bool]] = None,
              fold_of: Optional[Sequence[int]] = None,
              on_fold: Optional[Callable[[int], None]] = None) -> List[List[str]]:
    """Tags for every document, each predicted by a tagger trained on the other folds (documents
    dealt round-robin into `folds` folds, or into `fold_of[i]`, e.g. to keep the variants of one
    text in one fold). `learn[i]` False: document i is tagged but never learnt from (e.g. ATIS,
    which has no gold XPOS). `on_fold(k)` is called after fold k (a progress bar)."""
    if not 2 <= folds <= len(data):
        raise ValueError(f"folds must be in [2, {len(data)}] for {len(data)} documents, got {folds}")
    if learn is None:
        learn = [True] * len(data)
    elif len(learn) != len(data):
        raise ValueError(f"learn has {len(learn)} flags for {len(data)} documents")
    if not any(learn):
        raise ValueError("jackknife: no document to learn from (every learn flag is False)")
    if fold_of is None:
        fold_of = [i % folds for i in range(len(data))]
    elif len(fold_of) != len(data) or not all(isinstance(f, (int, numpy.integer)) and 0 <= f < folds for f in fold_of):
        raise ValueError(f"fold_of must give each of the {len(data)} documents a fold in [0, {folds})")
    labels = sorted({t for (_, tags), ok in zip(data, learn) if ok for t in tags})
    out: List[Optional[List[str]]] = [None] * len(data)
    for k in range(folds):
        train = [d for d, f, ok in zip(data, fold_of, learn) if f != k and ok]
        if not train:
            raise ValueError(f"jackknife: fold {k} leaves no document to learn from (every learnable document is in it)")
        tagger = train_tagger(train, epochs=epochs, n_rows=n_rows, labels=labels, seed=seed)
        for i, f in enumerate(fold_of):
            if f == k:
                out[i] = tagger.predict(data[i][0])
        if on_fold is not None:
            on_fold(k)
    return out  # type: ignore[return-value]
