# cython: infer_types=True, binding=True
"""The hot loops of the boundary model: features of the gap before a token, logistic SGD, scoring.

A document comes as an (n × N_COLS) uint64 array over its *non-space* tokens (`boundary.encode`):
spaCy's LOWER, SHAPE, SUFFIX and PREFIX ids, the layout gap before the token (line break, blank
line), its mark class, and two window regimes (how punctuated and how cased the text around it
is), so that one model serves edited text, transcripts and mixed documents: a capitalised word
after no mark means little in cased, punctuated prose and a lot in nothing. The features of the
gap before token i read words i − 3 .. i + 2 (n-grams across the gap), shapes, affixes, layout
and the regimes conjoined with the strongest cues (Gillick 2009's and Punkt's evidence, plus
hidden-event LM-style word n-grams for unpunctuated speech: Stolcke & Shriberg 1996). After a
single line break, how full the ended line is among its neighbours (`COL_LINE`) tells hard-wrapped
prose, where lines run to a common width and a break means nothing, from turns, verse, lists and
headings; its templates fire only there, so a model trained without them scores as before. A
capitalised word straight after a word with no mark and no line break (its code in the same
column: a heading or a byline run into the text, `History The first inhabitants`, or a name,
`writers Mark Twain`) gets templates of its own in models trained with `cased_gaps`: the word with
its case and how many words back the last sentence end is, since the base templates read words
lower-cased and shapes apart, so `The` and `Tom` look alike there.

Every position is scored independently (no decoding history), so training and prediction are
one pass over the array. Training is averaged SGD on the logistic loss (`learn.weights`:
Daumé's averaging, one tick per token), so the averaged scores are log-odds; the component
calibrates them on held-out text (Platt scaling). The loops are unchecked; `train_doc` and
`score_doc` check their arguments.
"""
import numpy

from libc.math cimport exp, log1p
from libc.stdint cimport uint64_t

from ..learn.hashing cimport hash_feature
from ..learn.weights cimport HashedWeights, row_of

cdef uint64_t SEED = 0xB0DA7
cdef uint64_t PAD_LEFT = 0x9E3779B97F4A7C15   # every attribute before the document
cdef uint64_t PAD_RIGHT = 0xC2B2AE3D27D4EB4F  # ... and after it


cdef inline uint64_t _at(const uint64_t* a, int n, int i, int col) noexcept nogil:
    if i < 0:
        return PAD_LEFT
    if i >= n:
        return PAD_RIGHT
    return a[i * N_COLS + col]


cdef inline uint64_t _h(uint64_t t, uint64_t a, uint64_t b, uint64_t c, uint64_t d) noexcept nogil:
    cdef uint64_t v[5]
    v[0] = t
    v[1] = a
    v[2] = b
    v[3] = c
    v[4] = d
    return hash_feature(v, 5, SEED)


