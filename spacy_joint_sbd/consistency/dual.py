"""The global decoding algorithm of rush2012 Figure 2 (§6): subgradient dual decomposition between
sentence-level decoders and the consensus MRF, with lazy re-decoding (§9) and a certificate.

Objective (eq. 1): max F(Y) + g(z) s.t. z(i, v) = Y(i, v) for every constrained word i. Dual:

    L(u) = max_z [g(z) + u·z] + max_Y [F(Y) − u·Y]  ≥  the optimum, for every u.

Each iteration solves both sides; if they agree on every constrained word, (Y, z) is optimal
(Theorem 1): the *certificate*, and primal = dual. Otherwise u moves against the subgradient
z − Y (u ← u − α_k (z − Y): the minimizing direction of L as written here; Figure 2 prints the
opposite sign), with α_k = rate / (1 + t), t the number of iterations whose dual went up (the
decay protocol of Koo et al. 2010). Only sentences and consensus nodes whose multipliers (or
members' labels) changed are solved again (*lazy*). If K iterations end without agreement, the
paper's exactness measure removes the constraints of the sentences that still disagree and goes
on (``removal_rounds``): a certificate then holds for the model without them.

The sentence-level decoder is a callback, so parsing (`consistency.parsing`) and tagging
(`tagger.trigram` + `consistency.tagging`) share this loop.
"""
import gc
import time
from dataclasses import dataclass, field
from typing import Callable, List, Sequence, Set, Tuple

import numpy

from .mrf import ConsensusMRF
from .tables import DDTables

Penalty = Tuple[int, numpy.ndarray, numpy.ndarray]
"""(position m, candidate labels, u over them): subtract u[j] from labelling m with cand[j]."""
SentenceSolver = Callable[[int, Sequence[Penalty]], Tuple[List[int], float]]
"""solve(s, penalties) → (label of every position of sentence s, its score F_s(Y_s) − u·Y_s).
``penalties`` is a `penalties.Penalties` (a sequence of `Penalty`, valid during the call)."""


@dataclass
class WordNode:
    """A constrained test word: sentence s, position m, its candidate labels (heads / tags)."""

    s: int
    m: int
    candidates: numpy.ndarray


@dataclass
class DDResult:
    labels: List[List[int]]
    """Every sentence's labels at the returned solution."""
    certified: bool
    """Agreement reached: the solution is exact for the model (minus `removed` sentences)."""
    iterations: int
    dual: List[float] = field(default_factory=list)
    primal: List[float] = field(default_factory=list)
    decoded: List[int] = field(default_factory=list)
    """Sentences decoded in each iteration (Figure 3's work per iteration)."""
    nodes_solved: List[int] = field(default_factory=list)
    consensus: List[int] = field(default_factory=list)
    """Each consensus node's label at the end (T = NULL)."""
    removed: Set[int] = field(default_factory=set)
    """Sentences whose constraints were removed to reach agreement."""
    disagreeing: Set[int] = field(default_factory=set)
    """Sentences still disagreeing at the end (empty when certified)."""
    seconds: float = 0.0

    @property
    def certified_sentences(self) -> Set[int]:
        """Sentences that keep their constraints in a certified solution (none otherwise)."""
        if not self.certified:
            return set()
        return set(range(len(self.labels))) - self.removed


def _check(words: Sequence[WordNode], mrf: ConsensusMRF, n_sentences: int, K: int, rate: float,
           removal_rounds: int) -> None:
    if isinstance(n_sentences, bool) or not isinstance(n_sentences, int) or n_sentences < 0:
        raise ValueError(f"n_sentences must be an int >= 0, got {n_sentences!r}")
    if isinstance(K, bool) or not isinstance(K, int) or K < 1:
        raise ValueError(f"K must be a positive int, got {K!r}")
    if not (isinstance(rate, (int, float)) and numpy.isfinite(rate) and rate > 0):
        raise ValueError(f"rate must be a positive number, got {rate!r}")
    if not isinstance(removal_rounds, int) or removal_rounds < 0:
        raise ValueError(f"removal_rounds must be an int >= 0, got {removal_rounds!r}")
    if len(words) != len(mrf.tag_of):
        raise ValueError(f"{len(words)} word nodes but the MRF has {len(mrf.tag_of)}")
    seen = set()
    for i, w in enumerate(words):
        if not 0 <= w.s < n_sentences:
            raise ValueError(f"word node {i}: sentence {w.s} not in [0, {n_sentences})")
        if not isinstance(w.m, (int, numpy.integer)) or w.m < 0:
            raise ValueError(f"word node {i}: position {w.m!r} must be an int >= 0")
        cands = numpy.asarray(w.candidates)
        if cands.ndim != 1 or len(set(cands.tolist())) != len(cands):
            raise ValueError(f"word node {i}: candidates must be distinct labels, got {cands.tolist()[:10]}")
        if (w.s, w.m) in seen:
            raise ValueError(f"word node {i}: position ({w.s}, {w.m}) constrained twice")
        seen.add((w.s, w.m))
        if len(w.candidates) != len(mrf.tag_of[i]):
            raise ValueError(f"word node {i}: {len(w.candidates)} candidates but "
                             f"{len(mrf.tag_of[i])} candidate tags")


