"""The five punctuation constraints of Spitkovsky et al. (2011, §2.2): a tree checker and the
masks that impose them on the Eisner charts of `eisner.pyx`.

Definitions (paper §2.2). For a fragment ``[x, y]`` and a sealed span ``[i, j]_h`` (word ``h``
dominates exactly ``i..j``)::

    inside(h, x, y) = x <= h <= y
    cross(i, j, x, y) = (i < x and x <= j < y) or (x < i <= y and j > y)

    strict  violated by a seal when  cross or (inside(h) and (i < x or j > y))
    loose   violated by a seal when  cross
    sprawl  violated by a seal when  cross and not inside(h)
    tear    violated when [i, j]_h attaches to a head H on its right and  h < x <= j < y
            (mirror: H on its left and  x < i <= y < h)
    thread  violated when tear is and  H <= y   (mirror: and  H >= x)

All five are nested (strict ⊂ loose ⊂ sprawl ⊂ tear ⊂ thread in the trees they accept). The
checker (`violations`) applies these formulas to every word of a tree, taking ``[i, j]`` as the
smallest and largest position in the word's yield (in a non-projective tree the yield may have
gaps; the hull is then what "spanning" means). Root attachments have no ``H`` and cannot violate
tear/thread. Positions are raw token positions: punctuation tokens, when present in the tree,
count as positions that belong to no fragment (the statistics strip punctuation first, as the
paper does, see `stats`).

From split-head DMV items to Eisner items
----------------------------------------
The paper imposes strict/loose/sprawl by zeroing the seal of ``[i, j]_h`` in an O(l^5) split-head
chart, and tear/thread by zeroing the attachment of ``h`` by ``H`` (``i`` and ``J`` are not
needed). First- and second-order Eisner never build the whole yield ``[i, j]_h`` as one item:
``h`` owns a *left half* ``C[i][h]`` and a *right half* ``C[h][j]``, and exactly one of them is
known when ``h`` is attached (the half facing its head: ``j`` for a left dependent, split point of
the arc item; ``i`` for a right dependent), the other is sealed later, when the complete item of
the head absorbs ``h``. So every condition is rewritten in terms of the two halves:

* ``h`` outside ``[x, y]``: ``cross`` only depends on the half that faces the fragment. For
  ``h < x`` the right half may not end in ``[x, y-1]``; for ``h > y`` the left half may not start in
  ``[x+1, y]``. These are bans on sealing a half (strict, loose, sprawl).
* ``h`` inside ``[x, y]`` (at most one fragment contains ``h``): strict is again separable (left
  half starts at ``i >= x``, right half ends at ``j <= y``). Loose is not: it forbids
  ``(i < x and j < y) or (i > x and j > y)``, a condition on both halves at once. Its allowed set
  is the union of two rectangles, *channel 0* ``{i >= x} x {j <= y}`` (h stays inside) and
  *channel 1* ``{i <= x} x {j >= y}`` (h covers the fragment). Arc items carry a channel, chosen by
  the half known at attachment time; the later seal must agree with it. Words inside no multi-word
  fragment use channel 0 only. Sprawl ignores inside heads.
* tear / thread depend on ``(h, j, H)`` (left dependent) or ``(h, i, H)`` (right dependent),
  exactly the indices of a first-order arc item with its split point, so they are bans on
  attachments at given split points. They are stored as head limits: a left dependent ``h``
  whose right half ends at ``j`` may attach to ``H`` only if ``H > lim_left[h, j]`` (tear: never,
  thread: ``H > y``); a right dependent whose left half starts at ``i`` only if
  ``H < lim_right[h, i]`` (tear: never, thread: ``H < x``).

So the masks are data over chart items, shared by both decoders:

``lbits[h, i]``   channels (bit set) in which ``h``'s left half ``[i..h]`` may be sealed;
``rbits[h, j]``   channels in which ``h``'s right half ``[h..j]`` may be sealed;
``lim_left[h, j]``, ``lim_right[h, i]``  head limits at attachment, as above.

Unconstrained decoding is the same loop with all bits set and limits that never bind. In the
second-order decoder the split between two adjacent siblings (the "sibling" item of McDonald and
Pereira 2006) seals the right half of the first and the left half of the second without knowing
the head; channels pass through it unchanged, and a head limit that binds there is kept in a
separate "restricted" sibling item checked when the head is known (exact when, for a given pair of
siblings, all binding limits are equal, which holds for tear and thread; the brute-force tests
check it).

Chart positions are token positions + 1; position 0 is the artificial root, which takes exactly one
child whose yield is the whole sentence (so it never violates anything).

Also: `nbest_filter`, the paper's "more practical" alternative (post-filter an n-best list).
"""
from typing import Iterable, List, Optional, Sequence, Tuple

