# cython: infer_types=True
"""Greedy left-to-right tagging with a hashed averaged perceptron: the hot loop of `PerceptronTagger`.

Features are the classic set of Ratnaparkhi (1996) / Collins (2002): the word, its affixes and
shape, the two words either side and the two tags already predicted to the left. A document is
tagged as one stream (no sentence boundaries are needed, so unpunctuated text tags the same way).
Training uses the tagger's own predicted history (what it sees at prediction time) and Daumé's
averaging in `learn.weights` (one clock tick per token).

Token attributes come as an (n × (N_COLS + c)) uint64 array, columns LOWER, PREFIX, SUFFIX, SHAPE,
suffix-2, suffix-4 (`tagger.model.encode_doc`), then c ≤ MAX_CONTEXT optional context columns
(cluster ids of a tok2vec's token vectors, `context.clusters`), each read at the token and
its neighbours, and with the word. `tag_doc` checks its arguments; `extract` and the scoring loop
behind it are unchecked.
"""
import numpy

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from ..learn.hashing cimport hash_feature
from ..learn.weights cimport HashedWeights, score_table

cdef uint64_t SEED = 0x7A66E4
cdef uint64_t PAD_LEFT = 0x9E3779B97F4A7C15   # the value of every attribute before the document
cdef uint64_t PAD_RIGHT = 0xC2B2AE3D27D4EB4F  # ... and after it


cdef inline uint64_t _at(const uint64_t* attrs, int n, int n_cols, int i, int col) noexcept nogil:
    if i < 0:
        return PAD_LEFT
    if i >= n:
        return PAD_RIGHT
    return attrs[i * n_cols + col]


