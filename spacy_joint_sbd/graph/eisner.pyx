# cython: infer_types=True, binding=True
"""First-order projective Eisner decoding (Eisner 1996) under the punctuation constraints of
Spitkovsky et al. (2011, §2.2), imposed as masks (`constraints.ConstraintMasks`).

Chart positions 0..n: 0 is the root, token ``t`` is at ``t + 1``. ``arc[h, d]`` is the score of
the arc ``h -> d``. The root takes exactly one child. Items (``D = n + 1``):

``CL[s, t]``   complete, head t, covering s..t (t's left half, s = its left end)
``CR[s, t]``   complete, head s, covering s..t (s's right half)
``IL[c, s, t]`` arc t -> s in channel c (the dependent's right half ends at the split point)
``IR[c, s, t]`` arc s -> t in channel c (the dependent's left half starts after the split point)

The masks are read where a dependent's halves are sealed: the arc's split point, the head's
completion, and the root. They enter the chart as data: each complete item is stored unsealed (for
a head still collecting dependents) and in its two sealed forms, with -inf where the masks ban the
seal, so the inner loops read one number more per arc split than the textbook algorithm and
nothing more per completion. Channels (two for loose) and head limits (thread) are explained in
`constraints`. There is one chart loop, `_eisner1`, for every constraint and for unconstrained
decoding: no constraint-specific branch, and one channel is the special case of two in which every
split point falls in the same slot (the textbook decoder the tests compare it with lives in
``tests/graph/reference_eisner.py``; ``bench/eisner_plain.pyx`` times it).
"""
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free

import numpy

from .constraints import ConstraintMasks


cdef bint _has_head_limits(const MasksC* m) noexcept nogil:
    """Whether some head limit depends on the head (thread), rather than allowing or banning
    every head (none, strict, loose, sprawl, tear)."""
    cdef int D = m.D
    cdef int n = D - 1
    cdef int h, p, lim
    for h in range(D):
        for p in range(D):
            lim = m.lim_left[h * D + p]  # heads in [p+1, n]
            if p < lim < n:
                return True
            lim = m.lim_right[h * D + p]  # heads in [1, p-1]
            if 1 < lim < p:
                return True
    return False


cdef inline void _store_left(int s, int h, double v, const MasksC* m, int D, int n, double* CLT,
                             double* CLaT, double* CLc) noexcept nogil:
    """Store h's left half [s..h]: unsealed, sealed for attachment to a head on the left (bits,
    limits that ban every head), sealed for absorption by a head on the right (bits)."""
    cdef bint ok = m.lbits[h * D + s] != 0
    CLT[h * D + s] = v
    CLaT[h * D + s] = v if ok and m.lim_right[h * D + s] > 1 else -INFINITY
    CLc[s * D + h] = v if ok else -INFINITY


cdef inline void _store_right(int h, int t, double v, const MasksC* m, int D, int n, double* CR,
                              double* CRa, double* CRcT) noexcept nogil:
    """Store h's right half [h..t], unsealed and in its two sealed forms (see `_store_left`)."""
    cdef bint ok = m.rbits[h * D + t] != 0
    CR[h * D + t] = v
    CRa[h * D + t] = v if ok and m.lim_left[h * D + t] < n else -INFINITY
    CRcT[t * D + h] = v if ok else -INFINITY


cdef inline int _slot(unsigned char bits) noexcept nogil:
    """Arc-item slot of a channel set: {0} -> 0, {1} -> 1, {0, 1} -> 2 (either). An empty set
    (the seal is banned, the sealed copy is -inf anyway) also maps to 2."""
    return 0 if bits == 1 else (1 if bits == 2 else 2)


