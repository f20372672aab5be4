# cython: infer_types=True, binding=True
"""`HashedWeights`: a hashed linear model shared by the transition and the graph parsers.

The table `W` has shape (n_rows, n_classes), float32, C order: a feature key (a uint64 from
`learn.hashing`) selects row `key % n_rows`, and that row holds one weight per class, contiguous,
so scoring a state is the sum of a few dozen rows. A graph parser uses `n_classes=1`.

Averaging uses Daumé's trick (Daumé III 2006, "A Course in Machine Learning" §4.6): alongside W
keep U = Σ t·Δ, where t is the averaging clock: the number of `tick()`s so far (one per
training instance). After T ticks the averaged weights W − U / T are exactly the mean of the T
tables as they stood at each tick. No per-entry timestamps are needed.

C API (cimport from `spacy_joint_sbd.learn.weights`):
    score_c(feats, n, out)          out[c] = Σ_i W[feats[i] % n_rows, c]   (out is overwritten)
    update_c(feats, n, clas, delta) W[row, clas] += delta for each feature's row; U likewise × t
Python API: score, update, tick, averaged, use_averages, get_params, set_params.
"""
from contextlib import contextmanager

import numpy

from libc.stdint cimport uint64_t
from libc.string cimport memset


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SJS_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 1)
    #else
    #define SJS_PREFETCH(p) ((void)0)
    #endif
    """
    void SJS_PREFETCH(const void* p) noexcept nogil

cdef enum:
    PREFETCH_AHEAD = 8


cdef class HashedWeights:
    """A (n_rows × n_classes) float32 weight table indexed by hashed features, with averaging.

    n_rows (int): Number of rows (hash buckets). Memory is 2 × 4 × n_rows × n_classes bytes
        while training (W and U); only W is needed to predict.
    n_classes (int): Scores per feature row (e.g. transition classes; 1 for arc scores).
    """

    def __init__(self, int n_rows, int n_classes):
        if n_rows < 1 or n_classes < 1:
            raise ValueError(f"n_rows and n_classes must be positive, got {n_rows}, {n_classes}")
        self.n_rows = n_rows
        self.n_classes = n_classes
        self._W = numpy.zeros((n_rows, n_classes), dtype=numpy.float32)
        self._U = numpy.zeros((n_rows, n_classes), dtype=numpy.float32)
        self._saved_W = None
        self._avg_cache = None
        self.version = 0
        self._avg_version = -1
        self.time = 0.0
        self.using_averages = False
        self._bind_arrays()

    def _bind_arrays(self):
        cdef float[:, ::1] w = self._W
        cdef float[:, ::1] u = self._U
        self.W = &w[0, 0]
        self.U = &u[0, 0]

    cdef void score_c(self, const uint64_t* feats, int n, float* out) noexcept nogil:
        cdef int nc = self.n_classes
        cdef int i, c, j
        cdef const float* row
        cdef const float* ahead
        memset(out, 0, nc * sizeof(float))
        # rows are scattered over a table larger than the cache: prefetch a few rows ahead
        for i in range(min(n, PREFETCH_AHEAD)):
            ahead = &self.W[(feats[i] % <uint64_t>self.n_rows) * nc]
            for j in range(0, nc, 16):
                SJS_PREFETCH(ahead + j)
        for i in range(n):
            if i + PREFETCH_AHEAD < n:
                ahead = &self.W[(feats[i + PREFETCH_AHEAD] % <uint64_t>self.n_rows) * nc]
                for j in range(0, nc, 16):
                    SJS_PREFETCH(ahead + j)
            row = &self.W[(feats[i] % <uint64_t>self.n_rows) * nc]
            for c in range(nc):
                out[c] += row[c]

    cdef void update_row_c(self, uint64_t row, int clas, float delta) noexcept nogil:
        cdef uint64_t idx = row * self.n_classes + clas
        self.W[idx] += delta
        self.U[idx] += <float>(self.time * delta)
        self.version += 1

    cdef void update_c(self, const uint64_t* feats, int n, int clas, float delta) noexcept nogil:
        cdef int i
        for i in range(n):
            self.update_row_c(feats[i] % <uint64_t>self.n_rows, clas, delta)

    # Python API -----------------------------------------------------------------------------

    def score(self, feats):
        """Scores of every class for a bag of feature keys (1-d uint64 array) → float32 array."""
        cdef uint64_t[::1] f = numpy.ascontiguousarray(feats, dtype=numpy.uint64)
        out = numpy.zeros((self.n_classes,), dtype=numpy.float32)
        cdef float[::1] o = out
        if f.shape[0]:
            self.score_c(&f[0], f.shape[0], &o[0])
        return out

    def update(self, feats, int clas, float delta):
        """Add `delta` to the weight of class `clas` in the row of every feature key."""
        if self.using_averages:
            raise RuntimeError("HashedWeights.update called inside use_averages()")
        if not 0 <= clas < self.n_classes:
            raise IndexError(f"class {clas} out of range [0, {self.n_classes})")
        cdef uint64_t[::1] f = numpy.ascontiguousarray(feats, dtype=numpy.uint64)
        if f.shape[0]:
            self.update_c(&f[0], f.shape[0], clas, delta)

    def tick(self, int n=1):
        """Advance the averaging clock by `n` (once per training instance)."""
        self.time += n
        self.version += 1

    def averaged(self):
        """The averaged table W − U / t as a new (n_rows, n_classes) float32 array."""
        W = self._saved_W if self.using_averages else self._W
        if self.time <= 0:
            return W.copy()
        out = self._U / numpy.float32(self.time)
        numpy.subtract(W, out, out=out)
        return out

    @contextmanager
    def use_averages(self):
        """Within the block, scoring uses the averaged weights (updates are refused).

        The averaged table is cached until the next update or tick, so repeated calls (e.g. one
        per batch at prediction time) cost nothing."""
        if self.using_averages:
            yield self
            return
        if self._avg_cache is None or self._avg_version != self.version:
            self._avg_cache = None
            self._avg_cache = self.averaged()
            self._avg_version = self.version
        self._saved_W = self._W
        self._W = self._avg_cache
        self.using_averages = True
        self._bind_arrays()
        try:
            yield self
        finally:
            self._W = self._saved_W
            self._saved_W = None
            self.using_averages = False
            self._bind_arrays()

    def finalize(self):
        """Replace W by its average and reset U and the clock (end of training; frees nothing)."""
        if self.using_averages:
            raise RuntimeError("finalize() inside use_averages()")
        self._W[...] = self.averaged()
        self._U[...] = 0
        self.time = 0.0
        self._avg_cache = None
        self.version += 1

    def get_params(self):
        """{"W", "U", "time"} as numpy arrays. W and U are the live tables (no copy)."""
        W = self._saved_W if self.using_averages else self._W
        return {"W": W, "U": self._U, "time": numpy.asarray([self.time], dtype=numpy.float64)}

    def set_params(self, params):
        """Load {"W"[, "U", "time"]} (shapes must match); a missing U means a finalized model."""
        if self.using_averages:
            raise RuntimeError("set_params() inside use_averages()")
        W = numpy.ascontiguousarray(params["W"], dtype=numpy.float32)
        if W.shape != (self.n_rows, self.n_classes):
            raise ValueError(f"W has shape {W.shape}, expected {(self.n_rows, self.n_classes)}")
        self._W = W.copy()
        if params.get("U") is not None:
            self._U = numpy.ascontiguousarray(params["U"], dtype=numpy.float32).reshape(W.shape).copy()
        else:
            self._U = numpy.zeros_like(self._W)
        self.time = float(numpy.asarray(params.get("time", [0.0])).ravel()[0])
        self._avg_cache = None
        self.version += 1
        self._bind_arrays()

    @property
    def nbytes(self) -> int:
        return int(self._W.nbytes + self._U.nbytes)
