"""C states of the ArcStandard+SWAP+SB system (bjorkelund2016 §2, last paragraph before Table 1:
back-pointer states after Goldberg, Zhao & Huang 2013).

A `StateC` is immutable once built and points back to the state it came from (`prev`), recording
only the arc / boundary its own move added: the full arc set is recovered at the end by following
back-pointers. The stack and the swapped part of the buffer are persistent linked lists of `NodeC`
cells shared between states; a cell carries what features need about its token's subtree (two
leftmost / rightmost children with labels, valencies, label sets). LAST(S) is one index.

Tokens are numbered 1..n inside the engine; 0 is the document's single artificial root. A state
costs O(1) memory whatever the document length; states and cells are reference counted and freed
as soon as no beam item can reach them.

Allocation failures: `node_new`, `node_copy`, `state_init` and `state_child` return NULL when
malloc does, leaving every reference count as it was; callers turn NULL into MemoryError.
"""
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


cdef struct NodeC:
    NodeC* next
    int refs
    int tok
    int lc1
    int lc2
    int rc1
    int rc2
    int lc1_lab
    int lc2_lab
    int rc1_lab
    int rc2_lab
    int n_left
    int n_right
    uint64_t left_labs
    uint64_t right_labs


cdef struct StateC:
    StateC* prev
    NodeC* stack
    NodeC* buf
    int refs
    int stack_len
    int n_swapped
    int next_tok
    int last_sb
    int steps
    int clas
    int arc_head
    int arc_child
    int arc_label
    int sb
    int is_gold
    double score


cdef inline NodeC* node_new(int tok, NodeC* next) noexcept nogil:
    cdef NodeC* node = <NodeC*>malloc(sizeof(NodeC))
    if node is NULL:
        return NULL
    node.next = next
    if next is not NULL:
        next.refs += 1
    node.refs = 0
    node.tok = tok
    node.lc1 = node.lc2 = node.rc1 = node.rc2 = -1
    node.lc1_lab = node.lc2_lab = node.rc1_lab = node.rc2_lab = 0
    node.n_left = node.n_right = 0
    node.left_labs = node.right_labs = 0
    return node


cdef inline NodeC* node_copy(const NodeC* src, NodeC* next) noexcept nogil:
    cdef NodeC* node = <NodeC*>malloc(sizeof(NodeC))
    if node is NULL:
        return NULL
    memcpy(node, src, sizeof(NodeC))
    node.next = next
    if next is not NULL:
        next.refs += 1
    node.refs = 0
    return node


cdef inline void node_decref(NodeC* node) noexcept nogil:
    cdef NodeC* next
    while node is not NULL:
        node.refs -= 1
        if node.refs > 0:
            return
        next = node.next
        free(node)
        node = next


cdef inline void node_add_child(NodeC* node, int child, int label) noexcept nogil:
    """Record `child` (with label id `label`, ≥ 1) in the head's cell (left/right by position)."""
    if child < node.tok:
        node.n_left += 1
        node.left_labs |= (<uint64_t>1) << (label % 64)
        if node.lc1 < 0 or child < node.lc1:
            node.lc2, node.lc2_lab = node.lc1, node.lc1_lab
            node.lc1, node.lc1_lab = child, label
        elif node.lc2 < 0 or child < node.lc2:
            node.lc2, node.lc2_lab = child, label
    else:
        node.n_right += 1
        node.right_labs |= (<uint64_t>1) << (label % 64)
        if node.rc1 < 0 or child > node.rc1:
            node.rc2, node.rc2_lab = node.rc1, node.rc1_lab
            node.rc1, node.rc1_lab = child, label
        elif node.rc2 < 0 or child > node.rc2:
            node.rc2, node.rc2_lab = child, label


cdef inline StateC* state_init(int n) noexcept nogil:
    """The initial state: stack [root], buffer 1..n, S = {1} (the document starts a sentence)."""
    cdef StateC* s = <StateC*>malloc(sizeof(StateC))
    if s is NULL:
        return NULL
    s.prev = NULL
    s.stack = node_new(0, NULL)
    if s.stack is NULL:
        free(s)
        return NULL
    s.stack.refs = 1
    s.buf = NULL
    s.refs = 0
    s.stack_len = 1
    s.n_swapped = 0
    s.next_tok = 1
    s.last_sb = 1
    s.steps = 0
    s.clas = -1
    s.arc_head = s.arc_child = s.arc_label = 0
    s.sb = 0
    s.is_gold = 1
    s.score = 0
    return s


cdef inline StateC* state_child(StateC* prev) noexcept nogil:
    """A copy of `prev` whose back-pointer is `prev`; the caller then applies one move."""
    cdef StateC* s = <StateC*>malloc(sizeof(StateC))
    if s is NULL:
        return NULL
    memcpy(s, prev, sizeof(StateC))
    s.prev = prev
    prev.refs += 1
    s.refs = 0
    s.steps = prev.steps + 1
    s.arc_head = s.arc_child = s.arc_label = 0
    s.sb = 0
    s.clas = -1
    return s


cdef inline void state_decref(StateC* s) noexcept nogil:
    cdef StateC* prev
    while s is not NULL:
        s.refs -= 1
        if s.refs > 0:
            return
        node_decref(s.stack)
        node_decref(s.buf)
        prev = s.prev
        free(s)
        s = prev


cdef inline int buffer_at(const StateC* s, int i, int n) noexcept nogil:
    """Token at buffer position i (0 = b0), or -1 past the end."""
    cdef const NodeC* node = s.buf
    while node is not NULL:
        if i == 0:
            return node.tok
        i -= 1
        node = node.next
    i += s.next_tok
    return i if i <= n else -1


cdef inline bint buffer_empty(const StateC* s, int n) noexcept nogil:
    return s.buf is NULL and s.next_tok > n


cdef inline bint is_final(const StateC* s, int n) noexcept nogil:
    return s.buf is NULL and s.next_tok > n and s.stack_len == 1


cdef inline void read_arcs(const StateC* s, int* heads, int* labels, unsigned char* starts) noexcept nogil:
    """The one arc reader: write the arcs and boundaries made by `s` and all its ancestors.

    heads[child] = head and labels[child] = label id for every arc, starts[t] = 1 for every SB
    made at token t; arrays are indexed by engine token number (size n + 1). Entries no move
    wrote keep the caller's initial values (bjorkelund2016 §2: A and S are recovered by following
    back-pointers, not stored in the states).
    """
    while s is not NULL:
        if s.arc_child > 0:
            heads[s.arc_child] = s.arc_head
            labels[s.arc_child] = s.arc_label
        if s.sb > 0:
            starts[s.sb] = 1
        s = s.prev
