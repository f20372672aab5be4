"""`TrigramTagger`: a second-order (trigram) averaged-perceptron tagger decoded by Viterbi
(Collins 2002), the sentence-level tagger of rush2012's tagging experiments (their baseline is the
Stanford trigram tagger).

The score of a tagging is Σ_i E[i, t_i] + Tr[t_{i-2}, t_{i-1}, t_i]: emission scores from hashed
word features (the word, affixes, shape, the words around it; `learn.HashedWeights`, one class per
tag) and a dense trigram table (a `HashedWeights` whose row (t_{i-2}, t_{i-1}) is addressed
directly). ``viterbi(E, Tr)`` takes the emission matrix as data, so corpus-level decoding
(`consistency.tagging`) subtracts its Lagrange multipliers from E and calls the same decoder.
Training updates both tables on the gold and predicted sequences and averages them (Daumé's trick
in `learn.weights`, one tick per sentence).
"""
import random
from typing import List, Optional, Sequence, Tuple

import numpy

from ..learn import HashedWeights, hash_string

DEFAULT_N_ROWS = 1 << 18


def word_features(words: Sequence[str]) -> numpy.ndarray:
    """(n, F) uint64 feature keys of each word, independent of the tags."""
    n = len(words)
    low = [w.lower() for w in words]
    pad = lambda i: low[i] if 0 <= i < n else ("<s>" if i < 0 else "</s>")  # noqa: E731
    rows = []
    for i, w in enumerate(words):
        lw = low[i]
        shape = "".join("X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
                        for c in w[:6])
        feats = [
            "b", "w=" + lw, "s1=" + lw[-1:], "s2=" + lw[-2:], "s3=" + lw[-3:], "s4=" + lw[-4:],
            "p1=" + lw[:1], "p2=" + lw[:2], "p3=" + lw[:3], "sh=" + shape,
            "cap=" + str(w[:1].isupper()) + str(i == 0), "dig=" + str(any(c.isdigit() for c in w)),
            "hy=" + str("-" in w), "w-1=" + pad(i - 1), "w+1=" + pad(i + 1), "w-2=" + pad(i - 2),
            "w+2=" + pad(i + 2), "w-1s3=" + pad(i - 1)[-3:], "w+1s3=" + pad(i + 1)[-3:],
        ]
        rows.append([hash_string(f) for f in feats])
    return numpy.array(rows, dtype=numpy.uint64).reshape(n, -1)


def viterbi(E: numpy.ndarray, Tr: numpy.ndarray) -> Tuple[List[int], float]:
    """Best tag sequence under emissions ``E[i, t]`` and trigram scores ``Tr[a, b, t]`` (a, b in
    0..T, T = the start symbol). Returns (tags, score)."""
    E = numpy.asarray(E, dtype=numpy.float64)
    Tr = numpy.asarray(Tr, dtype=numpy.float64)
    if E.ndim != 2 or E.shape[1] < 1:
        raise ValueError(f"E must be (n, T), got shape {E.shape}")
    n, T = E.shape
    if Tr.shape != (T + 1, T + 1, T):
        raise ValueError(f"Tr must be ({T + 1}, {T + 1}, {T}), got {Tr.shape}")
    if numpy.isnan(E).any() or numpy.isnan(Tr).any() or numpy.isposinf(E).any() or numpy.isposinf(Tr).any():
        raise ValueError("scores must be finite or -inf (no NaN, no +inf)")
    if n == 0:
        return [], 0.0
    S = T
    # delta[a, b]: best score of a prefix ending in tags (a, b) (a may be the start symbol)
    delta = numpy.full((T + 1, T), -numpy.inf)
    delta[S] = Tr[S, S] + E[0]
    back = []
    for i in range(1, n):
        # cand[a, b, c] = delta[a, b] + Tr[a, b, c]: over the previous-previous tag a
        cand = delta[:, :, None] + Tr[:, :T, :]
        arg = cand.argmax(axis=0)  # (T, T): best a for (b, c)
        new = numpy.take_along_axis(cand, arg[None], axis=0)[0] + E[i][None, :]
        back.append(arg)
        delta = numpy.full((T + 1, T), -numpy.inf)
        delta[:T] = new
    a, b = numpy.unravel_index(int(delta.argmax()), delta.shape)
    score = float(delta[a, b])
    tags = [int(b)]
    prev = int(a)
    for arg in reversed(back):
        tags.append(prev)
        prev = int(arg[prev, tags[-2]])
    tags.reverse()
    return tags, score


