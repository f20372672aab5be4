# cython: infer_types=True, binding=True
"""Feature extraction: Zhang & Nivre (2011)'s rich non-local set adapted to ArcStandard, plus SB
features (bjorkelund2016 §4 "Parser implementation").

ArcStandard adaptation: Zhang & Nivre's (S0, N0) pair of arc-eager becomes (s1, s0) here, and the
arc-eager head of S0 (unavailable in ArcStandard) is replaced by s2. Templates:
  unigrams   word / tag / word+tag of s0, s1, b0, b1; word / tag of s2, b2
  pairs      s0·s1 (7 conjunctions of word/tag), s0·b0, s1·b0, b0·b1 tags
  triples    tags of b0 b1 b2, s0 b0 b1, s1 s0 b0, s2 s1 s0, and s1/s0 with their children
  distance   |s0 − s1| (bucketed) with words / tags of s0, s1
  valency    left / right child counts of s0 and s1 with their word or tag
  children   word, tag, label of the left-/rightmost (and second) children of s0 and s1
  label sets the sets of left / right dependent labels of s0 and s1 with their word or tag
  boundary   distance from b0 to LAST(S) (alone, with b0 word/tag, with s0 tag), the previous
             token (b0 − 1 in the text) with b0, stack size and SWAPPED(β) with the b0 tag
  extra      each extra attribute column (e.g. SHAPE, PREFIX, SUFFIX) of b0, b0 − 1, s0, b1,
             and (b0 − 1, b0)
  syntax     (with head-candidate columns, `cand_col`) an encoder's proposed heads: the rank of s0
             among s1's candidates and of s1 among s0's, with the candidate's binned score or
             proposed label; of the root among s0's and s1's; of b0 among s0's and s0 among b0's;
             where the best candidate of s0, s1, s2, b0 and b0 − 1 lies (the root, before LAST(S),
             left inside the current sentence, right before b0, b0, beyond b0) with each other,
             LAST(S)'s distance and tags; the best candidate's label of s0 and b0; whether a word
             still in the buffer has s0 or s1 as its best candidate (a dependent still to come)
Token attributes come from an (n × n_attrs) uint64 array whose columns the caller chooses; the
roles "word" and "tag" name two of them, any others listed in `extra_cols` add the extra block.
Head-candidate columns: 3·K columns from `cand_col` (K = `n_cand`): each token's K best head
candidates as engine token numbers + 1 (0 none, 1 the root), their binned scores, their proposed
labels' hashes. Their values are only compared and hashed, never used as indices.
A feature key is the MurmurHash64A of (template id, values…): five words, padded with 0
(`learn.hashing`'s `sjs_murmur64a_words5`).

Roles: the templates that read one token in one position (s0, s1, s2, b0, b1, b2, b0 − 1 and the
outer children of s0 and s1: their word / tag / word+tag and extra-column unigrams; 26 + 4·E of
the 94 + 5·E keys with E extra columns, 18 more with head candidates: 35% with the 3 default ones, 43% with 8) are grouped by
role (`role_features`). So is b0's window (R_B0WIN: templates 31, 40, 116–118 and 204 + 8t, which
read b0 − 1, b0, b1 and b2: 5 + E keys more, fixed by b0 while no swapped token waits in the
buffer). `extract_split` gives a state's other keys and the token filling each role, so that the
beam can reuse each (role, token)'s partial score across the states and steps that share it
(`beam`'s role cache); `extract_features` gives every key.
"""
import numpy

from libc.stdint cimport uint64_t
from ..learn.hashing cimport sjs_murmur64a_words5

from ._state cimport NodeC, StateC, buffer_at

cdef uint64_t NONE = 0x9E3779B97F4A7C15
cdef uint64_t ROOT_VALUE = 0xC2B2AE3D27D4EB4F
cdef uint64_t SEED = 0x5EED


