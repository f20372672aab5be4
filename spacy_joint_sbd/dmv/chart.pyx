# cython: infer_types=True, binding=True
"""Viterbi parsing for the DMV (Klein & Manning 2004) in a split-head O(n^3) chart (Eisner &
Satta 1999), under the punctuation constraints of Spitkovsky et al. (2011, §2.2) as the masks of
`graph.constraints`.

Chart positions 0..n: 0 is the root, word ``t`` (punctuation stripped) is at ``t + 1``. A head's
left and right halves are built independently (the DMV's two directions do not condition on each
other), each generating its dependents inside-out; a half's valence is read off its extent (the
half ``[h..j]`` is *adjacent*, i.e. has no dependent yet, iff ``j == h``). Items (``D = n + 1``):

``UL[h, i]``  h's unsealed left half ``[i..h]`` (h may still take left dependents)
``UR[h, j]``  h's unsealed right half ``[h..j]``
``SL[h, i]``, ``SR[h, j]``  the same halves sealed: plus ``log P(STOP | h, dir, adj)``
``IL[c, d, H]``  left arc ``H -> d``: d's sealed right half ``[d..k]`` + H's unsealed left half
    ``[k+1..H]`` + ``log P(CONT | H, left, adj = k+1 == H) + log P_choose(d | H, left)``
``IR[c, H, d]``  right arc, mirrored

Constraints enter exactly as in `graph.eisner` (see `graph.constraints` for why these masks are
exact): a half may be sealed only where ``lbits``/``rbits`` allow; for loose, an arc item carries
the channel of the half known at attachment time (slot 0, 1, or 2 = either) and the later seal of
the other half must agree; tear/thread limits are checked at attachment. The DMV's seals are the
paper's seals of ``[i, j]_h`` split in two, and its attachments are the paper's attachments, so
strict/loose/sprawl/tear/thread are imposed exactly, in training (Viterbi E-step) and decoding.
The root position takes exactly one child (``log P_root``), whose yield is the whole sentence.

Parameters are log-probabilities over word classes ``0..C-1``: ``root[C]``, ``stop[C, 4]`` and
``cont[C, 4]`` with columns ``(left adj, left non-adj, right adj, right non-adj)``, and
``choose[C, 2, C]`` (``[h, 0, d]``: d is a left dependent of h; ``[h, 1, d]``: right). ``-inf``
is allowed (an unsmoothed model); NaN and ``+inf`` are not.

Sentences are limited to `MAX_WORDS` words: the chart takes about ``120 (n+1)^2`` bytes
(2,000 words: ~0.5 GB), and its int indices would overflow above ~46,000 words.

Thread safety: `viterbi_parse` releases the GIL while filling the chart; it only reads its
arguments, so concurrent calls (on the same `Tables`) are safe as long as nobody mutates the
tables' arrays meanwhile.
"""
from libc.math cimport INFINITY, NAN, isnan
from libc.stdlib cimport malloc, free

import numpy

from ..graph.eisner cimport _MaskView

MAX_WORDS = 2000
"""Longest sentence (in words, punctuation stripped) `viterbi_parse` accepts: the chart needs
~``120 (n+1)^2`` bytes (about 0.5 GB at 2,000 words)."""


cdef inline int _slot(unsigned char bits) noexcept nogil:
    return 0 if bits == 1 else (1 if bits == 2 else 2)


cdef inline void _store_arc(double* I, int* bI, size_t x, size_t DD, double b0, double b1, int q0,
                            int q1, double cst) noexcept nogil:
    """Store one arc item in its three channel slots (0, 1, and 2 = the better of the two),
    with its split points: the same for left (IL) and right (IR) arcs."""
    I[x] = b0 + cst
    I[DD + x] = b1 + cst
    bI[x] = q0
    bI[DD + x] = q1
    if b1 > b0:
        I[2 * DD + x] = b1 + cst
        bI[2 * DD + x] = q1
    else:
        I[2 * DD + x] = b0 + cst
        bI[2 * DD + x] = q0


