"""A graph-based dependency parser: MSTParser-style features (`features`), first- or second-order
projective Eisner decoding under an optional punctuation constraint (`constrained_decoding`),
averaged-perceptron training (Collins 2002) and a second-stage arc labeler: the supervised model
of Spitkovsky et al. (2011, §4: constrained inference on top of a supervised model). Training
may decode under a constraint too (the paper's unsupervised runs train with ``loose``).

It parses within given sentence boundaries and knows nothing about spaCy: a sentence is its
words, fine tags and UPOS (`make_sentence`: the one place where a missing fine tag falls back to
the UPOS). Gold sentences come from `DocRecord.iter_sentence_slices` (`sentence_tuples`); heads
are counted by `scoring.count_heads`. `arc_scores` exposes the scores of a sentence so that
decoders can be swapped.
"""
import random
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly

from ..learn.weights import HashedWeights
from ..scoring import HeadCounts, count_heads
from .constrained_decoding import decode_constrained, decode_words_only
from .constraints import check_name
from .features import Sentence
from .punct_fragments import fragments

UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
        "PUNCT", "SCONJ", "SYM", "VERB", "X")
_UPOS_ID = {u: i for i, u in enumerate(UPOS)}


def make_sentence(words: Sequence[str], tags: Sequence[str], upos: Sequence[str]) -> Sentence:
    """Featurizable sentence: lower-cased words, fine tags (UPOS where a tag is missing)."""
    tags = [t if t and t != "_" else u for t, u in zip(tags, upos)]
    coarse = [_UPOS_ID.get(u, len(UPOS)) for u in upos]
    return Sentence([w.lower() for w in words], tags, coarse)


def sentence_tuples(records: Iterable) -> List[tuple]:
    """Gold ``(words, tags, upos, heads, deps)`` of every sentence of DocRecords that can be parsed
    inside its boundaries (`DocRecord.iter_sentence_slices`), heads sentence-relative (-1 = root):
    the training and evaluation data of the graph parsers."""
    return [(s.words, s.xpos, s.upos, s.heads, s.deps)
            for rec in records for s in rec.iter_sentence_slices()]