cdef inline uint64_t attr(const uint64_t* attrs, const FeatConfigC* cfg, int tok, int col) noexcept nogil:
    if tok < 0:
        return NONE
    if tok == 0:
        return ROOT_VALUE
    return attrs[(tok - 1) * cfg.n_attrs + col]


cdef inline uint64_t bucket(int d) noexcept nogil:
    if d < 0:
        return 100
    if d <= 5:
        return d
    if d < 10:
        return 6
    if d < 15:
        return 7
    if d < 20:
        return 8
    if d < 30:
        return 9
    if d < 40:
        return 10
    if d < 60:
        return 11
    return 12


cdef enum:
    RANK_ABSENT = 14  # cand_rank: the head is not among the candidates
    RANK_NA = 15  # cand_rank: no dependent or no head to ask about


cdef inline uint64_t cand_at(const uint64_t* attrs, const FeatConfigC* cfg, int tok, int r,
                             int block) noexcept nogil:
    """Token `tok`'s rank-`r` candidate's value in `block` (0 head, 1 score bin, 2 label); 0
    when there is none."""
    if tok < 1 or r < 0 or r >= cfg.n_cand:
        return 0
    return attrs[(tok - 1) * cfg.n_attrs + cfg.cand_col + block * cfg.n_cand + r]


cdef inline int cand_rank(const uint64_t* attrs, const FeatConfigC* cfg, int dep, int head) noexcept nogil:
    """The rank of `head` (an engine token number, 0 the root) among `dep`'s head candidates."""
    cdef int r
    if dep < 1 or head < 0:
        return RANK_NA
    for r in range(cfg.n_cand):
        if cand_at(attrs, cfg, dep, r, 0) == <uint64_t>(head + 1):
            return r
    return RANK_ABSENT


cdef inline uint64_t head_place(const uint64_t* attrs, const FeatConfigC* cfg, int tok, int b0,
                                int last_sb) noexcept nogil:
    """Where `tok`'s best head candidate lies: 0 no token, 1 no candidate, 2 the root, 3 before
    LAST(S), 4 left of `tok` in the current sentence, 5 right of `tok` before b0 (or anywhere right
    with an empty buffer), 6 b0, 7 beyond b0."""
    if tok < 1:
        return 0
    cdef uint64_t v = cand_at(attrs, cfg, tok, 0, 0)
    if v == 0:
        return 1
    if v == 1:
        return 2
    cdef long long h = <long long>(v - 1)
    if h < last_sb:
        return 3
    if h < tok:
        return 4
    if b0 < 0 or h < b0:
        return 5
    if h == b0:
        return 6
    return 7


cdef enum:
    PENDING_SCAN = 40  # buffer tokens `pending` reads past the swapped ones


cdef inline uint64_t pending(const uint64_t* attrs, const FeatConfigC* cfg, const StateC* s, int tok,
                             int n) noexcept nogil:
    """1 when a word still in the buffer (the swapped ones, then the next `PENDING_SCAN`) has
    `tok` as its best head candidate: `tok` would lose a dependent if reduced now; 2 without `tok`."""
    if tok < 1:
        return 2
    cdef uint64_t want = <uint64_t>(tok + 1)
    cdef const NodeC* node = s.buf
    cdef int t, end
    while node is not NULL:
        if cand_at(attrs, cfg, node.tok, 0, 0) == want:
            return 1
        node = node.next
    end = s.next_tok + PENDING_SCAN
    if end > n + 1:
        end = n + 1
    for t in range(s.next_tok, end):
        if cand_at(attrs, cfg, t, 0, 0) == want:
            return 1
    return 0


cdef inline int add(uint64_t* out, int k, uint64_t tid, uint64_t a, uint64_t b, uint64_t c,
                    uint64_t d) noexcept nogil:
    out[k] = sjs_murmur64a_words5(tid, a, b, c, d, SEED)  # = hash64 of the 40 bytes (tid, a, b, c, d)
    return k + 1


