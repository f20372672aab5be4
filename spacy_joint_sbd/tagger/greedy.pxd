from libc.stdint cimport uint64_t

cdef enum:
    COL_LOWER
    COL_PREFIX
    COL_SUFFIX
    COL_SHAPE
    COL_SUF2
    COL_SUF4
    N_COLS
    N_TEMPLATES = 22

cdef int extract(const uint64_t* attrs, int n, int i, const int* tags, int start_tag,
                 uint64_t* feats) noexcept nogil
