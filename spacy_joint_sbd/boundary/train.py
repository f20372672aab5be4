"""Bulk training of a `BoundaryModel` on millions of words of running text.

`spacy train` updates the `boundary_prior` one batch of Examples at a time, which is fine for a
treebank; for ≥ 15 M words the Python per-Example cost dominates. Here every document is encoded
once into compact arrays (`Encoded`: the attribute columns and the gold starts, about 41 bytes a
token), then the SGD epochs run over those arrays in a seeded shuffled order, and every
`held_out_every`-th document is kept out for Platt calibration (never trained on). A document
whose `user_data[WEIGHT_KEY]` is k counts k times in training (the same arrays, visited k times
an epoch) and once if held out, so a weighted source never leaks into the held-out set. A
`ContextHead` over a tok2vec's vectors (`HeadRows`, `train_context_head`) trains after the n-gram
model, on the vectors of a share of the same documents, and is blended with it on the held-out ones.
"""
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.tokens import Doc

from ..corpus.docs import doc_name
from .context_head import WINDOW, ContextHead, stack_fit, window_rows
from .features import score_doc, train_doc
from .model import BoundaryModel

WEIGHT_KEY = "train_weight"
"""`Doc.user_data` key: how many times a training document counts (an int >= 1; absent: 1)."""


@dataclass
class Encoded:
    """Documents as the model reads them: per document (attrs, gold), and their token count."""

    docs: List[Tuple[numpy.ndarray, numpy.ndarray]] = field(default_factory=list)
    tokens: int = 0

    def add(self, attrs: numpy.ndarray, gold: numpy.ndarray, copies: int = 1) -> bool:
        """Keep a document of two or more words (`copies` times: one pair of arrays, listed
        `copies` times, an int >= 1); whether it was kept."""
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            raise ValueError(f"copies must be an int >= 1, got {copies!r}")
        if len(gold) > 1:
            self.docs.extend([(attrs, gold)] * copies)
            self.tokens += len(gold) * copies
            return True
        return False


def encode_docs(model: BoundaryModel, docs: Iterable[Doc], held_out_every: int = 50,
                max_tokens: Optional[int] = None,
                keep: Optional[Callable[[Doc, numpy.ndarray, numpy.ndarray, bool], None]] = None) -> Tuple[Encoded, Encoded]:
    """(train, held out): the documents encoded, every `held_out_every`-th one held out (0: none),
    a training document `user_data[WEIGHT_KEY]` times, stopping once `max_tokens` training tokens
    (copies counted) are encoded (None: all). `keep(doc, positions,
    gold, held)` sees each document kept (two or more words) as it is encoded (e.g. to collect what a
    second model trains on)."""
    if not isinstance(held_out_every, int) or held_out_every < 0 or held_out_every == 1:
        raise ValueError(f"held_out_every must be 0 or an int >= 2, got {held_out_every!r}")
    train, held = Encoded(), Encoded()
    for i, doc in enumerate(docs):
        attrs, pos = model.encode(doc)
        gold = model.gold(doc, pos)
        is_held = bool(held_out_every) and i % held_out_every == held_out_every - 1
        copies = 1 if is_held else doc_weight(doc)
        if (held if is_held else train).add(attrs, gold, copies) and keep is not None:
            keep(doc, pos, gold, is_held)
        if max_tokens is not None and train.tokens >= max_tokens:
            break
    return train, held


def doc_weight(doc: Doc) -> int:
    """`doc.user_data[WEIGHT_KEY]` (1 when absent), or a ValueError naming the document."""
    weight = doc.user_data.get(WEIGHT_KEY, 1) if doc.user_data else 1
    if not isinstance(weight, int) or isinstance(weight, bool) or weight < 1:
        raise ValueError(f"{doc_name(doc)}: {WEIGHT_KEY} must be an int >= 1, got {weight!r}")
    return weight


