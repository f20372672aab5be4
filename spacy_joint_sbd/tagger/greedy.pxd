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
    MAX_CONTEXT = 8           # extra context columns (cluster ids) after the N_COLS fixed ones
    CONTEXT_WINDOW = 3        # each context column is read at i - 1, i, i + 1
    MAX_FEATS = N_TEMPLATES + MAX_CONTEXT * (CONTEXT_WINDOW + 1)

cdef int extract(const uint64_t* attrs, int n, int n_cols, int i, const int* tags, int start_tag,
                 uint64_t* feats) noexcept nogil
