"""Boundary probabilities from an earlier component → per-token additive scores of the SB move.

Any component that writes `doc._.boundary_probs` (P(token starts a sentence), one per token: the
`boundary_prior`, or a heavier model later) feeds the joint parser through this one function: the
parser adds `weight · logit(p)` (clipped to ±`CLIP`) to the score of SB wherever SB would start a
sentence at that token — a product of experts whose weight is chosen on development data, as
`sb_bias` is. Whitespace tokens are left out, as the engine leaves them out (`SpacePlan.keep`).
"""
from typing import Optional

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from ..boundary import DOC_PROBS

CLIP = 8.0
"""Largest |log-odds| taken from a probability (p = 0 or 1 would be infinite)."""


def prior_sb_scores(doc: Doc, weight: float) -> Optional[numpy.ndarray]:
    """float32 SB scores of the Doc's non-space tokens, or None when `weight` is 0 or the Doc
    carries no probabilities. ValueError when they do not fit the Doc."""
    if not weight or len(doc) == 0:
        return None
    probs = doc._.get(DOC_PROBS) if Doc.has_extension(DOC_PROBS) else None
    if probs is None:
        return None
    p = numpy.asarray(probs, dtype=numpy.float64)
    if p.shape != (len(doc),) or not numpy.isfinite(p).all():
        raise ValueError(f"doc._.{DOC_PROBS} must hold {len(doc)} finite probabilities, got shape {p.shape}")
    p = numpy.clip(p, 1e-12, 1 - 1e-12)
    logit = numpy.clip(numpy.log(p) - numpy.log1p(-p), -CLIP, CLIP)
    space = doc.to_array([IS_SPACE]).reshape((len(doc),)).astype(bool)
    return numpy.ascontiguousarray(weight * logit[~space], dtype=numpy.float32)
