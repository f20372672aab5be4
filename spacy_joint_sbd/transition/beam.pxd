from cymem.cymem cimport Pool
from libc.stdint cimport int64_t, uint16_t, uint64_t

from ..learn.weights cimport HashedWeights
from ._state cimport StateC
from .features cimport N_ROLES, FeatConfigC
from .moves cimport DocC


cdef struct CandC:
    double score
    int parent
    int clas


cdef struct WorkC:
    # one call's view of one document and its buffers (see `Workspace`)
    DocC doc
    const uint64_t* attrs      # n × n_attrs
    const float* W             # the weight table scored by this call (n_rows × n_classes), or NULL
    const uint16_t* H          # ... or its half-precision (float16) version (`score_half_table`)
    uint64_t n_rows
    int n_classes
    int width                  # beam width the buffers below hold
    float sb_bias              # added to the score of SB wherever it is valid (0 at training)
    const float* sb_add        # NULL, or n per-token scores added to SB when b0 is that token
    uint64_t* feats            # MAX_FEATS feature keys
    float* scores              # n_classes scores of one state
    StateC** beam              # width items
    StateC** nxt               # width items
    CandC* top                 # width + 1 candidates
    # NULL, or (parse; beam training, emptied by `forget_roles` after a mid-document update) a
    # direct-mapped cache of the partial score of each (role, token) of features.role_features
    int64_t* role_keys         # role_mask + 1 keys ((tok + 1) · N_ROLES + role; -1 = empty)
    float* role_scores         # (role_mask + 1) × n_classes partial scores
    int64_t role_mask          # slots − 1 (slots: a power of 2, ≤ MAX_ROLE_SLOTS)
    int role_toks[N_ROLES]     # the tokens filling the roles of the state being scored


cdef class Workspace:
    cdef Pool mem
    cdef WorkC c
    cdef object _attrs
    cdef bytes _flags
    cdef object _table
    cdef object _sb_add


cdef class Engine:
    cdef readonly HashedWeights weights
    cdef readonly int n_labels
    cdef readonly int n_classes
    cdef FeatConfigC cfg

    cdef Workspace workspace(self, attrs, fixed_starts, int width, bint use_averages=*)
    cdef int features(self, WorkC* w, const StateC* s) noexcept nogil
    cdef void score(self, WorkC* w, const StateC* s, float* out) noexcept nogil
    cdef void cache_roles(self, Workspace ws) except *
    cdef void add_sb_scores(self, WorkC* w, const StateC* st, const bint* valid, float* scores) noexcept nogil
    cdef int expand_and_filter(self, WorkC* w, StateC** beam, int beam_len, StateC** out, int width,
                               CandC* top, const int* gold, int n_gold) noexcept nogil


cdef void forget_roles(WorkC* w) noexcept nogil
