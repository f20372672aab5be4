"""The C bookkeeping of dual_decompose(fast=True): `penalties`, `adjusted_eisner`, `tables`.
Equal to the numpy / Python reference bit for bit; bad arguments raise instead of crashing."""
import numpy
import pytest

from spacy_joint_sbd.consistency import ConsensusMRF, WordNode, make_theta
from spacy_joint_sbd.consistency.adjusted_eisner import AdjustedEisner
from spacy_joint_sbd.consistency.penalties import Penalties, WordArrays, penalties_from_tuples
from spacy_joint_sbd.consistency.tables import DDTables
from spacy_joint_sbd.graph.eisner import eisner
from spacy_joint_sbd.graph.eisner2 import eisner2


def _sentence(rng, n, second_order):
    arc = rng.normal(size=(n + 1, n + 1))
    sib = rng.normal(scale=0.5, size=(n + 1,) * 3) if second_order else None
    pens = []
    for m in rng.choice(n, size=min(n, 3), replace=False):
        cands = numpy.array([h for h in range(n + 1) if h != m + 1 and rng.random() < 0.7] or [0])
        pens.append((int(m), cands, rng.normal(size=len(cands))))
    return arc, sib, pens


@pytest.mark.parametrize("second_order", [False, True])
def test_adjusted_eisner_equals_numpy_adjustment(second_order):
    rng = numpy.random.default_rng(0)
    for n in (1, 2, 5, 9):
        arc, sib, pens = _sentence(rng, n, second_order)
        adj = arc.copy()
        for m, cands, u in pens:
            adj[cands, m + 1] -= u
        heads, score = eisner(adj) if sib is None else eisner2(adj, sib)
        dec = AdjustedEisner(arc, sib)
        for given in (pens, penalties_from_tuples(pens)):
            h2, s2 = dec.decode(given)
            assert h2 == [h + 1 for h in heads] and s2 == score  # bit-identical
        assert dec.decode([])[1] == (eisner(arc) if sib is None else eisner2(arc, sib))[1]


def test_adjusted_eisner_keeps_its_own_copy():
    arc = numpy.zeros((4, 4))
    dec = AdjustedEisner(arc)
    arc[:] = numpy.nan  # the caller's array changes; the decoder's does not
    assert numpy.isfinite(dec.decode([])[1])


def test_adjusted_eisner_bad_arguments():
    with pytest.raises(ValueError, match="arc scores"):
        AdjustedEisner(numpy.zeros((3, 4)))
    with pytest.raises(ValueError, match="arc scores"):
        AdjustedEisner(numpy.zeros((0, 0)))
    with pytest.raises(ValueError, match="finite"):
        AdjustedEisner(numpy.full((3, 3), numpy.inf))
    with pytest.raises(ValueError, match="sibling"):
        AdjustedEisner(numpy.zeros((3, 3)), numpy.zeros((3, 3, 2)))
    with pytest.raises(ValueError, match="finite"):
        AdjustedEisner(numpy.zeros((3, 3)), numpy.full((3, 3, 3), numpy.nan))
    dec = AdjustedEisner(numpy.zeros((4, 4)), numpy.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match="position"):
        dec.decode([(3, numpy.array([0]), numpy.array([1.0]))])
    with pytest.raises(ValueError, match="head"):
        dec.decode([(0, numpy.array([4]), numpy.array([1.0]))])
    with pytest.raises(ValueError, match=">= 0"):
        dec.decode([(0, numpy.array([-1]), numpy.array([1.0]))])
    with pytest.raises(ValueError, match=">= 0"):
        dec.decode([(-1, numpy.array([0]), numpy.array([1.0]))])
    with pytest.raises(ValueError, match="one length"):
        dec.decode([(0, numpy.array([0, 1]), numpy.array([1.0]))])
    with pytest.raises(ValueError, match="one length"):
        dec.decode([(0, numpy.array([0]))])
    for bad in (numpy.inf, numpy.nan):
        with pytest.raises(ValueError, match="finite"):
            dec.decode([(0, numpy.array([0, 2]), numpy.array([1.0, bad]))])
    with pytest.raises((ValueError, TypeError)):
        dec.decode([(0, numpy.array(["x"]), numpy.array([1.0]))])


