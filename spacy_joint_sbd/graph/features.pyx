# cython: infer_types=True, binding=True
"""MSTParser-style features (McDonald et al. 2005; McDonald and Pereira 2006), hashed into a
`learn.weights.HashedWeights` table with one class: the score of a part is the sum of the weights
of its features.

Arc ``h -> d`` (chart positions, 0 = root): unigram (head / dependent word, tag, both), bigram
(the 7 conjunctions of the four), surrounding tags (the 4 MSTParser contexts) and one feature per
distinct coarse tag strictly between ``h`` and ``d``. Every template is emitted twice: alone and
conjoined with direction + binned distance.

Sibling ``(h, s, m)``, ``m`` the next child of ``h`` after ``s`` on the same side (``s == h``: the
first child, marked by a sentinel): tag trigram, sibling tag / word pairs; alone and with
direction.
"""
from libc.stdint cimport uint64_t

import numpy

from spacy_joint_sbd.learn.hashing cimport hash_feature
from spacy_joint_sbd.learn.weights cimport HashedWeights
from spacy_joint_sbd.learn.hashing import hash_string

DEF MAX_ARC_FEATS = 128
DEF MAX_SIB_FEATS = 16
DEF SEED = 0xA4C
# Sentinel attribute values for positions outside the sentence and for "no sibling".
DEF BOS = 0x1
DEF EOS = 0x2
DEF FIRST = 0x3

MAX_COARSE = 63
"""Coarse ids (for the in-between features) must be below 64."""


cdef inline int _bin(int dist) noexcept nogil:
    if dist <= 5:
        return dist
    if dist <= 10:
        return 6
    return 7


cdef inline int _emit(uint64_t* out, int k, uint64_t tid, uint64_t a, uint64_t b, uint64_t c,
                      uint64_t d, int nv, uint64_t att) noexcept nogil:
    cdef uint64_t v[6]
    v[0] = tid
    v[1] = a
    v[2] = b
    v[3] = c
    v[4] = d
    out[k] = hash_feature(v, nv + 1, SEED)
    v[0] = tid + 1000
    v[nv + 1] = att
    out[k + 1] = hash_feature(v, nv + 2, SEED)
    return k + 2


cdef int arc_feats_c(const ToksC* t, int h, int d, uint64_t* out) noexcept nogil:
    cdef int n = t.n
    cdef uint64_t hw = t.words[h], hp = t.tags[h], dw = t.words[d], dp = t.tags[d]
    cdef uint64_t hpl = t.tags[h - 1] if h > 0 else BOS
    cdef uint64_t hpr = t.tags[h + 1] if h < n else EOS
    cdef uint64_t dpl = t.tags[d - 1] if d > 0 else BOS
    cdef uint64_t dpr = t.tags[d + 1] if d < n else EOS
    cdef int lo = h if h < d else d
    cdef int hi = d if h < d else h
    cdef uint64_t att = (<uint64_t>(h < d) << 8) | <uint64_t>_bin(hi - lo)
    cdef int k = 0
    k = _emit(out, k, 1, hw, hp, 0, 0, 2, att)
    k = _emit(out, k, 2, hw, 0, 0, 0, 1, att)
    k = _emit(out, k, 3, hp, 0, 0, 0, 1, att)
    k = _emit(out, k, 4, dw, dp, 0, 0, 2, att)
    k = _emit(out, k, 5, dw, 0, 0, 0, 1, att)
    k = _emit(out, k, 6, dp, 0, 0, 0, 1, att)
    k = _emit(out, k, 7, hw, hp, dw, dp, 4, att)
    k = _emit(out, k, 8, hp, dw, dp, 0, 3, att)
    k = _emit(out, k, 9, hw, dw, dp, 0, 3, att)
    k = _emit(out, k, 10, hw, hp, dp, 0, 3, att)
    k = _emit(out, k, 11, hw, hp, dw, 0, 3, att)
    k = _emit(out, k, 12, hw, dw, 0, 0, 2, att)
    k = _emit(out, k, 13, hp, dp, 0, 0, 2, att)
    k = _emit(out, k, 14, hp, hpr, dpl, dp, 4, att)
    k = _emit(out, k, 15, hpl, hp, dpl, dp, 4, att)
    k = _emit(out, k, 16, hp, hpr, dp, dpr, 4, att)
    k = _emit(out, k, 17, hpl, hp, dp, dpr, 4, att)
    cdef uint64_t between = 0
    cdef int b
    for b in range(lo + 1, hi):
        between |= (<uint64_t>1) << (t.coarse[b] & 63)
    for b in range(64):
        if (between >> b) & 1 and k + 2 <= MAX_ARC_FEATS:
            k = _emit(out, k, 18, hp, <uint64_t>b, dp, 0, 3, att)
    return k