class TrigramTagger:
    """A trigram perceptron tagger over string labels."""

    def __init__(self, labels: Sequence[str], n_rows: int = DEFAULT_N_ROWS):
        if isinstance(labels, str):
            raise ValueError("labels must be a sequence of strings, not one string")
        labels = list(labels)
        if not labels or len(set(labels)) != len(labels) or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"labels must be distinct non-empty strings, got {labels[:10]}")
        if isinstance(n_rows, bool) or not isinstance(n_rows, int) or n_rows < 1:
            raise ValueError(f"n_rows must be a positive int, got {n_rows!r}")
        self.labels = labels
        self.label_ids = {x: i for i, x in enumerate(labels)}
        T = len(labels)
        self.n_rows = n_rows
        self.emit = HashedWeights(n_rows, T)
        self.trans = HashedWeights((T + 1) * (T + 1), T)
        self.known: set = set()

    @property
    def n_tags(self) -> int:
        return len(self.labels)

    def _tables(self, average: bool) -> Tuple[numpy.ndarray, numpy.ndarray]:
        T = self.n_tags
        W = self.emit.average_table() if average else self.emit.get_params()["W"]
        Tr = (self.trans.average_table() if average else self.trans.get_params()["W"])
        return W, numpy.asarray(Tr, dtype=numpy.float64).reshape(T + 1, T + 1, T)

    def emissions(self, feats: numpy.ndarray, average: bool = True) -> numpy.ndarray:
        """(n, T) emission scores of a sentence's `word_features`."""
        feats = numpy.asarray(feats)
        if feats.ndim != 2 or (feats.size and feats.dtype.kind not in "iu"):
            raise ValueError(f"feats must be an (n, k) integer array (`word_features`), got {feats.dtype} {feats.shape}")
        W, _ = self._tables(average)
        return W[(feats % numpy.uint64(self.n_rows)).astype(numpy.int64)].sum(axis=1, dtype=numpy.float64)

    def transitions(self, average: bool = True) -> numpy.ndarray:
        return self._tables(average)[1]

    def tag_ids(self, words: Sequence[str]) -> List[int]:
        if not words:
            return []
        return viterbi(self.emissions(word_features(words)), self.transitions())[0]

    def predict(self, words: Sequence[str]) -> List[str]:
        return [self.labels[i] for i in self.tag_ids(words)]

    def update(self, feats: numpy.ndarray, gold: Sequence[int]) -> int:
        """One perceptron step on one sentence (non-averaged tables); → errors before it."""
        T = self.n_tags
        feats = numpy.asarray(feats)
        if feats.ndim != 2 or len(gold) != feats.shape[0]:
            raise ValueError(f"{len(gold)} gold tags for {feats.shape[0] if feats.ndim else 0} feature rows")
        if any(not 0 <= int(g) < T for g in gold):
            raise ValueError(f"gold tag ids must be in [0, {T})")
        pred, _ = viterbi(self.emissions(feats, average=False), self.transitions(average=False))
        errors = sum(p != g for p, g in zip(pred, gold))
        if errors:
            for seq, sign in ((gold, 1.0), (pred, -1.0)):
                a = b = T
                for i, t in enumerate(seq):
                    self.emit.update(feats[i], int(t), sign)
                    self.trans.update([a * (T + 1) + b], int(t), sign)
                    a, b = b, int(t)
        self.emit.tick()
        self.trans.tick()
        return errors

    def train(self, sentences: Sequence[Tuple[Sequence[str], Sequence[str]]], epochs: int = 5,
              seed: int = 0) -> List[float]:
        """Train on ``(words, tags)``; the words seen become the known vocabulary. → accuracy per
        epoch on the training data."""
        if not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"epochs must be a positive int, got {epochs!r}")
        data = []
        for words, tags in sentences:
            if len(words) != len(tags):
                raise ValueError(f"{len(words)} words but {len(tags)} tags")
            unknown = [t for t in tags if t not in self.label_ids]
            if unknown:
                raise ValueError(f"tag {unknown[0]!r} is not among the tagger's labels")
            if words:
                data.append((word_features(words), [self.label_ids[t] for t in tags]))
            self.known.update(w.lower() for w in words)
        rng = random.Random(seed)
        history = []
        for _ in range(epochs):
            rng.shuffle(data)
            errors = total = 0
            for feats, gold in data:
                errors += self.update(feats, gold)
                total += len(gold)
            history.append(1.0 - errors / max(total, 1))
        return history

    def is_known(self, word: str) -> bool:
        return word.lower() in self.known


def train_trigram_tagger(sentences: Sequence[Tuple[Sequence[str], Sequence[str]]], epochs: int = 5,
                         labels: Optional[Sequence[str]] = None, n_rows: int = DEFAULT_N_ROWS,
                         seed: int = 0) -> TrigramTagger:
    labels = sorted({t for _, tags in sentences for t in tags}) if labels is None else labels
    tagger = TrigramTagger(labels, n_rows)
    tagger.train(sentences, epochs, seed)
    return tagger


__all__ = ["TrigramTagger", "train_trigram_tagger", "viterbi", "word_features"]