# Per role (the R_* enum of features.pxd): the template id of its word feature (tag = id + 1,
# word+tag = id + 2 where ROLE_WP), and its extra-column template base (200 + 8t + offset; -1: none).
cdef int ROLE_TID[N_ROLES]
cdef bint ROLE_WP[N_ROLES]
cdef int ROLE_EXTRA[N_ROLES]
ROLE_TID[:] = [2, 5, 8, 10, 13, 16, 114, 70, 73, 76, 79, -1]
ROLE_WP[:] = [True, True, False, True, True, False, False, False, False, False, False, False]
ROLE_EXTRA[:] = [202, -1, -1, 200, 203, -1, 201, -1, -1, -1, -1, -1]


cdef inline int _role_base(uint64_t* out, int k, int role, int tok, const uint64_t* attrs,
                           const FeatConfigC* cfg) noexcept nogil:
    cdef uint64_t w = attr(attrs, cfg, tok, cfg.word_col), p = attr(attrs, cfg, tok, cfg.tag_col)
    k = add(out, k, ROLE_TID[role], w, 0, 0, 0)
    k = add(out, k, ROLE_TID[role] + 1, p, 0, 0, 0)
    if ROLE_WP[role]:
        k = add(out, k, ROLE_TID[role] + 2, w, p, 0, 0)
    return k


cdef inline int _role_extra(uint64_t* out, int k, int role, int tok, int t, const uint64_t* attrs,
                            const FeatConfigC* cfg) noexcept nogil:
    return add(out, k, ROLE_EXTRA[role] + 8 * t, attr(attrs, cfg, tok, cfg.extra_cols[t]), 0, 0, 0)


cdef inline int _window(uint64_t* out, int k, int b0, int b1, int b2, int prev, const uint64_t* attrs,
                        const FeatConfigC* cfg) noexcept nogil:
    """The R_B0WIN templates (31, 40, 116, 117, 118, 204 + 8t), in that order."""
    cdef int tc = cfg.tag_col, wc = cfg.word_col, t
    cdef uint64_t b0p = attr(attrs, cfg, b0, tc), b1p = attr(attrs, cfg, b1, tc)
    cdef uint64_t pp = attr(attrs, cfg, prev, tc)
    k = add(out, k, 31, b0p, b1p, 0, 0)
    k = add(out, k, 40, b0p, b1p, attr(attrs, cfg, b2, tc), 0)
    k = add(out, k, 116, attr(attrs, cfg, prev, wc), attr(attrs, cfg, b0, wc), 0, 0)
    k = add(out, k, 117, pp, b0p, 0, 0)
    k = add(out, k, 118, pp, b0p, b1p, 0)
    for t in range(cfg.n_extra):
        k = add(out, k, 204 + 8 * t, attr(attrs, cfg, prev, cfg.extra_cols[t]),
                attr(attrs, cfg, b0, cfg.extra_cols[t]), 0, 0)
    return k


cdef int role_features(uint64_t* out, int role, int tok, int n, const uint64_t* attrs,
                       const FeatConfigC* cfg) noexcept nogil:
    """The keys of the templates of `role` (R_*) that read token `tok` alone (-1 none, 0 root):
    the keys `extract_features` emits for them when `tok` fills that role; returns how many.
    For R_B0WIN, `tok` is b0 of a contiguous buffer over the `n` words; NO_ROLE gives none."""
    if tok == NO_ROLE:
        return 0
    cdef int b1, b2
    if role == R_B0WIN:
        b1 = tok + 1 if 0 <= tok < n else -1
        b2 = tok + 2 if 0 <= tok and tok + 2 <= n else -1
        return _window(out, 0, tok, b1, b2, tok - 1 if tok > 1 else -1, attrs, cfg)
    cdef int k = _role_base(out, 0, role, tok, attrs, cfg), t
    if ROLE_EXTRA[role] >= 0:
        for t in range(cfg.n_extra):
            k = _role_extra(out, k, role, tok, t, attrs, cfg)
    return k


