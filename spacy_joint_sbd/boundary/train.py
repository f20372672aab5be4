"""Bulk training of a `BoundaryModel` on millions of words of running text.

`spacy train` updates the `boundary_prior` one batch of Examples at a time, which is fine for a
treebank; for ≥ 15 M words the Python per-Example cost dominates. Here every document is encoded
once into compact arrays (`Encoded`: the attribute columns and the gold starts, about 41 bytes a
token), then the SGD epochs run over those arrays in a seeded shuffled order, and every
`held_out_every`-th document is kept out for Platt calibration (never trained on).
"""
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.tokens import Doc

from .features import train_doc
from .model import BoundaryModel


@dataclass
class Encoded:
    """Documents as the model reads them: per document (attrs, gold), and their token count."""

    docs: List[Tuple[numpy.ndarray, numpy.ndarray]] = field(default_factory=list)
    tokens: int = 0

    def add(self, attrs: numpy.ndarray, gold: numpy.ndarray) -> None:
        if len(gold) > 1:
            self.docs.append((attrs, gold))
            self.tokens += len(gold)


def encode_docs(model: BoundaryModel, docs: Iterable[Doc], held_out_every: int = 50,
                max_tokens: Optional[int] = None) -> Tuple[Encoded, Encoded]:
    """(train, held out): the documents encoded, every `held_out_every`-th one held out (0: none),
    stopping once `max_tokens` training tokens are encoded (None: all)."""
    if not isinstance(held_out_every, int) or held_out_every < 0 or held_out_every == 1:
        raise ValueError(f"held_out_every must be 0 or an int >= 2, got {held_out_every!r}")
    train, held = Encoded(), Encoded()
    for i, doc in enumerate(docs):
        attrs, pos = model.encode(doc)
        gold = model.gold(doc, pos)
        (held if held_out_every and i % held_out_every == held_out_every - 1 else train).add(attrs, gold)
        if max_tokens is not None and train.tokens >= max_tokens:
            break
    return train, held


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