def test_penalties_are_the_active_words_tuples():
    a = WordArrays([2, 0, 1], [numpy.array([0, 1]), numpy.array([2]), numpy.array([0, 3])],
                   [1, 0, 1], 2)
    a.u_arr[:] = [0.5, -0.5, 1.0, 2.0, 3.0]
    p = Penalties(a, 1)
    got = [(m, c.tolist(), u.tolist()) for m, c, u in p]
    assert got == [(2, [0, 1], [0.5, -0.5]), (1, [0, 3], [2.0, 3.0])]
    assert len(p) == 2 and p and len(Penalties(a, 0)) == 1
    assert p[1][0] == 1 and p[-2][1].tolist() == [0, 1]
    with pytest.raises(IndexError):
        p[2]
    with pytest.raises(ValueError, match="not in"):
        Penalties(a, 2)
    with pytest.raises(ValueError, match="not in"):
        Penalties(a, -1)
    with pytest.raises(ValueError, match="one entry per word"):
        WordArrays([0], [numpy.array([0]), numpy.array([1])], [0, 0], 1)
    with pytest.raises(ValueError, match="sentences in"):
        WordArrays([0], [numpy.array([0])], [1], 1)
    with pytest.raises(ValueError, match="labels >= 0"):
        WordArrays([0], [numpy.array([[0]])], [0], 1)


def _tables():
    theta = make_theta(2, 1.0, 0.5, 0.0)
    words = [WordNode(0, 0, numpy.array([0, 2])), WordNode(0, 1, numpy.array([0, 1])),
             WordNode(1, 0, numpy.array([0, 2]))]
    tag_of = [numpy.array([0, 1]), numpy.array([0, 1]), numpy.array([1, 0])]
    mrf = ConsensusMRF(theta, [[0, 2], [1]], tag_of)
    return DDTables(words, mrf, 2), words, mrf


def test_tables_match_argmax_node():
    tab, words, mrf = _tables()
    tab.read(0, [2, 0])
    tab.read(1, [0])
    tab.refresh()
    assert tab.solve_nodes(True) == 2 and tab.solve_nodes(True) == 0
    u = [numpy.zeros(2) for _ in words]
    y = tab.y.tolist()
    for c in range(2):
        lab, z, val = mrf.argmax_node(c, u, prefer=y)
        assert (tab.node_lab[c], tab.node_val[c]) == (lab, val)
        assert [tab.z[i] for i in mrf.members[c]] == z
        assert tab.given_val[c] == mrf.best_given(c, y)[1]


def test_tables_bad_arguments():
    tab, words, mrf = _tables()
    with pytest.raises(ValueError, match="not in"):
        tab.read(2, [0])
    with pytest.raises(ValueError, match="not in"):
        tab.read(-1, [0])
    with pytest.raises(ValueError, match="not among"):
        tab.read(0, [1, 0])  # 1 is not a candidate of word 0
    with pytest.raises(ValueError, match="not among"):
        tab.read(0, [0])  # too short
    with pytest.raises(ValueError, match="not among"):
        tab.read(0, [-3, 0])
    with pytest.raises(TypeError):
        tab.read(0, ["a", 0])
    with pytest.raises(ValueError, match="not in"):
        tab.penalties(5)
    for exposed in (tab.y, tab.z, tab.node_lab, tab.words.cand_arr):  # the C loops index with them
        with pytest.raises(ValueError, match="read-only"):
            exposed[0] = 10 ** 9
    for bad in ([3], [-1]):
        with pytest.raises(ValueError, match="constrained word"):
            tab.step(numpy.array(bad), 1.0)
        with pytest.raises(ValueError, match="words must be"):
            tab.remove(numpy.array(bad))
    tab.remove(numpy.array([0]))  # sentence 0 loses its constraints
    with pytest.raises(ValueError, match="constrained word"):
        tab.step(numpy.array([1]), 1.0)
    with pytest.raises(ValueError, match="already in another"):
        DDTables(words, ConsensusMRF(mrf.theta, [[0, 2], [1]], mrf.tag_of), 2)._set_members([[0], [0]])
    with pytest.raises(ValueError, match="word nodes but"):
        DDTables(words[:2], mrf, 2)
    with pytest.raises(ValueError, match="sentences in"):
        DDTables(words, mrf, 1)
    with pytest.raises(ValueError, match="distinct"):
        DDTables([WordNode(0, 0, numpy.array([0, 0]))] + words[1:],
                 ConsensusMRF(mrf.theta, [[0, 2], [1]], [numpy.array([0, 0])] + mrf.tag_of[1:]), 2)