cdef int sib_feats_c(const ToksC* t, int h, int s, int m, uint64_t* out) noexcept nogil:
    cdef uint64_t hp = t.tags[h], mp = t.tags[m], mw = t.words[m]
    cdef uint64_t sp = FIRST if s == h else t.tags[s]
    cdef uint64_t sw = FIRST if s == h else t.words[s]
    cdef uint64_t att = <uint64_t>(h < m)
    cdef int k = 0
    k = _emit(out, k, 51, hp, sp, mp, 0, 3, att)
    k = _emit(out, k, 52, sp, mp, 0, 0, 2, att)
    k = _emit(out, k, 53, sw, mw, 0, 0, 2, att)
    k = _emit(out, k, 54, sw, mp, 0, 0, 2, att)
    k = _emit(out, k, 55, sp, mw, 0, 0, 2, att)
    return k


cdef int label_feats_c(const ToksC* t, int h, int d, uint64_t* out) noexcept nogil:
    cdef int n = t.n
    cdef uint64_t hw = t.words[h], hp = t.tags[h], dw = t.words[d], dp = t.tags[d]
    cdef uint64_t dpl = t.tags[d - 1] if d > 0 else BOS
    cdef uint64_t dpr = t.tags[d + 1] if d < n else EOS
    cdef int lo = h if h < d else d
    cdef int hi = d if h < d else h
    cdef uint64_t att = (<uint64_t>(h < d) << 8) | <uint64_t>_bin(hi - lo)
    cdef int k = 0
    k = _emit(out, k, 71, hw, 0, 0, 0, 1, att)
    k = _emit(out, k, 72, hp, 0, 0, 0, 1, att)
    k = _emit(out, k, 73, dw, 0, 0, 0, 1, att)
    k = _emit(out, k, 74, dp, 0, 0, 0, 1, att)
    k = _emit(out, k, 75, hp, dp, 0, 0, 2, att)
    k = _emit(out, k, 76, hw, dp, 0, 0, 2, att)
    k = _emit(out, k, 77, hp, dw, 0, 0, 2, att)
    k = _emit(out, k, 78, hw, dw, 0, 0, 2, att)
    k = _emit(out, k, 79, dpl, dp, dpr, 0, 3, att)
    k = _emit(out, k, 80, hp, dpl, dp, 0, 3, att)
    return k


