"""Dual decomposition (rush2012 Figure 2) against brute force on tiny corpora: when it certifies,
its trees are a global optimum of F(Y) + g(z) and primal = dual; every dual value bounds the
optimum from above; lazy and full re-decoding agree; bad arguments raise ValueError."""
import itertools
import sys
from pathlib import Path

import numpy
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "graph"))

from brute_force import projective_trees, second_order_score  # noqa: E402

from spacy_joint_sbd.consistency import ConsensusMRF, WordNode, dual_decompose, make_theta  # noqa: E402
from spacy_joint_sbd.graph.eisner import eisner  # noqa: E402
from spacy_joint_sbd.graph.eisner2 import eisner2  # noqa: E402


def _instance(seed, lengths=(3, 4, 3), n_tags=3, n_nodes=2, second_order=False, delta=(1.5, 0.7, 0.3)):
    rng = numpy.random.default_rng(seed)
    arcs = [rng.normal(size=(n + 1, n + 1)) for n in lengths]
    sibs = [rng.normal(scale=0.5, size=(n + 1,) * 3) if second_order else None for n in lengths]
    chart_tags = [numpy.concatenate([[0], rng.integers(0, n_tags, size=n)]) for n in lengths]
    words, tag_of, members = [], [], [[] for _ in range(n_nodes)]
    for s, n in enumerate(lengths):
        for m in range(n):
            if rng.random() < 0.6:
                cands = numpy.array([h for h in range(n + 1) if h != m + 1])
                members[int(rng.integers(n_nodes))].append(len(words))
                words.append(WordNode(s, m, cands))
                tag_of.append(chart_tags[s][cands])
    close = numpy.zeros((n_tags, n_tags), dtype=bool)
    close[1, 2] = close[2, 1] = True
    theta = make_theta(n_tags, *delta, close=close)
    bias = rng.integers(0, 3, size=(n_nodes, 1)) * theta[rng.integers(0, n_tags, size=n_nodes)]
    mrf = ConsensusMRF(theta, members, tag_of, bias)

    def solve(s, pens):
        arc = arcs[s].copy()
        for m, cands, u in pens:
            arc[cands, m + 1] -= u
        heads, score = eisner(arc) if sibs[s] is None else eisner2(arc, sibs[s])
        return [h + 1 for h in heads], score

    def objective(trees):
        """F(Y) + max over consistent z of g(z), by enumeration of the consensus labels."""
        total = 0.0
        for s, heads in enumerate(trees):
            if sibs[s] is None:
                total += sum(arcs[s][h + 1, d + 1] for d, h in enumerate(heads))
            else:
                total += second_order_score(list(heads), arcs[s], sibs[s])
        for c, ms in enumerate(members):
            best = -numpy.inf
            for lab in range(n_tags + 1):
                v = bias[c, lab] + sum(theta[chart_tags[words[i].s][trees[words[i].s][words[i].m] + 1], lab]
                                       for i in ms)
                best = max(best, v)
            total += best
        return total

    return lengths, words, mrf, solve, objective


def _brute(lengths, objective):
    best, arg = -numpy.inf, None
    for combo in itertools.product(*[projective_trees(n).tolist() for n in lengths]):
        v = objective(combo)
        if v > best:
            best, arg = v, combo
    return best, arg


@pytest.mark.parametrize("second_order", [False, True])
def test_certified_solution_is_the_brute_force_optimum(second_order):
    certified = 0
    for seed in range(12):
        lengths, words, mrf, solve, objective = _instance(seed, second_order=second_order)
        res = dual_decompose(solve, len(lengths), words, mrf, K=200, rate=1.0)
        opt, _ = _brute(lengths, objective)
        found = [[h - 1 for h in l] for l in res.labels]
        # every dual value is an upper bound; the returned trees' objective is what primal says
        assert min(res.dual) >= opt - 1e-7
        assert objective(found) == pytest.approx(max(res.primal))
        assert objective(found) <= opt + 1e-9
        if res.certified:
            certified += 1
            assert objective(found) == pytest.approx(opt)
            assert res.dual[-1] == pytest.approx(res.primal[-1])
            assert not res.disagreeing
    assert certified >= 8  # DD is exact on most of these instances, as in the paper


def test_dual_decreases_in_trend():
    lengths, words, mrf, solve, _ = _instance(3, lengths=(4, 4, 4, 3), n_nodes=3)
    res = dual_decompose(solve, len(lengths), words, mrf, K=200, rate=1.0)
    assert res.iterations > 1
    assert res.dual[-1] <= res.dual[0] + 1e-9
    # mean of the second half not above the mean of the first half
    half = len(res.dual) // 2
    assert numpy.mean(res.dual[half:]) <= numpy.mean(res.dual[:half]) + 1e-9


@pytest.mark.parametrize("seed", [0, 5, 7])
def test_lazy_equals_full(seed):
    lengths, words, mrf, solve, _ = _instance(seed, lengths=(4, 3, 4, 4), n_nodes=3)
    lazy = dual_decompose(solve, len(lengths), words, mrf, K=60, rate=1.0, lazy=True)
    full = dual_decompose(solve, len(lengths), words, mrf, K=60, rate=1.0, lazy=False)
    assert lazy.labels == full.labels
    assert lazy.dual == full.dual and lazy.certified == full.certified
    assert sum(lazy.decoded) <= sum(full.decoded)