def dual_decompose(solve: SentenceSolver, n_sentences: int, words: Sequence[WordNode],
                   mrf: ConsensusMRF, K: int = 200, rate: float = 1.0, lazy: bool = True,
                   removal_rounds: int = 0, extra_iterations: int = 50,
                   fast: bool = True) -> DDResult:
    """Figure 2. ``removal_rounds``: after K iterations without agreement, remove the constraints
    of the disagreeing sentences and run up to ``extra_iterations`` more, this many times.
    ``fast``: the bookkeeping in C (`tables.DDTables`: flat multipliers, per-word consensus tables
    refreshed only for the words whose multipliers changed, sentence penalties as `Penalties`);
    False: plain Python with `ConsensusMRF.argmax_node` and `best_given` per node (the reference;
    same results, bit for bit)."""
    _check(words, mrf, n_sentences, K, rate, removal_rounds)
    # the loop allocates many small short-lived arrays: the cyclic collector's passes over the
    # caller's heap (corpora, models) cost more than the decoding itself on short sentences
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _dual_decompose(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
                               extra_iterations, fast)
    finally:
        if gc_was_enabled:
            gc.enable()


def _dual_decompose(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
                    extra_iterations, fast) -> DDResult:
    if fast:
        return _fast(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
                     extra_iterations)
    return _reference(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
                      extra_iterations)


def _fast(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
          extra_iterations) -> DDResult:
    """Figure 2 with the bookkeeping in `tables.DDTables` (C loops over flat arrays)."""
    start = time.perf_counter()
    tab = DDTables(words, mrf, n_sentences)
    # Y[s] is replaced, never changed in place: a snapshot of Y is a shallow copy
    Y: List[List[int]] = [[] for _ in range(n_sentences)]
    sscore = numpy.zeros(n_sentences)
    res = DDResult([], False, 0)
    prev_dual, t = numpy.inf, 0
    best_primal, best_Y = -numpy.inf, None
    budget, rounds_left, k = K, removal_rounds, 0
    while True:
        k += 1
        todo_s = tab.take_sentences(lazy)
        for s in todo_s:
            labels, score = solve(s, tab.penalties(s))
            labels = list(labels)
            tab.read(s, labels)
            Y[s] = labels
            sscore[s] = float(score)
        tab.refresh()
        res.decoded.append(len(todo_s))
        res.nodes_solved.append(tab.solve_nodes(lazy))
        dual = float(sscore.sum() + tab.node_val.sum())
        primal = float(sscore.sum() + tab.uy.sum() + tab.given_val.sum())
        res.dual.append(dual)
        res.primal.append(primal)
        if primal > best_primal:
            best_primal, best_Y = primal, list(Y)
        bad = tab.disagreeing()
        if not bad.size:
            res.certified = True
            best_Y = list(Y)
            break
        if k >= budget:
            if rounds_left == 0:
                break
            rounds_left -= 1
            budget = k + extra_iterations
            res.removed |= tab.remove(bad)
            prev_dual, t = numpy.inf, 0
            continue
        if dual > prev_dual:
            t += 1
        prev_dual = dual
        tab.step(bad, rate / (1.0 + t))
    res.labels = [list(l) for l in best_Y]
    res.iterations = k
    res.consensus = tab.node_lab.tolist()
    res.disagreeing = set() if res.certified else {words[i].s for i in bad.tolist()}
    res.seconds = time.perf_counter() - start
    return res


