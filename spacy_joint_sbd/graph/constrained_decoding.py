"""Decoding under one punctuation constraint, with the unconstrained fallback (Spitkovsky et al.
2011, §2.2 and §4: constrained inference on top of a supervised model).

The best projective tree whose every word satisfies the constraint, from first-order (`eisner`)
or, given sibling scores, second-order (`eisner2`) scores; the constraint enters as masks
(`constraints.build_masks`). ``strict`` has no tree in a sentence whose internal punctuation needs
one fragment to attach another (§2.2); such a sentence is decoded unconstrained instead, and the
caller is told. This is the one place where a constraint and its fallback are decoded: the
parser, the components and the experiments all call `decode_constrained`.
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from .constraints import build_masks
from .eisner import eisner
from .eisner2 import eisner2
from .punct_fragments import Fragment


def decode_constrained(arc: numpy.ndarray, sib: Optional[numpy.ndarray], frags: Sequence[Fragment],
                       constraint: str = "none") -> Tuple[List[int], bool]:
    """Token heads (-1 = root) of the best projective tree under ``constraint``.

    arc (array[n+1, n+1]): Arc scores over chart positions (0 = root).
    sib (Optional[array[n+1, n+1, n+1]]): Adjacent-sibling scores; None decodes first order.
    frags (Sequence[Tuple[int, int]]): The sentence's fragments (`punct_fragments.fragments`).
    constraint (str): ``"none"`` or one of `constraints.CONSTRAINTS`.
    RETURNS (Tuple[List[int], bool]): The heads, and whether no tree satisfied the constraint so
        that they come from unconstrained decoding.
    """
    n = arc.shape[0] - 1
    for name, fallback in ((constraint, False), ("none", True)):
        masks = build_masks(n, frags, name)
        heads, _ = eisner(arc, masks) if sib is None else eisner2(arc, sib, masks)
        if heads is not None:
            return heads, fallback
    raise AssertionError("unconstrained decoding found no tree")  # pragma: no cover


__all__ = ["decode_constrained"]