class GraphParser:
    """Arc-factored (order 1) or adjacent-sibling (order 2) parser with an arc labeler.

    order (int): 1 or 2.
    n_rows (int): Hash buckets of the arc/sibling weight table.
    label_rows (int): Hash buckets of the labeler's table.
    """

    def __init__(self, order: int = 1, n_rows: int = 1 << 21, label_rows: int = 1 << 18,
                 labels: Sequence[str] = ()):
        if order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order}")
        self.order = order
        self.n_rows = n_rows
        self.label_rows = label_rows
        self.weights = HashedWeights(n_rows, 1)
        self.labels: List[str] = list(labels)
        self.label_weights = HashedWeights(label_rows, max(1, len(self.labels)))

    # -- scoring and decoding -------------------------------------------------------------------

    max_sib_length = 200
    """Second-order models decode longer sentences with their arc scores only: the sibling table
    has (n+1)^3 entries (200 tokens: 64 MB)."""

    def arc_scores(self, sent: Sentence) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
        """``(arc[h, d], sib[h, s, m] or None)`` over chart positions (0 = root)."""
        arc = sent.arc_scores(self.weights)
        sib = None
        if self.order == 2 and sent.n <= self.max_sib_length:
            sib = sent.sib_scores(self.weights)
        return arc, sib

    def decode(self, sent: Sentence, is_punct: Sequence[bool], constraint: str = "none",
               words_only: bool = False) -> List[int]:
        """Token heads (-1 = root) of the best projective tree under ``constraint``; falls back
        to unconstrained decoding when no tree satisfies it (strict, in punctuated sentences).
        ``words_only``: decode the words with punctuation stripped and re-attach the marks
        (`constrained_decoding.decode_words_only`, as the paper parses)."""
        check_name(constraint)
        arc, sib = self.arc_scores(sent)
        if words_only:
            return decode_words_only(arc, sib, is_punct, constraint)[0]
        heads, _ = decode_constrained(arc, sib, fragments(is_punct), constraint)
        return heads

    def label(self, sent: Sentence, heads: Sequence[int]) -> List[str]:
        if not self.labels:
            return ["dep"] * sent.n
        scores = sent.label_scores(self.label_weights, list(heads))
        return [self.labels[i] for i in scores.argmax(axis=1)]

    def parse(self, words, tags, upos, constraint: str = "none",
              words_only: bool = False) -> Tuple[List[int], List[str]]:
        """Heads (-1 = root) and labels of one sentence (``words_only``: see `decode`)."""
        sent = make_sentence(words, tags, upos)
        is_punct = [u == "PUNCT" for u in upos]
        # subclasses (staged parsers) override decode without the words_only option
        heads = (self.decode(sent, is_punct, constraint, words_only=True) if words_only
                 else self.decode(sent, is_punct, constraint))
        return heads, self.label(sent, heads)

    # -- training -------------------------------------------------------------------------------

    def train(self, records: Iterable, epochs: int = 5, constraint: str = "none", seed: int = 0,
              verbose: bool = False) -> List[float]:
        """Averaged-perceptron training on gold trees (DocRecords); the weights are averaged at the
        end. Training decodes under ``constraint`` (the paper trains with ``loose``).

        RETURNS (List[float]): Training UAS per epoch (of the decoded trees).
        """
        return self.train_sentences(sentence_tuples(records), epochs, constraint, seed, verbose)

    def train_sentences(self, data: List[tuple], epochs: int = 5, constraint: str = "none",
                        seed: int = 0, verbose: bool = False) -> List[float]:
        """`train` on ``(words, tags, upos, heads, deps)`` tuples (heads sentence-relative, -1 =
        root): the entry point for parsers trained on parts of sentences (`staged_parsers`)."""
        check_name(constraint)
        data = list(data)
        for *_, deps in data:
            for d in deps:
                if d not in self.labels:
                    self.labels.append(d)
        if self.label_weights.n_classes != len(self.labels):
            self.label_weights = HashedWeights(self.label_rows, max(1, len(self.labels)))
        rng = random.Random(seed)
        history = []
        for epoch in range(epochs):
            rng.shuffle(data)
            correct = total = 0
            for words, tags, upos, gold, deps in data:
                correct += self.update_sentence(words, tags, upos, gold, deps, constraint)
                total += len(gold)
            history.append(correct / max(total, 1))
            if verbose:
                print(f"epoch {epoch + 1}: train UAS {history[-1]:.4f}")
        self.weights.finalize()
        self.label_weights.finalize()
        return history

    def add_label(self, label: str) -> None:
        """Add a dependency label (resets the labeler's weights: call before training)."""
        if label not in self.labels:
            self.labels.append(label)
            self.label_weights = HashedWeights(self.label_rows, len(self.labels))

    def update_sentence(self, words, tags, upos, gold: Sequence[int], deps: Sequence[str],
                        constraint: str = "none") -> int:
        """One perceptron step on one sentence (decoding under ``constraint``) and one labeler
        step per token (on the gold arcs); ticks the averaging clocks.

        RETURNS (int): The number of correctly predicted heads before the update.
        """
        sent = make_sentence(words, tags, upos)
        gold = list(gold)
        pred = self.decode(sent, [u == "PUNCT" for u in upos], constraint)
        if pred != gold:
            siblings = self.order == 2
            sent.update(self.weights, gold, 1.0, siblings)
            sent.update(self.weights, pred, -1.0, siblings)
        if self.labels:
            label_id = {lab: i for i, lab in enumerate(self.labels)}
            scores = sent.label_scores(self.label_weights, gold)
            for d, lab in enumerate(deps):
                truth = label_id.get(lab)
                guess = int(scores[d].argmax())
                if truth is not None and guess != truth:
                    sent.update_label(self.label_weights, gold[d], d, truth, 1.0)
                    sent.update_label(self.label_weights, gold[d], d, guess, -1.0)
        self.weights.tick()
        self.label_weights.tick()
        return sum(p == g for p, g in zip(pred, gold))

    def averaged(self) -> "GraphParser":
        """A copy for prediction holding the averaged weights (training may go on in self)."""
        copy = type(self)(self.order, self.n_rows, self.label_rows, self.labels)
        copy.weights.set_params({"W": self.weights.averaged()})
        copy.label_weights.set_params({"W": self.label_weights.averaged()})
        return copy

    # -- evaluation -----------------------------------------------------------------------------

    def evaluate(self, records: Iterable, constraint: str = "none") -> Dict[str, float]:
        """UAS / LAS with and without punctuation tokens, on gold sentence boundaries."""
        c = HeadCounts()
        for words, tags, upos, gold, deps in sentence_tuples(records):
            heads, labels = self.parse(words, tags, upos, constraint)
            c.add(count_heads(heads, labels, gold, deps, upos))
        return {
            "uas": c.uas / max(c.tokens, 1), "las": c.las / max(c.tokens, 1),
            "uas_nopunct": c.uas_nopunct / max(c.tokens_nopunct, 1),
            "las_nopunct": c.las_nopunct / max(c.tokens_nopunct, 1),
        }

    # -- serialization --------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({
            "order": self.order, "n_rows": self.n_rows, "label_rows": self.label_rows,
            "labels": self.labels,
            "W": self.weights.get_params()["W"].tobytes(),
            "LW": self.label_weights.get_params()["W"].tobytes(),
        })

    def from_bytes(self, data: bytes) -> "GraphParser":
        msg = srsly.msgpack_loads(data)
        self.__init__(msg["order"], msg["n_rows"], msg["label_rows"], msg["labels"])
        W = numpy.frombuffer(msg["W"], dtype=numpy.float32).reshape(self.n_rows, 1)
        self.weights.set_params({"W": W})
        LW = numpy.frombuffer(msg["LW"], dtype=numpy.float32).reshape(
            self.label_rows, self.label_weights.n_classes)
        self.label_weights.set_params({"W": LW})
        return self
