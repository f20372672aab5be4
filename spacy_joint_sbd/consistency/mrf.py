"""The consensus MRF of rush2012 §4: star-shaped (naive Bayes) cliques, one per context.

Each *word node* i (a test word in S_c) has candidate labels v (head positions for parsing, tags
for tagging), each carrying a POS ``tag_of[i][v]`` (the head's POS, or the tag itself). Each
*consensus node* c has a label l_c ∈ T ∪ {NULL} (NULL = index T). The pairwise potential is

    θ((i, c), v, l_c) = δ1 if pos(v) = l_c, δ2 if pos(v) is close to l_c, δ3 if l_c = NULL, else 0

and the observed training nodes O_c (fixed labels) add a constant ``bias[c, l_c]`` per consensus
label. With multipliers u on the word nodes, the MRF argmax factors over consensus nodes:

    max_{l_c} bias[c, l_c] + Σ_{i ∈ S_c} max_v (θ(tag_of[i][v], l_c) + u_i[v]),

exact by enumerating l_c (the tree-width assumption of §6).
"""
from typing import List, Optional, Sequence, Tuple

import numpy


def make_theta(n_tags: int, delta1: float, delta2: float, delta3: float,
               close: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """θ as an (n_tags, n_tags + 1) matrix: row = word label's POS, column = consensus label
    (the last column is NULL). ``close[a, b]``: whether tags a ≠ b are close (δ2)."""
    if not isinstance(n_tags, int) or n_tags < 1:
        raise ValueError(f"n_tags must be a positive int, got {n_tags!r}")
    for name, d in (("delta1", delta1), ("delta2", delta2), ("delta3", delta3)):
        if not numpy.isfinite(d) or d < 0:
            raise ValueError(f"{name} must be finite and >= 0, got {d!r}")
    if not delta1 >= delta2 >= delta3:
        raise ValueError(f"need delta1 >= delta2 >= delta3 (§4), got {delta1}, {delta2}, {delta3}")
    theta = numpy.zeros((n_tags, n_tags + 1), dtype=numpy.float64)
    if close is not None:
        close = numpy.asarray(close, dtype=bool)
        if close.shape != (n_tags, n_tags):
            raise ValueError(f"close must be ({n_tags}, {n_tags}), got {close.shape}")
        theta[:, :n_tags][close] = delta2
    theta[numpy.arange(n_tags), numpy.arange(n_tags)] = delta1
    theta[:, n_tags] = delta3
    return theta


class ConsensusMRF:
    """Consensus nodes over word nodes.

    theta (array[T, T+1]): `make_theta`.
    members (Sequence[Sequence[int]]): Word nodes (indices into ``tag_of``) of each consensus node.
    tag_of (Sequence[array[int]]): Per word node, the POS id of each candidate label.
    bias (array[C, T+1]): The observed training nodes' contribution per consensus label.
    """

    def __init__(self, theta: numpy.ndarray, members: Sequence[Sequence[int]],
                 tag_of: Sequence[numpy.ndarray], bias: Optional[numpy.ndarray] = None):
        theta = numpy.asarray(theta, dtype=numpy.float64)
        if theta.ndim != 2 or theta.shape[1] != theta.shape[0] + 1:
            raise ValueError(f"theta must be (T, T+1), got {theta.shape}")
        if numpy.isnan(theta).any() or numpy.isposinf(theta).any():
            raise ValueError("theta must be finite or -inf (no NaN, no +inf)")
        T = theta.shape[0]
        self.theta = theta
        self.n_tags = T
        self.tag_of = []
        for i, t in enumerate(tag_of):
            t = numpy.asarray(t)
            if t.size and t.dtype.kind not in "iu":
                raise ValueError(f"word node {i}: candidate tags must be integer ids, got {t.dtype}")
            self.tag_of.append(t.astype(numpy.int64))
        for i, t in enumerate(self.tag_of):
            if t.ndim != 1 or t.size == 0 or t.min() < 0 or t.max() >= T:
                raise ValueError(f"word node {i}: candidate tags must be a non-empty 1-d array "
                                 f"of ids in [0, {T})")
        self.members = [list(m) for m in members]
        self.node_of = numpy.full(len(self.tag_of), -1, dtype=numpy.int64)
        for c, ms in enumerate(self.members):
            for i in ms:
                if not 0 <= i < len(self.tag_of) or self.node_of[i] != -1:
                    raise ValueError(f"consensus node {c}: word node {i} is out of range or "
                                     "already in another node")
                self.node_of[i] = c
        C = len(self.members)
        self.bias = (numpy.zeros((C, T + 1)) if bias is None
                     else numpy.asarray(bias, dtype=numpy.float64))
        if self.bias.shape != (C, T + 1):
            raise ValueError(f"bias must be ({C}, {T + 1}), got {self.bias.shape}")
        if numpy.isnan(self.bias).any() or numpy.isposinf(self.bias).any():
            raise ValueError("bias must be finite or -inf (no NaN, no +inf)")

    @property
    def n_nodes(self) -> int:
        return len(self.members)

    def argmax_node(self, c: int, u: Sequence[numpy.ndarray],
                    prefer: Optional[Sequence[int]] = None) -> Tuple[int, List[int], float]:
        """``(l_c, z of each member, value)`` of consensus node c under multipliers u (indexed by
        word node). ``prefer[i]``: a candidate of word i to choose among equal maxima (ties go to
        the sentence solution, so that zero potentials never disagree with it)."""
        ms = self.members[c]
        total = self.bias[c].copy()
        tables = []
        for i in ms:
            M = self.theta[self.tag_of[i]] + u[i][:, None]
            total += M.max(axis=0)
            tables.append(M)
        lab = int(total.argmax())
        z = []
        for i, M in zip(ms, tables):
            col = M[:, lab]
            v = int(col.argmax())
            if prefer is not None and col[prefer[i]] >= col[v]:
                v = int(prefer[i])
            z.append(v)
        return lab, z, float(total[lab])

    def without(self, words: Sequence[int]) -> "ConsensusMRF":
        """A copy whose consensus nodes no longer contain ``words`` (their constraints removed;
        the training bias stays)."""
        drop = set(int(i) for i in words)
        out = ConsensusMRF.__new__(ConsensusMRF)
        out.theta, out.n_tags, out.tag_of, out.bias = self.theta, self.n_tags, self.tag_of, self.bias
        out.members = [[i for i in ms if i not in drop] for ms in self.members]
        out.node_of = self.node_of.copy()
        out.node_of[list(drop)] = -1
        return out

    def best_given(self, c: int, labels: Sequence[int]) -> Tuple[int, float]:
        """``(l_c, value)``: the best consensus label when its members' labels are fixed
        (``labels`` indexed by word node): g restricted to assignments consistent with Y."""
        total = self.bias[c].copy()
        for i in self.members[c]:
            total += self.theta[self.tag_of[i][labels[i]]]
        lab = int(total.argmax())
        return lab, float(total[lab])


__all__ = ["ConsensusMRF", "make_theta"]
