# cython: infer_types=True, binding=True
"""The moves of ArcStandard + SWAP + SB over a whole document (bjorkelund2016 §2, Figure 2).

A configuration is (σ, β, A, S): stack, buffer, arcs, sentence boundaries. Token 0 is the single
artificial root of the document; each predicted sentence's root is attached to it by RIGHTARC.

Move types (the enum in `moves.pxd`, `Move` in Python): SHIFT, SWAP, SB, LEFTARC, RIGHTARC.
Classes: SHIFT, SWAP and SB are classes 0, 1, 2; LEFTARC(l) = 3 + l and RIGHTARC(l) = 3 + L + l
for L labels (`class_of`, `move_of`, `label_of`; `n_classes_for(L)` = 3 + 2L).

Each move is a class whose docstring states its Validity and Action (spaCy's arc_eager style).
Two preconditions beyond Figure 2 make "exactly one root per predicted sentence" hold (Figure 2
alone lets RIGHTARC attach two tokens of one sentence to the root): RIGHTARC with s1 = root needs
¬SWAPPED(β), and SHIFT with |σ| = 1 needs b0 = LAST(S) — once the root of a sentence is attached,
the next move must be SB (late boundary) unless SB was already made (early boundary). Both are
satisfied by every gold sequence, early or late. SWAP also needs s1 ≠ root (Nivre 2009: 0 < s1).

Preset boundaries (`DocC.fixed_starts` set; one int8 per token: 1 forced, 0 forbidden, -1 free):
SB is invalid at a forbidden token and SHIFT may not pass a forced one without it; RIGHTARC to the
root needs that the sentence may end there (β empty, or b0 not forbidden). Every boundary given
(`document_level=False` upstream: n bools, no free token) is the special case where SB is valid
only at a given start and the sentence is complete only before one.

Argument checks: the Python entry points of the engine validate through `check_n_labels`,
`as_classes` and `set_doc` here, so the nogil code behind them (`valid_moves`, `apply_move`) never
sees a class id outside [0, n_classes) or a label count below 1.
"""
from enum import IntEnum

import numpy

from ._state cimport (NodeC, StateC, buffer_at, buffer_empty, node_add_child, node_copy,
                      node_decref, node_new, state_child, state_decref)

Move = IntEnum("Move", [("SHIFT", SHIFT), ("SWAP", SWAP), ("SB", SB), ("LEFTARC", LEFTARC),
                        ("RIGHTARC", RIGHTARC)])
MOVE_NAMES = tuple(move.name for move in Move)
MAX_LABELS = 1 << 16
"""Most labels a model may have (class ids and their products with table rows stay far from
overflow; UD treebanks use a few hundred)."""
MAX_TOKENS = (1 << 31) - 8
"""Most tokens in one document (token numbers are C ints)."""


def check_n_labels(n_labels) -> int:
    """`n_labels` as an int in [1, MAX_LABELS], or ValueError."""
    if isinstance(n_labels, bool) or not isinstance(n_labels, (int, numpy.integer)):
        raise ValueError(f"n_labels must be an int, got {n_labels!r}")
    if not 1 <= n_labels <= MAX_LABELS:
        raise ValueError(f"n_labels must be in [1, {MAX_LABELS}], got {n_labels}")
    return int(n_labels)


def as_classes(actions, n_labels, str what="actions"):
    """A class sequence as a 1-d int32 array whose ids are all in [0, n_classes_for(n_labels)),
    or ValueError: the one check before class ids reach the nogil code."""
    cdef int nc = n_classes_for(n_labels)
    arr = numpy.asarray(actions)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be a 1-d sequence of class ids, got shape {arr.shape}")
    if arr.size == 0:
        return numpy.zeros((0,), dtype=numpy.int32)
    if arr.dtype.kind == "O" and all(isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)
                                     for a in arr):
        arr = numpy.asarray([int(a) for a in arr], dtype=object)
    elif arr.dtype.kind not in "iu":
        raise ValueError(f"{what} must be integer class ids, got dtype {arr.dtype}")
    bad = numpy.flatnonzero((arr < 0) | (arr >= nc))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] = {arr[bad[0]]} is not a class id in [0, {nc})")
    return numpy.ascontiguousarray(arr, dtype=numpy.int32)


