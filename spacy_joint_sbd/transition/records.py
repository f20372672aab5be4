"""Plain-array documents for the engine, built from `corpus.DocRecord`s (no spaCy here).

`EngineDoc` is what `TransitionParser` consumes: an (n × k) uint64 attribute array (one column per
attribute, ids from `learn.hash_string`), gold heads (absolute token index, -1 = sentence root),
label ids and sentence starts. The spaCy component builds the same arrays from a Doc's NORM, TAG,
SHAPE, PREFIX, SUFFIX hashes; `record_attrs` computes the same attributes for records, but its
ids are not spaCy's StringStore hashes: train and predict with one encoding, never a mix.
"""
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import numpy

from ..learn.hashing import hash_string
from .labels import LabelSet

DEFAULT_ATTRS = ("NORM", "TAG", "SHAPE", "PREFIX", "SUFFIX")


def word_shape(text: str) -> str:
    """spaCy-like shape: letters → x/X, digits → d, other kept; runs longer than 4 collapsed."""
    out = []
    last, run = "", 0
    for ch in text:
        if ch.isalpha():
            s = "X" if ch.isupper() else "x"
        elif ch.isdigit():
            s = "d"
        else:
            s = ch
        run = run + 1 if s == last else 1
        last = s
        if run <= 4:
            out.append(s)
    return "".join(out)


ATTR_GETTERS: Dict[str, Callable] = {
    "ORTH": lambda rec, i: rec.words[i],
    "NORM": lambda rec, i: rec.words[i].lower(),
    "LOWER": lambda rec, i: rec.words[i].lower(),
    "TAG": lambda rec, i: rec.xpos[i] or rec.upos[i],
    "POS": lambda rec, i: rec.upos[i],
    "SHAPE": lambda rec, i: word_shape(rec.words[i]),
    "PREFIX": lambda rec, i: rec.words[i][:1],
    "SUFFIX": lambda rec, i: rec.words[i][-3:].lower(),
}


def record_attrs(rec, attrs: Sequence[str] = DEFAULT_ATTRS) -> numpy.ndarray:
    """(n, len(attrs)) uint64 array of hashed attribute strings (column name prefixes the hash
    input, so equal strings in different columns differ)."""
    n = len(rec.words)
    out = numpy.zeros((n, len(attrs)), dtype=numpy.uint64)
    cache: Dict[str, int] = {}
    for j, name in enumerate(attrs):
        if name not in ATTR_GETTERS:
            raise ValueError(f"unknown attribute {name!r}; known: {sorted(ATTR_GETTERS)}")
        get = ATTR_GETTERS[name]
        for i in range(n):
            key = name + "=" + get(rec, i)
            value = cache.get(key)
            if value is None:
                value = cache[key] = hash_string(key)
            out[i, j] = value
    return out


@dataclass
class EngineDoc:
    attrs: numpy.ndarray
    """(n, k) uint64 token attributes."""
    heads: Optional[numpy.ndarray] = None
    """int32, absolute token index of the head, -1 for a sentence root (None if unannotated)."""
    labels: Optional[numpy.ndarray] = None
    """int32 label ids."""
    sent_starts: Optional[numpy.ndarray] = None
    """bool, True on sentence-initial tokens."""
    doc_id: str = ""

    def __len__(self) -> int:
        return int(self.attrs.shape[0])

    @property
    def has_gold(self) -> bool:
        return self.heads is not None and self.labels is not None and self.sent_starts is not None


def encode_record(rec, labels: LabelSet, attrs: Sequence[str] = DEFAULT_ATTRS) -> EngineDoc:
    n = len(rec.words)
    starts = numpy.asarray([bool(s) for s in rec.sent_starts] if rec.sent_starts else [False] * n, dtype=bool)
    if n:
        starts[0] = True
    return EngineDoc(
        attrs=record_attrs(rec, attrs),
        heads=numpy.asarray(rec.heads, dtype=numpy.int32) if rec.heads else None,
        labels=numpy.asarray(labels.encode_all(rec.deps), dtype=numpy.int32) if rec.deps else None,
        sent_starts=starts,
        doc_id=rec.doc_id,
    )


def to_engine_numbering(doc: EngineDoc):
    """(heads, labels, starts) as the oracle wants them: index 0 = root, tokens 1..n."""
    heads = [0] + [int(h) + 1 if h >= 0 else 0 for h in doc.heads]
    labels = [0] + [int(l) for l in doc.labels]
    starts = [0] + [1 if s else 0 for s in doc.sent_starts]
    return heads, labels, starts


def encode_records(records, labels: LabelSet, attrs: Sequence[str] = DEFAULT_ATTRS) -> List[EngineDoc]:
    return [encode_record(rec, labels, attrs) for rec in records]
