# cython: infer_types=True, binding=True
"""Second-order (adjacent sibling) projective Eisner decoding (McDonald and Pereira 2006) under the
punctuation constraints of Spitkovsky et al. (2011, §2.2), reading the same masks as the
first-order decoder: one chart loop for every constraint and for unconstrained decoding.

Scores over chart positions (0 = root, token t at t + 1): ``arc[h, m]`` and ``sib[h, s, m]``, the
score of ``m`` being the next child of ``h`` after ``s`` on the same side (``s == h``: ``m`` is
the child closest to ``h``). Items (``D = n + 1``):

``CL``, ``CR``        complete halves, as in first order
``IR[b, h, m]``       arc h -> m (h < m), m's left half sealed, in channel b
``IL[a, m, h]``       arc h -> m (m < h), m's right half sealed, in channel a
``S*[a*K+b, s, t]``   sibling item: s's right half ``[s..r]`` and t's left half ``[r+1..t]``, sealed
                      in channels a (for s) and b (for t). Four tables: used on the right of a
                      head (``SR``: t is the new dependent) or on its left (``SL``: s is the new
                      dependent), each *free* (its splits are legal for any head) or *restricted*
                      (legal only if the head passes the item's limit, checked when the sibling
                      item joins an arc item and the head is known).

See `constraints` for what the channels and head limits encode.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free

import numpy

from .eisner cimport MasksC, _MaskView
from .eisner import _check_square, to_token_heads

DEF MAXK = 2

FREE_CHART_MAX_N = 250
"""`eisner2(masks=None)` uses the free chart up to this many tokens (its transposed sibling table:
(n+1)^3 doubles, 126 MB at 250)."""


cdef inline void _fill(double* x, size_t size) noexcept nogil:
    cdef size_t i
    for i in range(size):
        x[i] = -INFINITY


cdef double eisner2_c(const double* arc, const double* sib, const MasksC* m, int* heads) noexcept nogil:
    """Fill ``heads[1..n]`` with chart positions; return the best score (-inf: no tree)."""
    cdef int D = m.D
    cdef int n = D - 1
    cdef int K = m.K
    cdef int KK = K * K
    cdef size_t DD = <size_t>D * D
    cdef int s, t, r, k, c, a, b, q, h, ra, lb, lr, ll, bb
    cdef double v, cl, best, iq, vf
    cdef double bestc[MAXK]
    cdef int w
    cdef bint restricted
    if n <= 0:
        return 0.0
    cdef double* CL = <double*>malloc(DD * sizeof(double))
    cdef double* CR = <double*>malloc(DD * sizeof(double))
    cdef double* IL = <double*>malloc(K * DD * sizeof(double))
    cdef double* IR = <double*>malloc(K * DD * sizeof(double))
    cdef double* S = <double*>malloc(4 * KK * DD * sizeof(double))
    cdef double* SRf = S
    cdef double* SRr = S + KK * DD
    cdef double* SLf = S + 2 * KK * DD
    cdef double* SLr = S + 3 * KK * DD
    cdef int* lims = <int*>malloc(2 * DD * sizeof(int))
    cdef int* SRlim = lims
    cdef int* SLlim = lims + DD
    cdef int* bS = <int*>malloc(4 * KK * DD * sizeof(int))
    cdef int* bp = <int*>malloc((4 + 6 * K) * DD * sizeof(int))
    cdef int* bCL = bp
    cdef int* cCL = bp + DD
    cdef int* bCR = bp + 2 * DD
    cdef int* cCR = bp + 3 * DD
    cdef int* bIs = bp + 4 * DD  # [2][K][DD]: IL then IR: sibling
    cdef int* bIc = bp + (4 + 2 * K) * DD  # the sibling item's other channel
    cdef int* bIw = bp + (4 + 4 * K) * DD  # 0 free, 1 restricted
    cdef size_t x
    # Channels each position can use at all (loose: one for words in no multi-word fragment).
    cdef unsigned char* cset = <unsigned char*>malloc(D * sizeof(unsigned char))
    for s in range(D):
        cset[s] = 0
        for t in range(D):
            cset[s] |= m.lbits[s * D + t] | m.rbits[s * D + t]
    _fill(CL, DD)
    _fill(CR, DD)
    _fill(IL, K * DD)
    _fill(IR, K * DD)
    _fill(S, 4 * KK * DD)
    # Head limits of the restricted sibling items; the initial values mean "no such item".
    for x in range(DD):
        SRlim[x] = -1
        SLlim[x] = D + 1
    for s in range(D):
        CL[s * D + s] = 0.0
        CR[s * D + s] = 0.0
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            # Sibling items: the split r seals s's right half and t's left half.
            for r in range(s, t):
                v = CR[s * D + r] + CL[(r + 1) * D + t]
                if v == -INFINITY:
                    continue
                ra = m.rbits[s * D + r]
                lb = m.lbits[t * D + r + 1]
                lr = m.lim_right[t * D + r + 1]  # t a right dependent of h < s: needs h < lr
                ll = m.lim_left[s * D + r]  # s a left dependent of h > t: needs h > ll
                if lr < s and (SRlim[s * D + t] < 0 or lr < SRlim[s * D + t]):
                    SRlim[s * D + t] = lr
                if ll > t and (SLlim[s * D + t] > D or ll > SLlim[s * D + t]):
                    SLlim[s * D + t] = ll
                for a in range(K):
                    if not (ra >> a) & 1:
                        continue
                    for b in range(K):
                        if not (lb >> b) & 1:
                            continue
                        x = (a * K + b) * DD + s * D + t
                        if lr >= s:
                            if v > SRf[x]:
                                SRf[x] = v
                                bS[x] = r
                        elif v > SRr[x]:
                            SRr[x] = v
                            bS[KK * DD + x] = r
                        if ll <= t:
                            if v > SLf[x]:
                                SLf[x] = v
                                bS[2 * KK * DD + x] = r
                        elif v > SLr[x]:
                            SLr[x] = v
                            bS[3 * KK * DD + x] = r
            # IR[b, s, t]: arc s -> t after sibling q (or first child).
            bb = m.lbits[t * D + s + 1] if s < m.lim_right[t * D + s + 1] else 0
            for b in range(K):
                bestc[b] = -INFINITY
                if (bb >> b) & 1:
                    bestc[b] = CL[(s + 1) * D + t] + sib[(<size_t>s * D + s) * D + t]
                    bIs[K * DD + b * DD + s * D + t] = s
            for q in range(s + 1, t):
                restricted = s < SRlim[q * D + t]
                for a in range(K):
                    iq = IR[a * DD + s * D + q]
                    if iq == -INFINITY:
                        continue
                    iq = iq + sib[(<size_t>s * D + q) * D + t]
                    for b in range(K):
                        if not (cset[t] >> b) & 1:
                            continue
                        x = (a * K + b) * DD + q * D + t
                        vf = iq + SRf[x]
                        w = 0
                        if restricted and iq + SRr[x] > vf:
                            vf = iq + SRr[x]
                            w = 1
                        if vf > bestc[b]:
                            bestc[b] = vf
                            x = K * DD + b * DD + s * D + t
                            bIs[x] = q
                            bIc[x] = a
                            bIw[x] = w
            for b in range(K):
                IR[b * DD + s * D + t] = bestc[b] + arc[s * D + t]
            # IL[a, s, t]: arc t -> s after the closer sibling q (or first child).
            bb = m.rbits[s * D + t - 1] if t > m.lim_left[s * D + t - 1] else 0
            for a in range(K):
                bestc[a] = -INFINITY
                if (bb >> a) & 1:
                    bestc[a] = CR[s * D + t - 1] + sib[(<size_t>t * D + t) * D + s]
                    bIs[a * DD + s * D + t] = t
            for q in range(s + 1, t):
                restricted = t > SLlim[s * D + q]
                for b in range(K):
                    iq = IL[b * DD + q * D + t]
                    if iq == -INFINITY:
                        continue
                    iq = iq + sib[(<size_t>t * D + q) * D + s]
                    for a in range(K):
                        if not (cset[s] >> a) & 1:
                            continue
                        x = (a * K + b) * DD + s * D + q
                        vf = iq + SLf[x]
                        w = 0
                        if restricted and iq + SLr[x] > vf:
                            vf = iq + SLr[x]
                            w = 1
                        if vf > bestc[a]:
                            bestc[a] = vf
                            x = a * DD + s * D + t
                            bIs[x] = q
                            bIc[x] = b
                            bIw[x] = w
            for a in range(K):
                IL[a * DD + s * D + t] = bestc[a] + arc[t * D + s]
            # Complete items, as in first order.
            best = -INFINITY
            for r in range(s, t):
                cl = CL[s * D + r]
                if cl == -INFINITY:
                    continue
                b = m.lbits[r * D + s]
                for c in range(K):
                    if (b >> c) & 1:
                        v = cl + IL[c * DD + r * D + t]
                        if v > best:
                            best = v
                            bCL[s * D + t] = r
                            cCL[s * D + t] = c
            CL[s * D + t] = best
            best = -INFINITY
            for r in range(s + 1, t + 1):
                cl = CR[r * D + t]
                if cl == -INFINITY:
                    continue
                b = m.rbits[r * D + t]
                for c in range(K):
                    if (b >> c) & 1:
                        v = cl + IR[c * DD + s * D + r]
                        if v > best:
                            best = v
                            bCR[s * D + t] = r
                            cCR[s * D + t] = c
            CR[s * D + t] = best
    best = -INFINITY
    cdef int root_child = -1
    for h in range(1, n + 1):
        b = (m.lbits[h * D + 1] & m.rbits[h * D + n]) if 0 < m.lim_right[h * D + 1] else 0
        if b == 0:
            continue
        v = arc[h] + sib[h] + CL[D + h] + CR[h * D + n]
        if v > best:
            best = v
            root_child = h
    if root_child > 0:
        _backtrack2(root_child, n, D, K, bCL, cCL, bCR, cCR, bIs, bIc, bIw, bS, heads)
    free(cset)
    free(CL)
    free(CR)
    free(IL)
    free(IR)
    free(S)
    free(lims)
    free(bS)
    free(bp)
    return best



cdef void swap_sib_axes(const double* sib, double* sibT, int D) noexcept nogil:
    """``sibT[h, m, s] = sib[h, s, m]`` over (D, D, D) tables: `eisner2_free_c`'s layout, in
    square blocks so that both sides stay in cache."""
    cdef size_t DD = <size_t>D * D
    cdef int h, s0, m0, s, m, s1, m1
    cdef const double* src
    cdef double* dst
    for h in range(D):
        src = sib + h * DD
        dst = sibT + h * DD
        for s0 in range(0, D, 32):
            s1 = s0 + 32 if s0 + 32 < D else D
            for m0 in range(0, D, 32):
                m1 = m0 + 32 if m0 + 32 < D else D
                for s in range(s0, s1):
                    for m in range(m0, m1):
                        dst[<size_t>m * D + s] = src[<size_t>s * D + m]


cdef inline int _best_pair(const double* a, const double* b, int lo, int hi, int bq,
                           double* best) noexcept nogil:
    """max over lo <= r < hi of a[r] + b[r] into `best` (from -inf); returns the first argmax,
    or `bq` if nothing beats -inf."""
    cdef int r
    cdef double v
    best[0] = -INFINITY
    for r in range(lo, hi):
        v = a[r] + b[r]
        if v > best[0]:
            best[0] = v
            bq = r
    return bq


cdef inline int _best_triple(const double* a, const double* b, const double* c, int lo, int hi,
                             int bq, double* best) noexcept nogil:
    """max of `best` (the first-child candidate, index `bq`) and a[q] + b[q] + c[q] over
    lo <= q < hi, summed in that order; returns the first argmax."""
    cdef int q
    cdef double v
    for q in range(lo, hi):
        v = a[q] + b[q] + c[q]
        if v > best[0]:
            best[0] = v
            bq = q
    return bq


cdef int eisner2_free_c(const double* arc, const double* sibT, int D, int* heads,
                        double* score) noexcept nogil:
    """`eisner2_c` without constraints: the same items, sums and tie-breaking (first best in the
    same loop order, so the same tree and score), with no channels, head limits or masks, and
    every table kept in both orientations so that each inner loop reads memory in order.
    ``sibT[(h * D + m) * D + s]`` is ``sib[h, s, m]`` (the last two axes swapped). Writes the best
    score (-inf: no tree, when the scores' sums overflow) to ``score``; returns 0, or -1 (heads
    and score untouched) if the tables cannot be allocated."""
    cdef int n = D - 1
    cdef size_t DD = <size_t>D * D
    cdef int s, t, k, h
    cdef double v, best
    cdef const double* sb
    if n <= 0:
        score[0] = 0.0
        return 0
    # Row tables X[s * D + t] and column tables XT[t * D + s] of the same item.
    cdef double* tab = <double*>malloc(8 * DD * sizeof(double))
    cdef int* bp = <int*>malloc(5 * DD * sizeof(int))
    cdef int* stack = <int*>malloc(3 * (8 * D + 16) * sizeof(int))  # the backtrack's
    if tab == NULL or bp == NULL or stack == NULL:
        free(tab)
        free(bp)
        free(stack)
        return -1
    cdef double* CL = tab
    cdef double* CLT = tab + DD
    cdef double* CR = tab + 2 * DD
    cdef double* CRT = tab + 3 * DD
    cdef double* S = tab + 4 * DD  # sibling item: s's right half [s..r], t's left half [r+1..t]
    cdef double* ST = tab + 5 * DD
    cdef double* IR = tab + 6 * DD  # IR[s * D + t]: arc s -> t
    cdef double* ILT = tab + 7 * DD  # ILT[t * D + s]: arc t -> s
    cdef int* bS = bp
    cdef int* bIR = bp + DD
    cdef int* bIL = bp + 2 * DD
    cdef int* bCL = bp + 3 * DD
    cdef int* bCR = bp + 4 * DD
    _fill(tab, 8 * DD)
    for s in range(D):
        CL[s * D + s] = 0.0
        CLT[s * D + s] = 0.0
        CR[s * D + s] = 0.0
        CRT[s * D + s] = 0.0
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            # S[s, t] = max_r CR[s, r] + CL[r + 1, t]
            bS[s * D + t] = _best_pair(CR + s * D, CLT + t * D + 1, s, t, s, &best)
            S[s * D + t] = best
            ST[t * D + s] = best
            # IR[s, t]: s -> t after sibling q (q == s: t is s's first right child).
            sb = sibT + (<size_t>s * D + t) * D
            best = CL[(s + 1) * D + t] + sb[s]
            bIR[s * D + t] = _best_triple(IR + s * D, sb, ST + t * D, s + 1, t, s, &best)
            IR[s * D + t] = best + arc[s * D + t]
            # IL[s, t]: t -> s after the closer sibling q (q == t: s is t's first left child).
            sb = sibT + (<size_t>t * D + s) * D
            best = CR[s * D + t - 1] + sb[t]
            bIL[s * D + t] = _best_triple(ILT + t * D, sb, S + s * D, s + 1, t, t, &best)
            ILT[t * D + s] = best + arc[t * D + s]
            # CL[s, t] = max_r CL[s, r] + IL[r, t]
            bCL[s * D + t] = _best_pair(CL + s * D, ILT + t * D, s, t, s, &best)
            CL[s * D + t] = best
            CLT[t * D + s] = best
            # CR[s, t] = max_r IR[s, r] + CR[r, t]
            bCR[s * D + t] = _best_pair(IR + s * D, CRT + t * D, s + 1, t + 1, t, &best)
            CR[s * D + t] = best
            CRT[t * D + s] = best
    best = -INFINITY
    cdef int root_child = -1
    for h in range(1, n + 1):
        v = arc[h] + sibT[h * D] + CL[D + h] + CR[h * D + n]
        if v > best:
            best = v
            root_child = h
    if root_child > 0:
        _backtrack_free(root_child, n, D, bS, bIR, bIL, bCL, bCR, heads, stack)
    free(tab)
    free(bp)
    free(stack)
    score[0] = best
    return 0


cdef void _backtrack_free(int root_child, int n, int D, const int* bS, const int* bIR,
                          const int* bIL, const int* bCL, const int* bCR, int* heads,
                          int* st) noexcept nogil:
    # Stack st (3 * (8 * D + 16) ints) of (kind, s, t); kinds: 0 CL, 1 CR, 2 IL, 3 IR, 4 sibling.
    cdef int top = 6
    cdef int kind, s, t, r, q
    heads[root_child] = 0
    st[0] = 0; st[1] = 1; st[2] = root_child
    st[3] = 1; st[4] = root_child; st[5] = n
    while top > 0:
        top -= 3
        kind = st[top]; s = st[top + 1]; t = st[top + 2]
        if kind == 0:
            if s == t:
                continue
            r = bCL[s * D + t]
            st[top] = 0; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 2; st[top + 4] = r; st[top + 5] = t
            top += 6
        elif kind == 1:
            if s == t:
                continue
            r = bCR[s * D + t]
            st[top] = 3; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 1; st[top + 4] = r; st[top + 5] = t
            top += 6
        elif kind == 2:  # IL: t -> s
            heads[s] = t
            q = bIL[s * D + t]
            if q == t:
                st[top] = 1; st[top + 1] = s; st[top + 2] = t - 1
                top += 3
            else:
                st[top] = 4; st[top + 1] = s; st[top + 2] = q
                st[top + 3] = 2; st[top + 4] = q; st[top + 5] = t
                top += 6
        elif kind == 3:  # IR: s -> t
            heads[t] = s
            q = bIR[s * D + t]
            if q == s:
                st[top] = 0; st[top + 1] = s + 1; st[top + 2] = t
                top += 3
            else:
                st[top] = 3; st[top + 1] = s; st[top + 2] = q
                st[top + 3] = 4; st[top + 4] = q; st[top + 5] = t
                top += 6
        else:
            r = bS[s * D + t]
            st[top] = 1; st[top + 1] = s; st[top + 2] = r
            st[top + 3] = 0; st[top + 4] = r + 1; st[top + 5] = t
            top += 6

cdef void _backtrack2(int root_child, int n, int D, int K, const int* bCL, const int* cCL,
                      const int* bCR, const int* cCR, const int* bIs, const int* bIc,
                      const int* bIw, const int* bS, int* heads) noexcept nogil:
    # Stack of (kind, channel, s, t); kinds: 0 CL, 1 CR, 2 IL, 3 IR, 4 + table: sibling items.
    cdef size_t DD = <size_t>D * D
    cdef int KK = K * K
    cdef int cap = 4 * (8 * D + 16)
    cdef int* st = <int*>malloc(cap * sizeof(int))
    cdef int top = 8
    cdef int kind, c, s, t, r, q, o, w
    cdef size_t x
    heads[root_child] = 0
    st[0] = 0; st[1] = 0; st[2] = 1; st[3] = root_child
    st[4] = 1; st[5] = 0; st[6] = root_child; st[7] = n
    while top > 0:
        top -= 4
        kind = st[top]; c = st[top + 1]; s = st[top + 2]; t = st[top + 3]
        if kind == 0:
            if s == t:
                continue
            r = bCL[s * D + t]
            st[top] = 0; st[top + 1] = 0; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 2; st[top + 5] = cCL[s * D + t]; st[top + 6] = r; st[top + 7] = t
            top += 8
        elif kind == 1:
            if s == t:
                continue
            r = bCR[s * D + t]
            st[top] = 3; st[top + 1] = cCR[s * D + t]; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 1; st[top + 5] = 0; st[top + 6] = r; st[top + 7] = t
            top += 8
        elif kind == 2:  # IL[c, s, t]: t -> s
            heads[s] = t
            x = c * DD + s * D + t
            q = bIs[x]
            if q == t:
                st[top] = 1; st[top + 1] = 0; st[top + 2] = s; st[top + 3] = t - 1
                top += 4
            else:
                o = bIc[x]
                w = bIw[x]
                st[top] = 6 + w; st[top + 1] = c * K + o; st[top + 2] = s; st[top + 3] = q
                st[top + 4] = 2; st[top + 5] = o; st[top + 6] = q; st[top + 7] = t
                top += 8
        elif kind == 3:  # IR[c, s, t]: s -> t
            heads[t] = s
            x = K * DD + c * DD + s * D + t
            q = bIs[x]
            if q == s:
                st[top] = 0; st[top + 1] = 0; st[top + 2] = s + 1; st[top + 3] = t
                top += 4
            else:
                o = bIc[x]
                w = bIw[x]
                st[top] = 3; st[top + 1] = o; st[top + 2] = s; st[top + 3] = q
                st[top + 4] = 4 + w; st[top + 5] = o * K + c; st[top + 6] = q; st[top + 7] = t
                top += 8
        else:  # sibling item of table kind - 4, channel pair c
            r = bS[((kind - 4) * KK + c) * DD + s * D + t]
            st[top] = 1; st[top + 1] = 0; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 0; st[top + 5] = 0; st[top + 6] = r + 1; st[top + 7] = t
            top += 8
    free(st)


def swapped_sib(const double[:, :, ::1] sib):
    """A new (D, D, D) float64 array ``sibT[h, m, s] = sib[h, s, m]``: `eisner2_free_c`'s layout."""
    cdef Py_ssize_t D = sib.shape[0]
    if sib.shape[1] != D or sib.shape[2] != D:
        raise ValueError(f"sibling scores must be (D, D, D), got ({D}, {sib.shape[1]}, {sib.shape[2]})")
    out = numpy.empty((D, D, D), dtype=numpy.float64)
    cdef double[:, :, ::1] dst = out
    if D:
        with nogil:
            swap_sib_axes(&sib[0, 0, 0], &dst[0, 0, 0], <int>D)
    return out


