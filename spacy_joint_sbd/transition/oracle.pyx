# cython: infer_types=True, binding=True
"""Static oracle for ArcStandard+SWAP+SB over a document (bjorkelund2016 §2 "Oracle").

Within each sentence: the improved swap oracle of Nivre, Kuhlmann & Hall (2009): LEFTARC /
RIGHTARC once the dependent has all its children; SWAP when s0 precedes s1 in the projective
order (in-order traversal of the gold tree) and s0 and b0 lie in different maximal projective
components (MPCs), i.e. swap as late as possible; otherwise SHIFT. Sentences are joined by SB as
EARLY as possible (as soon as b0 starts the next sentence; the default, found better in the paper)
or as LATE as possible (once the stack is reduced to the root).

Inputs use the engine's numbering: tokens 1..n, heads[i] in 0..n (0 = the artificial root),
labels[i] a label id, starts[i] != 0 for sentence-initial tokens (starts[1] is implied).
"""
import numpy

from ._state cimport StateC, buffer_at, buffer_empty, is_final, state_decref, state_init
from .moves cimport LEFT, DocC, apply_move, move_of, valid_moves


class OracleError(ValueError):
    """The gold tree cannot be derived (e.g. an arc crosses a sentence boundary)."""


def projective_order(heads, int n):
    """proj[i]: position of token i (0..n) in the in-order traversal of the tree (root first)."""
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


def oracle_actions(heads_in, labels_in, starts_in, int n_labels, bint late=False,
                   fixed_starts=None):
    """Gold class sequence for one document (engine numbering, see module docstring).

    Raises OracleError if the tree is not derivable or an oracle move would be illegal.
    fixed_starts: run in sentence-level mode (boundaries given) — pass the same starts.
    """
    cdef int n = len(heads_in) - 1
    heads = [int(h) for h in heads_in]
    labels = [int(l) for l in labels_in]
    starts = [0] * (n + 2)
    for i in range(1, n + 1):
        starts[i] = 1 if (starts_in[i] or i == 1) else 0
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
    doc.n = n
    doc.n_labels = n_labels
    cdef bytes starts_bytes = bytes(starts)
    doc.fixed_starts = NULL
    if fixed_starts is not None:
        doc.fixed_starts = starts_bytes
    cdef StateC* s = state_init(n)
    s.refs = 1
    cdef StateC* nxt
    cdef bint valid[5]
    cdef int s0, s1, b0, clas, move
    out = []
    try:
        while not is_final(s, n):
            valid_moves(s, &doc, valid)
            b0 = buffer_at(s, 0, n)
            s0 = s.stack.tok
            s1 = s.stack.next.tok if s.stack_len >= 2 else -1
            if b0 > 0 and starts[b0] and s.last_sb < b0 and s.n_swapped == 0 and (
                    not late or s.stack_len == 1):
                clas = 2
            elif s.stack_len >= 3 and heads[s1] == s0 and attached[s1] == n_kids[s1]:
                clas = LEFT + labels[s1]
            elif s.stack_len >= 2 and heads[s0] == s1 and attached[s0] == n_kids[s0]:
                clas = LEFT + n_labels + labels[s0]
            elif s.stack_len >= 3 and proj[s0] < proj[s1] and (b0 < 0 or mpc[s0] != mpc[b0]):
                clas = 1
            else:
                clas = 0
            move = move_of(clas, n_labels)
            if not valid[move]:
                raise OracleError(
                    f"oracle move {move} invalid at step {len(out)} (stack top {s0}, b0 {b0})")
            if move == 3:
                attached[s0] += 1
            elif move == 4:
                attached[s1] += 1
            out.append(clas)
            nxt = apply_move(s, clas, &doc)
            nxt.refs = 1
            state_decref(s)
            s = nxt
            if len(out) > 4 * n * n + 8 * n + 8:
                raise OracleError("oracle does not terminate")
    finally:
        state_decref(s)
    return numpy.asarray(out, dtype=numpy.int32)


def replay(int n, int n_labels, actions, fixed_starts=None):
    """Apply a class sequence from the initial state, checking each move's validity.

    Returns (heads, labels, starts, final) in engine numbering (index 0 unused; heads 0 = root;
    -1 = unattached), or raises OracleError at the first invalid move.
    """
    cdef DocC doc
    doc.n = n
    doc.n_labels = n_labels
    doc.fixed_starts = NULL
    cdef bytes flags
    if fixed_starts is not None:
        flags = bytes([0] + [1 if f else 0 for f in list(fixed_starts)[1:n + 1]] + [0])
        doc.fixed_starts = flags
    heads = numpy.full((n + 1,), -1, dtype=numpy.int32)
    labels = numpy.full((n + 1,), -1, dtype=numpy.int32)
    starts = numpy.zeros((n + 1,), dtype=bool)
    if n:
        starts[1] = True
    cdef StateC* s = state_init(n)
    s.refs = 1
    cdef StateC* nxt
    cdef bint valid[5]
    cdef int step = 0
    try:
        for clas in actions:
            valid_moves(s, &doc, valid)
            if not valid[move_of(clas, n_labels)]:
                raise OracleError(f"move {clas} invalid at step {step}")
            nxt = apply_move(s, clas, &doc)
            nxt.refs = 1
            if nxt.arc_child > 0:
                heads[nxt.arc_child] = nxt.arc_head
                labels[nxt.arc_child] = nxt.arc_label
            if nxt.sb > 0:
                starts[nxt.sb] = True
            state_decref(s)
            s = nxt
            step += 1
        final = is_final(s, n)
    finally:
        state_decref(s)
    return heads, labels, starts, final
