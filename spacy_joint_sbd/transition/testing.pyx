# cython: infer_types=True, binding=True
"""Test support for the transition system (bjorkelund2016 §2–§3), not used by parsing or training.

- `replay`: apply a class sequence from the initial state, checking each move against Figure 2's
  preconditions, and read the arcs back (the oracle round trip).
- `gold_score`: the model score of a class sequence (eq. 1), e.g. to find the best derivation of
  a tiny document by brute force.
- `state_features`: the feature keys of the state a class sequence reaches, to compute updates
  (ΔΦ) by hand.
- `split_features`, `role_scores`, `derivation_scores`: a state's keys split into role templates
  and the rest, and scores with and without the role cache (`beam`'s docstring).
"""
import numpy

from libc.stdint cimport int64_t, uint64_t

from ._state cimport StateC, state_decref, state_init
from .beam cimport Engine, WorkC, Workspace
from .features cimport MAX_FEATS, N_ROLES, extract_split, role_features
from .moves cimport N_MOVES, apply_move, move_of, valid_moves

from .moves import as_classes, move_name
from .oracle import OracleError
from .stateclass import StateClass


def replay(n, n_labels, actions, fixed_starts=None):
    """Apply a class sequence from the initial state, checking each move's validity.

    fixed_starts: None or n bools, 0-based. Returns (heads, labels, starts, final) in engine
    numbering (index 0 unused; heads 0 = root; -1 = unattached), or raises OracleError at the
    first invalid move (ValueError for class ids outside [0, n_classes) or a bad fixed_starts).
    """
    actions = as_classes(actions, n_labels)
    state = StateClass(n, n_labels, fixed_starts)
    for step, clas in enumerate(actions.tolist()):
        if not state.is_valid_class(clas):
            raise OracleError(f"move {move_name(clas, n_labels)} (class {clas}) invalid at step {step}")
        state.apply_clas(clas)
    heads, labels, starts = state.arcs()
    return (numpy.asarray(heads, dtype=numpy.int32), numpy.asarray(labels, dtype=numpy.int32),
            numpy.asarray(starts, dtype=bool), state.is_final)


def gold_score(Engine engine not None, attrs, actions, fixed_starts=None) -> float:
    """Model score of a class sequence under `engine`'s current weights (eq. 1): the sum of the
    scores of its moves. The sequence may stop before a final state.

    fixed_starts: None or n bools, 0-based. Raises ValueError for class ids outside
    [0, n_classes) and OracleError (a ValueError) at the first move invalid in its state."""
    cdef const int[::1] C = as_classes(actions, engine.n_labels)
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, 1)
    cdef WorkC* w = &ws.c
    cdef StateC* s = state_init(w.doc.n)
    if s is NULL:
        raise MemoryError()
    cdef StateC* nxt
    cdef int step
    s.refs = 1
    cdef double total = 0
    try:
        for step in range(C.shape[0]):
            nxt = _step(engine, w, s, C[step], step)
            engine.score(w, s, w.scores)
            total += w.scores[C[step]]
            state_decref(s)
            s = nxt
    finally:
        state_decref(s)
    return total


cdef StateC* _step(Engine engine, WorkC* w, StateC* s, int c, int step) except NULL:
    """The successor of `s` by class c (refs = 1; `s` untouched), or OracleError if c is invalid
    there (`step` names it in the message)."""
    cdef bint valid[N_MOVES]
    valid_moves(s, &w.doc, valid)
    if not valid[move_of(c, engine.n_labels)]:
        raise OracleError(f"move {move_name(c, engine.n_labels)} (class {c}) invalid at step {step}")
    cdef StateC* nxt = apply_move(s, c, &w.doc)
    if nxt is NULL:
        raise MemoryError()
    nxt.refs = 1
    return nxt


cdef StateC* _reach(Engine engine, WorkC* w, const int[::1] C) except NULL:
    """The state the class sequence C reaches from the initial state (refs = 1), moves checked."""
    cdef StateC* s = state_init(w.doc.n)
    cdef StateC* nxt
    cdef int step
    if s is NULL:
        raise MemoryError()
    s.refs = 1
    try:
        for step in range(C.shape[0]):
            nxt = _step(engine, w, s, C[step], step)
            state_decref(s)
            s = nxt
    except BaseException:
        state_decref(s)
        raise
    return s


