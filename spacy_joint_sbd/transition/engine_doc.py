"""`EngineDoc`: one whole document as the engine reads it — plain arrays, no spaCy here.

An (n × k) uint64 attribute array (one column per attribute) and, for training, gold heads
(absolute token index, -1 = sentence root), label ids and sentence starts. The spaCy component
builds EngineDocs from Docs (`pipeline.joint.doc_encoding`: the one feature encoding of the package).
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy

DEFAULT_ATTRS = ("NORM", "TAG", "SHAPE", "PREFIX", "SUFFIX")
"""The token attributes the features read by default (spaCy attribute names): the word, its tag,
and the shape and affixes that stand in for casing and morphology."""


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
    presets: Optional[numpy.ndarray] = None
    """int8 preset boundaries for whole-document parsing: 1 = a sentence must start here,
    0 = must not, -1 = predicted (None: every boundary predicted). Ignored with
    `document_level=False`, where `sent_starts` gives every boundary."""
    dropped_presets: int = 0
    """Presets that contradicted the gold boundaries and were set to -1 (training docs only)."""
    doc_id: str = ""
    sb_scores: Optional[numpy.ndarray] = None
    """float32 per-token scores added to the SB move's score at prediction (e.g. a boundary model's
    weighted log-odds, `pipeline.joint.doc_encoding.prior_sb_scores`); None: none."""
    oracle_cache: Dict[Tuple, numpy.ndarray] = field(default_factory=dict, repr=False, compare=False)
    """The document's gold class sequences, one per oracle setting (`TransitionParser.oracle`):
    cached here so that they live exactly as long as the document."""

    def __len__(self) -> int:
        return int(self.attrs.shape[0])

    @property
    def has_gold(self) -> bool:
        return self.heads is not None and self.labels is not None and self.sent_starts is not None


def to_engine_numbering(doc: EngineDoc) -> Tuple[List[int], List[int], List[int]]:
    """(heads, labels, starts) as the oracle wants them: index 0 = root, tokens 1..n."""
    heads = [0] + [int(h) + 1 if h >= 0 else 0 for h in doc.heads]
    labels = [0] + [int(l) for l in doc.labels]
    starts = [0] + [1 if s else 0 for s in doc.sent_starts]
    return heads, labels, starts