cdef double _eisner1(const double* arc, const MasksC* m, bint head_limits,
                         int* heads) noexcept nogil:
    """The chart loop of `eisner1_c`, for one channel or two (loose).

    Every complete item is stored as it is read: unsealed (a head still collecting dependents),
    sealed as an attached dependent's facing half (``CRa``, ``CLaT``: bits and head limits that
    ban every head) and sealed as the half absorbed by a completion (``CLc``, ``CRcT``: bits). A
    seal penalty is thus added once per item. Each arc split falls in channel 0, 1 or both, so arc
    items are kept in three slots (``0``, ``1``, ``2`` = the best of either), and a completion
    reads, for each dependent, the slot that its other half allows. Slots are constant over runs
    of split points (they change at fragment edges; with one channel a run is a whole row), so
    every inner loop runs over such a run with one slot, as tight as a one-slot loop; the two arc
    items of a span share one pass over its split points.
    ``head_limits``: some limit depends on the head (thread), so the arc pass checks limits; the
    others are already folded into the sealed copies.
    """
    cdef int D = m.D
    cdef int n = D - 1
    cdef size_t DD = <size_t>D * D
    cdef const int* LL = m.lim_left
    cdef const int* LR = m.lim_right
    cdef int s, t, r, k, h, c, e, q, a, cr, er, qr
    cdef double v, vl, vr, best, b, vbl, vbr
    cdef double bl[3]
    cdef double br[3]
    cdef int al[3]
    cdef int ar[3]
    cdef const double* x1
    cdef const double* x2
    cdef const double* y1
    cdef const double* y2
    cdef const int* lim
    cdef const int* limr
    cdef double* CR = <double*>malloc(12 * DD * sizeof(double))
    cdef double* CLT = CR + DD
    cdef double* CRa = CR + 2 * DD
    cdef double* CLaT = CR + 3 * DD
    cdef double* CLc = CR + 4 * DD
    cdef double* CRcT = CR + 5 * DD
    cdef double* ILT = CR + 6 * DD  # [3][DD]
    cdef double* IR = CR + 9 * DD  # [3][DD]
    # Slot tables and, for each entry, where its run of equal slots ends (exclusive).
    cdef unsigned char* slots = <unsigned char*>malloc(4 * DD)
    cdef unsigned char* RS = slots  # RS[s*D + r]: left dependent s, right half ends at r
    cdef unsigned char* LS = slots + DD  # LS[t*D + i]: right dependent t, left half starts at i
    cdef unsigned char* LST = slots + 2 * DD  # LST[s*D + r]: dependent r, left half starts at s
    cdef unsigned char* RST = slots + 3 * DD  # RST[t*D + r]: dependent r, right half ends at t
    cdef int* runs = <int*>malloc(4 * DD * sizeof(int))
    cdef int* bp = <int*>malloc(10 * DD * sizeof(int))
    cdef int* bCL = bp
    cdef int* cCL = bp + DD
    cdef int* bCR = bp + 2 * DD
    cdef int* cCR = bp + 3 * DD
    cdef int* bIL = bp + 4 * DD  # [3][DD]
    cdef int* bIR = bp + 7 * DD  # [3][DD]
    cdef size_t x
    # A word that uses one channel only ("single": all its arc-item slots hold the same values,
    # see below) may be read in any slot; so may a banned seal (its sealed copy is -inf). Such
    # entries take their left neighbour's slot, which keeps runs long.
    cdef unsigned char bits
    cdef unsigned char* single = <unsigned char*>malloc(D)
    for s in range(D):
        bits = 0
        for r in range(D):
            bits |= m.lbits[s * D + r] | m.rbits[s * D + r]
        single[s] = bits != 3
    for s in range(D):
        for r in range(D):
            bits = m.rbits[s * D + r]
            RS[s * D + r] = _slot(bits) if (bits and not single[s]) or r == 0 else RS[s * D + r - 1]
            bits = m.lbits[s * D + r]
            LS[s * D + r] = _slot(bits) if (bits and not single[s]) or r == 0 else LS[s * D + r - 1]
            bits = m.lbits[r * D + s]
            LST[s * D + r] = _slot(bits) if (bits and not single[r]) or r == 0 else LST[s * D + r - 1]
            bits = m.rbits[r * D + s]
            RST[s * D + r] = _slot(bits) if (bits and not single[r]) or r == 0 else RST[s * D + r - 1]
    for k in range(4):
        for s in range(D):
            x = k * DD + s * D
            runs[x + D - 1] = D
            for r in range(D - 2, -1, -1):
                runs[x + r] = runs[x + r + 1] if slots[x + r] == slots[x + r + 1] else r + 1
    for x in range(12 * DD):
        CR[x] = -INFINITY
    for s in range(D):
        _store_left(s, s, 0.0, m, D, n, CLT, CLaT, CLc)
        _store_right(s, s, 0.0, m, D, n, CR, CRa, CRcT)
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            for c in range(3):
                bl[c] = -INFINITY
                br[c] = -INFINITY
                al[c] = -1
                ar[c] = -1
            # Arc items t -> s and s -> t in one pass over the split points r, in runs over which
            # the slot of s's right half ending at r (left arc) and the slot of t's left half
            # starting at r + 1 (right arc) are both constant (one run with one channel).
            x1 = CRa + s * D
            x2 = CLT + t * D + 1
            y1 = CR + s * D
            y2 = CLaT + t * D + 1
            lim = LL + s * D
            limr = LR + t * D + 1
            r = s
            while r < t:
                c = RS[s * D + r]
                cr = LS[t * D + r + 1]
                e = runs[s * D + r]
                er = runs[DD + t * D + r + 1] - 1
                if er < e:
                    e = er
                if e > t:
                    e = t
                vbl = bl[c]
                q = al[c]
                vbr = br[cr]
                qr = ar[cr]
                if head_limits:
                    for a in range(r, e):
                        vl = x1[a] + x2[a]
                        vr = y1[a] + y2[a]
                        if vl > vbl and t > lim[a]:
                            vbl = vl
                            q = a
                        if vr > vbr and s < limr[a]:
                            vbr = vr
                            qr = a
                else:
                    for a in range(r, e):
                        vl = x1[a] + x2[a]
                        vr = y1[a] + y2[a]
                        if vl > vbl:
                            vbl = vl
                            q = a
                        if vr > vbr:
                            vbr = vr
                            qr = a
                bl[c] = vbl
                al[c] = q
                br[cr] = vbr
                ar[cr] = qr
                r = e
            # Slots 0 and 1 also take the splits valid in either channel; slot 2: best of all.
            for c in range(2):
                if bl[2] > bl[c]:
                    bl[c] = bl[2]
                    al[c] = al[2]
                if br[2] > br[c]:
                    br[c] = br[2]
                    ar[c] = ar[2]
            for c in range(2):
                if bl[c] > bl[2]:
                    bl[2] = bl[c]
                    al[2] = al[c]
                if br[c] > br[2]:
                    br[2] = br[c]
                    ar[2] = ar[c]
            if single[s]:  # one channel: every slot holds the best
                for c in range(2):
                    bl[c] = bl[2]
                    al[c] = al[2]
            if single[t]:
                for c in range(2):
                    br[c] = br[2]
                    ar[c] = ar[2]
            for c in range(3):
                ILT[c * DD + t * D + s] = bl[c] + arc[t * D + s]
                IR[c * DD + s * D + t] = br[c] + arc[s * D + t]
                bIL[c * DD + s * D + t] = al[c]
                bIR[c * DD + s * D + t] = ar[c]
            # CL[s, t]: runs of dependents r whose left half [s..r] allows one slot.
            b = -INFINITY
            q = -1
            h = 0
            r = s
            while r < t:
                c = LST[s * D + r]
                e = runs[2 * DD + s * D + r]
                if e > t:
                    e = t
                x1 = CLc + s * D
                x2 = ILT + c * DD + t * D
                for a in range(r, e):
                    v = x1[a] + x2[a]
                    if v > b:
                        b = v
                        q = a
                        h = c
                r = e
            bCL[s * D + t] = q
            cCL[s * D + t] = h
            _store_left(s, t, b, m, D, n, CLT, CLaT, CLc)
            # CR[s, t]: runs of dependents r whose right half [r..t] allows one slot.
            b = -INFINITY
            q = -1
            h = 0
            r = s + 1
            while r <= t:
                c = RST[t * D + r]
                e = runs[3 * DD + t * D + r]
                if e > t + 1:
                    e = t + 1
                x1 = IR + c * DD + s * D
                x2 = CRcT + t * D
                for a in range(r, e):
                    v = x1[a] + x2[a]
                    if v > b:
                        b = v
                        q = a
                        h = c
                r = e
            bCR[s * D + t] = q
            cCR[s * D + t] = h
            _store_right(s, t, b, m, D, n, CR, CRa, CRcT)
    best = -INFINITY
    cdef int root_child = -1
    for h in range(1, n + 1):
        if (m.lbits[h * D + 1] & m.rbits[h * D + n]) == 0 or LR[h * D + 1] <= 0:
            continue
        v = arc[h] + CLT[h * D + 1] + CR[h * D + n]
        if v > best:
            best = v
            root_child = h
    if root_child > 0:
        _backtrack1(root_child, n, D, bCL, cCL, bCR, cCR, bIL, bIR, heads)
    free(CR)
    free(slots)
    free(single)
    free(runs)
    free(bp)
    return best