def state_features(Engine engine not None, attrs, actions, fixed_starts=None):
    """The feature keys (uint64, in template order: key 0 is the bias) of the state reached by the
    class sequence `actions` from the initial state: what an update adds or subtracts for that
    state's move, so tests can compute an update by hand. Checked like `gold_score`."""
    cdef const int[::1] C = as_classes(actions, engine.n_labels)
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, 1)
    cdef WorkC* w = &ws.c
    cdef StateC* s = _reach(engine, w, C)
    cdef int nf
    try:
        nf = engine.features(w, s)
        return numpy.asarray(<uint64_t[:nf]>w.feats).copy()
    finally:
        state_decref(s)


def split_features(Engine engine not None, attrs, actions, fixed_starts=None):
    """(other keys, [keys of role r for r in range(N_ROLES)]) of the state `actions` reaches: the
    split the role cache scores by. Their union (as a multiset) is `state_features`' keys."""
    cdef const int[::1] C = as_classes(actions, engine.n_labels)
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, 1)
    cdef WorkC* w = &ws.c
    cdef StateC* s = _reach(engine, w, C)
    cdef int nf, r
    try:
        nf = extract_split(w.feats, w.role_toks, s, &w.doc, w.attrs, &engine.cfg)
        other = numpy.asarray(<uint64_t[:nf]>w.feats).copy()
        roles = []
        for r in range(N_ROLES):
            nf = role_features(w.feats, r, w.role_toks[r], w.doc.n, w.attrs, &engine.cfg)
            roles.append(numpy.asarray(<uint64_t[:nf]>w.feats).copy() if nf else numpy.zeros(0, numpy.uint64))
        return other, roles
    finally:
        state_decref(s)


def role_scores(Engine engine not None, attrs, actions, fixed_starts=None):
    """The scores of the state `actions` reaches: (uncached, with the role cache filled by this
    call (misses), with the cache filled (hits)), float32 arrays of n_classes."""
    cdef const int[::1] C = as_classes(actions, engine.n_labels)
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, 1)
    cdef WorkC* w = &ws.c
    cdef StateC* s = _reach(engine, w, C)
    try:
        engine.score(w, s, w.scores)
        full = numpy.asarray(<float[:engine.n_classes]>w.scores).copy()
        engine.cache_roles(ws)
        engine.score(w, s, w.scores)
        miss = numpy.asarray(<float[:engine.n_classes]>w.scores).copy()
        engine.score(w, s, w.scores)
        hit = numpy.asarray(<float[:engine.n_classes]>w.scores).copy()
        return full, miss, hit
    finally:
        state_decref(s)



def derivation_scores(Engine engine not None, attrs, actions, fixed_starts=None):
    """The scores of every state of the derivation `actions` (its T moves), (uncached, cached):
    two float32 arrays (T × n_classes). The cached ones come from ONE cache filled along the
    derivation, as a parse fills it: entries written by earlier states, and evictions in
    documents with more (role, token) pairs than the table has slots."""
    cdef const int[::1] C = as_classes(actions, engine.n_labels)
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, 1)
    cdef WorkC* w = &ws.c
    cdef int T = C.shape[0], step, nc = engine.n_classes
    plain = numpy.zeros((T, nc), dtype=numpy.float32)
    cached = numpy.zeros((T, nc), dtype=numpy.float32)
    cdef float[:, ::1] P = plain
    cdef float[:, ::1] Q = cached
    cdef StateC* s = state_init(w.doc.n)
    cdef StateC* nxt
    if s is NULL:
        raise MemoryError()
    s.refs = 1
    engine.cache_roles(ws)
    cdef int64_t* keys = w.role_keys
    try:
        for step in range(T):
            nxt = _step(engine, w, s, C[step], step)
            w.role_keys = NULL  # uncached, then cached with the same workspace's cache
            engine.score(w, s, &P[step, 0])
            w.role_keys = keys
            engine.score(w, s, &Q[step, 0])
            state_decref(s)
            s = nxt
    finally:
        w.role_keys = keys
        state_decref(s)
    return plain, cached