import numpy

from .punct_fragments import Fragment

CONSTRAINTS = ("strict", "loose", "sprawl", "tear", "thread")
"""From tightest to loosest; each accepts every tree the previous one accepts."""

ALL_CONSTRAINTS = ("none",) + CONSTRAINTS


def check_name(name: str) -> str:
    if name not in ALL_CONSTRAINTS:
        raise ValueError(f"unknown constraint {name!r}: expected one of {', '.join(ALL_CONSTRAINTS)}")
    return name


# ---------------------------------------------------------------------------------------------
# The checker: the paper's formulas applied to a tree.


def yield_hulls(heads: Sequence[int]) -> List[Tuple[int, int]]:
    """For each token, the smallest and largest position it dominates (itself included).

    heads (Sequence[int]): Sentence-relative heads, -1 for a root.
    RETURNS (List[Tuple[int, int]]): ``(i, j)`` per token.
    """
    n = len(heads)
    lo = list(range(n))
    hi = list(range(n))
    for d in range(n):
        h = heads[d]
        steps = 0
        while h >= 0 and steps <= n:
            if d < lo[h]:
                lo[h] = d
            if d > hi[h]:
                hi[h] = d
            h = heads[h]
            steps += 1
        if steps > n:
            raise ValueError(f"heads contain a cycle: {list(heads)}")
    return list(zip(lo, hi))


def _cross(i: int, j: int, x: int, y: int) -> bool:
    return (i < x and x <= j < y) or (x < i <= y and j > y)


def word_violates(
    name: str, h: int, H: int, i: int, j: int, x: int, y: int
) -> bool:
    """Whether the sealed span ``[i, j]_h`` attached by ``H`` (-1: root) violates a constraint
    for the fragment ``[x, y]`` (§2.2's formulas, both attachment directions)."""
    inside = x <= h <= y
    if name == "none":
        return False
    if name == "strict":
        return _cross(i, j, x, y) or (inside and (i < x or j > y))
    if name == "loose":
        return _cross(i, j, x, y)
    if name == "sprawl":
        return _cross(i, j, x, y) and not inside
    if name in ("tear", "thread"):
        if H < 0:
            return False
        if h < H:
            torn = x <= j and y > j and h < x
            return torn and (name == "tear" or H <= y)
        torn = y >= i and x < i and h > y
        return torn and (name == "tear" or H >= x)
    raise ValueError(f"unknown constraint {name!r}")


def fragment_satisfies(heads: Sequence[int], frag: Fragment, name: str,
                       hulls: Optional[List[Tuple[int, int]]] = None) -> bool:
    """Whether a tree satisfies a constraint for one fragment.

    heads (Sequence[int]): Sentence-relative heads, -1 for a root.
    frag (Tuple[int, int]): Inclusive fragment ``(x, y)``.
    name (str): One of `CONSTRAINTS` (or ``"none"``).
    hulls: Precomputed `yield_hulls(heads)`.
    """
    check_name(name)
    if hulls is None:
        hulls = yield_hulls(heads)
    x, y = frag
    for h, (i, j) in enumerate(hulls):
        if word_violates(name, h, heads[h], i, j, x, y):
            return False
    return True


def violations(heads: Sequence[int], frags: Iterable[Fragment], name: str) -> List[Fragment]:
    """The fragments whose constraint the tree violates."""
    hulls = yield_hulls(heads)
    return [f for f in frags if not fragment_satisfies(heads, f, name, hulls)]


def satisfies(heads: Sequence[int], frags: Iterable[Fragment], name: str) -> bool:
    """Whether a tree satisfies a constraint for every fragment."""
    return not violations(heads, frags, name)


