# cython: infer_types=True, binding=True, boundscheck=True
"""Static oracle for ArcStandard+SWAP+SB over a document (bjorkelund2016 §2 "Oracle").

Within each sentence: the improved swap oracle of Nivre, Kuhlmann & Hall (2009): LEFTARC /
RIGHTARC once the dependent has all its children; SWAP when s0 precedes s1 in the projective
order (in-order traversal of the gold tree) and s0 and b0 lie in different maximal projective
components (MPCs), i.e. swap as late as possible; otherwise SHIFT. Sentences are joined by SB as
EARLY as possible (as soon as b0 starts the next sentence; the default, found better in the paper)
or as LATE as possible (once the stack is reduced to the root).

The gold tree uses the engine's numbering: tokens 1..n, heads[i] in 0..n (0 = the artificial
root), labels[i] a label id, starts[i] != 0 for sentence-initial tokens (starts[1] is implied);
`engine_doc.to_engine_numbering(doc)` builds them from an `EngineDoc`. `fixed_starts` (boundaries
given) uses the library's one convention: None, or n bools, 0-based (e.g. `EngineDoc.sent_starts`).

The functions here index Python lists with C integers, so this module is built with bounds checks
on (the `boundscheck=True` directive above, against setup.py's global False), and every entry
point checks its arguments first (ValueError; OracleError for a well-formed but underivable tree).
"""
import operator

import numpy

from ._state cimport StateC, buffer_at, is_final, state_decref, state_init
from .moves cimport (LEFTARC, N_MOVES, RIGHTARC, SB, SHIFT, SWAP, DocC, apply_move, class_of,
                     set_doc, valid_moves)

from .moves import MOVE_NAMES, check_n_labels


class OracleError(ValueError):
    """The gold tree cannot be derived (e.g. an arc crosses a sentence boundary)."""


def _int_list(values, str name):
    """`values` as a list of Python ints, or ValueError."""
    try:
        return [operator.index(v) for v in values]
    except TypeError:
        raise ValueError(f"{name} must be a sequence of integers") from None


def _check_heads(heads, int n):
    """heads: ≥ n + 1 ints with heads[1..n] in [0, n]; ValueError otherwise."""
    if n < 0 or len(heads) < n + 1:
        raise ValueError(f"heads has {len(heads)} entries, need n + 1 = {n + 1} (index 0 = root)")
    for i in range(1, n + 1):
        if not 0 <= heads[i] <= n:
            raise ValueError(f"heads[{i}] = {heads[i]} is not a token of 0..{n}")


