"""The DMV chart against brute force over all projective trees, with and without each of the
five punctuation constraints, and its argument checks."""
import importlib.util
from pathlib import Path

import numpy
import pytest

from spacy_joint_sbd.dmv.chart import Tables, viterbi_parse
from spacy_joint_sbd.graph.constraints import CONSTRAINTS, ConstraintMasks, build_masks, satisfies
from spacy_joint_sbd.graph.punct_fragments import word_fragments

_spec = importlib.util.spec_from_file_location(
    "_dmv_brute_force", Path(__file__).resolve().parents[1] / "graph" / "brute_force.py")
_bf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bf)
projective_trees = _bf.projective_trees


def tree_logprob(cls, heads, t: Tables) -> float:
    """The DMV's generative story, written independently of the chart: root, then for each head
    and side, CONT (adjacent), CONT (non-adjacent) for each further dependent, STOP."""
    n = len(heads)
    total = 0.0
    for h in range(-1, n):
        for side in (0, 1):
            deps = [d for d in range(n) if heads[d] == h and (d < h if side == 0 else d > h)]
            if h < 0:
                if side == 1:
                    total += sum(t.root[cls[d]] for d in deps)
                continue
            adj, non = (0, 1) if side == 0 else (2, 3)
            for i, d in enumerate(deps):
                total += t.cont[cls[h], adj if i == 0 else non] + t.choose[cls[h], side, cls[d]]
            total += t.stop[cls[h], adj if not deps else non]
    return total


def random_tables(rng, C: int) -> Tables:
    def logp(shape, axis):
        x = rng.random(shape) + 0.05
        return numpy.log(x / x.sum(axis=axis, keepdims=True))

    sc = logp((C, 4, 2), -1)
    return Tables(logp((C,), 0), sc[..., 0], sc[..., 1], logp((C, 2, C), 2))


def random_fragments(rng, n: int):
    marks = []
    for _ in range(n):
        marks.append(False)
        if rng.random() < 0.4:
            marks.append(True)
    return word_fragments(marks)


@pytest.mark.parametrize("seed", range(6))
def test_viterbi_equals_brute_force_under_every_constraint(seed):
    rng = numpy.random.default_rng(seed)
    checked = 0
    for _ in range(25):
        n = int(rng.integers(1, 7))
        distinct = bool(rng.random() < 0.5)  # one class per word: no two trees tie
        C = 6 if distinct else 3
        t = random_tables(rng, C)
        cls = rng.permutation(C)[:n] if distinct else rng.integers(0, C, n)
        frags = random_fragments(rng, n)
        trees = projective_trees(n).tolist()
        for name in ("none",) + CONSTRAINTS:
            allowed = [h for h in trees if satisfies(h, frags, name)]
            heads, score = viterbi_parse(cls, t, build_masks(n, frags, name))
            if not allowed:
                assert heads is None and score == -numpy.inf
                continue
            scores = [tree_logprob(cls, h, t) for h in allowed]
            best = max(scores)
            assert heads is not None and satisfies(heads, frags, name)
            assert score == pytest.approx(best, abs=1e-9)
            assert tree_logprob(cls, heads, t) == pytest.approx(score, abs=1e-9)
            if distinct:
                assert heads == allowed[int(numpy.argmax(scores))]
            checked += 1
    assert checked > 100


def test_constrained_never_above_unconstrained():
    rng = numpy.random.default_rng(42)
    for _ in range(40):
        n = int(rng.integers(2, 12))
        t = random_tables(rng, 4)
        cls = rng.integers(0, 4, n)
        frags = random_fragments(rng, n)
        _, free = viterbi_parse(cls, t)
        prev = free
        # nested constraints: thread ⊇ tear ⊇ sprawl ⊇ loose ⊇ strict, so scores fall monotonically
        for name in reversed(CONSTRAINTS):
            _, s = viterbi_parse(cls, t, build_masks(n, frags, name))
            assert s <= prev + 1e-9
            prev = s