cdef int extract_features(uint64_t* out, const StateC* s, const DocC* doc,
                          const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil:
    """Write the feature keys of state `s` into `out` (≥ MAX_FEATS slots); returns how many."""
    return _extract(out, NULL, s, doc, attrs, cfg)


cdef int extract_split(uint64_t* out, int* role_toks, const StateC* s, const DocC* doc,
                       const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil:
    """`extract_features` without the role templates: writes the other keys into `out` (returns
    how many) and the token filling each role into `role_toks` (N_ROLES slots), so that the keys
    of the state are these plus `role_features(r, role_toks[r])` for every role r."""
    return _extract(out, role_toks, s, doc, attrs, cfg)


cdef inline int _extract(uint64_t* out, int* role_toks, const StateC* s, const DocC* doc,
                         const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil:
    """Both of the above: role templates inline, in template order (role_toks NULL), or left out."""
    cdef bint full = role_toks is NULL
    cdef bint win = full or s.buf is not NULL  # the R_B0WIN templates among the others
    cdef const NodeC* S0 = s.stack
    cdef const NodeC* S1 = S0.next if s.stack_len >= 2 else NULL
    cdef const NodeC* S2 = S1.next if s.stack_len >= 3 else NULL
    cdef int n = doc.n
    cdef int s0 = S0.tok
    cdef int s1 = S1.tok if S1 is not NULL else -1
    cdef int s2 = S2.tok if S2 is not NULL else -1
    cdef int b0 = buffer_at(s, 0, n)
    cdef int b1 = buffer_at(s, 1, n) if b0 >= 0 else -1
    cdef int b2 = buffer_at(s, 2, n) if b1 >= 0 else -1
    cdef int prev = b0 - 1 if b0 > 1 else -1
    cdef int wc = cfg.word_col
    cdef int tc = cfg.tag_col
    cdef uint64_t s0w = attr(attrs, cfg, s0, wc), s0p = attr(attrs, cfg, s0, tc)
    cdef uint64_t s1w = attr(attrs, cfg, s1, wc), s1p = attr(attrs, cfg, s1, tc)
    cdef uint64_t s2w = attr(attrs, cfg, s2, wc), s2p = attr(attrs, cfg, s2, tc)
    cdef uint64_t b0w = attr(attrs, cfg, b0, wc), b0p = attr(attrs, cfg, b0, tc)
    cdef uint64_t b1w = attr(attrs, cfg, b1, wc), b1p = attr(attrs, cfg, b1, tc)
    cdef uint64_t b2w = attr(attrs, cfg, b2, wc), b2p = attr(attrs, cfg, b2, tc)
    cdef uint64_t pw = attr(attrs, cfg, prev, wc), pp = attr(attrs, cfg, prev, tc)
    # children of s0 and s1 (-1 when absent)
    cdef int s0l1 = -1, s0l2 = -1, s0r1 = -1, s0r2 = -1, s1l1 = -1, s1l2 = -1, s1r1 = -1, s1r2 = -1
    cdef uint64_t s0l1l = 0, s0l2l = 0, s0r1l = 0, s0r2l = 0, s1l1l = 0, s1l2l = 0, s1r1l = 0, s1r2l = 0
    cdef uint64_t s0vl = 0, s0vr = 0, s1vl = 0, s1vr = 0, s0sl = 0, s0sr = 0, s1sl = 0, s1sr = 0
    if s0 > 0:
        s0l1, s0l2, s0r1, s0r2 = S0.lc1, S0.lc2, S0.rc1, S0.rc2
        s0l1l, s0l2l, s0r1l, s0r2l = S0.lc1_lab, S0.lc2_lab, S0.rc1_lab, S0.rc2_lab
        s0vl, s0vr = min(S0.n_left, 6), min(S0.n_right, 6)
        s0sl, s0sr = S0.left_labs, S0.right_labs
    if s1 > 0:
        s1l1, s1l2, s1r1, s1r2 = S1.lc1, S1.lc2, S1.rc1, S1.rc2
        s1l1l, s1l2l, s1r1l, s1r2l = S1.lc1_lab, S1.lc2_lab, S1.rc1_lab, S1.rc2_lab
        s1vl, s1vr = min(S1.n_left, 6), min(S1.n_right, 6)
        s1sl, s1sr = S1.left_labs, S1.right_labs
    cdef uint64_t s0l1p = attr(attrs, cfg, s0l1, tc), s0r1p = attr(attrs, cfg, s0r1, tc)
    cdef uint64_t s1l1p = attr(attrs, cfg, s1l1, tc), s1r1p = attr(attrs, cfg, s1r1, tc)
    cdef uint64_t s0l2p = attr(attrs, cfg, s0l2, tc), s0r2p = attr(attrs, cfg, s0r2, tc)
    cdef uint64_t s1l2p = attr(attrs, cfg, s1l2, tc), s1r2p = attr(attrs, cfg, s1r2, tc)
    cdef uint64_t dist = bucket(s0 - s1) if s1 > 0 else 99
    cdef uint64_t dsb = bucket(b0 - s.last_sb) if b0 > 0 else 99
    cdef uint64_t depth = min(s.stack_len, 5)
    cdef uint64_t swp = 1 if s.n_swapped > 0 else 0
    cdef int k = 0
    cdef int t = 0
    # bias and unigrams
    k = add(out, k, 1, 0, 0, 0, 0)
    if full:
        k = _role_base(out, k, R_S0, s0, attrs, cfg)
        k = _role_base(out, k, R_S1, s1, attrs, cfg)
        k = _role_base(out, k, R_S2, s2, attrs, cfg)
        k = _role_base(out, k, R_B0, b0, attrs, cfg)
        k = _role_base(out, k, R_B1, b1, attrs, cfg)
        k = _role_base(out, k, R_B2, b2, attrs, cfg)
    else:
        role_toks[R_S0] = s0
        role_toks[R_S1] = s1
        role_toks[R_S2] = s2
        role_toks[R_B0] = b0
        role_toks[R_B1] = b1
        role_toks[R_B2] = b2
        role_toks[R_PREV] = prev
        role_toks[R_S0L1] = s0l1
        role_toks[R_S0R1] = s0r1
        role_toks[R_S1L1] = s1l1
        role_toks[R_S1R1] = s1r1
        role_toks[R_B0WIN] = NO_ROLE if win else b0
    # pairs
    k = add(out, k, 20, s0w, s0p, s1w, s1p)
    k = add(out, k, 21, s0w, s0p, s1w, 0)
    k = add(out, k, 22, s0w, s1w, s1p, 0)
    k = add(out, k, 23, s0w, s0p, s1p, 0)
    k = add(out, k, 24, s0p, s1w, s1p, 0)
    k = add(out, k, 25, s0w, s1w, 0, 0)
    k = add(out, k, 26, s0p, s1p, 0, 0)
    k = add(out, k, 27, s0p, b0p, 0, 0)
    k = add(out, k, 28, s0w, b0w, 0, 0)
    k = add(out, k, 29, s0p, b0w, b0p, 0)
    k = add(out, k, 30, s1p, b0p, 0, 0)
    if win:
        k = add(out, k, 31, b0p, b1p, 0, 0)
    # triples
    if win:
        k = add(out, k, 40, b0p, b1p, b2p, 0)
    k = add(out, k, 41, s0p, b0p, b1p, 0)
    k = add(out, k, 42, s1p, s0p, b0p, 0)
    k = add(out, k, 43, s2p, s1p, s0p, 0)
    k = add(out, k, 44, s1p, s1l1p, s0p, 0)
    k = add(out, k, 45, s1p, s1r1p, s0p, 0)
    k = add(out, k, 46, s1p, s0p, s0l1p, 0)
    k = add(out, k, 47, s1p, s0p, s0r1p, 0)
    k = add(out, k, 48, s0p, s0l1p, s0r1p, 0)
    # distance
    k = add(out, k, 50, s0w, dist, 0, 0)
    k = add(out, k, 51, s0p, dist, 0, 0)
    k = add(out, k, 52, s1w, dist, 0, 0)
    k = add(out, k, 53, s1p, dist, 0, 0)
    k = add(out, k, 54, s0w, s1w, dist, 0)
    k = add(out, k, 55, s0p, s1p, dist, 0)
    # valency
    k = add(out, k, 60, s0w, s0vl, 0, 0)
    k = add(out, k, 61, s0p, s0vl, 0, 0)
    k = add(out, k, 62, s0w, s0vr, 0, 0)
    k = add(out, k, 63, s0p, s0vr, 0, 0)
    k = add(out, k, 64, s1w, s1vl, 0, 0)
    k = add(out, k, 65, s1p, s1vl, 0, 0)
    k = add(out, k, 66, s1w, s1vr, 0, 0)
    k = add(out, k, 67, s1p, s1vr, 0, 0)
    # children (second order) and second children (third order)
    if full:
        k = _role_base(out, k, R_S0L1, s0l1, attrs, cfg)
    k = add(out, k, 72, s0l1l, 0, 0, 0)
    if full:
        k = _role_base(out, k, R_S0R1, s0r1, attrs, cfg)
    k = add(out, k, 75, s0r1l, 0, 0, 0)
    if full:
        k = _role_base(out, k, R_S1L1, s1l1, attrs, cfg)
    k = add(out, k, 78, s1l1l, 0, 0, 0)
    if full:
        k = _role_base(out, k, R_S1R1, s1r1, attrs, cfg)
    k = add(out, k, 81, s1r1l, 0, 0, 0)
    k = add(out, k, 82, s0l2p, s0l2l, 0, 0)
    k = add(out, k, 83, s0r2p, s0r2l, 0, 0)
    k = add(out, k, 84, s1l2p, s1l2l, 0, 0)
    k = add(out, k, 85, s1r2p, s1r2l, 0, 0)
    k = add(out, k, 86, s0p, s0l1p, s0l2p, 0)
    k = add(out, k, 87, s0p, s0r1p, s0r2p, 0)
    k = add(out, k, 88, s1p, s1l1p, s1l2p, 0)
    k = add(out, k, 89, s1p, s1r1p, s1r2p, 0)
    k = add(out, k, 90, s0p, s0l1l, s0r1l, 0)
    k = add(out, k, 91, s1p, s1l1l, s1r1l, 0)
    # label sets
    k = add(out, k, 100, s0w, s0sl, 0, 0)
    k = add(out, k, 101, s0p, s0sl, 0, 0)
    k = add(out, k, 102, s0w, s0sr, 0, 0)
    k = add(out, k, 103, s0p, s0sr, 0, 0)
    k = add(out, k, 104, s1w, s1sl, 0, 0)
    k = add(out, k, 105, s1p, s1sl, 0, 0)
    k = add(out, k, 106, s1w, s1sr, 0, 0)
    k = add(out, k, 107, s1p, s1sr, 0, 0)
    # sentence boundary
    k = add(out, k, 110, dsb, 0, 0, 0)
    k = add(out, k, 111, dsb, b0p, 0, 0)
    k = add(out, k, 112, dsb, b0w, 0, 0)
    k = add(out, k, 113, dsb, s0p, 0, 0)
    if full:
        k = _role_base(out, k, R_PREV, prev, attrs, cfg)
    if win:
        k = add(out, k, 116, pw, b0w, 0, 0)
        k = add(out, k, 117, pp, b0p, 0, 0)
        k = add(out, k, 118, pp, b0p, b1p, 0)
    k = add(out, k, 119, depth, swp, b0p, 0)
    k = add(out, k, 120, depth, s0p, b0p, 0)
    k = add(out, k, 121, dsb, pp, b0p, 0)
    for t in range(cfg.n_extra):
        col = cfg.extra_cols[t]
        if full:
            k = _role_extra(out, k, R_B0, b0, t, attrs, cfg)
            k = _role_extra(out, k, R_PREV, prev, t, attrs, cfg)
            k = _role_extra(out, k, R_S0, s0, t, attrs, cfg)
            k = _role_extra(out, k, R_B1, b1, t, attrs, cfg)
        if win:
            k = add(out, k, 204 + 8 * t, attr(attrs, cfg, prev, col), attr(attrs, cfg, b0, col), 0, 0)
    if cfg.n_cand > 0:
        k = _syntax(out, k, s, n, s0, s1, s2, b0, prev, s0p, s1p, b0p, pp, dsb, attrs, cfg)
    return k


cdef inline int _syntax(uint64_t* out, int k, const StateC* s, int n, int s0, int s1, int s2, int b0, int prev,
                        uint64_t s0p, uint64_t s1p, uint64_t b0p, uint64_t pp, uint64_t dsb,
                        const uint64_t* attrs, const FeatConfigC* cfg) noexcept nogil:
    """The head-candidate templates (300–317); s1 and s2 are -1 when absent."""
    cdef int r10 = cand_rank(attrs, cfg, s1, s0) if s1 >= 0 else RANK_NA  # s0 heads s1
    cdef int r01 = cand_rank(attrs, cfg, s0, s1) if s1 >= 0 else RANK_NA  # s1 heads s0
    cdef int rr0 = cand_rank(attrs, cfg, s0, 0), rr1 = cand_rank(attrs, cfg, s1, 0)
    cdef int r0b = cand_rank(attrs, cfg, s0, b0), rb0 = cand_rank(attrs, cfg, b0, s0)
    cdef int last = s.last_sb
    cdef uint64_t h0 = head_place(attrs, cfg, s0, b0, last), h1 = head_place(attrs, cfg, s1, b0, last)
    cdef uint64_t h2 = head_place(attrs, cfg, s2, b0, last), hb = head_place(attrs, cfg, b0, b0, last)
    cdef uint64_t hp = head_place(attrs, cfg, prev, b0, last)
    k = add(out, k, 300, r10, cand_at(attrs, cfg, s1, r10, 1), 0, 0)
    k = add(out, k, 301, r10, cand_at(attrs, cfg, s1, r10, 2), 0, 0)
    k = add(out, k, 302, r01, cand_at(attrs, cfg, s0, r01, 1), 0, 0)
    k = add(out, k, 303, r01, cand_at(attrs, cfg, s0, r01, 2), 0, 0)
    k = add(out, k, 304, r10, r01, s0p, s1p)
    k = add(out, k, 305, rr0, cand_at(attrs, cfg, s0, rr0, 1), 0, 0)
    k = add(out, k, 306, rr1, cand_at(attrs, cfg, s1, rr1, 1), 0, 0)
    k = add(out, k, 307, r0b, cand_at(attrs, cfg, s0, r0b, 1), 0, 0)
    k = add(out, k, 308, rb0, cand_at(attrs, cfg, b0, rb0, 1), 0, 0)
    k = add(out, k, 309, h0, h1, h2, 0)
    k = add(out, k, 310, hb, b0p, 0, 0)
    k = add(out, k, 311, hp, hb, 0, 0)
    k = add(out, k, 312, h0, dsb, 0, 0)
    k = add(out, k, 313, cand_at(attrs, cfg, s0, 0, 2), s0p, 0, 0)
    k = add(out, k, 314, cand_at(attrs, cfg, b0, 0, 2), hb, 0, 0)
    k = add(out, k, 315, hp, pp, b0p, 0)
    cdef uint64_t p0 = pending(attrs, cfg, s, s0, n), p1 = pending(attrs, cfg, s, s1, n)
    k = add(out, k, 316, p0, r01, 0, 0)
    k = add(out, k, 317, p0, p1, h0, 0)
    return k