cdef double eisner1_c(const double* arc, const MasksC* m, int* heads) noexcept nogil:
    """Fill ``heads[1..n]`` with chart positions; return the best score (-inf: no tree)."""
    if m.D <= 1:
        return 0.0
    return _eisner1(arc, m, _has_head_limits(m), heads)


cdef void _backtrack1(int root_child, int n, int D, const int* bCL, const int* cCL,
                      const int* bCR, const int* cCR, const int* bIL, const int* bIR,
                      int* heads) noexcept nogil:
    # Stack of (kind, channel, s, t); kinds: 0 CL, 1 CR, 2 IL, 3 IR.
    cdef size_t DD = <size_t>D * D
    cdef int cap = 4 * (4 * D + 8)
    cdef int* st = <int*>malloc(cap * sizeof(int))
    cdef int top = 0
    cdef int kind, c, s, t, r
    heads[root_child] = 0
    st[0] = 0; st[1] = 0; st[2] = 1; st[3] = root_child
    st[4] = 1; st[5] = 0; st[6] = root_child; st[7] = n
    top = 8
    while top > 0:
        top -= 4
        kind = st[top]; c = st[top + 1]; s = st[top + 2]; t = st[top + 3]
        if s >= t and kind < 2:
            continue
        if kind == 0:
            r = bCL[s * D + t]
            heads[r] = t
            st[top] = 0; st[top + 1] = 0; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 2; st[top + 5] = cCL[s * D + t]; st[top + 6] = r; st[top + 7] = t
            top += 8
        elif kind == 1:
            r = bCR[s * D + t]
            heads[r] = s
            st[top] = 3; st[top + 1] = cCR[s * D + t]; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 1; st[top + 5] = 0; st[top + 6] = r; st[top + 7] = t
            top += 8
        else:
            r = (bIL if kind == 2 else bIR)[c * DD + s * D + t]
            st[top] = 1; st[top + 1] = 0; st[top + 2] = s; st[top + 3] = r
            st[top + 4] = 0; st[top + 5] = 0; st[top + 6] = r + 1; st[top + 7] = t
            top += 8
    free(st)


