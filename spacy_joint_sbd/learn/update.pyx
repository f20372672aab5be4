# cython: infer_types=True, binding=True
"""`SparseUpdate`: a feature-difference vector ΔΦ = Φ(gold) − Φ(predicted), collected sparsely.

Duplicate (row, class) entries are merged, so `sqnorm()` is the exact ‖ΔΦ‖² that the
passive-aggressive step needs (features that collide in the table count as one, as they do in W).
Updates can be accumulated over a whole document and applied once (DLaSO, Algorithm 1).

The Python API checks classes and shapes (ValueError); `add_c` / `add_row_c` (C API) trust the
caller to pass rows < n_rows and classes in [0, n_classes), so every stored cell lies inside the
table that `apply` writes to.
"""
import numpy

from cymem.cymem cimport Pool
from libc.stdint cimport uint64_t
from preshed.maps cimport PreshMap

from .weights cimport HashedWeights, row_of

from .weights import _as_keys


cdef class SparseUpdate:
    """ΔΦ over the cells of a `HashedWeights` table of shape (n_rows, n_classes).

    `loss` is free for the caller: the sum of margins (score(pred) − score(gold) + cost) of the
    violations collected, used by passive-aggressive learners.
    """

    def __init__(self, int n_rows, int n_classes):
        if n_rows < 1 or n_classes < 1:
            raise ValueError(f"n_rows and n_classes must be positive, got {n_rows}, {n_classes}")
        self.n_rows = n_rows
        self.n_classes = n_classes
        self.mem = Pool()
        self.index = PreshMap()
        self.capacity = 64
        self.length = 0
        self.keys = <uint64_t*>self.mem.alloc(self.capacity, sizeof(uint64_t))
        self.values = <float*>self.mem.alloc(self.capacity, sizeof(float))
        self.loss = 0.0

    cdef void add_row_c(self, uint64_t row, int clas, float delta) except *:
        cdef uint64_t key = row * self.n_classes + clas
        cdef size_t slot = <size_t>self.index.get(key + 2)  # preshed reserves keys 0 and 1
        if slot == 0:
            if self.length == self.capacity:
                if self.capacity > (1 << 29):
                    raise MemoryError("SparseUpdate: too many distinct cells")
                self.capacity *= 2
                self.keys = <uint64_t*>self.mem.realloc(self.keys, self.capacity * sizeof(uint64_t))
                self.values = <float*>self.mem.realloc(self.values, self.capacity * sizeof(float))
            self.keys[self.length] = key
            self.values[self.length] = 0
            self.length += 1
            slot = self.length
            self.index.set(key + 2, <void*>slot)
        self.values[slot - 1] += delta

    cdef void add_c(self, const uint64_t* feats, int n, int clas, float delta) except *:
        cdef int i
        for i in range(n):
            self.add_row_c(row_of(feats[i], <uint64_t>self.n_rows), clas, delta)

    def add(self, feats, int clas, float delta):
        """Add `delta` for class `clas` on the row of every feature key in `feats`."""
        if self.n_rows < 1 or self.mem is None:
            raise ValueError("SparseUpdate was not initialised")
        if not 0 <= clas < self.n_classes:
            raise ValueError(f"class {clas} out of range [0, {self.n_classes})")
        cdef const uint64_t[::1] f = _as_keys(feats)
        if f.shape[0]:
            self.add_c(&f[0], f.shape[0], clas, delta)

    def sqnorm(self) -> float:
        cdef double total = 0
        cdef int i
        for i in range(self.length):
            total += self.values[i] * self.values[i]
        return total

    def apply(self, HashedWeights weights not None, float scale=1.0):
        """W += scale · ΔΦ (and the averaging accumulator U likewise)."""
        if weights.using_averages:
            raise RuntimeError("cannot update weights inside use_averages()")
        if weights.n_rows != self.n_rows or weights.n_classes != self.n_classes:
            raise ValueError("SparseUpdate and HashedWeights shapes differ")
        weights.materialize()
        cdef int i
        cdef uint64_t key
        for i in range(self.length):
            if self.values[i] != 0:
                key = self.keys[i]
                weights.update_row_c(key // self.n_classes, key % self.n_classes,
                                     scale * self.values[i])

    def merge(self, SparseUpdate other not None, float scale=1.0):
        """self += scale · other (e.g. to store a step-sized update for later, as DLaSO does)."""
        if other.n_rows != self.n_rows or other.n_classes != self.n_classes:
            raise ValueError("SparseUpdate shapes differ")
        cdef int i
        for i in range(other.length):
            self.add_row_c(other.keys[i] // self.n_classes, other.keys[i] % self.n_classes,
                           scale * other.values[i])

    def clear(self):
        self.index = PreshMap()
        self.length = 0
        self.loss = 0.0

    def __len__(self):
        return self.length