cdef class Sentence:
    """Token attributes of one sentence over chart positions (0 = root), as hashed ids.

    words, tags (List[str]): One per token (e.g. lower-cased forms and fine tags).
    coarse (List[int]): Small ids (< 64) per token, e.g. UPOS indices, for in-between features.
    """
    cdef readonly int n
    cdef object _words
    cdef object _tags
    cdef object _coarse
    cdef ToksC c

    def __init__(self, words, tags, coarse):
        if not (len(words) == len(tags) == len(coarse)):
            raise ValueError("words, tags and coarse must have the same length")
        self.n = len(words)
        root = hash_string("<ROOT>")
        self._words = numpy.array([root] + [hash_string(w) for w in words], dtype=numpy.uint64)
        self._tags = numpy.array([root] + [hash_string(p) for p in tags], dtype=numpy.uint64)
        self._coarse = numpy.array([MAX_COARSE] + [int(c) & 63 for c in coarse], dtype=numpy.int32)
        cdef uint64_t[::1] word_ids = self._words
        cdef uint64_t[::1] tag_ids = self._tags
        cdef int[::1] coarse_ids = self._coarse
        self.c.n = self.n
        self.c.words = &word_ids[0]
        self.c.tags = &tag_ids[0]
        self.c.coarse = &coarse_ids[0]

    def arc_features(self, int h, int d):
        """Feature keys of the arc h -> d (chart positions) as a uint64 array."""
        cdef uint64_t buf[MAX_ARC_FEATS]
        k = arc_feats_c(&self.c, h, d, buf)
        return numpy.array([buf[i] for i in range(k)], dtype=numpy.uint64)

    def arc_scores(self, HashedWeights weights):
        """(n+1, n+1) float64 array: ``scores[h, d]``; column 0 and the diagonal are 0."""
        n = self.n
        out = numpy.zeros((n + 1, n + 1), dtype=numpy.float64)
        cdef double[:, ::1] o = out
        cdef uint64_t buf[MAX_ARC_FEATS]
        cdef float s
        cdef int h, d, k
        with nogil:
            for h in range(n + 1):
                for d in range(1, n + 1):
                    if h != d:
                        k = arc_feats_c(&self.c, h, d, buf)
                        weights.score_c(buf, k, &s)
                        o[h, d] = s
        return out

    def sib_scores(self, HashedWeights weights):
        """(n+1, n+1, n+1) float64 array ``sib[h, s, m]`` for the triples the second-order decoder
        reads (s == h, or s strictly between h and m); other entries are 0."""
        n = self.n
        out = numpy.zeros((n + 1, n + 1, n + 1), dtype=numpy.float64)
        cdef double[:, :, ::1] o = out
        cdef uint64_t buf[MAX_SIB_FEATS]
        cdef float sc
        cdef int h, s, m, k
        with nogil:
            for h in range(n + 1):
                for m in range(1, n + 1):
                    if m == h:
                        continue
                    k = sib_feats_c(&self.c, h, h, m, buf)
                    weights.score_c(buf, k, &sc)
                    o[h, h, m] = sc
                    if h < m:
                        for s in range(h + 1, m):
                            k = sib_feats_c(&self.c, h, s, m, buf)
                            weights.score_c(buf, k, &sc)
                            o[h, s, m] = sc
                    else:
                        for s in range(m + 1, h):
                            k = sib_feats_c(&self.c, h, s, m, buf)
                            weights.score_c(buf, k, &sc)
                            o[h, s, m] = sc
        return out

    def update(self, HashedWeights weights, heads, float delta, bint siblings=False):
        """Add ``delta`` to the features of every part (arcs; with ``siblings``, also adjacent
        sibling triples) of a tree given as token heads (-1 = root)."""
        cdef uint64_t buf[MAX_ARC_FEATS]
        cdef int k
        n = self.n
        hp = [h + 1 for h in heads]
        for d in range(1, n + 1):
            k = arc_feats_c(&self.c, hp[d - 1], d, buf)
            weights.update_c(buf, k, 0, delta)
        if not siblings:
            return
        for h, s, m in sibling_triples(heads):
            k = sib_feats_c(&self.c, h, s, m, buf)
            weights.update_c(buf, k, 0, delta)


    def label_scores(self, HashedWeights weights, heads):
        """(n, n_classes) float32 label scores of each token's arc from ``heads`` (-1 = root)."""
        n = self.n
        nc = weights.n_classes
        out = numpy.zeros((max(n, 1), nc), dtype=numpy.float32)
        cdef float[:, ::1] o = out
        cdef uint64_t buf[MAX_ARC_FEATS]
        cdef int k
        for d in range(1, n + 1):
            k = label_feats_c(&self.c, heads[d - 1] + 1, d, buf)
            weights.score_c(buf, k, &o[d - 1, 0])
        return out[:n]

    def update_label(self, HashedWeights weights, int head, int dep, int clas, float delta):
        """Add ``delta`` to class ``clas`` for the label features of the arc head -> dep (token
        indices, head -1 = root)."""
        cdef uint64_t buf[MAX_ARC_FEATS]
        k = label_feats_c(&self.c, head + 1, dep + 1, buf)
        weights.update_c(buf, k, clas, delta)


def sibling_triples(heads):
    """The (h, s, m) sibling parts of a tree over chart positions (s == h: first child)."""
    n = len(heads)
    kids = [[] for _ in range(n + 1)]
    for d, h in enumerate(heads):
        kids[h + 1].append(d + 1)
    out = []
    for h in range(n + 1):
        right = [m for m in kids[h] if m > h]
        left = sorted((m for m in kids[h] if m < h), reverse=True)
        for side in (right, left):
            prev = h
            for m in side:
                out.append((h, prev, m))
                prev = m
    return out