def n_classes_for(n_labels) -> int:
    """Transition classes for `n_labels` labels: SHIFT, SWAP, SB, then LEFTARC and RIGHTARC per label."""
    return FIRST_ARC + 2 * check_n_labels(n_labels)


def move_name(clas, n_labels) -> str:
    """The move type of class `clas` ("SHIFT", "SWAP", "SB", "LEFTARC" or "RIGHTARC")."""
    cdef int c = as_classes([clas], n_labels, "clas")[0]
    return MOVE_NAMES[move_of(c, n_labels)]


cdef int move_of(int clas, int n_labels) noexcept nogil:
    """Move type (SHIFT, SWAP, SB, LEFTARC or RIGHTARC) of a class id."""
    if clas < FIRST_ARC:
        return clas
    return LEFTARC if clas < FIRST_ARC + n_labels else RIGHTARC


cdef int label_of(int clas, int n_labels) noexcept nogil:
    """Label id of an arc class; -1 for SHIFT, SWAP and SB."""
    if clas < FIRST_ARC:
        return -1
    return (clas - FIRST_ARC) % n_labels


cdef int class_of(int move, int label, int n_labels) noexcept nogil:
    """Class id of a move type with a label (the label is ignored for SHIFT, SWAP and SB)."""
    if move == LEFTARC:
        return FIRST_ARC + label
    if move == RIGHTARC:
        return FIRST_ARC + n_labels + label
    return move


cdef bytes set_doc(DocC* doc, n, n_labels, object fixed_starts):
    """Fill `doc` for a document of n tokens; the one place where `fixed_starts` is converted.

    fixed_starts: None (SB is predicted everywhere) or a length-n sequence of presets, 0-based:
    True / 1 = a sentence must start at token i (forced), False / 0 = must not (forbidden),
    None / -1 = predicted (free). n bools (every boundary given, `document_level=False`) is the
    special case with no free token. The first token always starts a sentence. Returns the engine
    flags (int8 by token number 1..n, size n + 2) that `doc.fixed_starts` points into, or None:
    the caller keeps the returned object alive as long as it uses `doc`. Raises ValueError for n
    outside [0, MAX_TOKENS], n_labels outside [1, MAX_LABELS] or fixed_starts of another length
    or with another value.
    """
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or not 0 <= n <= MAX_TOKENS:
        raise ValueError(f"a document has 0..{MAX_TOKENS} tokens, got {n!r}")
    n_labels = check_n_labels(n_labels)
    cdef bytes out = None
    if fixed_starts is not None:
        given = as_presets(fixed_starts, n)
        flags = numpy.full((n + 2,), -1, dtype=numpy.int8)
        flags[1:n + 1] = given
        if n:
            flags[1] = 1
        out = flags.tobytes()
    # written only once everything is checked: a failed call leaves `doc` as it was
    doc.n = n
    doc.n_labels = n_labels
    doc.fixed_starts = NULL
    if out is not None:
        doc.fixed_starts = <const signed char*><const char*>out
    return out


