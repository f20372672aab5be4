from libc.stdint cimport uint64_t

from ._state cimport StateC
from .moves cimport DocC



cdef enum:
    MAX_EXTRA = 8
    MAX_FEATS = 192


cdef struct FeatConfigC:
    int n_attrs
    int word_col
    int tag_col
    int n_extra
    int extra_cols[8]


cdef int extract_features(uint64_t* out, const StateC* s, const DocC* doc,
                          const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil
