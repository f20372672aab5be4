"""First-order Eisner against brute force over every projective tree (n <= 7)."""
import random

import numpy
import pytest

from brute_force import first_order_scores, projective_trees
from spacy_joint_sbd.graph.constraints import (
    ALL_CONSTRAINTS, CONSTRAINTS, build_masks, satisfies, violations,
)
from spacy_joint_sbd.graph.eisner import eisner
from spacy_joint_sbd.graph.punct_fragments import fragments


def random_case(rng: random.Random, n: int):
    arc = numpy.array([[rng.gauss(0, 1) for _ in range(n + 1)] for _ in range(n + 1)])
    is_punct = [rng.random() < 0.3 for _ in range(n)]
    return arc, is_punct


def brute_best(trees, scores, frags, name):
    ok = numpy.array([satisfies(list(t), frags, name) for t in trees], dtype=bool)
    if not ok.any():
        return None, ok
    best = numpy.where(ok, scores, -numpy.inf).argmax()
    return best, ok


@pytest.mark.parametrize("n", range(1, 8))
def test_unconstrained_equals_brute_force(n):
    rng = random.Random(n)
    trees = projective_trees(n)
    for _ in range(20):
        arc, _ = random_case(rng, n)
        heads, score = eisner(arc)
        scores = first_order_scores(trees, arc)
        assert score == pytest.approx(scores.max())
        assert heads == list(trees[scores.argmax()])


@pytest.mark.parametrize("n", range(2, 8))
def test_constrained_equals_brute_force(n):
    rng = random.Random(100 + n)
    trees = projective_trees(n)
    cases = 0
    changed = {name: 0 for name in ALL_CONSTRAINTS}
    while cases < (12 if n == 7 else 25):
        arc, is_punct = random_case(rng, n)
        frags = fragments(is_punct)
        if not frags and n > 3:
            continue
        cases += 1
        scores = first_order_scores(trees, arc)
        for name in ALL_CONSTRAINTS:
            best, ok = brute_best(trees, scores, frags, name)
            heads, score = eisner(arc, build_masks(n, frags, name))
            if best is None:
                assert heads is None, (name, frags)
                continue
            assert heads is not None, (name, frags, list(trees[best]))
            assert score == pytest.approx(scores[best]), (name, frags, heads, list(trees[best]))
            assert heads == list(trees[best])
            assert not violations(heads, frags, name)
            # never worse than the best tree that violates nothing
            assert score >= scores[ok].max() - 1e-9
            changed[name] += int(best != scores.argmax())
    if n >= 5:  # the constraints do bite on these cases
        assert all(changed[name] > 0 for name in CONSTRAINTS if name != "strict"), changed


def test_constraints_nested():
    rng = random.Random(7)
    n = 6
    trees = projective_trees(n)
    for _ in range(10):
        frags = fragments([rng.random() < 0.35 for _ in range(n)])
        for t in trees[:: 7]:
            sat = [satisfies(list(t), frags, name) for name in CONSTRAINTS]
            # strict ⊂ loose ⊂ sprawl ⊂ tear ⊂ thread
            assert sat == sorted(sat), (list(t), frags, sat)


def test_strict_is_infeasible_with_internal_punctuation():
    # Without punctuation in the tree, the fragment holding the root always protrudes (§2.2).
    frags = [(0, 1), (2, 3)]
    heads, score = eisner(numpy.zeros((5, 5)), build_masks(4, frags, "strict"))
    assert heads is None and score == -numpy.inf


def test_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        eisner(numpy.zeros((3, 4)))
    with pytest.raises(ValueError, match="finite"):
        eisner(numpy.full((3, 3), numpy.nan))
    with pytest.raises(ValueError, match="masks are for"):
        eisner(numpy.zeros((3, 3)), build_masks(3, [], "none"))
    with pytest.raises(ValueError, match="unknown constraint"):
        build_masks(3, [], "sprawling")


def test_empty_sentence():
    assert eisner(numpy.zeros((1, 1))) == ([], 0.0)


def test_nbest_filter():
    from spacy_joint_sbd.graph.constraints import nbest_filter

    frags = [(0, 1), (3, 4)]  # "a b , c d"
    # d is the root in both; b heads a and the comma; in the first tree b also heads c, so b's
    # yield [0, 3] crosses [3, 4] from outside
    violating = [1, 4, 1, 1, -1]
    fine = [1, 4, 1, 4, -1]
    assert not satisfies(violating, frags, "sprawl")
    assert satisfies(fine, frags, "sprawl")
    nbest = [(violating, 3.0), (fine, 2.0)]
    assert nbest_filter(nbest, frags, "sprawl") == (fine, 2.0)
    assert nbest_filter(nbest[:1], frags, "sprawl") is None
    assert nbest_filter(nbest, frags, "none") == (violating, 3.0)


def test_plain_eisner_equals_masked():
    from reference_eisner import eisner_reference as eisner_plain

    rng = numpy.random.RandomState(0)
    for n in (1, 2, 3, 6, 25, 80):
        for _ in range(5):
            arc = rng.randn(n + 1, n + 1)
            h1, s1 = eisner(arc)
            h2, s2 = eisner_plain(arc)
            assert h1 == h2 and s1 == pytest.approx(s2)


@pytest.mark.parametrize("attr", ["lbits", "rbits", "lim_left", "lim_right"])
def test_mask_arrays_must_match_n(attr):
    """`_MaskView` checked masks.n only: arrays of another size were read out of bounds."""
    from spacy_joint_sbd.graph.constraints import ConstraintMasks
    m = ConstraintMasks(1)
    m.n = 600
    with pytest.raises(ValueError, match="lbits"):
        eisner(numpy.zeros((601, 601)), m)
    m = ConstraintMasks(5)
    setattr(m, attr, getattr(m, attr)[:3, :3])
    with pytest.raises(ValueError, match=attr):
        eisner(numpy.zeros((6, 6)), m)
    m = ConstraintMasks(5)
    setattr(m, attr, numpy.zeros((6, 6), dtype=numpy.float64))
    with pytest.raises(ValueError, match=attr):
        eisner(numpy.zeros((6, 6)), m)
