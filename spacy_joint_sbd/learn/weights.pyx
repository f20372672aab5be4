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
    score_table(W, n_rows, n_classes, feats, n, out)   score_c on a given table (a caller that
                                    must keep scoring one table while `use_averages` swaps W)
The C API is unchecked (clas in [0, n_classes), n ≥ 0); the Python API checks its arguments and
raises ValueError: score, update, tick, averaged, use_averages, get_params, set_params.

Half precision (prediction): `half_table()` is the averaged table rounded to IEEE binary16
(float16), cached like `average_table()`; the transition engine predicts with it, reading half the
bytes per row (`score_half_table`: scores bit for bit those of a float table holding the same
values). A component saves that table and loads it back with `set_half_params`: the weights are
then *half-only*, holding no float table until something other than prediction needs one (any
method but `half_table`, `score` and `nbytes` fills W from it first: `materialize`), so a loaded
model keeps half the memory. The C API must not update a half-only table: call `materialize()`.

Threads: scoring is read-only and may run in many threads at once. `average_table()` hands out
the cached averaged table without swapping anything (what the transition engine's prediction
uses); `use_averages()` swaps it in for everyone and counts the threads inside, restoring W when
the last one leaves. Updates, `tick`, `finalize` and `set_params` (training) are single-threaded
and must not overlap with scoring.
"""
import threading
from contextlib import contextmanager

import numpy

from libc.stdint cimport uint64_t
from libc.string cimport memset


def _as_keys(feats):
    """Feature keys as a 1-d uint64 array (any integer dtype ≥ 0, or Python ints < 2**64)."""
    try:  # not an array: look at each value (numpy would turn [2**64 - 1, 2] into floats)
        arr = feats if isinstance(feats, numpy.ndarray) else numpy.asarray(feats, dtype=object)
    except (TypeError, ValueError) as err:
        raise ValueError(f"feature keys must be a 1-d sequence of integers: {err}") from None
    if arr.ndim != 1:
        raise ValueError(f"feature keys must be a 1-d sequence, got shape {arr.shape}")
    if arr.size == 0:
        return numpy.zeros((0,), dtype=numpy.uint64)
    if arr.dtype.kind == "u":
        return numpy.ascontiguousarray(arr, dtype=numpy.uint64)
    if arr.dtype.kind == "i":
        if (arr < 0).any():
            raise ValueError("feature keys must be non-negative")
        return numpy.ascontiguousarray(arr, dtype=numpy.uint64)
    if arr.dtype.kind == "O" and all(isinstance(k, (int, numpy.integer)) and not isinstance(k, bool)
                                     and 0 <= k < 1 << 64 for k in arr):
        return numpy.asarray([int(k) for k in arr], dtype=numpy.uint64)
    raise ValueError(f"feature keys must be integers in [0, 2**64), got dtype {arr.dtype}")


HALF_MAX = 65504.0
"""The largest finite binary16 value: a table with a weight beyond it has no half table."""


def half_kernel() -> str:
    """The kernel that sums half-precision rows: "avx2+f16c" or "plain"; the same scores."""
    return "avx2+f16c" if sjs_has_f16c() else "plain"


def _use_f16c(bint on) -> None:
    """Tests only: switch the F16C half-row kernel off (False) or back to automatic (True)."""
    sjs_set_f16c(on)


def row_kernel() -> str:
    """The kernel that sums weight rows in this process: "avx2" (chosen at run time where the CPU
    has it) or "plain"; both give the same scores bit for bit."""
    return "avx2" if sjs_has_avx2() else "plain"


def _use_avx2(bint on) -> None:
    """Tests only: switch this module's AVX2 row kernel off (False) or back to automatic (True)."""
    sjs_set_avx2(on)


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
        self._lock = threading.RLock()  # re-entrant: materialize() inside average_table()
        self._avg_depth = 0
        self._H = None
        self._H_version = -1
        self._H32 = None
        self._H32_version = -1
        self.half_only = False
        self._bind_arrays()

    def _check_init(self):
        if self.W is NULL or self.n_rows < 1:
            raise ValueError("HashedWeights was not initialised")

    def _bind_arrays(self):
        cdef float[:, ::1] w = self._W
        cdef float[:, ::1] u = self._U
        self.W = &w[0, 0]
        self.U = &u[0, 0]

    cdef void score_c(self, const uint64_t* feats, int n, float* out) noexcept nogil:
        score_table(self.W, <uint64_t>self.n_rows, self.n_classes, feats, n, out)

    cdef void update_row_c(self, uint64_t row, int clas, float delta) noexcept nogil:
        cdef uint64_t idx = row * self.n_classes + clas
        self.W[idx] += delta
        self.U[idx] += <float>(self.time * delta)
        self.version += 1

    cdef void update_c(self, const uint64_t* feats, int n, int clas, float delta) noexcept nogil:
        cdef int i
        for i in range(n):
            self.update_row_c(row_of(feats[i], <uint64_t>self.n_rows), clas, delta)

    # Python API -----------------------------------------------------------------------------

    def score(self, feats):
        """Scores of every class for a bag of feature keys (1-d uint64 array) → float32 array."""
        self._check_init()
        cdef const uint64_t[::1] f = _as_keys(feats)
        out = numpy.zeros((self.n_classes,), dtype=numpy.float32)
        cdef float[::1] o = out
        cdef const uint16_t[:, ::1] H
        if f.shape[0]:
            if self.half_only:
                H = self._H.view(numpy.uint16)
                score_half_table(&H[0, 0], <uint64_t>self.n_rows, self.n_classes, &f[0], f.shape[0], &o[0])
            else:
                self.score_c(&f[0], f.shape[0], &o[0])
        return out

    # Half precision ---------------------------------------------------------------------------

    def half_table(self):
        """The averaged table rounded to float16, (n_rows, n_classes) C order, cached until the
        next update or tick and shared (read it, never write it); None when a weight lies beyond
        float16's range (`HALF_MAX`): predict with `average_table()` then. Thread-safe."""
        with self._lock:
            if self.half_only:
                return self._H
            if self._H is None or self._H_version != self.version:
                self._H = None
                avg = self._average_table()
                if not numpy.isfinite(avg).all() or numpy.abs(avg).max(initial=0.0) > HALF_MAX:
                    self._H_version = self.version
                    return None
                self._H = avg.astype(numpy.float16)
                self._H_version = self.version
            return self._H

    def prediction_table(self):
        """What prediction scores with: `half_table()` where this CPU sums float16 rows in
        hardware (`half_kernel()` "avx2+f16c"), else a float32 copy of it (cached per version),
        which the float32 kernel sums to the same scores faster than converting each float16 in
        software; `average_table()` where there is no half table. Thread-safe."""
        with self._lock:
            H = self.half_table()
            if H is None:
                return self._average_table()
            if sjs_has_f16c():
                return H
            if self._H32 is None or self._H32_version != self._H_version:
                self._H32 = None
                self._H32 = H.astype(numpy.float32)
                self._H32_version = self._H_version
            return self._H32

    def set_half_params(self, H, bint copy=True):
        """Load a finalized table saved as float16 (`half_table()`), shape (n_rows, n_classes):
        the weights become half-only (no float table until `materialize`). copy=False adopts
        `H` itself when it is a C-ordered float16 array (a loaded component's Thinc parameter)."""
        if self.using_averages:
            raise RuntimeError("set_half_params() inside use_averages()")
        arr = numpy.asarray(H)
        if arr.dtype != numpy.float16:
            raise ValueError(f"a half table must be float16, got {arr.dtype}")
        if arr.shape != (self.n_rows, self.n_classes):
            raise ValueError(f"H has shape {arr.shape}, expected {(self.n_rows, self.n_classes)}")
        if not numpy.isfinite(arr).all():
            raise ValueError("H holds a value that is not finite")
        adopt = not copy and arr.flags.c_contiguous
        with self._lock:
            self._H = arr if adopt else numpy.ascontiguousarray(arr).copy()
            self._H32 = None
            # zeroed by the OS: not resident until `materialize` writes them
            self._W = numpy.zeros((self.n_rows, self.n_classes), dtype=numpy.float32)
            self._U = numpy.zeros((self.n_rows, self.n_classes), dtype=numpy.float32)
            self.time = 0.0
            self._avg_cache = None
            self.version += 1
            self._H_version = self.version
            self.half_only = True
            self._bind_arrays()

    def materialize(self):
        """Fill the float table from the half table of a half-only model (exactly: every float16
        is a float32), so that it can be trained, averaged or updated. No-op otherwise."""
        with self._lock:
            self._materialize()

    cdef _materialize(self):
        # the caller holds self._lock (or owns the weights: training is single-threaded)
        if not self.half_only:
            return
        numpy.copyto(self._W, self._H, casting="safe")
        self.half_only = False  # _H stays valid: the same values at the same version

    def update(self, feats, int clas, float delta):
        """Add `delta` to the weight of class `clas` in the row of every feature key."""
        self._check_init()
        if self.using_averages:
            raise RuntimeError("HashedWeights.update called inside use_averages()")
        self.materialize()
        if not 0 <= clas < self.n_classes:
            raise ValueError(f"class {clas} out of range [0, {self.n_classes})")
        cdef const uint64_t[::1] f = _as_keys(feats)
        if f.shape[0]:
            self.update_c(&f[0], f.shape[0], clas, delta)

    def tick(self, int n=1):
        """Advance the averaging clock by `n` (once per training instance)."""
        if n < 0:
            raise ValueError(f"the averaging clock only moves forward, got tick({n})")
        self.materialize()
        self.time += n
        self.version += 1

    def averaged(self):
        """The averaged table W − U / t as a new (n_rows, n_classes) float32 array."""
        self.materialize()
        W = self._saved_W if self.using_averages else self._W
        if self.time <= 0:
            return W.copy()
        out = self._U / numpy.float32(self.time)
        numpy.subtract(W, out, out=out)
        return out

    def average_table(self):
        """The averaged table (as `averaged()`), cached until the next update or tick and shared:
        read it, never write it. Thread-safe; what `use_averages()` swaps in, and what a
        prediction call scores without swapping anything (`Engine.parse(use_averages=True)`)."""
        with self._lock:
            return self._average_table()

    def _average_table(self):
        # the caller holds self._lock
        self._materialize()
        if self.using_averages:
            return self._W
        if self._avg_cache is None or self._avg_version != self.version:
            self._avg_cache = None
            self._avg_cache = self.averaged()
            self._avg_version = self.version
        return self._avg_cache

    @contextmanager
    def use_averages(self):
        """Within the block, scoring uses the averaged weights (updates are refused).

        The averaged table is cached until the next update or tick, so repeated calls (e.g. one
        per batch at prediction time) cost nothing. Nested and concurrent blocks (threads
        predicting with one model) share one swap: W is restored when the last block exits."""
        with self._lock:
            if self._avg_depth == 0:
                avg = self._average_table()
                self._saved_W = self._W
                self._W = avg
                self.using_averages = True
                self._bind_arrays()
            self._avg_depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._avg_depth -= 1
                if self._avg_depth == 0:
                    self._W = self._saved_W
                    self._saved_W = None
                    self.using_averages = False
                    self._bind_arrays()

    def finalize(self):
        """Replace W by its average and reset U and the clock (end of training; frees nothing)."""
        if self.using_averages:
            raise RuntimeError("finalize() inside use_averages()")
        self._W[...] = self.averaged()  # averaged() fills W first when half-only
        self._U[...] = 0
        self.time = 0.0
        self._avg_cache = None
        self.version += 1

    def get_params(self):
        """{"W", "U", "time"} as numpy arrays. W and U are the live tables (no copy)."""
        self.materialize()
        W = self._saved_W if self.using_averages else self._W
        return {"W": W, "U": self._U, "time": numpy.asarray([self.time], dtype=numpy.float64)}

    def set_params(self, params, bint copy=True):
        """Load {"W"[, "U", "time"]} (shapes must match); a missing U means a finalized model.

        copy=False adopts W itself when it is already a writeable C-ordered float32 table (a
        loaded component's Thinc parameter): the component and these weights then share one
        table instead of holding two. A missing U is allocated zeroed by the OS (`numpy.zeros`),
        so a model that only predicts never makes it resident."""
        if self.using_averages:
            raise RuntimeError("set_params() inside use_averages()")
        given = params["W"]
        W = numpy.ascontiguousarray(given, dtype=numpy.float32)
        if W.shape != (self.n_rows, self.n_classes):
            raise ValueError(f"W has shape {W.shape}, expected {(self.n_rows, self.n_classes)}")
        U = params.get("U")
        if U is not None:
            U = numpy.ascontiguousarray(U, dtype=numpy.float32)
            if U.size != W.size:
                raise ValueError(f"U has shape {U.shape}, expected {W.shape}")
            U = U.reshape(W.shape)
        time = numpy.asarray(params.get("time", [0.0]), dtype=numpy.float64).ravel()
        if time.shape != (1,) or not numpy.isfinite(time[0]) or time[0] < 0:
            raise ValueError(f"time must be one finite number ≥ 0, got {time}")
        adopt = not copy and W is given and W.flags.writeable
        self._H = None
        self._H_version = -1
        self._H32 = None
        self.half_only = False
        self._W = W if adopt else W.copy()
        self._U = U.copy() if U is not None else numpy.zeros(W.shape, dtype=numpy.float32)
        self.time = float(time[0])
        self._avg_cache = None
        self.version += 1
        self._bind_arrays()

    def restart_from(self, W):
        """Training state (W, U = 0, clock 0), written into the existing tables: what
        `set_params({"W": W})` does, without allocating (a mixing worker restarts every round)."""
        if self.using_averages:
            raise RuntimeError("restart_from() inside use_averages()")
        self.materialize()
        W = numpy.asarray(W)
        if W.shape != (self.n_rows, self.n_classes):
            raise ValueError(f"W has shape {W.shape}, expected {(self.n_rows, self.n_classes)}")
        self._W[...] = W
        self._U[...] = 0
        self.time = 0.0
        self._avg_cache = None
        self.version += 1

    def load_rows(self, rows, W_rows, U_rows, double time):
        """Overwrite W and U on `rows` (distinct int indices) and set the clock, in place: the
        parameter mix writes back only the rows some shard touched."""
        if self.using_averages:
            raise RuntimeError("load_rows() inside use_averages()")
        self.materialize()
        rows = numpy.asarray(rows)
        if rows.ndim != 1 or (rows.size and (rows.dtype.kind not in "iu" or rows.min() < 0
                                             or rows.max() >= self.n_rows)):
            raise ValueError(f"rows must be a 1-d array of row indices in [0, {self.n_rows})")
        shape = (rows.shape[0], self.n_classes)
        W_rows, U_rows = numpy.asarray(W_rows), numpy.asarray(U_rows)
        if W_rows.shape != shape or U_rows.shape != shape:
            raise ValueError(f"W_rows and U_rows must have shape {shape}, got {W_rows.shape}, {U_rows.shape}")
        if not numpy.isfinite(time) or time < 0:
            raise ValueError(f"time must be one finite number ≥ 0, got {time}")
        self._W[rows] = W_rows
        self._U[rows] = U_rows
        self.time = time
        self._avg_cache = None
        self.version += 1

    @property
    def nbytes(self) -> int:
        """Bytes of the tables held: W and U (not resident while half-only), and the half table."""
        return int(self._W.nbytes + self._U.nbytes + (self._H.nbytes if self._H is not None else 0)
                   + (self._H32.nbytes if self._H32 is not None else 0))
