"""Sentence-boundary evidence from running text: a per-token probability of starting a sentence.

`BoundaryModel` (model.py) learns it from documents whose boundaries come from punctuation and
layout (millions of words, any variant); `features.pyx` holds its hot loops. The
`boundary_prior` component (pipeline/boundary_prior.py) writes it on the Doc, where the joint
parser and `segment` read it (`DOC_PROBS`).
"""
from .model import BoundaryModel, platt_fit

DOC_PROBS = "boundary_probs"
"""The Doc extension holding the (len(doc),) float32 probabilities: the seam between whatever
writes boundary probabilities and whatever reads them."""

DOC_FEATURE_PROBS = "boundary_feature_probs"
"""The Doc extension a component may write beside `DOC_PROBS`: the probabilities the joint parser's
`prior_features` read instead of `DOC_PROBS` (an encoder's own, when `DOC_PROBS` holds a blend)."""

__all__ = ["BoundaryModel", "platt_fit", "DOC_PROBS", "DOC_FEATURE_PROBS"]