def as_presets(fixed_starts, n):
    """`fixed_starts` (n entries: True/1 forced, False/0 forbidden, None/-1 free) as an int8
    array of 1 / 0 / -1, or ValueError."""
    def bad(why):
        return ValueError(f"fixed_starts must be None or {n} entries of True / False / None "
                          f"(or 1 / 0 / -1): {why}")
    try:
        arr = numpy.asarray(fixed_starts)
    except (TypeError, ValueError) as err:
        raise bad(err) from None
    if arr.shape != (n,):
        raise ValueError(f"fixed_starts has shape {arr.shape}, document has {n} tokens")
    if arr.dtype == numpy.bool_:
        return arr.astype(numpy.int8)
    if arr.dtype.kind == "O":
        vals = []
        for v in arr:
            if v is None:
                vals.append(-1)
            elif isinstance(v, (bool, numpy.bool_)):
                vals.append(1 if v else 0)
            elif isinstance(v, (int, numpy.integer)) and -1 <= v <= 1:
                vals.append(int(v))
            else:
                raise bad(f"got {v!r}")
        return numpy.asarray(vals, dtype=numpy.int8).reshape((n,))
    if arr.dtype.kind in "iu" or (arr.dtype.kind == "f" and arr.size == 0):
        if arr.size and (arr.min() < -1 or arr.max() > 1):
            raise bad(f"values outside -1..1")
        return arr.astype(numpy.int8)
    raise bad(f"dtype {arr.dtype}")


cdef inline bint swapped(const StateC* s) noexcept nogil:
    return s.n_swapped > 0


cdef inline void set_stack(StateC* s, NodeC* node) noexcept nogil:
    node.refs += 1
    node_decref(s.stack)
    s.stack = node


cdef inline void set_buf(StateC* s, NodeC* node) noexcept nogil:
    if node is not NULL:
        node.refs += 1
    node_decref(s.buf)
    s.buf = node


cdef class Shift:
    """SHIFT: (σ, b0|β, A, S) ⇒ (σ|b0, β, A, S).

    Validity: β non-empty ∧ (b0 ≠ LAST(S) ∨ |σ| = 1 ∨ SWAPPED(β)) (Figure 2), and |σ| = 1 ⇒
        b0 = LAST(S) (a sentence whose root is attached is closed). Presets: b0 is not a forced
        sentence start still missing its SB.
    Action: push b0 (a swapped cell keeps its children) onto the stack.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        if buffer_empty(s, doc.n):
            return False
        cdef int b0 = buffer_at(s, 0, doc.n)
        if s.stack_len == 1:
            return b0 == s.last_sb
        if b0 == s.last_sb and not swapped(s):
            return False
        if doc.fixed_starts is not NULL and doc.fixed_starts[b0] == 1 and s.last_sb < b0 and not swapped(s):
            return False
        return True

    @staticmethod
    cdef bint transition(StateC* s) noexcept nogil:
        cdef NodeC* node
        cdef NodeC* front = s.buf
        if front is not NULL:
            node = node_copy(front, s.stack)
            if node is NULL:
                return False
            set_buf(s, front.next)
            s.n_swapped -= 1
        else:
            node = node_new(s.next_tok, s.stack)
            if node is NULL:
                return False
            s.next_tok += 1
        set_stack(s, node)
        s.stack_len += 1
        return True


cdef class Swap:
    """SWAP: (σ|s1|s0, β, A, S) ⇒ (σ|s0, s1|β, A, S).

    Validity: s1 ≠ root (|σ| ≥ 3) ∧ s1 < s0 (in the original word order).
    Action: move s1 (with its children) back to the front of the buffer.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        return s.stack_len >= 3 and s.stack.next.tok < s.stack.tok

    @staticmethod
    cdef bint transition(StateC* s) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        cdef NodeC* back = node_copy(s1, s.buf)
        if back is NULL:
            return False
        cdef NodeC* top = node_copy(s0, s1.next)
        if top is NULL:
            node_decref(back)  # refs 0: frees it and gives back its reference to s.buf
            return False
        set_buf(s, back)
        set_stack(s, top)
        s.stack_len -= 1
        s.n_swapped += 1
        return True