def projective_order(heads, int n):
    """proj[i]: position of token i (0..n) in the in-order traversal of the tree (root first)."""
    heads = _int_list(heads, "heads")
    _check_heads(heads, n)
    children = [[] for _ in range(n + 1)]
    for i in range(1, n + 1):
        children[heads[i]].append(i)
    proj = [0] * (n + 1)
    counter = 0
    # iterative in-order traversal: a node is emitted after its left children, before its right
    stack = [(0, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            proj[node] = counter
            counter += 1
            continue
        kids = children[node]
        for c in reversed([c for c in kids if c > node]):
            stack.append((c, False))
        stack.append((node, True))
        for c in reversed([c for c in kids if c < node]):
            stack.append((c, False))
    return proj


def mpc_roots(heads, starts, int n):
    """mpc[i]: representative of token i's maximal projective component, computed per sentence
    by arc-standard parsing without SWAP (Nivre, Kuhlmann & Hall 2009, §3)."""
    heads = _int_list(heads, "heads")
    _check_heads(heads, n)
    if len(starts) < n + 1:
        raise ValueError(f"starts has {len(starts)} entries, need n + 1 = {n + 1}")
    n_kids = [0] * (n + 1)
    for i in range(1, n + 1):
        n_kids[heads[i]] += 1
    attached = [0] * (n + 1)
    parent = list(range(n + 1))
    stack = []
    for i in range(1, n + 1):
        if starts[i]:
            stack = []
        stack.append(i)
        while len(stack) >= 2:
            top = len(stack) - 1  # no negative indices: modules build with wraparound=False
            s0, s1 = stack[top], stack[top - 1]
            if heads[s1] == s0 and attached[s1] == n_kids[s1]:
                parent[s1] = s0
                attached[s0] += 1
                del stack[top - 1]
            elif heads[s0] == s1 and attached[s0] == n_kids[s0]:
                parent[s0] = s1
                attached[s1] += 1
                stack.pop()
            else:
                break
    mpc = [0] * (n + 1)
    for i in range(1, n + 1):
        j = i
        while parent[j] != j:
            j = parent[j]
        mpc[i] = j
    return mpc


def oracle_actions(heads_in, labels_in, starts_in, n_labels, bint late=False,
                   fixed_starts=None):
    """Gold class sequence for one document (gold tree in engine numbering, see module docstring).

    late: join sentences by SB as late as possible (default: as early as possible).
    fixed_starts: None (SB predicted) or n bools, 0-based: the given boundaries, under which every
        move must be valid (normally the gold ones, e.g. `EngineDoc.sent_starts`).
    heads_in, labels_in and starts_in have one entry per token plus index 0 (unused), labels in
    [0, n_labels). Raises ValueError for arguments of the wrong length or range, and OracleError
    if the tree is not derivable or an oracle move would be illegal.
    """
    n_labels = check_n_labels(n_labels)
    heads = _int_list(heads_in, "heads")
    labels = _int_list(labels_in, "labels")
    starts_list = list(starts_in)
    if not heads:
        raise ValueError("heads needs index 0 (the root) and one entry per token")
    if len(labels) != len(heads) or len(starts_list) != len(heads):
        raise ValueError(f"heads, labels and starts must have the same length, got "
                         f"{len(heads)}, {len(labels)}, {len(starts_list)}")
    cdef int n = len(heads) - 1
    for i in range(1, n + 1):
        if not 0 <= labels[i] < n_labels:
            raise ValueError(f"labels[{i}] = {labels[i]} is not a label id in [0, {n_labels})")
    starts = [0] * (n + 2)
    for i in range(1, n + 1):
        starts[i] = 1 if (starts_list[i] or i == 1) else 0
    # every arc must stay inside its sentence
    sent = [0] * (n + 1)
    cdef int k = 0
    for i in range(1, n + 1):
        if starts[i]:
            k += 1
        sent[i] = k
    for i in range(1, n + 1):
        h = heads[i]
        if h < 0 or h > n or h == i or (h and sent[h] != sent[i]):
            raise OracleError(f"token {i}: head {h} is outside its sentence")
    proj = projective_order(heads, n)
    mpc = mpc_roots(heads, starts, n)
    n_kids = [0] * (n + 1)
    for i in range(1, n + 1):
        n_kids[heads[i]] += 1
    attached = [0] * (n + 1)

    cdef DocC doc
    cdef bytes flags = set_doc(&doc, n, n_labels, fixed_starts)  # keeps doc.fixed_starts alive
    cdef StateC* s = state_init(n)
    if s is NULL:
        raise MemoryError()
    s.refs = 1
    cdef StateC* nxt
    cdef bint valid[N_MOVES]
    cdef int s0, s1, b0, clas, move, label
    out = []
    try:
        while not is_final(s, n):
            valid_moves(s, &doc, valid)
            b0 = buffer_at(s, 0, n)
            s0 = s.stack.tok
            s1 = s.stack.next.tok if s.stack_len >= 2 else -1
            label = 0
            if b0 > 0 and starts[b0] and s.last_sb < b0 and s.n_swapped == 0 and (
                    not late or s.stack_len == 1):
                move = SB
            elif s.stack_len >= 3 and heads[s1] == s0 and attached[s1] == n_kids[s1]:
                move, label = LEFTARC, labels[s1]
            elif s.stack_len >= 2 and heads[s0] == s1 and attached[s0] == n_kids[s0]:
                move, label = RIGHTARC, labels[s0]
            elif s.stack_len >= 3 and proj[s0] < proj[s1] and (b0 < 0 or mpc[s0] != mpc[b0]):
                move = SWAP
            else:
                move = SHIFT
            if not valid[move]:
                raise OracleError(f"oracle move {MOVE_NAMES[move]} invalid at step {len(out)} "
                                  f"(stack top {s0}, b0 {b0})")
            if move == LEFTARC:
                attached[s0] += 1
            elif move == RIGHTARC:
                attached[s1] += 1
            clas = class_of(move, label, n_labels)
            out.append(clas)
            nxt = apply_move(s, clas, &doc)
            if nxt is NULL:
                raise MemoryError()
            nxt.refs = 1
            state_decref(s)
            s = nxt
            if len(out) > 4 * n * n + 8 * n + 8:
                raise OracleError("oracle does not terminate")
    finally:
        state_decref(s)
    return numpy.asarray(out, dtype=numpy.int32)
