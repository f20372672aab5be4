# cython: infer_types=True, binding=True
"""Test support for the transition system (bjorkelund2016 §2–§3), not used by parsing or training.

- `replay`: apply a class sequence from the initial state, checking each move against Figure 2's
  preconditions, and read the arcs back (the oracle round trip).
- `gold_score`: the model score of a class sequence (eq. 1), to check that beam search finds
  items scoring at least as high as a given derivation.
"""
import numpy

from libc.stdint cimport uint64_t

from ._state cimport StateC, state_decref, state_init
from .beam cimport Engine
from .moves cimport apply_move

from .moves import move_name
from .oracle import OracleError
from .stateclass import StateClass


def replay(int n, int n_labels, actions, fixed_starts=None):
    """Apply a class sequence from the initial state, checking each move's validity.

    fixed_starts: None or n bools, 0-based. Returns (heads, labels, starts, final) in engine
    numbering (index 0 unused; heads 0 = root; -1 = unattached), or raises OracleError at the
    first invalid move.
    """
    state = StateClass(n, n_labels, fixed_starts)
    for step, clas in enumerate(actions):
        if not state.is_valid_class(clas):
            raise OracleError(f"move {move_name(clas, n_labels)} (class {clas}) invalid at step {step}")
        state.apply_clas(clas)
    heads, labels, starts = state.arcs()
    return (numpy.asarray(heads, dtype=numpy.int32), numpy.asarray(labels, dtype=numpy.int32),
            numpy.asarray(starts, dtype=bool), state.is_final)


def gold_score(Engine engine, attrs, actions, fixed_starts=None) -> float:
    """Model score of a class sequence under `engine`'s current weights (no validity checks).

    fixed_starts: None or n bools, 0-based."""
    cdef const uint64_t[:, ::1] A = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
    cdef int n = A.shape[0]
    engine.begin_document(A, fixed_starts)
    engine.reserve_scores(1)
    cdef StateC* s = state_init(n)
    cdef StateC* nxt
    s.refs = 1
    cdef double total = 0
    try:
        for c in actions:
            engine.score(s, engine.scores)
            total += engine.scores[<int>c]
            nxt = apply_move(s, c, &engine.doc)
            nxt.refs = 1
            state_decref(s)
            s = nxt
    finally:
        state_decref(s)
    return total
