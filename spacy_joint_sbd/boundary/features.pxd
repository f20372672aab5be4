from libc.stdint cimport uint64_t

cdef enum:
    COL_LOWER       # spaCy's LOWER id
    COL_SHAPE       # spaCy's SHAPE id
    COL_SUFFIX      # spaCy's SUFFIX id (3 characters)
    COL_PREFIX      # spaCy's PREFIX id (1 character)
    COL_GAP         # layout before the token: 0 none, 1 a line break, 2 a blank line (or more)
    COL_MARK        # 0 word, 1 sentence-final mark, 2 other punctuation, 3 closing quote/bracket
    COL_PREG        # punctuation regime of the window around the token (bins of final marks)
    COL_CREG        # case regime of the window around the token (bins of cased words)
    N_COLS
    N_TEMPLATES = 34
    MAX_FEATS = N_TEMPLATES

cdef int extract(const uint64_t* attrs, int n, int i, uint64_t* feats) noexcept nogil