def test_removal_rounds_certify_the_reduced_model():
    """With too few iterations to agree, removing the disagreeing sentences' constraints ends in a
    certificate for the rest (the paper's exactness measure)."""
    for seed in range(30):
        lengths, words, mrf, solve, _ = _instance(seed, lengths=(4, 4, 4), n_nodes=2)
        first = dual_decompose(solve, len(lengths), words, mrf, K=1, rate=1.0)
        if first.certified:
            continue
        # each round drops the constraints of at least one disagreeing sentence, so with one
        # round per sentence the run must end certified for the model without them
        res = dual_decompose(solve, len(lengths), words, mrf, K=1, rate=1.0,
                             removal_rounds=len(lengths), extra_iterations=1)
        assert res.removed and res.certified and not res.disagreeing
        assert res.certified_sentences == set(range(len(lengths))) - res.removed
        return
    pytest.fail("no instance disagreed after one iteration")


def test_bad_arguments():
    lengths, words, mrf, solve, _ = _instance(0)
    with pytest.raises(ValueError, match="K must"):
        dual_decompose(solve, len(lengths), words, mrf, K=0)
    with pytest.raises(ValueError, match="rate must"):
        dual_decompose(solve, len(lengths), words, mrf, rate=-1.0)
    with pytest.raises(ValueError, match="rate must"):
        dual_decompose(solve, len(lengths), words, mrf, rate=float("nan"))
    with pytest.raises(ValueError, match="not in"):
        dual_decompose(solve, 1, words, mrf)
    with pytest.raises(ValueError, match="word nodes but"):
        dual_decompose(solve, len(lengths), words[:-1], mrf)
    with pytest.raises(ValueError, match="delta1 >= delta2"):
        make_theta(3, 0.1, 0.5, 0.0)
    with pytest.raises(ValueError, match="delta3"):
        make_theta(3, 1.0, 0.5, -0.1)
    with pytest.raises(ValueError, match="candidate tags"):
        ConsensusMRF(make_theta(2, 1, 0, 0), [[0]], [numpy.array([5])])
    with pytest.raises(ValueError, match="already in another"):
        ConsensusMRF(make_theta(2, 1, 0, 0), [[0], [0]], [numpy.array([1])])
    with pytest.raises(ValueError, match="theta must be finite"):
        ConsensusMRF(numpy.full((2, 3), numpy.nan), [[0]], [numpy.array([1])])
    with pytest.raises(ValueError, match="bias must be finite"):
        ConsensusMRF(make_theta(2, 1, 0, 0), [[0]], [numpy.array([1])], numpy.full((1, 3), numpy.nan))
    with pytest.raises(ValueError, match="integer ids"):
        ConsensusMRF(make_theta(2, 1, 0, 0), [[0]], [numpy.array([1.5])])


def test_bad_word_nodes():
    lengths, words, mrf, solve, _ = _instance(0)
    with pytest.raises(ValueError, match="n_sentences"):
        dual_decompose(solve, -1, words, mrf)
    w0 = words[0]
    with pytest.raises(ValueError, match="must be an int >= 0"):
        dual_decompose(solve, len(lengths), [type(w0)(w0.s, -1, w0.candidates)] + list(words[1:]), mrf)
    dup = numpy.array([w0.candidates[0]] * len(w0.candidates))
    assert len(dup) > 1
    with pytest.raises(ValueError, match="distinct"):
        dual_decompose(solve, len(lengths), [type(w0)(w0.s, w0.m, dup)] + list(words[1:]), mrf)


def test_mrf_argmax_is_exhaustive_maximum():
    rng = numpy.random.default_rng(1)
    theta = make_theta(3, 1.0, 0.4, 0.2, close=numpy.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], bool))
    tag_of = [rng.integers(0, 3, size=3) for _ in range(3)]
    bias = rng.normal(size=(1, 4))
    mrf = ConsensusMRF(theta, [[0, 1, 2]], tag_of, bias)
    u = [rng.normal(size=3) for _ in range(3)]
    lab, z, val = mrf.argmax_node(0, u)
    best = max(bias[0, l] + sum(theta[tag_of[i][v[i]], l] + u[i][v[i]] for i in range(3))
               for l in range(4) for v in itertools.product(range(3), repeat=3))
    assert val == pytest.approx(best)
    assert val == pytest.approx(bias[0, lab] + sum(theta[tag_of[i][z[i]], lab] + u[i][z[i]] for i in range(3)))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("removal", [0, 2])
def test_fast_consensus_equals_reference(seed, removal):
    """The per-word tables (refreshed only where u changed) give the per-node argmax_node /
    best_given results exactly: same labels, duals, primals, iterations, certificates."""
    lengths, words, mrf, solve, _ = _instance(seed, lengths=(4, 3, 4, 4), n_nodes=3)
    K = 3 if removal else 100
    fast = dual_decompose(solve, len(lengths), words, mrf, K=K, rate=1.0, fast=True,
                          removal_rounds=removal, extra_iterations=3)
    ref = dual_decompose(solve, len(lengths), words, mrf, K=K, rate=1.0, fast=False,
                         removal_rounds=removal, extra_iterations=3)
    assert fast.labels == ref.labels and fast.consensus == ref.consensus
    assert fast.dual == ref.dual and fast.primal == ref.primal
    assert (fast.iterations, fast.certified, fast.removed) == (ref.iterations, ref.certified, ref.removed)