cdef double dmv_viterbi_c(const int* cls, int n, int C, const double* root, const double* stop,
                          const double* cont, const double* choose, const MasksC* m,
                          int* heads) noexcept nogil:
    """Fill ``heads[1..n]`` with chart positions (0 = root); return the Viterbi log-probability
    (-inf: no tree; NaN: the chart could not be allocated). ``cls[p]`` is the class of chart position ``p`` (``cls[0]`` unused)."""
    cdef int D = n + 1
    cdef size_t DD = <size_t>D * D
    cdef int s, t, k, r, d, c, bq, bc, cls_s, cls_t
    cdef unsigned char bits
    cdef double v, b0, b1, b, cst
    cdef int q0, q1
    cdef double* UL = <double*>malloc(10 * DD * sizeof(double))
    cdef double* UR = UL + DD
    cdef double* SL = UL + 2 * DD
    cdef double* SR = UL + 3 * DD
    cdef double* IL = UL + 4 * DD  # [3][DD], index d*D + H
    cdef double* IR = UL + 7 * DD  # [3][DD], index H*D + d
    cdef int* bp = <int*>malloc(10 * DD * sizeof(int))
    cdef int* bIL = bp  # [3][DD]
    cdef int* bIR = bp + 3 * DD
    cdef int* bUL = bp + 6 * DD
    cdef int* cUL = bp + 7 * DD
    cdef int* bUR = bp + 8 * DD
    cdef int* cUR = bp + 9 * DD
    cdef const unsigned char* LB = m.lbits
    cdef const unsigned char* RB = m.rbits
    cdef const int* LL = m.lim_left
    cdef const int* LR = m.lim_right
    cdef size_t x
    if UL == NULL or bp == NULL:
        free(UL)
        free(bp)
        return NAN  # out of memory: the Python wrapper raises MemoryError
    for x in range(10 * DD):
        UL[x] = -INFINITY
    for s in range(1, D):
        c = cls[s]
        UL[s * D + s] = 0.0
        UR[s * D + s] = 0.0
        SL[s * D + s] = stop[c * 4 + 0] if LB[s * D + s] else -INFINITY
        SR[s * D + s] = stop[c * 4 + 2] if RB[s * D + s] else -INFINITY
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            cls_s = cls[s]
            cls_t = cls[t]
            # Left arc t -> s: s's right half [s..r] sealed, t's left half [r+1..t] unsealed.
            b0 = -INFINITY
            b1 = -INFINITY
            q0 = -1
            q1 = -1
            cst = choose[(cls_t * 2 + 0) * C + cls_s]
            for r in range(s, t):
                bits = RB[s * D + r]
                if not bits or t <= LL[s * D + r]:
                    continue
                v = SR[s * D + r] + UL[t * D + r + 1] + cont[cls_t * 4 + (0 if r + 1 == t else 1)]
                if bits & 1 and v > b0:
                    b0 = v
                    q0 = r
                if bits & 2 and v > b1:
                    b1 = v
                    q1 = r
            _store_arc(IL, bIL, <size_t>s * D + t, DD, b0, b1, q0, q1, cst)
            # Right arc s -> t: s's right half [s..r] unsealed, t's left half [r+1..t] sealed.
            b0 = -INFINITY
            b1 = -INFINITY
            q0 = -1
            q1 = -1
            cst = choose[(cls_s * 2 + 1) * C + cls_t]
            for r in range(s, t):
                bits = LB[t * D + r + 1]
                if not bits or s >= LR[t * D + r + 1]:
                    continue
                v = UR[s * D + r] + SL[t * D + r + 1] + cont[cls_s * 4 + (2 if r == s else 3)]
                if bits & 1 and v > b0:
                    b0 = v
                    q0 = r
                if bits & 2 and v > b1:
                    b1 = v
                    q1 = r
            _store_arc(IR, bIR, <size_t>s * D + t, DD, b0, b1, q0, q1, cst)
            # UL[t, s]: t's outermost left dependent d in [s, t-1], whose left half starts at s.
            b = -INFINITY
            bq = -1
            bc = 0
            for d in range(s, t):
                bits = LB[d * D + s]
                if not bits:
                    continue
                c = _slot(bits)
                v = IL[c * DD + d * D + t] + SL[d * D + s]
                if v > b:
                    b = v
                    bq = d
                    bc = c
            x = <size_t>t * D + s
            UL[x] = b
            bUL[x] = bq
            cUL[x] = bc
            SL[x] = b + stop[cls_t * 4 + 1] if LB[x] else -INFINITY
            # UR[s, t]: s's outermost right dependent d in [s+1, t], whose right half ends at t.
            b = -INFINITY
            bq = -1
            bc = 0
            for d in range(s + 1, t + 1):
                bits = RB[d * D + t]
                if not bits:
                    continue
                c = _slot(bits)
                v = IR[c * DD + s * D + d] + SR[d * D + t]
                if v > b:
                    b = v
                    bq = d
                    bc = c
            x = <size_t>s * D + t
            UR[x] = b
            bUR[x] = bq
            cUR[x] = bc
            SR[x] = b + stop[cls_s * 4 + 3] if RB[x] else -INFINITY
    cdef double best = -INFINITY
    cdef int root_child = -1
    for d in range(1, D):
        if (LB[d * D + 1] & RB[d * D + n]) == 0 or LR[d * D + 1] <= 0:
            continue
        v = root[cls[d]] + SL[d * D + 1] + SR[d * D + n]
        if v > best:
            best = v
            root_child = d
    if root_child > 0:
        if not _backtrack(root_child, n, D, bIL, bIR, bUL, cUL, bUR, cUR, heads):
            best = NAN  # out of memory for the backtracking stack
    free(UL)
    free(bp)
    return best