def test_zero_probabilities_are_allowed():
    rng = numpy.random.default_rng(1)
    t = random_tables(rng, 2)
    choose = t.choose.copy()
    choose[:, :, 1] = -numpy.inf  # class 1 can only be the root
    t2 = Tables(t.root, t.stop, t.cont, choose)
    heads, score = viterbi_parse([0, 1, 0], t2)
    assert heads[1] == -1 and numpy.isfinite(score)
    heads, score = viterbi_parse([1, 1], t2)
    assert heads is None and score == -numpy.inf


def test_empty_sentence():
    t = random_tables(numpy.random.default_rng(0), 2)
    assert viterbi_parse([], t) == ([], 0.0)


def test_bad_arguments():
    rng = numpy.random.default_rng(0)
    t = random_tables(rng, 3)
    with pytest.raises(ValueError, match="classes must lie"):
        viterbi_parse([0, 3], t)
    with pytest.raises(ValueError, match="classes must lie"):
        viterbi_parse([-1, 0], t)
    with pytest.raises(ValueError, match="vector"):
        viterbi_parse([[0, 1]], t)
    with pytest.raises(ValueError, match="Tables"):
        viterbi_parse([0, 1], {"root": t.root})
    with pytest.raises(ValueError, match="masks are for"):
        viterbi_parse([0, 1], t, ConstraintMasks(3))
    with pytest.raises(ValueError, match="shape"):
        Tables(t.root, t.stop[:, :3], t.cont, t.choose)
    with pytest.raises(ValueError, match="shape"):
        Tables(t.root, t.stop, t.cont, t.choose[:2])
    bad = t.stop.copy()
    bad[0, 0] = numpy.nan
    with pytest.raises(ValueError, match="NaN"):
        Tables(t.root, bad, t.cont, t.choose)
    with pytest.raises(ValueError, match="non-empty"):
        Tables([], t.stop, t.cont, t.choose)


def _uniform_tables(C=3):
    return Tables(numpy.log(numpy.ones(C) / C), numpy.full((C, 4), numpy.log(.5)),
                  numpy.full((C, 4), numpy.log(.5)), numpy.full((C, 2, C), numpy.log(1 / C)))


@pytest.mark.parametrize("attr,value", [
    ("C", 10 ** 8), ("C", 0), ("C", "3"), ("root", numpy.zeros(2)), ("stop", numpy.zeros((3, 3))),
    ("cont", numpy.zeros((4, 4))), ("choose", numpy.zeros((3, 1, 3))),
    ("choose", numpy.zeros((3, 2, 3), dtype=numpy.float32)),
    ("stop", numpy.zeros((4, 3)).T), ("root", [0.0, 0.0, 0.0])])
def test_tampered_tables_are_rejected(attr, value):
    """Tables' attributes are writable: viterbi_parse must re-check them (C1: segfaulted)."""
    t = _uniform_tables()
    setattr(t, attr, value)
    cls = [10 ** 8 - 1] * 30 if attr == "C" and value == 10 ** 8 else [0, 1, 2]
    with pytest.raises(ValueError, match=attr if attr != "C" else "tables"):
        viterbi_parse(cls, t)


def test_masks_with_wrong_arrays_are_rejected():
    """ConstraintMasks whose n was changed after construction (C2: segfaulted)."""
    m = ConstraintMasks(1)
    m.n = 600
    with pytest.raises(ValueError, match="lbits"):
        viterbi_parse([0] * 600, _uniform_tables(), m)
    m = build_masks(4, [(0, 1), (2, 3)], "sprawl")
    m.lim_right = m.lim_right[:, :3]
    with pytest.raises(ValueError, match="lim_right"):
        viterbi_parse([0, 1, 2, 0], _uniform_tables(), m)


def test_sentence_length_limit():
    from spacy_joint_sbd.dmv.chart import MAX_WORDS
    with pytest.raises(ValueError, match=f"{MAX_WORDS + 1}-word sentence"):
        viterbi_parse([0] * (MAX_WORDS + 1), _uniform_tables())
