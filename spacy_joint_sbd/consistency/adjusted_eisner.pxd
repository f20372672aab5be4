# cython: infer_types=True, binding=True
cdef class AdjustedEisner:
    cdef readonly Py_ssize_t n
    cdef const double[:, ::1] arc
    cdef const double[:, :, ::1] sibT  # sibT[h, m, s] = sib[h, s, m]
    cdef bint second_order

