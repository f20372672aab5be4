from libc.stdint cimport uint64_t

from ._state cimport StateC
from .moves cimport DocC



cdef enum:
    MAX_EXTRA = 12
    MAX_CAND = 8
    MAX_FEATS = 192


cdef struct FeatConfigC:
    int n_attrs
    int word_col
    int tag_col
    int n_extra
    int extra_cols[12]  # MAX_EXTRA
    int cand_col  # first of the 3 · n_cand head-candidate columns (`syntax` templates); -1: none
    int n_cand


# The roles whose templates depend on one token only (`role_features`): the beam caches each
# (role, token)'s partial score instead of hashing and summing its rows per state. R_B0WIN's
# templates read b0 − 1, b0, b1 and b2, which b0 alone fixes while no swapped token waits in the
# buffer (then b1 = b0 + 1, b2 = b0 + 2).
cdef enum:
    R_S0 = 0
    R_S1
    R_S2
    R_B0
    R_B1
    R_B2
    R_PREV
    R_S0L1
    R_S0R1
    R_S1L1
    R_S1R1
    R_B0WIN  # the buffer window of b0 (b0 − 1 .. b0 + 2), when the buffer is contiguous
    N_ROLES
    NO_ROLE = -2  # role_toks value: the role's keys are among the others (not cacheable here)


cdef int extract_features(uint64_t* out, const StateC* s, const DocC* doc,
                          const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil
cdef int extract_split(uint64_t* out, int* role_toks, const StateC* s, const DocC* doc,
                       const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil
cdef int role_features(uint64_t* out, int role, int tok, int n, const uint64_t* attrs,
                       const FeatConfigC* cfg) noexcept nogil
