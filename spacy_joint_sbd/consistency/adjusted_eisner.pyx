# cython: infer_types=True, binding=True
"""Eisner decoding of one sentence with Lagrange penalties subtracted from its arc scores.

``arc[h, m + 1] -= u`` for every penalty ``(m, candidates, u)``, then unconstrained first- or
second-order Eisner (`graph.eisner`, `graph.eisner2.eisner2_free_c`), as `consistency.parsing`
always did; but the scores are checked once per sentence (`AdjustedEisner`), not on every one of the dual
decomposition's re-decodings, and the penalties are applied in C from `Penalties`' flat arrays.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

import numpy

from spacy_joint_sbd.graph.eisner cimport MasksC, _MaskView, eisner1_c
from spacy_joint_sbd.graph.eisner2 cimport eisner2_free_c
from spacy_joint_sbd.graph.eisner2 import swapped_sib
from .penalties cimport Penalties, WordArrays
from .penalties import penalties_from_tuples

_MASKS = {}  # n -> the unconstrained masks of an n-word sentence (read-only)


cdef _MaskView _masks(Py_ssize_t n):
    mv = _MASKS.get(n)
    if mv is None:
        mv = _MASKS[n] = _MaskView(None, n)
    return mv


cdef class AdjustedEisner:
    """One sentence's arc scores (n+1, n+1) and, for second order, sibling scores (n+1)^3 over
    chart positions (0 = root), copied and checked finite once."""

    def __init__(self, arc, sib=None):
        arc = numpy.array(arc, dtype=numpy.float64, order="C")
        if arc.ndim != 2 or arc.shape[0] != arc.shape[1] or arc.shape[0] < 1:
            raise ValueError(f"arc scores must be (n+1, n+1), got {arc.shape}")
        if not numpy.isfinite(arc).all():
            raise ValueError("arc scores must be finite")
        D = arc.shape[0]
        self.n, self.arc, self.second_order = D - 1, arc, sib is not None
        if sib is not None:
            sib = numpy.ascontiguousarray(sib, dtype=numpy.float64)
            if sib.shape != (D, D, D):
                raise ValueError(f"sibling scores must be {(D, D, D)}, got {sib.shape}")
            if not numpy.isfinite(sib).all():
                raise ValueError("sibling scores must be finite")
            self.sibT = swapped_sib(sib)  # eisner2_free_c's layout

    def decode(self, penalties):
        """``(chart heads of positions 1..n, score)`` of the best tree under arc − penalties.
        ``penalties``: a `Penalties` or ``(m, candidates, u)`` tuples (m < n, candidates ≤ n)."""
        cdef Penalties p = penalties if isinstance(penalties, Penalties) \
            else penalties_from_tuples(penalties)
        cdef WordArrays a = p.a
        cdef Py_ssize_t n = self.n, D = n + 1, k, w, j, col
        cdef long long h
        if n == 0:
            return [], 0.0
        for k in range(p.w0, p.w1):  # every index the C loop below reads
            w = a.sw[k]
            if a.active[w]:
                if a.pos[w] >= n:
                    raise ValueError(f"penalty at position {a.pos[w]} of a {n}-word sentence")
                for j in range(a.off[w], a.off[w + 1]):
                    if a.cand[j] > n:
                        raise ValueError(f"penalty on head {a.cand[j]} of a {n}-word sentence")
        cdef _MaskView mv = None if self.second_order else _masks(n)
        cdef int status = 0
        cdef double* buf = <double*> malloc(D * D * sizeof(double))
        cdef int* heads = <int*> malloc(D * sizeof(int))
        cdef double score
        if buf == NULL or heads == NULL:
            free(buf)
            free(heads)
            raise MemoryError()
        try:
            memcpy(buf, &self.arc[0, 0], D * D * sizeof(double))
            for k in range(p.w0, p.w1):
                w = a.sw[k]
                if a.active[w]:
                    col = a.pos[w] + 1
                    for j in range(a.off[w], a.off[w + 1]):
                        buf[a.cand[j] * D + col] -= a.u[j]
            for k in range(D):
                heads[k] = -1
            with nogil:
                if self.second_order:
                    status = eisner2_free_c(buf, &self.sibT[0, 0, 0], D, heads, &score)
                else:
                    score = eisner1_c(buf, &mv.c, heads)
            if status < 0:
                raise MemoryError(f"no memory for the chart of a {n}-token sentence")
            if score == -INFINITY:
                return None, score
            return [heads[k] for k in range(1, D)], score
        finally:
            free(buf)
            free(heads)