cdef class _MaskView:
    """Keeps the numpy arrays of a `ConstraintMasks` alive while C code reads them."""

    def __init__(self, masks, int n):
        if masks is None:
            masks = ConstraintMasks(n)
        if masks.n != n:
            raise ValueError(f"masks are for {masks.n} tokens, scores for {n}")
        if masks.n_channels not in (1, 2):
            raise ValueError(f"n_channels must be 1 or 2, got {masks.n_channels}")
        arrs = {}
        for name, dtype in (("lbits", numpy.uint8), ("rbits", numpy.uint8),
                            ("lim_left", numpy.int32), ("lim_right", numpy.int32)):
            # Every array is read at (n+1)^2 positions in nogil loops: check the shape here (the
            # attributes of a ConstraintMasks are plain and writable).
            a = numpy.asarray(getattr(masks, name))
            if a.shape != (n + 1, n + 1):
                raise ValueError(f"masks.{name} must have shape {(n + 1, n + 1)} for {n} tokens, "
                                 f"got {a.shape}")
            if a.dtype != dtype and not numpy.can_cast(a.dtype, dtype, casting="same_kind"):
                raise ValueError(f"masks.{name} must be {numpy.dtype(dtype).name}, got {a.dtype}")
            arrs[name] = numpy.ascontiguousarray(a, dtype=dtype)
        self.lbits = arrs["lbits"]
        self.rbits = arrs["rbits"]
        self.lim_left = arrs["lim_left"]
        self.lim_right = arrs["lim_right"]
        self.c.D = n + 1
        self.c.K = masks.n_channels
        if n > 0:
            self.c.lbits = &self.lbits[0, 0]
            self.c.rbits = &self.rbits[0, 0]
            self.c.lim_left = &self.lim_left[0, 0]
            self.c.lim_right = &self.lim_right[0, 0]


def _check_square(scores, extra_dims=0):
    arr = numpy.ascontiguousarray(scores, dtype=numpy.float64)
    if arr.ndim != 2 + extra_dims or any(d != arr.shape[0] for d in arr.shape) or arr.shape[0] < 1:
        raise ValueError(f"scores must be a non-empty (n+1){' x (n+1)' * (1 + extra_dims)} array, "
                         f"got shape {arr.shape}")
    if not numpy.isfinite(arr).all():
        raise ValueError("scores must be finite (use masks to forbid structures)")
    return arr


def to_token_heads(const int[::1] chart_heads, int n):
    """Chart heads (positions, 0 = root) -> token heads (-1 = root)."""
    return [chart_heads[p] - 1 for p in range(1, n + 1)]


def eisner(scores, masks=None):
    """Best projective tree under first-order (arc) scores, optionally under constraint masks.

    scores (array[n+1, n+1]): ``scores[h, d]`` scores the arc h -> d over chart positions
        (0 = root, token t at t + 1). Column 0 and the diagonal are ignored.
    masks (ConstraintMasks): From `constraints.build_masks`; None for unconstrained decoding.
    RETURNS (Tuple[Optional[List[int]], float]): Token heads (-1 for the root) and the tree's score;
        ``(None, -inf)`` when no projective tree satisfies the masks.
    """
    cdef const double[:, ::1] arc = _check_square(scores)
    n = arc.shape[0] - 1
    if n == 0:
        return [], 0.0
    cdef _MaskView mv = _MaskView(masks, n)
    cdef int[::1] heads = numpy.full(n + 1, -1, dtype=numpy.int32)
    cdef double score
    with nogil:
        score = eisner1_c(&arc[0, 0], &mv.c, &heads[0])
    if score == -INFINITY:
        return None, score
    return to_token_heads(heads, n), score