def train_encoded(model: BoundaryModel, train: Encoded, held: Optional[Encoded] = None, *, epochs: int = 2,
                  lr: float = 0.1, pos_weight: float = 1.0, seed: int = 0,
                  log: Optional[Callable[[str], None]] = None) -> Dict:
    """`epochs` SGD passes over `train` (step lr / (1 + epoch), documents shuffled with `seed`),
    then Platt scaling on `held` when given. Returns the statistics (losses, CPU seconds, Platt)."""
    if not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
    if not train.docs:
        raise ValueError("no training document with two or more words")
    rng = random.Random(seed)
    order = list(range(len(train.docs)))
    stats: Dict = {"epochs": [], "train_tokens": train.tokens, "held_out_tokens": 0 if held is None else held.tokens}
    start = time.process_time()
    for epoch in range(epochs):
        rng.shuffle(order)
        step = lr / (1 + epoch)
        total = 0.0
        for i in order:
            attrs, gold = train.docs[i]
            total += train_doc(model.weights, attrs, gold, step, pos_weight)
        loss = total / max(1, train.tokens - len(train.docs))
        stats["epochs"].append({"epoch": epoch, "loss": loss, "cpu_s": time.process_time() - start})
        if log:
            log(f"epoch {epoch}: log loss {loss:.4f}, {time.process_time() - start:.0f} CPU s")
    stats["train_cpu_s"] = time.process_time() - start
    if held is not None and held.docs:
        model.calibrate_encoded(held.docs)
    stats["platt"] = list(model.platt)
    return stats


class HeadRows:
    """What the `ContextHead` learns from, collected while `encode_docs` reads the documents (pass
    it as `keep`): `vectorize(doc)` (a tok2vec) fills each chosen document's `Doc.tensor`; every
    `every`-th training document gives window rows (float16, to keep memory down) and its gold
    starts, every held-out one its vectors, for the blend. Documents not chosen cost nothing."""

    def __init__(self, vectorize: Callable[[Doc], Doc], every: int = 4, window: int = WINDOW):
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be an int >= 1, got {every!r}")
        self.vectorize, self.every, self.window = vectorize, every, window
        self.rows: List[numpy.ndarray] = []
        self.gold: List[numpy.ndarray] = []
        self.held: List[numpy.ndarray] = []
        self._seen = 0
        self.width: Optional[int] = None

    def __call__(self, doc: Doc, pos: numpy.ndarray, gold: numpy.ndarray, held: bool) -> None:
        if not held:
            self._seen += 1
            if (self._seen - 1) % self.every:
                return
        vectors = numpy.asarray(self.vectorize(doc).tensor, dtype=numpy.float32)[pos]
        self.width = vectors.shape[1]
        if held:
            self.held.append(vectors)
        else:
            self.rows.append(window_rows(vectors, self.window).astype(numpy.float16))
            self.gold.append(numpy.asarray(gold, dtype=numpy.uint8))

    @property
    def n_rows(self) -> int:
        return sum(len(r) for r in self.rows)


def train_context_head(model: BoundaryModel, rows: HeadRows, held: Encoded, *, hidden: int = 128,
                       epochs: int = 4, seed: int = 0,
                       log: Optional[Callable[[str], None]] = None) -> Tuple[ContextHead, List[float], Dict]:
    """Train a `ContextHead` on `rows`, then blend its log-odds with the (trained) n-gram
    model's on the held-out documents (`stack_fit`; each document's first word left out, as in
    calibration). Returns (head, blend coefficients (a, b, c), statistics)."""
    if not rows.rows or not held.docs or len(held.docs) != len(rows.held):
        raise ValueError("train_context_head: need training rows and the vectors of every held-out document")
    X = numpy.concatenate(rows.rows)
    y = numpy.concatenate(rows.gold)
    head = ContextHead(int(rows.width), hidden, rows.window, seed)
    stats = head.fit(X, y, epochs=epochs, seed=seed, log=log)
    del X
    table = model.table()
    s = numpy.concatenate([score_doc(table, a)[1:] for a, _ in held.docs])
    h = numpy.concatenate([head.logits(v)[1:] for v in rows.held])
    g = numpy.concatenate([gold[1:] for _, gold in held.docs])
    coef = stack_fit(numpy.stack([s, h], axis=1), g)
    stats["blend"] = [float(c) for c in coef]
    return head, [float(c) for c in coef], stats
