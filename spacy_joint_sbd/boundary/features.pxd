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
    COL_LINE        # the code of the gap's own templates: after a single line break, how full the
                    # line it ends is among its neighbours (1-4, `model.line_codes`); before a
                    # capitalised word right after an unmarked word, no line break between, the
                    # cased-gap code (1-6, `model.cased_gap_codes`); 0 elsewhere or for models
                    # without them (one column: the two never meet at one gap)
    N_COLS
    N_BASE_TEMPLATES = 34
    N_LINE_TEMPLATES = 4
    N_CASED_TEMPLATES = 4
    N_TEMPLATES = N_BASE_TEMPLATES + N_LINE_TEMPLATES  # the base and either set (never both;
                                                       # N_CASED_TEMPLATES == N_LINE_TEMPLATES)
    MAX_FEATS = N_TEMPLATES

cdef int extract(const uint64_t* attrs, int n, int i, uint64_t* feats) noexcept nogil