cdef int extract(const uint64_t* a, int n, int i, uint64_t* f) noexcept nogil:
    """The feature keys of the gap before token i → their number (N_TEMPLATES)."""
    cdef uint64_t w0 = _at(a, n, i, COL_LOWER)
    cdef uint64_t w1 = _at(a, n, i - 1, COL_LOWER)
    cdef uint64_t w2 = _at(a, n, i - 2, COL_LOWER)
    cdef uint64_t w3 = _at(a, n, i - 3, COL_LOWER)
    cdef uint64_t n1 = _at(a, n, i + 1, COL_LOWER)
    cdef uint64_t n2 = _at(a, n, i + 2, COL_LOWER)
    cdef uint64_t s0 = _at(a, n, i, COL_SHAPE)
    cdef uint64_t s1 = _at(a, n, i - 1, COL_SHAPE)
    cdef uint64_t s2 = _at(a, n, i - 2, COL_SHAPE)
    cdef uint64_t sn = _at(a, n, i + 1, COL_SHAPE)
    cdef uint64_t gap = _at(a, n, i, COL_GAP)
    cdef uint64_t m1 = _at(a, n, i - 1, COL_MARK)
    cdef uint64_t m2 = _at(a, n, i - 2, COL_MARK)
    cdef uint64_t m0 = _at(a, n, i, COL_MARK)
    cdef uint64_t preg = _at(a, n, i, COL_PREG)
    cdef uint64_t creg = _at(a, n, i, COL_CREG)
    cdef uint64_t reg = preg * 8 + creg
    f[0] = _h(0, reg, 0, 0, 0)  # bias per regime
    f[1] = _h(1, w0, 0, 0, 0)
    f[2] = _h(2, w1, 0, 0, 0)
    f[3] = _h(3, w2, 0, 0, 0)
    f[4] = _h(4, n1, 0, 0, 0)
    f[5] = _h(5, w1, w0, 0, 0)
    f[6] = _h(6, w2, w1, 0, 0)
    f[7] = _h(7, w0, n1, 0, 0)
    f[8] = _h(8, w2, w1, w0, 0)
    f[9] = _h(9, w1, w0, n1, 0)
    f[10] = _h(10, w0, n1, n2, 0)
    f[11] = _h(11, w3, w2, w1, 0)
    f[12] = _h(12, s1, s0, reg, 0)
    f[13] = _h(13, s2, s1, s0, sn)
    f[14] = _h(14, _at(a, n, i - 1, COL_SUFFIX), reg, 0, 0)
    f[15] = _h(15, _at(a, n, i, COL_PREFIX), reg, 0, 0)
    f[16] = _h(16, _at(a, n, i, COL_SUFFIX), 0, 0, 0)
    f[17] = _h(17, gap, reg, 0, 0)
    f[18] = _h(18, gap, m1, s0, 0)
    f[19] = _h(19, gap, w1, 0, 0)
    f[20] = _h(20, gap, w0, 0, 0)
    f[21] = _h(21, m1, m2, reg, 0)
    f[22] = _h(22, m1, s0, reg, 0)
    f[23] = _h(23, w1, s0, reg, 0)
    f[24] = _h(24, w1, w0, reg, 0)
    f[25] = _h(25, m1, w0, 0, 0)
    f[26] = _h(26, m0, m1, reg, 0)
    f[27] = _h(27, w2, m1, s0, 0)
    f[28] = _h(28, w0, reg, 0, 0)
    f[29] = _h(29, w1, reg, 0, 0)
    f[30] = _h(30, n1, n2, 0, 0)
    f[31] = _h(31, s0, sn, m1, reg)
    f[32] = _h(32, w1, n1, 0, 0)
    f[33] = _h(33, _at(a, n, i - 1, COL_SUFFIX), w0, 0, 0)
    cdef uint64_t code = _at(a, n, i, COL_LINE)
    if code == 0:  # neither templates of its own (or a model without them)
        return N_BASE_TEMPLATES
    if gap != 0:  # a single line break before token i (a model with line codes)
        f[34] = _h(34, code, m1, s0, 0)
        f[35] = _h(35, code, reg, 0, 0)
        f[36] = _h(36, code, w0, 0, 0)
        f[37] = _h(37, code, w1, m1, 0)
        return N_BASE_TEMPLATES + N_LINE_TEMPLATES
    # a capitalised word right after an unmarked word (a model with cased gaps)
    f[34] = _h(38, code, w0, reg, 0)
    f[35] = _h(39, code, w1, w0, 0)
    f[36] = _h(40, code, s1, w0, 0)
    f[37] = _h(41, code, w0, n1, 0)
    return N_BASE_TEMPLATES + N_CASED_TEMPLATES


cdef inline float _sigmoid(float x) noexcept nogil:
    if x >= 0:
        return 1.0 / (1.0 + exp(-x))
    cdef float e = exp(x)
    return e / (1.0 + e)


cdef inline double _log1pexp(double x) noexcept nogil:
    """log(1 + e^x) without overflow."""
    if x > 30:
        return x
    return log1p(exp(x))


cdef inline float _row_sum(const float* W, uint64_t n_rows, const uint64_t* feats, int nf) noexcept nogil:
    """Σ W[row of each feature] of a one-class table, in feature order: the sum `score_table` gives
    (bit for bit), without its many-class kernel's per-row lane masks."""
    cdef float total = 0.0
    cdef int j
    for j in range(nf):
        total += W[row_of(feats[j], n_rows)]
    return total