cdef bint _backtrack(int root_child, int n, int D, const int* bIL, const int* bIR, const int* bUL,
                     const int* cUL, const int* bUR, const int* cUR, int* heads) noexcept nogil:
    """Fill ``heads`` from the back-pointers; False if the stack could not be allocated."""
    # Stack of (kind, channel, a, b); kinds: 0 UL(h=a, i=b), 1 UR(h=a, j=b), 2 IL(d=a, H=b),
    # 3 IR(H=a, d=b).
    cdef size_t DD = <size_t>D * D
    cdef int cap = 4 * (4 * D + 8)
    cdef int* st = <int*>malloc(cap * sizeof(int))
    cdef int top
    cdef int kind, c, a, b, r
    cdef size_t x
    if st == NULL:
        return False
    heads[root_child] = 0
    st[0] = 0; st[1] = 0; st[2] = root_child; st[3] = 1
    st[4] = 1; st[5] = 0; st[6] = root_child; st[7] = n
    top = 8
    while top > 0:
        top -= 4
        kind = st[top]; c = st[top + 1]; a = st[top + 2]; b = st[top + 3]
        if kind < 2 and a == b:
            continue
        if kind == 0:
            x = <size_t>a * D + b
            r = bUL[x]
            heads[r] = a
            st[top] = 0; st[top + 1] = 0; st[top + 2] = r; st[top + 3] = b
            st[top + 4] = 2; st[top + 5] = cUL[x]; st[top + 6] = r; st[top + 7] = a
        elif kind == 1:
            x = <size_t>a * D + b
            r = bUR[x]
            heads[r] = a
            st[top] = 1; st[top + 1] = 0; st[top + 2] = r; st[top + 3] = b
            st[top + 4] = 3; st[top + 5] = cUR[x]; st[top + 6] = a; st[top + 7] = r
        elif kind == 2:
            r = bIL[c * DD + <size_t>a * D + b]
            st[top] = 1; st[top + 1] = 0; st[top + 2] = a; st[top + 3] = r
            st[top + 4] = 0; st[top + 5] = 0; st[top + 6] = b; st[top + 7] = r + 1
        else:
            r = bIR[c * DD + <size_t>a * D + b]
            st[top] = 1; st[top + 1] = 0; st[top + 2] = a; st[top + 3] = r
            st[top + 4] = 0; st[top + 5] = 0; st[top + 6] = b; st[top + 7] = r + 1
        top += 8
    free(st)
    return True


