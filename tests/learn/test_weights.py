"""HashedWeights, SparseUpdate, learners: exact small cases."""
import numpy
import pytest

from spacy_joint_sbd.learn import (HashedWeights, PassiveAggressive, Perceptron, SparseUpdate,
                                   apply_update, hash_string, hash_values, make_learner)


def feats(*keys):
    return numpy.asarray(keys, dtype=numpy.uint64)


def test_score_sums_rows_modulo_n_rows():
    w = HashedWeights(8, 3)
    w.update(feats(1), 0, 1.0)
    w.update(feats(2), 2, 0.5)
    # 9 % 8 == 1: collides with key 1
    assert w.score(feats(1, 2, 9)).tolist() == [2.0, 0.0, 0.5]
    assert w.score(feats()).tolist() == [0.0, 0.0, 0.0]


def test_averaging_matches_explicit_average():
    w = HashedWeights(4, 2)
    f = feats(0, 3)
    snapshots = []
    rng = numpy.random.default_rng(0)
    for t in range(20):
        if t % 3 != 1:
            w.update(f[: 1 + t % 2], int(rng.integers(2)), float(rng.normal()))
        snapshots.append(w.get_params()["W"].copy())
        w.tick()
    expected = numpy.mean(snapshots, axis=0)
    assert numpy.allclose(w.averaged(), expected, atol=1e-5)


def test_use_averages_swaps_and_restores():
    w = HashedWeights(4, 2)
    w.tick()
    w.update(feats(1), 1, 2.0)
    w.tick()
    raw = w.score(feats(1)).copy()
    with w.use_averages():
        avg = w.score(feats(1))
        with pytest.raises(RuntimeError):
            w.update(feats(1), 0, 1.0)
    assert numpy.allclose(avg, [0.0, 1.0])
    assert numpy.allclose(w.score(feats(1)), raw)


def test_params_round_trip_and_shape_check():
    w = HashedWeights(16, 3)
    w.update(feats(5, 6), 2, 1.5)
    w.tick()
    params = {k: v.copy() for k, v in w.get_params().items()}
    w2 = HashedWeights(16, 3)
    w2.set_params(params)
    assert numpy.array_equal(w2.averaged(), w.averaged())
    assert numpy.array_equal(w2.score(feats(5)), w.score(feats(5)))
    with pytest.raises(ValueError):
        HashedWeights(8, 3).set_params(params)


def test_finalize_keeps_the_average():
    w = HashedWeights(4, 1)
    w.tick()
    w.update(feats(0), 0, 4.0)
    w.tick()
    avg = w.averaged().copy()
    w.finalize()
    assert numpy.allclose(w.get_params()["W"], avg)
    assert numpy.allclose(w.averaged(), avg)


def test_sparse_update_merges_duplicates():
    u = SparseUpdate(8, 2)
    u.add(feats(1, 9, 2), 0, 1.0)  # 1 and 9 share a row
    u.add(feats(2), 0, -1.0)
    assert len(u) == 2
    assert u.sqnorm() == pytest.approx(4.0)  # row 1: 2, row 2: 0
    w = HashedWeights(8, 2)
    u.apply(w, 0.5)
    assert w.score(feats(1)).tolist() == [1.0, 0.0]
    assert w.score(feats(2)).tolist() == [0.0, 0.0]
    v = SparseUpdate(8, 2)
    v.merge(u, 2.0)
    assert v.sqnorm() == pytest.approx(16.0)


def test_learners():
    assert Perceptron().step(-3.0, 2.0) == 1.0
    pa = PassiveAggressive(C=0.5)
    assert pa.step(1.0, 4.0) == pytest.approx(0.25)
    assert pa.step(10.0, 1.0) == 0.5
    assert pa.step(-1.0, 1.0) == 0.0
    assert isinstance(make_learner("pa", 2.0), PassiveAggressive)
    with pytest.raises(ValueError):
        make_learner("sgd")
    # a PA step makes the margin exactly zero when C is large enough
    w = HashedWeights(16, 2)
    f = feats(3, 4)
    u = SparseUpdate(16, 2)
    u.add(f, 0, 1.0)
    u.add(f, 1, -1.0)
    u.loss = float(w.score(f)[1] - w.score(f)[0] + 1.0)
    apply_update(w, u, PassiveAggressive(C=100.0))
    s = w.score(f)
    assert s[0] - s[1] == pytest.approx(1.0)


def test_hashing_is_deterministic():
    assert hash_string("dog") == hash_string("dog") != hash_string("cat")
    assert hash_values([1, 2]) == hash_values([1, 2]) != hash_values([2, 1])
