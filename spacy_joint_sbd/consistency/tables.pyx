# cython: infer_types=True, binding=True
"""The bookkeeping of `dual.dual_decompose(fast=True)` in C: flat multipliers, the sentence
labels read back per constrained word, the per-word consensus tables, the consensus nodes'
argmax and the subgradient step.

Per word i and consensus label l the tables keep the best candidate's θ + u (``Mx``) and that
candidate (``Ax``); only words whose multipliers changed (*stale*) are refreshed, only sentences
and nodes whose multipliers or members' labels changed (*dirty*) are solved again. Every sum and
comparison is done in the order of `mrf.ConsensusMRF.argmax_node` and `best_given`, so the results
are bit-identical to the reference. Arguments are checked in ``__init__`` and at each method's
entry; the loops themselves are unchecked.
"""
import numpy

from .penalties cimport Penalties, WordArrays


def _readonly(a):
    v = a.view()
    v.flags.writeable = False
    return v


cdef bint _fill_lut(long long[::1] lut, const long long[::1] lut_off, const long long[::1] off,
                    const long long[::1] cand):
    """lut[lut_off[w] + cand[j]] = j − off[w]; False if a word repeats a candidate."""
    cdef Py_ssize_t w, j, at
    for w in range(off.shape[0] - 1):
        for j in range(off[w], off[w + 1]):
            at = lut_off[w] + cand[j]
            if lut[at] != -1:
                return False
            lut[at] = j - off[w]
    return True


