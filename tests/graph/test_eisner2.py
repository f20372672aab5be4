"""Second-order (sibling) Eisner against brute force over every projective tree (n <= 6/7)."""
import random

import numpy
import pytest

from brute_force import projective_trees, second_order_score
from spacy_joint_sbd.graph.constraints import (ALL_CONSTRAINTS, CONSTRAINTS, ConstraintMasks, build_masks,
                                               satisfies)
from spacy_joint_sbd.graph.eisner import eisner
from spacy_joint_sbd.graph.eisner2 import eisner2
from spacy_joint_sbd.graph.punct_fragments import fragments


def random_case(rng: random.Random, n: int):
    arc = numpy.array([[rng.gauss(0, 1) for _ in range(n + 1)] for _ in range(n + 1)])
    sib = numpy.array([rng.gauss(0, 1) for _ in range((n + 1) ** 3)]).reshape(n + 1, n + 1, n + 1)
    is_punct = [rng.random() < 0.3 for _ in range(n)]
    return arc, sib, is_punct


def test_zero_siblings_equals_first_order():
    rng = random.Random(3)
    for n in (1, 2, 5, 12, 30):
        arc, _, _ = random_case(rng, n)
        sib = numpy.zeros((n + 1,) * 3)
        h1, s1 = eisner(arc)
        h2, s2 = eisner2(arc, sib)
        assert h1 == h2 and s1 == pytest.approx(s2)


@pytest.mark.parametrize("n", range(1, 8))
def test_equals_brute_force(n):
    rng = random.Random(200 + n)
    trees = projective_trees(n)
    cases = 0
    changed = {name: 0 for name in ALL_CONSTRAINTS}
    while cases < (4 if n == 7 else 12):
        arc, sib, is_punct = random_case(rng, n)
        frags = fragments(is_punct)
        if not frags and n > 3:
            continue
        cases += 1
        scores = numpy.array([second_order_score(list(t), arc, sib) for t in trees])
        for name in ALL_CONSTRAINTS:
            ok = numpy.array([satisfies(list(t), frags, name) for t in trees], dtype=bool)
            heads, score = eisner2(arc, sib, build_masks(n, frags, name))
            if not ok.any():
                assert heads is None, (name, frags)
                continue
            best = numpy.where(ok, scores, -numpy.inf).argmax()
            assert heads is not None, (name, frags, list(trees[best]))
            assert score == pytest.approx(scores[best]), (name, frags, heads, list(trees[best]))
            assert heads == list(trees[best])
            assert second_order_score(heads, arc, sib) == pytest.approx(score)
            changed[name] += int(best != scores.argmax())
        heads, score = eisner2(arc, sib)  # masks=None: the unconstrained chart, eisner2_free_c
        assert heads == list(trees[scores.argmax()]) and score == pytest.approx(scores.max())
    if n >= 5:
        assert all(changed[name] > 0 for name in CONSTRAINTS if name != "strict"), changed


@pytest.mark.parametrize("ties", [False, True], ids=["gauss", "ties"])
def test_unconstrained_chart_equals_masked_chart(ties):
    """masks=None decodes with `eisner2_free_c` (no channels, transposed sibling table): the same
    tree and the same score, bit for bit, as the masked chart with all-true masks, also when small
    integer scores make many trees tie (same sums in the same order, same tie-breaking), and for
    sentences longer than the 32-wide blocks of the sibling transpose."""
    rng = numpy.random.default_rng(7 + ties)
    for n in [1, 2, 3, 5, 8, 13, 21, 31, 32, 33, 47, 64, 65, 70] * 3:
        if ties:
            arc = rng.integers(-2, 3, (n + 1, n + 1)).astype(float)
            sib = rng.integers(-2, 3, (n + 1,) * 3).astype(float)
        else:
            arc, sib = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
        assert eisner2(arc, sib) == eisner2(arc, sib, ConstraintMasks(n)), n
    # finite scores whose sums overflow: no tree in either chart (not a MemoryError)
    n = 6
    arc, sib = numpy.full((n + 1, n + 1), -1e308), numpy.full((n + 1,) * 3, -1e308)
    assert eisner2(arc, sib) == eisner2(arc, sib, ConstraintMasks(n)) == (None, -numpy.inf)


def test_swapped_sib_checks_its_shape():
    from spacy_joint_sbd.graph.eisner2 import swapped_sib

    sib = numpy.arange(27, dtype=float).reshape(3, 3, 3)
    numpy.testing.assert_array_equal(swapped_sib(sib), sib.transpose(0, 2, 1))
    with pytest.raises(ValueError, match="sibling scores"):
        swapped_sib(numpy.zeros((3, 3, 2)))


def test_bad_input():
    with pytest.raises(ValueError, match="sib_scores"):
        eisner2(numpy.zeros((3, 3)), numpy.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match="non-empty"):
        eisner2(numpy.zeros((3, 3)), numpy.zeros((3, 3)))
