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
        masks = None if name == "none" else build_masks(n, frags, name)  # None: the faster chart
        heads, _ = eisner(arc, masks) if sib is None else eisner2(arc, sib, masks)
        if heads is not None:
            return heads, fallback
    raise AssertionError("unconstrained decoding found no tree")  # pragma: no cover


def decode_words_only(arc: numpy.ndarray, sib: Optional[numpy.ndarray], is_punct: Sequence[bool],
                      constraint: str = "none") -> Tuple[List[int], bool]:
    """`decode_constrained` as the paper parses (§3): the tree of the WORDS only, punctuation
    stripped (the scores of the word positions, the fragments in word positions), then each mark
    re-attached the UD way (`graph.punct_attach.reattach_punct`: the lowest common ancestor of its
    neighbouring words; at a sentence edge, the root). Marks thus never take dependents, so
    ``strict`` cannot be satisfied by making a mark the hub. With second-order scores, a
    sibling pair is scored as adjacent when only marks separate the two siblings.

    is_punct (Sequence[bool]): One flag per token (len n).
    RETURNS (Tuple[List[int], bool]): Token heads (-1 = root) and the fallback flag.
    """
    from .punct_attach import reattach_punct
    from .punct_fragments import word_fragments

    n = arc.shape[0] - 1
    if len(is_punct) != n:
        raise ValueError(f"{len(is_punct)} punctuation flags for {n} tokens")
    keep = [0] + [i + 1 for i, p in enumerate(is_punct) if not p]
    if len(keep) == 1:
        return reattach_punct([], is_punct), False
    idx = numpy.array(keep)
    warc = numpy.ascontiguousarray(arc[numpy.ix_(idx, idx)])
    wsib = None if sib is None else numpy.ascontiguousarray(sib[numpy.ix_(idx, idx, idx)])
    heads, fell = decode_constrained(warc, wsib, word_fragments(is_punct), constraint)
    return reattach_punct(heads, is_punct), fell


__all__ = ["decode_constrained", "decode_words_only"]