def eisner2(arc_scores, sib_scores, masks=None):
    """Best projective tree under arc + adjacent-sibling scores, optionally under constraint masks.

    arc_scores (array[n+1, n+1]): ``arc[h, m]`` over chart positions (0 = root).
    sib_scores (array[n+1, n+1, n+1]): ``sib[h, s, m]``: m is h's next child after s on the same
        side (``s == h``: m is the closest child). The root's only child m gets ``sib[0, 0, m]``.
    masks (ConstraintMasks): From `constraints.build_masks`; None for unconstrained decoding,
        by `eisner2_free_c` (the same tree and score as with all-true masks, faster; it copies
        the sibling table transposed, so above `FREE_CHART_MAX_N` tokens, where that copy would
        pass 128 MB, the masked chart decodes instead).
    RETURNS (Tuple[Optional[List[int]], float]): Token heads (-1 for the root) and the tree's score;
        ``(None, -inf)`` when no projective tree satisfies the masks.
    """
    cdef const double[:, ::1] arc = _check_square(arc_scores)
    cdef const double[:, :, ::1] sib = _check_square(sib_scores, extra_dims=1)
    n = arc.shape[0] - 1
    if sib.shape[0] != n + 1:
        raise ValueError(f"sib_scores has shape {sib_scores.shape}, arc_scores {arc_scores.shape}")
    if n == 0:
        return [], 0.0
    cdef int[::1] heads = numpy.full(n + 1, -1, dtype=numpy.int32)
    cdef double score
    cdef const double[:, :, ::1] sibT
    cdef _MaskView mv
    cdef int status
    if masks is None and n <= FREE_CHART_MAX_N:
        sibT = swapped_sib(sib)
        with nogil:
            status = eisner2_free_c(&arc[0, 0], &sibT[0, 0, 0], n + 1, &heads[0], &score)
        if status < 0:
            raise MemoryError(f"no memory for the chart of a {n}-token sentence")
        if score == -INFINITY:
            return None, score
        return to_token_heads(heads, n), score
    mv = _MaskView(masks, n)
    with nogil:
        score = eisner2_c(&arc[0, 0], &sib[0, 0, 0], &mv.c, &heads[0])
    if score == -INFINITY:
        return None, score
    return to_token_heads(heads, n), score
