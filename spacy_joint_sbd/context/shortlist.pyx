"""Nearest centroids by an int8 shortlist: the context clusters' search at a fraction of the float work.

Every token of a Doc is compared with every centroid of the context clusters (5,456 of them in the
default pipeline): one float32 matrix product that already ran at the CPU's float peak. Here rows
and centroids are quantized to 8 bits (a scale per row and per centroid), every distance is first
computed approximately from integer dot products (AVX-512 VNNI: four times the multiply-adds of
float32 per instruction), and only the centroids whose
approximate distance is within a proven error bound of the smallest get their exact distance,
in double precision. With x~ = s q and c~ = t p the quantized vectors, Cauchy-Schwarz gives
|x.c - x~.c~| <= ||x|| ||c - c~|| + ||x - x~|| ||c~||, so each approximate distance
||c||^2 - 2 x~.c~ is within twice that of ||c||^2 - 2 x.c, and the nearest centroid is always on
the shortlist. The ids are the float64 argmin; the float32 product's differ only where two
distances tie to float32 rounding (3 of 8.0 million assignments of the default pipeline's training
documents, distances about 1e-6 apart, where the product picked the farther). On GUM dev's tokens the shortlist holds 1-6 centroids of a
set on average.

Two kernels (`kernel()`): AVX-512 VNNI, and AVX2 for CPUs without it (u8 x 7-bit products by
maddubs: twice float32's multiply-adds per instruction, where VNNI has four times); elsewhere
`context.kmeans` keeps the float product. Both rank the shortlist by the same double-precision
sums in the same order, so every CPU gives the same ids.
AMX tile multiplies (written and measured on the Xeon VM that grants them) made the integer
products nearly free but the whole search no faster: the float epilogue of each distance, not the
dot products, is what is left.
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

import numpy

SLACK_RELATIVE = 1e-4
"""The error bound is widened by this fraction, and by `SLACK_FLOAT` of the distances' magnitude,
for the float rounding of the approximate distances and of the centroids' float32 norms (a few
units in the last place)."""
SLACK_FLOAT = 1e-5

KERNELS = ("none", "avx2", "vnni")
CODE_MAX = (127, 63, 127)
"""Each kernel's largest centroid code: AVX2's maddubs sums two u8 x i8 products in int16, which
2 x 255 x 63 fits and 2 x 255 x 127 does not."""
LANES = (16, 8, 16)
"""Centroids side by side in one vector of each kernel's layout."""


def kernel() -> str:
    """The kernel this CPU runs: "vnni" (AVX-512 VNNI), "avx2" (AVX2 with FMA) or "none"."""
    return KERNELS[sjs_sl_level()]


def available() -> bool:
    """Whether this CPU runs a kernel (x86-64 with AVX-512 F, BW and VNNI, or AVX2 and FMA)."""
    return sjs_sl_level() > 0


def _cap_kernel(int level) -> None:
    """Tests: use no kernel above `level` (0 none, 1 avx2, 2 vnni); -1 lifts the cap."""
    sjs_sl_cap(level)


def _quantize(c: numpy.ndarray, top: int = 127):
    """int8 codes (k, d) and float32 scales (k,) of the rows of `c`: q = round(c / s) with
    s = max |c| / top (1 where that is 0), as the kernels quantize their rows (top 127)."""
    s = (numpy.abs(c).max(axis=1) / numpy.float32(top)).astype(numpy.float32)
    s[~(s > 0)] = 1.0  # a zero row, or one whose scale underflows: codes 0, its error all of it
    q = numpy.clip(numpy.rint(c / s[:, None]), -top, top).astype(numpy.int8)
    return q, s