cdef class DDTables:
    """DD state over word nodes ``words`` (`dual.WordNode`) and a `mrf.ConsensusMRF`.

    y, z (int64[W]): candidate index of the sentence / MRF solution at each word.
    uy (float64[W]): u at y (0 for removed words). node_lab, node_val, given_val ([C]): each
    consensus node's argmax label, its value, and its best value given y (the primal's g).
    """

    def __init__(self, words, mrf, Py_ssize_t n_sentences):
        W = len(words)
        tag_of = mrf.tag_of
        theta = numpy.ascontiguousarray(mrf.theta, dtype=numpy.float64)
        bias = numpy.ascontiguousarray(mrf.bias, dtype=numpy.float64)
        C, L = len(mrf.members), (theta.shape[1] if theta.ndim == 2 else -1)
        if L != theta.shape[0] + 1 or bias.shape != (C, L):
            raise ValueError(f"theta must be (T, T+1) and bias (C, T+1), got {theta.shape}, "
                             f"{bias.shape}")
        if len(tag_of) != W:
            raise ValueError(f"{W} word nodes but the MRF has {len(tag_of)}")
        cands = [w.candidates for w in words]
        sent = numpy.fromiter((w.s for w in words), dtype=numpy.int64, count=W)
        self.words = WordArrays(numpy.fromiter((w.m for w in words), dtype=numpy.int64, count=W),
                                cands, sent, n_sentences)
        ctag = (numpy.concatenate([numpy.asarray(t, dtype=numpy.int64) for t in tag_of])
                if W else numpy.zeros(0, dtype=numpy.int64))
        # (the shape check also refuses tags that are not 1-d arrays)
        if ctag.shape != self.words.cand_arr.shape or (ctag.size and (
                ctag.min() < 0 or ctag.max() >= theta.shape[0])):
            raise ValueError(f"every candidate needs one tag in [0, {theta.shape[0]})")
        a = self.words
        off, cand = numpy.asarray(a.off), a.cand_arr
        sizes = numpy.diff(off)
        if (sizes == 0).any():
            raise ValueError("every word node needs at least one candidate")
        # label -> candidate index tables, one per word, of size max(candidates) + 1
        lut_size = numpy.maximum.reduceat(cand, off[:-1]) + 1 if W else sizes
        lut_off = numpy.zeros(W + 1, dtype=numpy.int64)
        numpy.cumsum(lut_size, out=lut_off[1:])
        lut = numpy.full(lut_off[W], -1, dtype=numpy.int64)
        if not _fill_lut(lut, lut_off, a.off, a.cand):
            raise ValueError("the candidates of a word node must be distinct")
        self.W, self.S, self.C, self.L = W, n_sentences, C, L
        self.sent = sent
        self.ctag, self.lut_off, self.lut = ctag, lut_off, lut
        self.theta, self.bias = theta, bias
        self._set_members(mrf.members)
        # the C loops index with y and z: callers get read-only views
        y, z, uy = numpy.zeros(W, dtype=numpy.int64), numpy.zeros(W, dtype=numpy.int64), numpy.zeros(W)
        self.y_v, self.z_v, self.uy_v = y, z, uy
        self.y, self.z, self.uy = _readonly(y), _readonly(z), _readonly(uy)
        self.ytag = numpy.zeros(W, dtype=numpy.int64)
        lab, val, given = numpy.zeros(C, dtype=numpy.int64), numpy.zeros(C), numpy.zeros(C)
        self.node_lab_v, self.node_val_v, self.given_val_v = lab, val, given
        self.node_lab, self.node_val, self.given_val = (_readonly(lab), _readonly(val),
                                                        _readonly(given))
        self.Mx = numpy.zeros(W * L)
        self.Ax = numpy.zeros(W * L, dtype=numpy.int64)
        self.total = numpy.zeros(L)
        self.stale = numpy.ones(W, dtype=numpy.uint8)
        self.dirty_s = numpy.ones(n_sentences, dtype=numpy.uint8)
        self.dirty_c = numpy.ones(C, dtype=numpy.uint8)

    def _set_members(self, members):
        lens = numpy.fromiter((len(ms) for ms in members), dtype=numpy.int64, count=len(members))
        flat = (numpy.concatenate([numpy.asarray(ms, dtype=numpy.int64) for ms in members])
                if len(members) else numpy.zeros(0, dtype=numpy.int64))
        if flat.shape != (lens.sum(),) or (flat.size and (
                flat.min() < 0 or flat.max() >= self.W
                or numpy.bincount(flat, minlength=self.W).max() > 1)):
            raise ValueError("consensus node members must be word nodes in range, each in at "
                             "most one node (a word node is out of range or already in another)")
        node_of = numpy.full(self.W, -1, dtype=numpy.int64)
        node_of[flat] = numpy.repeat(numpy.arange(len(members)), lens)
        off = numpy.zeros(len(members) + 1, dtype=numpy.int64)
        numpy.cumsum(lens, out=off[1:])
        self.node_of, self.mem_off, self.mem = node_of, off, flat

    def take_sentences(self, bint lazy) -> list:
        """The sentences to decode this iteration (dirty ones, or all), in order; clears them."""
        cdef Py_ssize_t s
        out = [s for s in range(self.S) if self.dirty_s[s] or not lazy]
        self.dirty_s[:] = 0
        return out

    def penalties(self, Py_ssize_t s) -> Penalties:
        return Penalties(self.words, s)

    def read(self, Py_ssize_t s, list labels) -> None:
        """Sentence s's labels (one per position) into y at its constrained words."""
        cdef WordArrays a = self.words
        cdef Py_ssize_t k, w, m, lab, new, n = len(labels)
        if not 0 <= s < self.S:
            raise ValueError(f"sentence {s} not in [0, {self.S})")
        for k in range(a.sw_off[s], a.sw_off[s + 1]):
            w = a.sw[k]
            m = a.pos[w]
            lab = labels[m] if m < n else -1
            new = self.lut[self.lut_off[w] + lab] \
                if 0 <= lab < self.lut_off[w + 1] - self.lut_off[w] else -1
            if new < 0:
                raise ValueError(f"sentence {s}: label {labels[m] if m < n else None} at {m} is "
                                 "not among the word's candidates")
            if new != self.y_v[w] and self.node_of[w] >= 0:
                self.dirty_c[self.node_of[w]] = 1
            self.y_v[w] = new
            self.ytag[w] = self.ctag[a.off[w] + new]
            self.uy_v[w] = a.u[a.off[w] + new] if a.active[w] else 0.0

    def refresh(self) -> None:
        """Recompute Mx, Ax of the stale words (max over candidates, first maximum)."""
        cdef WordArrays a = self.words
        cdef Py_ssize_t w, l, j, o0, o1, best_j, L = self.L
        cdef double best, v
        for w in range(self.W):
            if not self.stale[w]:
                continue
            self.stale[w] = 0
            o0, o1 = a.off[w], a.off[w + 1]
            for l in range(L):
                best, best_j = self.theta[self.ctag[o0], l] + a.u[o0], 0
                for j in range(o0 + 1, o1):
                    v = self.theta[self.ctag[j], l] + a.u[j]
                    if v > best:
                        best, best_j = v, j - o0
                self.Mx[w * L + l] = best
                self.Ax[w * L + l] = best_j

    def solve_nodes(self, bint lazy) -> int:
        """Argmax, z and g given y of the dirty consensus nodes (all if not lazy); their count."""
        cdef Py_ssize_t c, k, i, l, lab, L = self.L, solved = 0
        cdef double best, at_y
        cdef double[::1] tot = self.total
        for c in range(self.C):
            if not (self.dirty_c[c] or not lazy):
                continue
            self.dirty_c[c] = 0
            solved += 1
            for l in range(L):
                tot[l] = self.bias[c, l]
            for k in range(self.mem_off[c], self.mem_off[c + 1]):
                i = self.mem[k]
                for l in range(L):
                    tot[l] += self.Mx[i * L + l]
            lab, best = 0, tot[0]
            for l in range(1, L):
                if tot[l] > best:
                    lab, best = l, tot[l]
            self.node_lab_v[c], self.node_val_v[c] = lab, best
            for k in range(self.mem_off[c], self.mem_off[c + 1]):
                i = self.mem[k]
                at_y = self.theta[self.ytag[i], lab] + self.uy_v[i]
                self.z_v[i] = self.y_v[i] if at_y >= self.Mx[i * L + lab] else self.Ax[i * L + lab]
            for l in range(L):
                tot[l] = self.bias[c, l]
            for k in range(self.mem_off[c], self.mem_off[c + 1]):
                i = self.mem[k]
                for l in range(L):
                    tot[l] += self.theta[self.ytag[i], l]
            best = tot[0]
            for l in range(1, L):
                if tot[l] > best:
                    best = tot[l]
            self.given_val_v[c] = best
        return solved

    def disagreeing(self):
        """Active words in a consensus node whose z differs from y (int64, ascending)."""
        return numpy.flatnonzero(numpy.asarray(self.words.active).astype(bool)
                                 & (numpy.asarray(self.node_of) >= 0) & (self.z != self.y))

    def step(self, bad, double alpha) -> None:
        """u ← u − α (z − y) at the ``bad`` words; marks them stale, their sentences and nodes
        dirty."""
        cdef const long long[::1] b = numpy.ascontiguousarray(bad, dtype=numpy.int64)
        cdef WordArrays a = self.words
        cdef Py_ssize_t k, i, o
        for k in range(b.shape[0]):
            if not (0 <= b[k] < self.W and self.node_of[b[k]] >= 0):
                raise ValueError(f"word {b[k]} is not a constrained word in [0, {self.W})")
        for k in range(b.shape[0]):
            i, o = b[k], a.off[b[k]]
            a.u[o + self.z_v[i]] -= alpha
            a.u[o + self.y_v[i]] += alpha
            self.uy_v[i] = a.u[o + self.y_v[i]]
            self.stale[i] = 1
            self.dirty_s[self.sent[i]] = 1
            self.dirty_c[self.node_of[i]] = 1

    def remove(self, bad) -> set:
        """Remove the constraints of every sentence with a ``bad`` word (the paper's exactness
        measure): their words leave their nodes, u = 0 there. Returns those sentences."""
        cdef WordArrays a = self.words
        bad = numpy.asarray(bad, dtype=numpy.int64)
        if bad.size and not (0 <= bad.min() and bad.max() < self.W):
            raise ValueError(f"words must be in [0, {self.W})")
        drop_s = {int(self.sent[i]) for i in bad}
        for s in drop_s:
            for k in range(a.sw_off[s], a.sw_off[s + 1]):
                i = a.sw[k]
                if not a.active[i]:
                    continue
                a.active[i] = 0
                a.u[a.off[i]:a.off[i + 1]] = 0.0
                self.uy_v[i] = 0.0
                if self.node_of[i] >= 0:
                    self.dirty_c[self.node_of[i]] = 1
                self.stale[i] = 1
                self.node_of[i] = -1
            self.dirty_s[s] = 1
        node_of = numpy.asarray(self.node_of)
        mem = numpy.asarray(self.mem)
        keep = mem[node_of[mem] >= 0] if mem.size else mem
        self.mem = numpy.ascontiguousarray(keep)
        off = numpy.zeros(self.C + 1, dtype=numpy.int64)
        numpy.cumsum(numpy.bincount(node_of[keep], minlength=self.C), out=off[1:])
        self.mem_off = off
        return drop_s