cdef inline uint64_t _h(uint64_t t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    cdef uint64_t v[4]
    v[0] = t
    v[1] = a
    v[2] = b
    v[3] = c
    return hash_feature(v, 4, SEED)


cdef int extract(const uint64_t* attrs, int n, int n_cols, int i, const int* tags, int start_tag,
                 uint64_t* feats) noexcept nogil:
    """The feature keys of token i, given the tags of tokens < i → their number (N_TEMPLATES, plus
    CONTEXT_WINDOW + 1 per context column)."""
    cdef uint64_t t1 = <uint64_t>(tags[i - 1] if i >= 1 else start_tag)
    cdef uint64_t t2 = <uint64_t>(tags[i - 2] if i >= 2 else start_tag)
    cdef uint64_t w = _at(attrs, n, n_cols, i, COL_LOWER)
    cdef uint64_t wp1 = _at(attrs, n, n_cols, i - 1, COL_LOWER)
    cdef uint64_t wp2 = _at(attrs, n, n_cols, i - 2, COL_LOWER)
    cdef uint64_t wn1 = _at(attrs, n, n_cols, i + 1, COL_LOWER)
    cdef uint64_t wn2 = _at(attrs, n, n_cols, i + 2, COL_LOWER)
    feats[0] = _h(0, 0, 0, 0)  # bias
    feats[1] = _h(1, w, 0, 0)
    feats[2] = _h(2, _at(attrs, n, n_cols, i, COL_SUFFIX), 0, 0)
    feats[3] = _h(3, _at(attrs, n, n_cols, i, COL_PREFIX), 0, 0)
    feats[4] = _h(4, _at(attrs, n, n_cols, i, COL_SHAPE), 0, 0)
    feats[5] = _h(5, _at(attrs, n, n_cols, i, COL_SUF2), 0, 0)
    feats[6] = _h(6, _at(attrs, n, n_cols, i, COL_SUF4), 0, 0)
    feats[7] = _h(7, t1, 0, 0)
    feats[8] = _h(8, t2, 0, 0)
    feats[9] = _h(9, t1, t2, 0)
    feats[10] = _h(10, t1, w, 0)
    feats[11] = _h(11, wp1, 0, 0)
    feats[12] = _h(12, _at(attrs, n, n_cols, i - 1, COL_SUFFIX), 0, 0)
    feats[13] = _h(13, wp2, 0, 0)
    feats[14] = _h(14, wn1, 0, 0)
    feats[15] = _h(15, _at(attrs, n, n_cols, i + 1, COL_SUFFIX), 0, 0)
    feats[16] = _h(16, wn2, 0, 0)
    feats[17] = _h(17, wp1, w, 0)
    feats[18] = _h(18, w, wn1, 0)
    feats[19] = _h(19, _at(attrs, n, n_cols, i - 1, COL_SHAPE), _at(attrs, n, n_cols, i, COL_SHAPE),
                   _at(attrs, n, n_cols, i + 1, COL_SHAPE))
    feats[20] = _h(20, t1, _at(attrs, n, n_cols, i, COL_SUFFIX), 0)
    feats[21] = _h(21, wn1, _at(attrs, n, n_cols, i + 1, COL_SHAPE), _at(attrs, n, n_cols, i, COL_SHAPE))
    cdef int k = N_TEMPLATES
    cdef int c
    cdef uint64_t ctx
    for c in range(N_COLS, n_cols):
        ctx = _at(attrs, n, n_cols, i, c)
        feats[k] = _h(64 + c, ctx, 0, 0)
        feats[k + 1] = _h(96 + c, _at(attrs, n, n_cols, i - 1, c), ctx, 0)
        feats[k + 2] = _h(128 + c, ctx, _at(attrs, n, n_cols, i + 1, c), 0)
        feats[k + 3] = _h(160 + c, ctx, w, 0)
        k += CONTEXT_WINDOW + 1
    return k


cdef int _tag(HashedWeights weights, const float* table, const uint64_t* attrs, int n, int n_cols,
              int* out, const int* gold, bint train) noexcept nogil:
    """Tag n tokens into `out`; with `train`, perceptron-update on each error. → errors made."""
    cdef int nc = weights.n_classes
    cdef uint64_t feats[MAX_FEATS]
    cdef int n_feats
    cdef float* scores = <float*>malloc(nc * sizeof(float))
    cdef int i, c, best, errors = 0
    if scores is NULL:
        return -1
    for i in range(n):
        n_feats = extract(attrs, n, n_cols, i, out, nc, feats)
        score_table(table, <uint64_t>weights.n_rows, nc, feats, n_feats, scores)
        best = 0
        for c in range(1, nc):
            if scores[c] > scores[best]:
                best = c
        if gold is not NULL and best != gold[i]:
            errors += 1
            if train:
                weights.update_c(feats, n_feats, gold[i], 1.0)
                weights.update_c(feats, n_feats, best, -1.0)
        if train:
            weights.time += 1
            weights.version += 1
        out[i] = best
    free(scores)
    return errors


def tag_doc(HashedWeights weights not None, attrs, gold=None, *, bint train=False,
            bint use_averages=True):
    """Tag one document: `attrs` is its (n × (6 + c)) uint64 attribute array, c ≤ 8 context
    columns (the same c in training and prediction: the caller keeps to it). Returns (tag ids,
    errors against `gold`). train=True updates on each error (gold required); prediction scores
    the averaged table unless use_averages=False."""
    a = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
    if a.ndim != 2 or not N_COLS <= a.shape[1] <= N_COLS + MAX_CONTEXT:
        raise ValueError(f"attrs must have shape (n, {N_COLS} + c) with c ≤ {MAX_CONTEXT} context columns, "
                         f"got {a.shape}")
    cdef int n = a.shape[0]
    cdef int n_cols = a.shape[1]
    out = numpy.zeros((n,), dtype=numpy.int32)
    if n == 0:
        return out, 0
    cdef int nc = weights.n_classes
    cdef const int* g = NULL
    cdef int[::1] gv
    if gold is not None:
        garr = numpy.ascontiguousarray(gold, dtype=numpy.int32)
        if garr.shape != (n,) or (n and (garr.min() < 0 or garr.max() >= nc)):
            raise ValueError(f"gold must be {n} tag ids in [0, {nc})")
        gv = garr
        g = &gv[0]
    elif train:
        raise ValueError("training needs gold tags")
    if train and weights.using_averages:
        raise RuntimeError("tag_doc(train=True) inside use_averages()")
    cdef const uint64_t[:, ::1] av = a
    cdef int[::1] ov = out
    cdef float[:, ::1] tv
    if train:
        tv = weights.get_params()["W"]
    else:
        tv = weights.average_table() if use_averages else weights.get_params()["W"]
    cdef int errors
    with nogil:
        errors = _tag(weights, &tv[0, 0], &av[0, 0], n, n_cols, &ov[0], g, train)
    if errors < 0:
        raise MemoryError()
    return out, errors