def nbest_filter(nbest: Iterable[Tuple[Sequence[int], float]], frags: Sequence[Fragment],
                 name: str) -> Optional[Tuple[Sequence[int], float]]:
    """The paper's post-filter: the first tree of an n-best list (best first) that satisfies
    the constraint for every fragment, or None when none does."""
    for heads, score in nbest:
        if satisfies(heads, frags, name):
            return heads, score
    return None


# ---------------------------------------------------------------------------------------------
# The masks: the same conditions as data over Eisner chart items (see the module docstring).


class ConstraintMasks:
    """Masks over chart positions 0..n (0 = root, token t at t + 1).

    lbits (uint8[n+1, n+1]): ``lbits[h, i]``: channels in which ``h``'s left half may start at i.
    rbits (uint8[n+1, n+1]): ``rbits[h, j]``: channels in which ``h``'s right half may end at j.
    lim_left (int32[n+1, n+1]): left dependent ``h`` whose right half ends at ``j`` may attach to
        ``H`` only if ``H > lim_left[h, j]``.
    lim_right (int32[n+1, n+1]): right dependent ``h`` whose left half starts at ``i`` may attach
        to ``H`` only if ``H < lim_right[h, i]``.
    n_channels (int): 1, or 2 for loose.
    """

    def __init__(self, n: int, n_channels: int = 1):
        self.n = n
        self.n_channels = n_channels
        full = (1 << n_channels) - 1
        self.lbits = numpy.full((n + 1, n + 1), full, dtype=numpy.uint8)
        self.rbits = numpy.full((n + 1, n + 1), full, dtype=numpy.uint8)
        self.lim_left = numpy.full((n + 1, n + 1), -1, dtype=numpy.int32)
        self.lim_right = numpy.full((n + 1, n + 1), n + 2, dtype=numpy.int32)


def build_masks(n: int, frags: Sequence[Fragment], name: str) -> ConstraintMasks:
    """Masks imposing a constraint for every fragment of an ``n``-token sentence.

    n (int): Number of tokens.
    frags (Sequence[Tuple[int, int]]): Inclusive 0-based fragments, e.g. from `punct_fragments.fragments`.
    name (str): ``"none"`` or one of `CONSTRAINTS`.
    RETURNS (ConstraintMasks): Masks over chart positions (token + 1).
    """
    check_name(name)
    m = ConstraintMasks(n, 2 if name == "loose" else 1)
    if name == "none":
        return m
    N = n + 1
    for x0, y0 in frags:
        x, y = x0 + 1, y0 + 1
        if y <= x and name != "strict":
            continue  # a one-word fragment cannot be crossed or torn (strict: see below)
        if name in ("strict", "loose", "sprawl"):
            # h < x: right half may not end in [x, y-1]; h > y: left half may not start in [x+1, y].
            m.rbits[1:x, x:y] = 0
            m.lbits[y + 1:N, x + 1:y + 1] = 0
            if name == "strict":
                m.lbits[x:y + 1, :x] = 0
                m.rbits[x:y + 1, y + 1:] = 0
            elif name == "loose":
                # channel 0: i >= x and j <= y; channel 1: i <= x and j >= y.
                for h in range(x, y + 1):
                    m.lbits[h, :x] &= 0b10
                    m.lbits[h, x + 1:h + 1] &= 0b01
                    m.rbits[h, h:y] &= 0b01
                    m.rbits[h, y + 1:] &= 0b10
        else:
            left = N if name == "tear" else y  # allowed iff H > left
            right = 0 if name == "tear" else x  # allowed iff H < right
            block = m.lim_left[1:x, x:y]
            numpy.maximum(block, left, out=block)
            block = m.lim_right[y + 1:N, x + 1:y + 1]
            numpy.minimum(block, right, out=block)
    if name == "loose":
        # Words inside no multi-word fragment have one rectangle: channel 0 alone suffices, so
        # the decoders skip channel 1 for them.
        inside = numpy.zeros(N, dtype=bool)
        for x0, y0 in frags:
            if y0 > x0:
                inside[x0 + 1:y0 + 2] = True
        m.lbits[~inside] &= 0b01
        m.rbits[~inside] &= 0b01
    return m


def sentence_masks(is_punct: Sequence[bool], name: str) -> ConstraintMasks:
    """`build_masks` for the fragments of a sentence given its punctuation flags."""
    from .punct_fragments import fragments

    return build_masks(len(is_punct), fragments(is_punct), name)