def _check_table(name, arr, shape):
    a = numpy.ascontiguousarray(arr, dtype=numpy.float64)
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    if numpy.isnan(a).any() or (a == numpy.inf).any():
        raise ValueError(f"{name} holds NaN or +inf (log-probabilities expected)")
    return a


class Tables:
    """Validated, contiguous log-probability tables of a DMV (see the module docstring)."""

    def __init__(self, root, stop, cont, choose):
        root = numpy.asarray(root)
        if root.ndim != 1 or root.shape[0] < 1:
            raise ValueError(f"root must be a non-empty vector, got shape {root.shape}")
        C = root.shape[0]
        self.C = C
        self.root = _check_table("root", root, (C,))
        self.stop = _check_table("stop", stop, (C, 4))
        self.cont = _check_table("cont", cont, (C, 4))
        self.choose = _check_table("choose", choose, (C, 2, C))


def _check_classes(classes, int C):
    cls = numpy.ascontiguousarray(classes, dtype=numpy.int64)
    if cls.ndim != 1:
        raise ValueError(f"classes must be a vector, got shape {cls.shape}")
    if cls.size and (cls.min() < 0 or cls.max() >= C):
        raise ValueError(f"classes must lie in [0, {C}), got range [{cls.min()}, {cls.max()}]")
    out = numpy.zeros(cls.size + 1, dtype=numpy.int32)
    out[1:] = cls
    return out


def viterbi_parse(classes, tables, masks=None):
    """The DMV's Viterbi tree of one sentence (punctuation stripped), optionally under masks.

    classes (Sequence[int]): One class id per word, in ``[0, tables.C)``.
    tables (Tables): The model's log-probabilities.
    masks (ConstraintMasks): From `graph.constraints.build_masks` over the words; None: none.
    RETURNS (Tuple[Optional[List[int]], float]): Word heads (-1 for the root) and the tree's
        log-probability; ``(None, -inf)`` when no tree satisfies the masks (or all have p = 0).
    """
    if not isinstance(tables, Tables):
        raise ValueError(f"tables must be a dmv.chart.Tables, got {type(tables).__name__}")
    # Tables' attributes are plain and writable: re-check everything the C code trusts.
    C = tables.C
    if not isinstance(C, (int, numpy.integer)) or isinstance(C, bool) or C < 1:
        raise ValueError(f"tables.C must be a positive int, got {C!r}")
    for name, shape in (("root", (C,)), ("stop", (C, 4)), ("cont", (C, 4)),
                        ("choose", (C, 2, C))):
        a = getattr(tables, name)
        if not isinstance(a, numpy.ndarray) or a.dtype != numpy.float64 or a.shape != shape \
                or not a.flags.c_contiguous:
            raise ValueError(f"tables.{name} must be a C-contiguous float64 array of shape "
                             f"{shape} (tables.C = {C}), got "
                             f"{getattr(a, 'dtype', type(a).__name__)} {numpy.shape(a)}")
    cdef int[::1] cls = _check_classes(classes, C)
    cdef int n = cls.shape[0] - 1
    if n == 0:
        return [], 0.0
    if n > MAX_WORDS:
        raise ValueError(f"a {n}-word sentence is longer than dmv.chart.MAX_WORDS = {MAX_WORDS} "
                         f"(the chart would need ~{120 * (n + 1) ** 2 / 1e9:.1f} GB)")
    cdef _MaskView mv = _MaskView(masks, n)
    cdef const double[::1] root = tables.root
    cdef const double[:, ::1] stop = tables.stop
    cdef const double[:, ::1] cont = tables.cont
    cdef const double[:, :, ::1] choose = tables.choose
    cdef int[::1] heads = numpy.full(n + 1, -1, dtype=numpy.int32)
    cdef int Cc = C
    cdef double score
    with nogil:
        score = dmv_viterbi_c(&cls[0], n, Cc, &root[0], &stop[0, 0], &cont[0, 0],
                              &choose[0, 0, 0], &mv.c, &heads[0])
    if isnan(score):
        raise MemoryError(f"no memory for the DMV chart of a {n}-word sentence")
    if score == -INFINITY:
        return None, score
    return [heads[p] - 1 for p in range(1, n + 1)], score
