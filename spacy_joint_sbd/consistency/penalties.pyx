# cython: infer_types=True, binding=True
"""The Lagrange penalties of one sentence without per-word Python objects.

`dual.dual_decompose` keeps every word's candidates and multipliers in flat arrays
(`WordArrays`); `Penalties` is sentence s's view of them. It is a sequence of ``(m, candidates,
u)`` tuples (`dual.Penalty`) for any sentence solver, and C code (`adjusted_eisner`) reads the
flat arrays directly: building the tuples cost more than decoding a short sentence.
"""
import numpy


cdef class WordArrays:
    """Flat per-word arrays: positions, candidates, multipliers, activity, words by sentence.

    pos (array[W]), candidates (Sequence[array]), sentence (array[W]), n_sentences (int).
    """

    def __init__(self, pos, candidates, sentence, Py_ssize_t n_sentences):
        pos = numpy.ascontiguousarray(pos, dtype=numpy.int64)
        sentence = numpy.ascontiguousarray(sentence, dtype=numpy.int64)
        W = len(candidates)
        if pos.shape != (W,) or sentence.shape != (W,):
            raise ValueError(f"pos and sentence must have one entry per word ({W})")
        if n_sentences < 0 or (W and (pos.min() < 0 or sentence.min() < 0
                                      or sentence.max() >= n_sentences)):
            raise ValueError("positions must be >= 0 and sentences in [0, n_sentences)")
        candidates = [numpy.asarray(c) for c in candidates]
        for c in candidates:
            if c.ndim != 1 or (c.size and c.dtype.kind not in "iu"):
                raise ValueError("candidates must be 1-d arrays of labels >= 0")
        sizes = numpy.fromiter((len(c) for c in candidates), dtype=numpy.int64, count=W)
        off = numpy.zeros(W + 1, dtype=numpy.int64)
        numpy.cumsum(sizes, out=off[1:])
        cand = (numpy.concatenate([c.astype(numpy.int64) for c in candidates])
                if W else numpy.zeros(0, dtype=numpy.int64))
        if cand.shape != (off[W],) or (cand.size and cand.min() < 0):
            raise ValueError("candidates must be 1-d arrays of labels >= 0")
        order = numpy.argsort(sentence, kind="stable")
        sw_off = numpy.zeros(n_sentences + 1, dtype=numpy.int64)
        numpy.cumsum(numpy.bincount(sentence, minlength=n_sentences), out=sw_off[1:])
        self.cand_arr = cand.view()  # handed to sentence solvers: read-only
        self.cand_arr.flags.writeable = False
        self.u_arr = numpy.zeros(cand.size)
        self.pos, self.off, self.cand, self.u = pos, off, cand, self.u_arr
        self.active = numpy.ones(W, dtype=numpy.uint8)
        self.sw, self.sw_off = order.astype(numpy.int64), sw_off

    @property
    def n_words(self) -> int:
        return self.pos.shape[0]


cdef class Penalties:
    """Sentence s's ``(m, candidates, u)`` for its active constrained words (the arrays are
    views of the flat arrays: valid until the multipliers change)."""

    def __init__(self, WordArrays a, Py_ssize_t s):
        if not 0 <= s < a.sw_off.shape[0] - 1:
            raise ValueError(f"sentence {s} not in [0, {a.sw_off.shape[0] - 1})")
        self.a, self.s = a, s
        self.w0, self.w1 = a.sw_off[s], a.sw_off[s + 1]

    def __iter__(self):
        a = self.a
        for k in range(self.w0, self.w1):
            w = a.sw[k]
            if a.active[w]:
                o0, o1 = a.off[w], a.off[w + 1]
                yield int(a.pos[w]), a.cand_arr[o0:o1], a.u_arr[o0:o1]

    def __getitem__(self, Py_ssize_t i):
        """The i-th active word's ``(m, candidates, u)`` (a list's indexing, for old callers)."""
        items = list(self)
        n = len(items)
        if not -n <= i < n:
            raise IndexError(f"penalty {i} of {n}")
        return items[i + n if i < 0 else i]  # wraparound is off: no negative C index

    def __len__(self):
        cdef Py_ssize_t k, n = 0
        for k in range(self.w0, self.w1):
            n += self.a.active[self.a.sw[k]]
        return n

    def __bool__(self):
        return len(self) > 0


def penalties_from_tuples(penalties) -> Penalties:
    """`Penalties` of one sentence from ``(m, candidates, u)`` tuples (copied)."""
    pens = [tuple(p) for p in penalties]
    for p in pens:
        if len(p) != 3 or numpy.ndim(p[1]) != 1 or numpy.shape(p[1]) != numpy.shape(p[2]):
            raise ValueError("each penalty must be (m, candidates, u): candidates and u 1-d "
                             "of one length")
    a = WordArrays([p[0] for p in pens], [p[1] for p in pens], [0] * len(pens), 1)
    if pens:
        u = numpy.concatenate([numpy.asarray(p[2], dtype=numpy.float64) for p in pens])
        if not numpy.isfinite(u).all():
            raise ValueError("penalties u must be finite")
        a.u_arr[:] = u
    return Penalties(a, 0)
