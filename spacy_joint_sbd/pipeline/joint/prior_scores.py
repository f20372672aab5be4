"""Boundary probabilities from an earlier component → evidence for the joint parser's SB move.

Any component that writes `doc._.boundary_probs` (P(token starts a sentence), one per token: the
`boundary_prior`, or a heavier model later) feeds the joint parser in two ways, both here:

- `prior_sb_scores`: the parser adds `weight · logit(p)` (clipped to ±`CLIP`) to the score of SB
  wherever SB would start a sentence at that token — a product of experts whose weight is chosen
  on development data, as `sb_bias` is. Whitespace tokens are left out, as the engine leaves them
  out (`SpacePlan.keep`).
- `prior_column`: the log-odds binned into a token attribute (`PRIOR_ATTR`) that the parser's
  extra feature templates read at b0, b0 − 1, s0, b1 and (b0 − 1, b0) (`joint_sbd_parser`'s
  `prior_features`): the parser LEARNS how far to trust the evidence in each syntactic context,
  which needs training documents whose probabilities are as noisy as new text's (a prior that
  never saw them). Where a component also wrote `doc._.boundary_feature_probs` (an encoder's own
  probabilities, when `boundary_probs` holds its blend with a prior), the features read those:
  the evidence the parser was trained on, on every Doc, whatever `prior_sb_scores` adds.
"""
from typing import Optional

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from ...boundary import DOC_FEATURE_PROBS, DOC_PROBS

CLIP = 8.0
"""Largest |log-odds| taken from a probability (p = 0 or 1 would be infinite)."""

PRIOR_ATTR = "BOUNDARY_PRIOR"
"""The engine's name for the `prior_column` attribute (not a spaCy attribute)."""

BINS_PER_LOGIT = 2
"""`prior_column` resolution: bins per unit of log-odds (33 bins over ±`CLIP`)."""

NO_PRIOR = 1
"""`prior_column`'s value on a Doc without probabilities (a bin value is ≥ 2)."""


def _logits(doc: Doc, attr: str = DOC_PROBS) -> Optional[numpy.ndarray]:
    """Clipped log-odds of the Doc's `attr` probabilities (every token), None when it has none;
    ValueError when they do not fit the Doc."""
    probs = doc._.get(attr) if Doc.has_extension(attr) else None
    if probs is None:
        return None
    p = numpy.asarray(probs, dtype=numpy.float64)
    if p.shape != (len(doc),) or not numpy.isfinite(p).all():
        raise ValueError(f"doc._.{attr} must hold {len(doc)} finite probabilities, got shape {p.shape}")
    p = numpy.clip(p, 1e-12, 1 - 1e-12)
    return numpy.clip(numpy.log(p) - numpy.log1p(-p), -CLIP, CLIP)


def prior_column(doc: Doc) -> numpy.ndarray:
    """(len(doc), 1) uint64: each token's log-odds of starting a sentence rounded to
    1 / `BINS_PER_LOGIT` (values 2 .. 2 + 2·CLIP·BINS_PER_LOGIT), or `NO_PRIOR` everywhere when
    the Doc carries no probabilities (the parser then scores without this evidence). The
    `boundary_feature_probs` when the Doc has them, else its `boundary_probs`."""
    logit = None
    if len(doc):
        logit = _logits(doc, DOC_FEATURE_PROBS)
        if logit is None:
            logit = _logits(doc)
    if logit is None:
        return numpy.full((len(doc), 1), NO_PRIOR, dtype=numpy.uint64)
    bins = numpy.rint((logit + CLIP) * BINS_PER_LOGIT).astype(numpy.int64) + 2
    return bins.astype(numpy.uint64).reshape((len(doc), 1))


def prior_sb_scores(doc: Doc, weight: float, space: Optional[numpy.ndarray] = None) -> Optional[numpy.ndarray]:
    """float32 SB scores of the Doc's non-space tokens, or None when `weight` is 0 or the Doc
    carries no probabilities. ValueError when they do not fit the Doc. `space`: the Doc's
    `is_space` column (bool), if read already."""
    if not weight or len(doc) == 0:
        return None
    logit = _logits(doc)
    if logit is None:
        return None
    if space is None:
        space = doc.to_array([IS_SPACE]).reshape((len(doc),)).astype(bool)
    elif not space.any():
        return numpy.ascontiguousarray(weight * logit, dtype=numpy.float32)
    return numpy.ascontiguousarray(weight * logit[~space], dtype=numpy.float32)
