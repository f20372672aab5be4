# cython: infer_types=True, binding=True
from .penalties cimport WordArrays


cdef class DDTables:
    cdef readonly WordArrays words
    cdef readonly object y, z, uy, node_lab, node_val, given_val  # numpy views of the below
    cdef Py_ssize_t W, S, C, L
    cdef const long long[::1] sent  # [W] sentence of each word
    cdef const long long[::1] ctag  # [N] tag of each candidate, flat like WordArrays.cand
    cdef const long long[::1] lut_off  # [W+1] label -> candidate index tables, flat
    cdef const long long[::1] lut  # -1: the label is not a candidate
    cdef long long[::1] node_of  # [W] consensus node (-1: none or removed)
    cdef long long[::1] mem_off  # [C+1] node c's members are mem[mem_off[c]:mem_off[c+1]]
    cdef long long[::1] mem
    cdef const double[:, ::1] theta  # [T, L]
    cdef const double[:, ::1] bias  # [C, L]
    cdef long long[::1] y_v, ytag, z_v, node_lab_v, Ax  # Ax: [W, L] flat
    cdef double[::1] uy_v, node_val_v, given_val_v, Mx, total  # Mx: [W, L] flat
    cdef unsigned char[::1] stale, dirty_s, dirty_c