def _reference(solve, n_sentences, words, mrf, K, rate, lazy, removal_rounds,
               extra_iterations) -> DDResult:
    """Figure 2 in plain Python: `ConsensusMRF.argmax_node` and `best_given` per node."""
    start = time.perf_counter()
    index = [{int(v): j for j, v in enumerate(w.candidates)} for w in words]
    u = [numpy.zeros(len(w.candidates)) for w in words]
    by_sent: List[List[int]] = [[] for _ in range(n_sentences)]
    for i, w in enumerate(words):
        by_sent[w.s].append(i)
    Y: List[List[int]] = [[] for _ in range(n_sentences)]
    sscore = numpy.zeros(n_sentences)
    y = numpy.zeros(len(words), dtype=numpy.int64)  # candidate index of Y at each word
    C = mrf.n_nodes
    node_lab = numpy.zeros(C, dtype=numpy.int64)
    node_val = numpy.zeros(C)
    given_val = numpy.zeros(C)
    z = numpy.zeros(len(words), dtype=numpy.int64)
    active = numpy.ones(len(words), dtype=bool)
    uy = numpy.zeros(len(words))  # u_i[y_i]: F(Y) = Σ sentence scores + Σ uy
    res = DDResult([], False, 0)
    dirty_s = set(range(n_sentences))
    dirty_c = set(range(C))
    prev_dual, t = numpy.inf, 0
    best_primal, best_Y = -numpy.inf, None
    budget, rounds_left, k = K, removal_rounds, 0
    while True:
        k += 1
        todo_s = dirty_s if lazy else range(n_sentences)
        for s in sorted(todo_s):
            pens = [(words[i].m, words[i].candidates, u[i]) for i in by_sent[s] if active[i]]
            labels, score = solve(s, pens)
            Y[s], sscore[s] = list(labels), float(score)
            for i in by_sent[s]:
                try:
                    new = index[i][int(labels[words[i].m])]
                except (KeyError, IndexError):
                    raise ValueError(f"sentence {s}: label {labels[words[i].m] if words[i].m < len(labels) else None} "
                                     f"at {words[i].m} is not among the word's candidates") from None
                if new != y[i] and mrf.node_of[i] >= 0:
                    dirty_c.add(int(mrf.node_of[i]))
                y[i] = new
                uy[i] = u[i][new] if active[i] else 0.0
        todo_c = dirty_c if lazy else range(C)
        for c in sorted(todo_c):
            lab, zc, val = mrf.argmax_node(c, u, prefer=y)
            node_lab[c], node_val[c] = lab, val
            for i, v in zip(mrf.members[c], zc):
                z[i] = v
            given_val[c] = mrf.best_given(c, y)[1]
        res.decoded.append(len(todo_s))
        res.nodes_solved.append(len(todo_c))
        dirty_s, dirty_c = set(), set()
        dual = float(sscore.sum() + node_val.sum())
        primal = float(sscore.sum() + uy.sum() + given_val.sum())
        res.dual.append(dual)
        res.primal.append(primal)
        if primal > best_primal:
            best_primal, best_Y = primal, [list(l) for l in Y]
        bad = numpy.flatnonzero(active & (mrf.node_of >= 0) & (z != y)).tolist()
        if not bad:
            res.certified = True
            best_Y = [list(l) for l in Y]
            break
        if k >= budget:
            if rounds_left == 0:
                break
            rounds_left -= 1
            budget = k + extra_iterations
            drop_s = {words[i].s for i in bad}
            res.removed |= drop_s
            drop = [i for s in drop_s for i in by_sent[s] if active[i]]
            for i in drop:
                active[i] = False
                u[i][:] = 0.0
                uy[i] = 0.0
                if mrf.node_of[i] >= 0:
                    dirty_c.add(int(mrf.node_of[i]))
            mrf = mrf.without(drop)
            dirty_s |= drop_s
            prev_dual, t = numpy.inf, 0
            continue
        if dual > prev_dual:
            t += 1
        prev_dual = dual
        alpha = rate / (1.0 + t)
        for i in bad:
            u[i][z[i]] -= alpha
            u[i][y[i]] += alpha
            uy[i] = u[i][y[i]]
            dirty_s.add(words[i].s)
            dirty_c.add(int(mrf.node_of[i]))
    res.labels = best_Y
    res.iterations = k
    res.consensus = node_lab.tolist()
    res.disagreeing = set() if res.certified else {words[i].s for i in bad}
    res.seconds = time.perf_counter() - start
    return res


__all__ = ["DDResult", "Penalty", "SentenceSolver", "WordNode", "dual_decompose"]
