"""Multi-root (forest) decoding with the single-root Eisner decoders (Li et al., §II.C stage 1).

The FRG-parser gives a fragment as many roots as it has sub-roots. Instead of a second copy of
each chart, the decoders are reused on a chart with one extra position: a *virtual root* at
chart position 1, the only child the real root may take (``arc[0, 1] = 0``), which takes the
forest's roots as its children with the scores the real root would give them. Tokens move to
positions 2..n+1; no token may head the virtual root. The best single-rooted tree of the
extended chart is then the best projective forest of the original one, second-order sibling
scores included (the virtual root's children are siblings exactly as the root's would be).

`GraphParser`'s features, training and labeler are unchanged: `MultiRootParser` only swaps the
decoder, so its perceptron updates are on forests (several ``-1`` heads).
"""
from typing import List, Optional, Sequence

import numpy

from .eisner import eisner
from .eisner2 import eisner2
from .parser import GraphParser

FORBIDDEN = -1e9
"""Score of the arcs the extended chart must not use (finite, so the charts stay ordinary)."""


def extend_scores(arc: numpy.ndarray, sib: Optional[numpy.ndarray] = None):
    """The extended chart's ``(arc, sib)`` for ``arc[h, d]`` / ``sib[h, s, m]`` over n + 1
    positions (0 = root)."""
    D = arc.shape[0]
    ext = numpy.full((D + 1, D + 1), FORBIDDEN, dtype=numpy.float64)
    ext[1:, 1:] = arc
    ext[0, 1] = 0.0
    ext[2:, 1] = FORBIDDEN
    ext[:, 0] = 0.0
    numpy.fill_diagonal(ext, 0.0)
    sib_ext = None
    if sib is not None:
        sib_ext = numpy.zeros((D + 1, D + 1, D + 1), dtype=numpy.float64)
        sib_ext[1:, 1:, 1:] = sib
    return ext, sib_ext


def forest_heads(heads: Sequence[int]) -> List[int]:
    """Token heads of the forest (-1 = root) from the extended chart's token heads."""
    if heads[0] != -1 or any(h == -1 for h in heads[1:]):
        raise AssertionError(f"the virtual root is not the real root's only child: {heads}")
    return [-1 if h == 0 else h - 1 for h in heads[1:]]


def decode_forest(arc: numpy.ndarray, sib: Optional[numpy.ndarray] = None) -> List[int]:
    """Best projective forest: token heads, any number of them -1."""
    n = arc.shape[0] - 1
    if n == 0:
        return []
    ext, sib_ext = extend_scores(arc, sib)
    heads, _ = eisner(ext) if sib_ext is None else eisner2(ext, sib_ext)
    return forest_heads(heads)


class MultiRootParser(GraphParser):
    """`GraphParser` decoding forests: the FRG-parser. Decoding constraints do not apply."""

    def decode(self, sent, is_punct: Sequence[bool], constraint: str = "none") -> List[int]:
        arc, sib = self.arc_scores(sent)
        return decode_forest(arc, sib)


__all__ = ["MultiRootParser", "decode_forest", "extend_scores", "forest_heads"]
