from cymem.cymem cimport Pool
from libc.stdint cimport uint64_t
from preshed.maps cimport PreshMap

from .weights cimport HashedWeights


cdef class SparseUpdate:
    cdef Pool mem
    cdef PreshMap index
    cdef uint64_t* keys
    cdef float* values
    cdef int length
    cdef int capacity
    cdef readonly int n_rows
    cdef readonly int n_classes
    cdef public double loss

    cdef void add_c(self, const uint64_t* feats, int n, int clas, float delta) except *
    cdef void add_row_c(self, uint64_t row, int clas, float delta) except *
