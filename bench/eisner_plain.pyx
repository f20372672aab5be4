# cython: infer_types=True, binding=True, boundscheck=False, wraparound=False, cdivision=True
"""Textbook first-order Eisner without masks (single root): the bench's baseline for the cost of
reading constraint masks at all (`decode.py`, column ``none/plain``). Not part of the library:
`decode.py` compiles it with pyximport (Cython needed, as for building the package).
"""
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free

import numpy


cdef double eisner_plain_c(const double* arc, int n, int* heads) noexcept nogil:
    """Textbook first-order Eisner without masks (the bench's baseline), single root."""
    cdef int D = n + 1
    cdef size_t DD = <size_t>D * D
    cdef int s, t, r, k, h
    cdef double v, best, bl, br
    cdef int al, ar
    # Same layout as the masked decoder: column-major copies keep the inner loops contiguous.
    cdef double* CL = <double*>malloc(7 * DD * sizeof(double))
    cdef double* CR = CL + DD
    cdef double* IL = CL + 2 * DD
    cdef double* IR = CL + 3 * DD
    cdef double* CLT = CL + 4 * DD
    cdef double* CRT = CL + 5 * DD
    cdef double* ILT = CL + 6 * DD
    cdef int* bp = <int*>malloc(4 * DD * sizeof(int))
    cdef size_t x
    for x in range(7 * DD):
        CL[x] = -INFINITY
    for s in range(D):
        CL[s * D + s] = 0.0
        CR[s * D + s] = 0.0
        CLT[s * D + s] = 0.0
        CRT[s * D + s] = 0.0
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            bl = -INFINITY
            al = s
            for r in range(s, t):
                v = CR[s * D + r] + CLT[t * D + r + 1]
                if v > bl:
                    bl = v
                    al = r
            IL[s * D + t] = bl + arc[t * D + s]
            ILT[t * D + s] = bl + arc[t * D + s]
            IR[s * D + t] = bl + arc[s * D + t]
            bp[2 * DD + s * D + t] = al
            best = -INFINITY
            for r in range(s, t):
                v = CL[s * D + r] + ILT[t * D + r]
                if v > best:
                    best = v
                    al = r
            CL[s * D + t] = best
            CLT[t * D + s] = best
            bp[s * D + t] = al
            best = -INFINITY
            for r in range(s + 1, t + 1):
                v = IR[s * D + r] + CRT[t * D + r]
                if v > best:
                    best = v
                    ar = r
            CR[s * D + t] = best
            CRT[t * D + s] = best
            bp[DD + s * D + t] = ar
    best = -INFINITY
    cdef int root_child = 1
    for h in range(1, n + 1):
        v = arc[h] + CL[D + h] + CR[h * D + n]
        if v > best:
            best = v
            root_child = h
    # Backtrack: kinds 0 CL, 1 CR, 2 IL, 3 IR (I items share their split).
    cdef int* st = <int*>malloc(3 * (4 * D + 8) * sizeof(int))
    cdef int top = 6
    cdef int kind
    heads[root_child] = 0
    st[0] = 0; st[1] = 1; st[2] = root_child
    st[3] = 1; st[4] = root_child; st[5] = n
    while top > 0:
        top -= 3
        kind = st[top]; s = st[top + 1]; t = st[top + 2]
        if s >= t:
            continue
        if kind == 0:
            r = bp[s * D + t]
            heads[r] = t
            st[top] = 0; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 2; st[top + 4] = r; st[top + 5] = t
        elif kind == 1:
            r = bp[DD + s * D + t]
            heads[r] = s
            st[top] = 3; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 1; st[top + 4] = r; st[top + 5] = t
        else:
            r = bp[2 * DD + s * D + t]
            st[top] = 1; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 0; st[top + 4] = r + 1; st[top + 5] = t
        top += 6
    free(st)
    free(CL)
    free(bp)
    return best


def eisner_plain(scores):
    """Unconstrained first-order Eisner without masks: same input and output as
    `spacy_joint_sbd.graph.eisner.eisner` with ``masks=None``."""
    cdef const double[:, ::1] arc = numpy.ascontiguousarray(scores, dtype=numpy.float64)
    n = arc.shape[0] - 1
    if n == 0:
        return [], 0.0
    cdef int[::1] heads = numpy.full(n + 1, -1, dtype=numpy.int32)
    cdef double score
    with nogil:
        score = eisner_plain_c(&arc[0, 0], n, &heads[0])
    return [heads[p] - 1 for p in range(1, n + 1)], score