cdef class SentenceBoundary:
    """SB: (σ, b0|β, A, S) ⇒ (σ, b0|β, A, S ∪ {b0}).

    Validity: β non-empty ∧ LAST(S) < b0 ∧ ¬SWAPPED(β). Presets: b0 is not forbidden.
    Action: LAST(S) := b0 (only the last boundary is kept in the state; S is recovered from the
        back-pointers).
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        if buffer_empty(s, doc.n) or swapped(s):
            return False
        cdef int b0 = buffer_at(s, 0, doc.n)
        if doc.fixed_starts is not NULL and doc.fixed_starts[b0] == 0:
            return False
        return s.last_sb < b0

    @staticmethod
    cdef bint transition(StateC* s, const DocC* doc) noexcept nogil:
        s.sb = buffer_at(s, 0, doc.n)
        s.last_sb = s.sb
        return True


cdef class LeftArc:
    """LEFTARC(l): (σ|s1|s0, β, A, S) ⇒ (σ|s0, β, A ∪ {s0 -l→ s1}, S).

    Validity: s1 ≠ root (|σ| ≥ 3).
    Action: pop s1, attach it to s0 with label l.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        return s.stack_len >= 3

    @staticmethod
    cdef bint transition(StateC* s, int label) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        cdef NodeC* head = node_copy(s0, s1.next)
        if head is NULL:
            return False
        node_add_child(head, s1.tok, label + 1)
        s.arc_head, s.arc_child, s.arc_label = s0.tok, s1.tok, label
        set_stack(s, head)
        s.stack_len -= 1
        return True


cdef class RightArc:
    """RIGHTARC(l): (σ|s1|s0, β, A, S) ⇒ (σ|s1, β, A ∪ {s1 -l→ s0}, S).

    Validity: |σ| ≥ 2; if s1 = root (s0 becomes a sentence root): ¬SWAPPED(β) and, with
        presets, the sentence may end here (β empty or b0 not forbidden).
    Action: pop s0, attach it to s1 with label l.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        if s.stack_len < 2:
            return False
        if s.stack_len == 2:
            if swapped(s):
                return False
            if doc.fixed_starts is not NULL and not buffer_empty(s, doc.n):
                return doc.fixed_starts[buffer_at(s, 0, doc.n)] != 0
        return True

    @staticmethod
    cdef bint transition(StateC* s, int label) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        cdef NodeC* head = node_copy(s1, s1.next)
        if head is NULL:
            return False
        node_add_child(head, s0.tok, label + 1)
        s.arc_head, s.arc_child, s.arc_label = s1.tok, s0.tok, label
        set_stack(s, head)
        s.stack_len -= 1
        return True


cdef void valid_moves(const StateC* s, const DocC* doc, bint* valid) noexcept nogil:
    """valid[m] for every move type m (`valid` has N_MOVES slots, indexed by SHIFT … RIGHTARC)."""
    valid[SHIFT] = Shift.is_valid(s, doc)
    valid[SWAP] = Swap.is_valid(s, doc)
    valid[SB] = SentenceBoundary.is_valid(s, doc)
    valid[LEFTARC] = LeftArc.is_valid(s, doc)
    valid[RIGHTARC] = RightArc.is_valid(s, doc)


cdef StateC* apply_move(StateC* prev, int clas, const DocC* doc) noexcept nogil:
    """A new state: `prev` followed by class `clas`, or NULL if memory ran out (nothing changed).

    Unchecked: `clas` must be in [0, n_classes) and valid in `prev` (`valid_moves`); the Python
    entry points check both before any move is applied (an invalid LEFTARC on a short stack would
    follow a NULL pointer)."""
    cdef StateC* s = state_child(prev)
    if s is NULL:
        return NULL
    s.stack.refs += 1
    if s.buf is not NULL:
        s.buf.refs += 1
    s.clas = clas
    cdef int move = move_of(clas, doc.n_labels)
    cdef bint ok
    if move == SHIFT:
        ok = Shift.transition(s)
    elif move == SWAP:
        ok = Swap.transition(s)
    elif move == SB:
        ok = SentenceBoundary.transition(s, doc)
    elif move == LEFTARC:
        ok = LeftArc.transition(s, label_of(clas, doc.n_labels))
    else:
        ok = RightArc.transition(s, label_of(clas, doc.n_labels))
    if not ok:
        state_decref(s)  # refs 0: frees s, its cells, and its reference to prev
        return NULL
    return s
