from libc.stdint cimport uint64_t

from ..learn.weights cimport HashedWeights
from ._state cimport StateC
from .features cimport FeatConfigC
from .moves cimport DocC


cdef struct CandC:
    double score
    int parent
    int clas


cdef class Engine:
    cdef readonly HashedWeights weights
    cdef readonly int n_labels
    cdef readonly int n_classes
    cdef FeatConfigC cfg
    cdef uint64_t* feats
    cdef float* scores
    # per-document context
    cdef DocC doc
    cdef const uint64_t* attrs
    cdef bytes _flags

    cdef void begin_document(self, const uint64_t[:, ::1] attrs, fixed_starts) except *
    cdef void reserve_scores(self, int beam_width) except *
    cdef int features(self, const StateC* s) noexcept nogil
    cdef void score(self, const StateC* s, float* out) noexcept nogil
    cdef int expand_and_filter(self, StateC** beam, int beam_len, StateC** out, int width,
                               CandC* top, const int* gold, int n_gold) noexcept nogil
