# cython: infer_types=True, binding=True
"""The moves of ArcStandard + SWAP + SB over a whole document (bjorkelund2016, §2, Figure 2).

A configuration is (σ, β, A, S): stack, buffer, arcs, sentence boundaries. Token 0 is the single
artificial root of the document; each predicted sentence's root is attached to it by RIGHTARC.

Classes: SHIFT = 0, SWAP = 1, SB = 2, LEFTARC(l) = 3 + l, RIGHTARC(l) = 3 + L + l for L labels.

Each move is a class whose docstring states its Validity and Action (spaCy's arc_eager style).
Two preconditions beyond Figure 2 make "exactly one root per predicted sentence" hold (Figure 2
alone lets RIGHTARC attach two tokens of one sentence to the root): RIGHTARC with s1 = root needs
¬SWAPPED(β), and SHIFT with |σ| = 1 needs b0 = LAST(S) — once the root of a sentence is attached,
the next move must be SB (late boundary) unless SB was already made (early boundary). Both are
satisfied by every gold sequence, early or late. SWAP also needs s1 ≠ root (Nivre 2009: 0 < s1).

Sentence-level mode (`DocC.fixed_starts` set: boundaries given): SB is valid only at a given
sentence start and SHIFT may not pass one without it; RIGHTARC to the root needs the sentence to
be complete (β empty, or b0 a given start).
"""
from libc.stdlib cimport free

from ._state cimport (NodeC, StateC, buffer_at, buffer_empty, is_final, node_add_child,
                      node_copy, node_decref, node_new, state_child, state_decref, state_init)

MOVE_NAMES = ("SHIFT", "SWAP", "SB", "LEFTARC", "RIGHTARC")


cdef int move_of(int clas, int n_labels) noexcept nogil:
    """Move type (0..4: SHIFT, SWAP, SB, LEFTARC, RIGHTARC) of a class id."""
    if clas < LEFT:
        return clas
    return 3 if clas < LEFT + n_labels else 4


cdef int label_of(int clas, int n_labels) noexcept nogil:
    if clas < LEFT:
        return -1
    return (clas - LEFT) % n_labels


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
        b0 = LAST(S) (a sentence whose root is attached is closed). Sentence mode: b0 is not a
        given sentence start still missing its SB.
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
        if doc.fixed_starts is not NULL and doc.fixed_starts[b0] and s.last_sb < b0 and not swapped(s):
            return False
        return True

    @staticmethod
    cdef void transition(StateC* s) noexcept nogil:
        cdef NodeC* node
        cdef NodeC* front = s.buf
        if front is not NULL:
            node = node_copy(front, s.stack)
            set_buf(s, front.next)
            s.n_swapped -= 1
        else:
            node = node_new(s.next_tok, s.stack)
            s.next_tok += 1
        set_stack(s, node)
        s.stack_len += 1


cdef class Swap:
    """SWAP: (σ|s1|s0, β, A, S) ⇒ (σ|s0, s1|β, A, S).

    Validity: s1 ≠ root (|σ| ≥ 3) ∧ s1 < s0 (in the original word order).
    Action: move s1 (with its children) back to the front of the buffer.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        return s.stack_len >= 3 and s.stack.next.tok < s.stack.tok

    @staticmethod
    cdef void transition(StateC* s) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        set_buf(s, node_copy(s1, s.buf))
        set_stack(s, node_copy(s0, s1.next))
        s.stack_len -= 1
        s.n_swapped += 1


cdef class SentenceBoundary:
    """SB: (σ, b0|β, A, S) ⇒ (σ, b0|β, A, S ∪ {b0}).

    Validity: β non-empty ∧ LAST(S) < b0 ∧ ¬SWAPPED(β). Sentence mode: b0 is a given start.
    Action: LAST(S) := b0 (only the last boundary is kept in the state; S is recovered from the
        back-pointers).
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        if buffer_empty(s, doc.n) or swapped(s):
            return False
        cdef int b0 = buffer_at(s, 0, doc.n)
        if doc.fixed_starts is not NULL and not doc.fixed_starts[b0]:
            return False
        return s.last_sb < b0

    @staticmethod
    cdef void transition(StateC* s, const DocC* doc) noexcept nogil:
        s.sb = buffer_at(s, 0, doc.n)
        s.last_sb = s.sb


cdef class LeftArc:
    """LEFTARC(l): (σ|s1|s0, β, A, S) ⇒ (σ|s0, β, A ∪ {s0 -l→ s1}, S).

    Validity: s1 ≠ root (|σ| ≥ 3).
    Action: pop s1, attach it to s0 with label l.
    """

    @staticmethod
    cdef bint is_valid(const StateC* s, const DocC* doc) noexcept nogil:
        return s.stack_len >= 3

    @staticmethod
    cdef void transition(StateC* s, int label) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        cdef NodeC* head = node_copy(s0, s1.next)
        node_add_child(head, s1.tok, label + 1)
        s.arc_head, s.arc_child, s.arc_label = s0.tok, s1.tok, label
        set_stack(s, head)
        s.stack_len -= 1


