"""An encoder's head candidates → columns the joint parser's syntax templates read.

A multi-task encoder (`encoder_boundaries` with syntax heads) writes, per token, its k best head
candidates (`doc._.head_candidates`: token indices, best first; −1 the root, −2 none), their
probabilities (`doc._.head_scores`) and their proposed labels (`doc._.head_labels`, StringStore
hashes). The joint parser with `head_candidates` K reads them as 3·K attribute columns
(`transition.head_attrs`): heads renumbered as the engine numbers tokens (whitespace tokens left
out, as `SpacePlan.keep` leaves them out), probabilities binned (`SCORE_BINS`), labels as they are.
The transition system, the beam and the SB decision stay the decoder: the candidates are evidence
its features weigh, learnt in training — which needs training documents whose candidates come from
an encoder that never saw them (jackknifed folds), as noisy as on new text.

A Doc without candidates gets "none" everywhere (the parser then parses without this evidence); an
encoder's k other than K is cut or padded with "none".
"""
from typing import Optional

import numpy
from spacy.tokens import Doc

DOC_HEADS = "head_candidates"
DOC_HEAD_SCORES = "head_scores"
DOC_HEAD_LABELS = "head_labels"
"""The Doc extensions of a multi-task encoder's syntax evidence (None on a Doc without it)."""
for _name in (DOC_HEADS, DOC_HEAD_SCORES, DOC_HEAD_LABELS):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

ROOT = -1
NO_HEAD = -2
"""`doc._.head_candidates` values other than token indices."""

SCORE_BINS = (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)
"""Edges of the probability bins of a candidate (bin values 1 .. 7; 0: no candidate)."""


def _evidence(doc: Doc, k: int):
    """The Doc's (heads, probabilities, labels), each (len(doc), k) (cut or padded), or None; a
    ValueError naming the extension when one does not fit the Doc."""
    heads = doc._.get(DOC_HEADS)
    if heads is None:
        return None
    n = len(doc)
    found = []
    for name, dtype in ((DOC_HEADS, numpy.int64), (DOC_HEAD_SCORES, numpy.float64), (DOC_HEAD_LABELS, numpy.uint64)):
        value = doc._.get(name)
        arr = None if value is None else numpy.asarray(value)
        if arr is None or arr.ndim != 2 or arr.shape[0] != n or not numpy.issubdtype(arr.dtype, numpy.number):
            raise ValueError(f"doc._.{name} must be a ({n}, k) numeric array beside doc._.{DOC_HEADS}, "
                             f"got {None if arr is None else arr.shape}")
        arr = arr.astype(dtype, copy=False)
        if arr.shape[1] >= k:
            arr = arr[:, :k]
        else:
            pad = NO_HEAD if name == DOC_HEADS else 0
            arr = numpy.hstack([arr, numpy.full((n, k - arr.shape[1]), pad, dtype=dtype)])
        found.append(arr)
    if found[0].shape[1] and (not numpy.isfinite(found[1]).all()):
        raise ValueError(f"doc._.{DOC_HEAD_SCORES} must be finite")
    return found


def head_columns(doc: Doc, k: int, keep: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(len(doc), 3·k) uint64: the Doc's head candidates in the engine's numbering when the engine
    reads the tokens `keep` (their indices, as `SpacePlan.keep`; default all: a candidate outside
    them is none), their score bins and their labels. All 0 (none) without candidates on the Doc."""
    n = len(doc)
    out = numpy.zeros((n, 3 * k), dtype=numpy.uint64)
    found = _evidence(doc, k) if n and k else None
    if found is None:
        return out
    heads, probs, labels = found
    kept = numpy.ones(n, dtype=bool)
    if keep is not None:
        kept[:] = False
        kept[numpy.asarray(keep, dtype=numpy.int64)] = True
    engine_no = numpy.cumsum(kept)  # engine token number of each kept token (1-based)
    value = numpy.zeros(heads.shape, dtype=numpy.int64)
    real = (heads >= 0) & (heads < n)
    idx = numpy.where(real, heads, 0)
    value[real & kept[idx]] = engine_no[idx][real & kept[idx]] + 1
    value[heads == ROOT] = 1
    present = value > 0
    out[:, :k] = value
    out[:, k:2 * k] = numpy.where(present, numpy.digitize(probs, SCORE_BINS) + 1, 0)
    out[:, 2 * k:] = numpy.where(present, labels, 0)
    return out