cdef class QuantizedSet:
    """One centroid set in one kernel's layout (`level`: 2 vnni, 1 avx2; by default the CPU's,
    vnni where it has none): codes packed by groups of `LANES` centroids (chunk t of a group: 4
    codes of each of them, one vector), padded to a multiple of
    `SJS_SL_PAD` centroids whose distance is +inf; the float centroids for the shortlist's exact
    distances; the norms and their largest; and the set's error terms max ||c - c~|| and max ||c~||."""

    cdef readonly int k, kpad, d, chunks, level
    cdef readonly double err, size, max_norm
    cdef readonly object pack, bias, scale, norms, cents

    def __init__(self, centroids, norms, level=None):
        level = (sjs_sl_level() or 2) if level is None else level
        if level not in (1, 2):
            raise ValueError(f"QuantizedSet: level must be 1 (avx2) or 2 (vnni), got {level!r}")
        self.level = level
        c = numpy.ascontiguousarray(centroids, dtype=numpy.float32)
        if c.ndim != 2 or len(c) == 0 or c.shape[1] == 0 or not numpy.isfinite(c).all():
            raise ValueError(f"QuantizedSet: need a finite (k >= 1, d >= 1) array, got shape {numpy.shape(centroids)}")
        self.k, self.d = int(c.shape[0]), int(c.shape[1])
        norms = numpy.asarray(norms, dtype=numpy.float32)
        if norms.shape != (self.k,) or not numpy.isfinite(norms).all():
            raise ValueError(f"QuantizedSet: need {self.k} finite squared norms, got shape {norms.shape}")
        self.chunks = (self.d + 3) // 4
        self.kpad = (self.k + SJS_SL_PAD - 1) // SJS_SL_PAD * SJS_SL_PAD
        q, s = _quantize(c, CODE_MAX[self.level])
        approx = q.astype(numpy.float64) * s[:, None].astype(numpy.float64)
        self.err = float(numpy.sqrt(((c.astype(numpy.float64) - approx) ** 2).sum(1)).max())
        self.size = float(numpy.sqrt((approx ** 2).sum(1)).max())
        self.pack = self._packed(q)
        self.bias = numpy.zeros(self.kpad, dtype=numpy.int32)
        self.bias[:self.k] = 128 * q.astype(numpy.int32).sum(1)
        self.scale = numpy.zeros(self.kpad, dtype=numpy.float32)
        self.scale[:self.k] = s
        self.norms = numpy.full(self.kpad, numpy.inf, dtype=numpy.float32)
        self.norms[:self.k] = norms
        self.max_norm = float(norms.max())
        self.cents = c

    def _packed(self, q):
        """Codes (k, d) in the kernel's layout: (groups, lanes, chunks, 4) -> (groups, chunks,
        lanes, 4), a chunk's centroids side by side."""
        lanes = LANES[self.level]
        codes = numpy.zeros((self.kpad, 4 * self.chunks), dtype=numpy.int8)
        codes[:self.k, :self.d] = q
        return numpy.ascontiguousarray(codes.reshape(self.kpad // lanes, lanes, self.chunks, 4).transpose(0, 2, 1, 3)).reshape(-1)


def nearest(x, sets, out) -> None:
    """For each row of the finite float32 (n, d) C-contiguous array `x` and each QuantizedSet of
    `sets` (one d), write the index of its nearest centroid into column j of the int64 (n,
    len(sets)) array `out`, by the sets' kernel. Releases the GIL; needs a CPU that runs it."""
    sets = list(sets)
    if any(not isinstance(s, QuantizedSet) for s in sets):
        raise ValueError("shortlist.nearest: need QuantizedSets")
    cdef int level = sets[0].level if sets else sjs_sl_level()
    if level == 0 or level > sjs_sl_level() or any(s.level != level for s in sets):
        raise RuntimeError(f"shortlist.nearest: this CPU runs the {kernel()!r} kernel, not the sets' "
                           f"{sorted({KERNELS[s.level] for s in sets})} (check available() first)")
    cdef const float[:, ::1] X = numpy.ascontiguousarray(x, dtype=numpy.float32)
    cdef int64_t[:, ::1] o = out
    cdef int64_t n = X.shape[0]
    cdef int d = X.shape[1]
    if o.shape[0] != n or o.shape[1] != len(sets):
        raise ValueError(f"shortlist.nearest: out must be ({n}, {len(sets)}), got {tuple(out.shape)}")
    if any(s.d != d for s in sets):
        raise ValueError(f"shortlist.nearest: need QuantizedSets of width {d}")
    if n == 0:
        return
    if not numpy.isfinite(x).all():
        raise ValueError("shortlist.nearest: the vectors contain NaN or infinity")
    cdef int chunks = (d + 3) // 4
    cdef int64_t row_bytes = (d + 15) // 16 * 16  # whole 16-byte pieces (the quantizer's stores)
    cdef uint8_t[:, ::1] codes = numpy.full((n, row_bytes), 128, dtype=numpy.uint8)
    cdef float[::1] xscale = numpy.empty(n, dtype=numpy.float32)
    xnorm_arr = numpy.empty(n, dtype=numpy.float64)
    xerr_arr = numpy.empty(n, dtype=numpy.float64)
    cdef double[::1] xnorm = xnorm_arr
    cdef double[::1] xerr = xerr_arr
    cdef int64_t i
    with nogil:
        for i in range(n):
            if level == 2:
                xscale[i] = sjs_sl_quantize_row512(&X[i, 0], d, &codes[i, 0], &xnorm[i], &xerr[i])
            else:
                xscale[i] = sjs_sl_quantize_row256(&X[i, 0], d, &codes[i, 0], &xnorm[i], &xerr[i])
    cdef QuantizedSet qs
    cdef float[::1] slack
    cdef const int8_t[::1] pack
    cdef const int32_t[::1] bias
    cdef const float[::1] scale, norms
    cdef const float[:, ::1] cents
    cdef float* buf
    cdef int j
    for j, qs in enumerate(sets):
        # |D - D~| <= 2 (||x|| err + ||x - x~|| size) for each centroid: the shortlist is 4 of it wide
        bound = 4.0 * (xnorm_arr * qs.err + xerr_arr * qs.size)
        magnitude = qs.max_norm + 2.0 * xnorm_arr * qs.size
        slack = (bound * (1.0 + SLACK_RELATIVE) + SLACK_FLOAT * magnitude).astype(numpy.float32)
        pack = qs.pack
        bias, scale, norms, cents = qs.bias, qs.scale, qs.norms, qs.cents
        buf = <float*>malloc(SJS_SL_ROWS * sizeof(float) * qs.kpad)
        if buf == NULL:
            raise MemoryError()
        try:
            with nogil:
                if level == 2:
                    sjs_sl_nearest_set(&X[0, 0], n, d, chunks, row_bytes, &codes[0, 0], &xscale[0],
                                       &slack[0], &pack[0], &bias[0], &scale[0], &norms[0],
                                       &cents[0, 0], qs.k, qs.kpad, &o[0, j], o.shape[1], buf)
                else:
                    sjs_sl_nearest_set256(&X[0, 0], n, d, chunks, row_bytes, &codes[0, 0], &xscale[0],
                                          &slack[0], &pack[0], &bias[0], &scale[0], &norms[0],
                                          &cents[0, 0], qs.k, qs.kpad, &o[0, j], o.shape[1], buf)
        finally:
            free(buf)