cdef class RightArc:
    """RIGHTARC(l): (σ|s1|s0, β, A, S) ⇒ (σ|s1, β, A ∪ {s1 -l→ s0}, S).

    Validity: |σ| ≥ 2; if s1 = root (s0 becomes a sentence root): ¬SWAPPED(β) and, in sentence
        mode, the sentence is complete (β empty or b0 a given start).
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
    cdef void transition(StateC* s, int label) noexcept nogil:
        cdef NodeC* s0 = s.stack
        cdef NodeC* s1 = s0.next
        cdef NodeC* head = node_copy(s1, s1.next)
        node_add_child(head, s0.tok, label + 1)
        s.arc_head, s.arc_child, s.arc_label = s1.tok, s0.tok, label
        set_stack(s, head)
        s.stack_len -= 1


cdef void valid_moves(const StateC* s, const DocC* doc, bint* valid) noexcept nogil:
    """valid[m] for the five move types m (SHIFT, SWAP, SB, LEFTARC, RIGHTARC)."""
    valid[0] = Shift.is_valid(s, doc)
    valid[1] = Swap.is_valid(s, doc)
    valid[2] = SentenceBoundary.is_valid(s, doc)
    valid[3] = LeftArc.is_valid(s, doc)
    valid[4] = RightArc.is_valid(s, doc)


cdef StateC* apply_move(StateC* prev, int clas, const DocC* doc) noexcept nogil:
    """A new state: `prev` followed by class `clas` (validity is the caller's business)."""
    cdef StateC* s = state_child(prev)
    s.stack.refs += 1
    if s.buf is not NULL:
        s.buf.refs += 1
    s.clas = clas
    cdef int move = move_of(clas, doc.n_labels)
    if move == 0:
        Shift.transition(s)
    elif move == 1:
        Swap.transition(s)
    elif move == 2:
        SentenceBoundary.transition(s, doc)
    elif move == 3:
        LeftArc.transition(s, label_of(clas, doc.n_labels))
    else:
        RightArc.transition(s, label_of(clas, doc.n_labels))
    return s


cdef class StateClass:
    """Python view of one derivation, for tests and debugging (not used on hot paths).

    StateClass(n, n_labels=1, fixed_starts=None); tokens are 1..n, root 0.
    """
    cdef StateC* c
    cdef DocC doc
    cdef bytes _starts

    def __init__(self, int n, int n_labels=1, fixed_starts=None):
        self.doc.n = n
        self.doc.n_labels = n_labels
        if fixed_starts is not None:
            flags = [0] * (n + 2)
            for i in fixed_starts:
                flags[i] = 1
            self._starts = bytes(flags)
            self.doc.fixed_starts = self._starts
        else:
            self.doc.fixed_starts = NULL
        self.c = state_init(n)
        self.c.refs = 1

    def __dealloc__(self):
        if self.c is not NULL:
            state_decref(self.c)

    def clas(self, str move, int label=0) -> int:
        index = MOVE_NAMES.index(move)
        if index < 3:
            return index
        return LEFT + label + (self.doc.n_labels if index == 4 else 0)

    def is_valid(self, str move) -> bool:
        cdef bint valid[5]
        valid_moves(self.c, &self.doc, valid)
        return bool(valid[MOVE_NAMES.index(move)])

    def valid(self):
        cdef bint valid[5]
        valid_moves(self.c, &self.doc, valid)
        return [name for i, name in enumerate(MOVE_NAMES) if valid[i]]

    def apply(self, str move, int label=0, bint check=True):
        if check and not self.is_valid(move):
            raise ValueError(f"{move} is not valid in {self}")
        self.apply_clas(self.clas(move, label))
        return self

    def apply_clas(self, int clas):
        cdef StateC* s = apply_move(self.c, clas, &self.doc)
        s.refs = 1
        state_decref(self.c)  # s holds the back-pointer reference
        self.c = s

    @property
    def stack(self):
        out = []
        cdef NodeC* node = self.c.stack
        while node is not NULL:
            out.append(node.tok)
            node = node.next
        return out[::-1]

    @property
    def buffer(self):
        out = []
        cdef int i = 0
        while buffer_at(self.c, i, self.doc.n) >= 0:
            out.append(buffer_at(self.c, i, self.doc.n))
            i += 1
        return out

    @property
    def last_sb(self):
        return self.c.last_sb

    @property
    def swapped(self):
        return self.c.n_swapped > 0

    @property
    def is_final(self):
        return is_final(self.c, self.doc.n)

    def arcs(self):
        """(heads, labels, starts) over tokens 1..n (index 0 unused), read by back-pointers."""
        n = self.doc.n
        heads = [-1] * (n + 1)
        labels = [-1] * (n + 1)
        starts = [False] * (n + 1)
        if n:
            starts[1] = True
        cdef const StateC* s = self.c
        while s is not NULL:
            if s.arc_child > 0:
                heads[s.arc_child] = s.arc_head
                labels[s.arc_child] = s.arc_label
            if s.sb > 0:
                starts[s.sb] = True
            s = s.prev
        return heads, labels, starts

    def __repr__(self):
        return f"<State stack={self.stack} buffer={self.buffer} LAST(S)={self.c.last_sb}>"