cdef double _train(HashedWeights weights, const uint64_t* a, int n, const unsigned char* gold,
                   float lr, float pos_weight) noexcept nogil:
    """One SGD pass over the gaps 1 .. n − 1 of a document → its summed logistic loss. The update
    is `HashedWeights.update_c`'s, written out for the one class (the same cells, values and
    version count)."""
    cdef uint64_t feats[MAX_FEATS]
    cdef uint64_t n_rows = <uint64_t>weights.n_rows
    cdef uint64_t r
    cdef float score, p, g, delta
    cdef double loss = 0.0
    cdef int i, j, nf
    for i in range(1, n):
        nf = extract(a, n, i, feats)
        score = _row_sum(weights.W, n_rows, feats, nf)
        p = _sigmoid(score)
        if gold[i]:
            g = pos_weight * (1.0 - p)
            loss += pos_weight * _log1pexp(-score)
        else:
            g = -p
            loss += _log1pexp(score)
        if g > 1e-6 or g < -1e-6:
            delta = lr * g
            for j in range(nf):
                r = row_of(feats[j], n_rows)
                weights.W[r] += delta
                weights.U[r] += <float>(weights.time * delta)
            weights.version += nf
        weights.time += 1
        weights.version += 1
    return loss


cdef void _score(const float* table, uint64_t n_rows, const uint64_t* a, int n, float* out) noexcept nogil:
    cdef uint64_t feats[MAX_FEATS]
    cdef int i, nf
    if n:
        out[0] = 0.0
    for i in range(1, n):
        nf = extract(a, n, i, feats)
        out[i] = _row_sum(table, n_rows, feats, nf)


def _check_attrs(attrs):
    a = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
    if a.ndim != 2 or a.shape[1] != N_COLS:
        raise ValueError(f"attrs must have shape (n, {N_COLS}), got {numpy.shape(attrs)}")
    return a


def train_doc(HashedWeights weights not None, attrs, gold, float lr=0.1, float pos_weight=1.0) -> float:
    """One logistic-SGD pass over one document's gaps. attrs: (n, N_COLS) uint64; gold: n bools
    (token i starts a sentence; token 0 is not trained). Returns the summed log loss."""
    a = _check_attrs(attrs)
    cdef int n = a.shape[0]
    g = numpy.ascontiguousarray(gold, dtype=numpy.uint8)
    if g.shape != (n,):
        raise ValueError(f"gold must be {n} bools, got shape {g.shape}")
    if weights.n_classes != 1:
        raise ValueError(f"the boundary model has one score per row, got {weights.n_classes} classes")
    if not (lr > 0 and lr < 1e6) or not (pos_weight > 0 and pos_weight < 1e6):
        raise ValueError(f"lr and pos_weight must be positive and finite, got {lr}, {pos_weight}")
    if weights.using_averages:
        raise RuntimeError("train_doc inside use_averages()")
    if n < 2:
        return 0.0
    cdef const uint64_t[:, ::1] av = a
    cdef const unsigned char[::1] gv = g
    cdef double loss
    with nogil:
        loss = _train(weights, &av[0, 0], n, &gv[0], lr, pos_weight)
    return loss


def score_doc(table, attrs):
    """(n,) float32 log-odds that each token starts a sentence (token 0: 0.0, the caller's to
    set), from a (n_rows, 1) float32 weight table (e.g. `weights.average_table()`). Thread-safe."""
    a = _check_attrs(attrs)
    W = numpy.ascontiguousarray(table, dtype=numpy.float32)
    if W.ndim != 2 or W.shape[1] != 1 or W.shape[0] < 1:
        raise ValueError(f"table must have shape (n_rows, 1), got {W.shape}")
    cdef int n = a.shape[0]
    out = numpy.zeros((n,), dtype=numpy.float32)
    if n == 0:
        return out
    cdef const uint64_t[:, ::1] av = a
    cdef const float[:, ::1] wv = W
    cdef float[::1] ov = out
    with nogil:
        _score(&wv[0, 0], <uint64_t>wv.shape[0], &av[0, 0], n, &ov[0])
    return out


def gap_features(attrs, int i):
    """The feature keys of the gap before token i (1 <= i < n) of an (n, N_COLS) attribute array:
    what `train_doc` and `score_doc` hash into the table's rows, for tests and inspection."""
    a = _check_attrs(attrs)
    cdef int n = a.shape[0]
    if not 1 <= i < n:
        raise ValueError(f"i must be a gap of the {n} tokens (1 <= i < {n}), got {i}")
    out = numpy.zeros((MAX_FEATS,), dtype=numpy.uint64)
    cdef const uint64_t[:, ::1] av = a
    cdef uint64_t[::1] ov = out
    cdef int nf = extract(&av[0, 0], n, i, &ov[0])
    return out[:nf]


N_ATTR_COLS = N_COLS
