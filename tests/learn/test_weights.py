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


def test_python_api_checks_its_arguments():
    """ValueError, never a write outside the table."""
    w = HashedWeights(8, 3)
    for bad in ([-1], numpy.asarray([-2], dtype=numpy.int64), [[1, 2]], [0.5], ["x"], [1 << 64]):
        with pytest.raises(ValueError, match="feature keys"):
            w.score(bad)
        with pytest.raises(ValueError, match="feature keys"):
            w.update(bad, 0, 1.0)
    for clas in (-1, 3, 1 << 20):
        with pytest.raises(ValueError, match="class"):
            w.update(feats(1), clas, 1.0)
        with pytest.raises(ValueError, match="class"):
            SparseUpdate(8, 3).add(feats(1), clas, 1.0)  # was written through apply()
    with pytest.raises(ValueError, match="positive"):
        SparseUpdate(0, 3)  # was a division by zero on add
    with pytest.raises(ValueError, match="positive"):
        HashedWeights(8, 0)
    with pytest.raises(TypeError):
        SparseUpdate(8, 3).apply(None)  # None passed as a HashedWeights: a NULL dereference
    with pytest.raises(ValueError, match="U has shape"):
        w.set_params({"W": numpy.zeros((8, 3)), "U": numpy.zeros(3)})
    with pytest.raises(ValueError, match="time"):
        w.set_params({"W": numpy.zeros((8, 3)), "time": [float("nan")]})
    with pytest.raises(ValueError, match="clock"):
        w.tick(-1)
    assert w.score([(1 << 64) - 1, 2]).shape == (3,)  # keys up to 2**64 − 1 are fine


def test_average_table_is_cached_and_read_only_for_callers():
    w = HashedWeights(4, 2)
    w.tick()
    w.update(feats(1), 1, 2.0)
    w.tick()
    avg = w.average_table()
    assert avg is w.average_table()  # cached until the next update or tick
    assert numpy.array_equal(avg, w.averaged())
    assert w.score(feats(1)).tolist() == [0.0, 2.0]  # nothing swapped
    with w.use_averages():
        assert w.average_table() is avg
        assert w.score(feats(1)).tolist() == [0.0, 1.0]
    w.tick()
    assert w.average_table() is not avg


def test_use_averages_from_many_threads():
    """Threads entering and leaving `use_averages()` at different times all score with the
    averaged table; W is restored when the last one leaves (the first one out used to restore it
    under the others' feet)."""
    import threading

    w = HashedWeights(4, 2)
    w.tick()
    w.update(feats(1), 1, 2.0)
    w.tick()
    seen, barrier = [], threading.Barrier(4)

    def work(i):
        barrier.wait()
        for k in range(200):
            with w.use_averages():
                seen.append(w.score(feats(1)).tolist())
                if (k + i) % 7 == 0:
                    with w.use_averages():  # nested in one thread
                        seen.append(w.score(feats(1)).tolist())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) > 800 and all(s == [0.0, 1.0] for s in seen)
    assert not w.using_averages and w.score(feats(1)).tolist() == [0.0, 2.0]


def test_hash_values_reads_only_what_it_iterated():
    class Liar:  # len() larger than what iteration yields: was a read past the array
        def __len__(self):
            return 10 ** 6

        def __iter__(self):
            return iter([1])

    assert hash_values(Liar()) == hash_values([1])
    assert hash_values([]) == 6626834796609356575  # unchanged by the fix


def test_in_place_restart_and_row_loads():
    """`restart_from` and `load_rows` (the parameter mix's in-place writes) equal `set_params`,
    drop the cached average, and refuse bad arguments with a ValueError."""
    rng = numpy.random.default_rng(1)
    w = HashedWeights(8, 3)
    w.update(numpy.arange(5, dtype=numpy.uint64), 1, 2.0)
    w.tick(3)
    before = w.average_table()
    W = rng.normal(size=(8, 3)).astype(numpy.float32)
    w.restart_from(W)
    assert (w.get_params()["W"] == W).all() and not w.get_params()["U"].any() and w.time == 0
    assert w.average_table() is not before and (w.average_table() == W).all()
    ref = HashedWeights(8, 3)
    ref.set_params({"W": W})
    rows = numpy.array([1, 6])
    W_rows, U_rows = rng.normal(size=(2, 3)).astype(numpy.float32), rng.normal(size=(2, 3)).astype(numpy.float32)
    w.load_rows(rows, W_rows, U_rows, 4.0)
    W2, U2 = W.copy(), numpy.zeros_like(W)
    W2[rows], U2[rows] = W_rows, U_rows
    ref.set_params({"W": W2, "U": U2, "time": [4.0]})
    assert (w.averaged() == ref.averaged()).all() and (w.average_table() == ref.averaged()).all()
    for bad in (lambda: w.restart_from(numpy.zeros((7, 3))),
                lambda: w.load_rows([8], W_rows[:1], U_rows[:1], 1.0),
                lambda: w.load_rows([-1], W_rows[:1], U_rows[:1], 1.0),
                lambda: w.load_rows([0.5], W_rows[:1], U_rows[:1], 1.0),
                lambda: w.load_rows(rows, W_rows[:1], U_rows, 1.0),
                lambda: w.load_rows(rows, W_rows, U_rows, float("nan")),
                lambda: w.load_rows(rows, W_rows, U_rows, -1.0)):
        with pytest.raises(ValueError):
            bad()
    with w.use_averages():
        with pytest.raises(RuntimeError):
            w.restart_from(W)
        with pytest.raises(RuntimeError):
            w.load_rows(rows, W_rows, U_rows, 1.0)


def test_set_params_without_copy_shares_a_writeable_table_and_copies_anything_else():
    """copy=False is how a loaded component holds one table instead of two: a writeable C-ordered
    float32 W is adopted (its updates show in both), a read-only or other-typed one is copied."""
    hw = HashedWeights(8, 3)
    W = numpy.arange(24, dtype=numpy.float32).reshape(8, 3)
    hw.set_params({"W": W}, copy=False)
    assert hw.get_params()["W"] is W
    hw.update([2], 1, 1.5)
    assert W[2, 1] == 7 + 1.5 and hw.score([2])[1] == W[2, 1]
    frozen = numpy.ones((8, 3), dtype=numpy.float32)
    frozen.flags.writeable = False
    hw.set_params({"W": frozen}, copy=False)
    assert hw.get_params()["W"] is not frozen
    hw.update([0], 0, 1.0)  # the copy is writeable, the caller's array untouched
    assert frozen[0, 0] == 1.0
    doubles = numpy.ones((8, 3))
    hw.set_params({"W": doubles}, copy=False)
    assert hw.get_params()["W"].dtype == numpy.float32 and not numpy.shares_memory(hw.get_params()["W"], doubles)
    hw.set_params({"W": W})  # the default copies
    assert not numpy.shares_memory(hw.get_params()["W"], W)


def assert_kernels_sum_in_order(w, table, keys, use_kernel):
    """`w.score(keys)`, with the kernel `use_kernel` switches on and then off, is each class's
    float32 sum of `table`'s rows of `keys` taken in feature order from 0, bit for bit."""
    n_rows = table.shape[0]
    expected = numpy.zeros(table.shape[1], dtype=numpy.float32)
    for k in keys:
        expected += table[int(k) % n_rows]
    try:
        got = {}
        for on in (True, False):
            use_kernel(on)
            got[on] = w.score(keys)
    finally:
        use_kernel(True)
    for scores in got.values():
        assert scores.view(numpy.uint32).tolist() == expected.view(numpy.uint32).tolist()


@pytest.mark.parametrize("n_classes", [1, 7, 8, 9, 63, 64, 65, 109, 130])
@pytest.mark.parametrize("n_rows", [1, 5, 64, 1000])
def test_row_kernels_sum_in_order_bit_for_bit(n_classes, n_rows):
    """The AVX2 row kernel (where the CPU has it) and the plain loop give each class the float32
    sum of its rows taken in feature order from 0, bit for bit: scores do not depend on the CPU.
    Class counts around the kernel's 8- and 64-float blocks; n_rows powers of 2 (masked) or not."""
    from spacy_joint_sbd.learn import weights as weights_module
    rng = numpy.random.default_rng(n_classes * 1000 + n_rows)
    w = HashedWeights(n_rows, n_classes)
    table = rng.standard_normal((n_rows, n_classes)).astype(numpy.float32)
    w.set_params({"W": table})
    for n in (0, 1, 8, 9, 40, 130):
        keys = rng.integers(0, 2**63, n, dtype=numpy.uint64) * numpy.uint64(2) + numpy.uint64(n % 2)
        assert_kernels_sum_in_order(w, table, keys, weights_module._use_avx2)
    assert weights_module.row_kernel() in ("avx2", "plain")


def _half_weights(n_rows, n_classes, seed=0):
    """Weights loaded from a float16 table (half-only) and that table."""
    rng = numpy.random.default_rng(seed)
    H = (rng.standard_normal((n_rows, n_classes)) * 0.1).astype(numpy.float16)
    w = HashedWeights(n_rows, n_classes)
    w.set_half_params(H)
    return w, H


@pytest.mark.parametrize("n_classes", [1, 7, 8, 9, 15, 63, 64, 65, 109, 130])
@pytest.mark.parametrize("n_rows", [5, 64, 1000])
def test_half_kernels_sum_as_the_float_table_of_the_same_values(n_classes, n_rows):
    """The F16C kernel (where the CPU has it) and the plain loop over a float16 table give the
    float32 sums of the same values as float32, in feature order, bit for bit: the engine may
    predict with half the bytes per row and not move a score. Widths around the kernel's blocks
    of 8 and 64 columns and its last partial block."""
    from spacy_joint_sbd.learn import weights as weights_module
    w, H = _half_weights(n_rows, n_classes, seed=n_classes + n_rows)
    table = H.astype(numpy.float32)
    rng = numpy.random.default_rng(n_classes)
    for n in (0, 1, 8, 9, 40, 130):
        keys = rng.integers(0, 2**63, n, dtype=numpy.uint64)
        assert_kernels_sum_in_order(w, table, keys, weights_module._use_f16c)
    assert w.half_only  # scoring never builds the float32 table
    assert weights_module.half_kernel() in ("avx2+f16c", "plain")


def test_half_table_is_the_rounded_average_cached_per_version():
    w = HashedWeights(16, 4)
    w.update([1, 2], 0, 0.3)
    w.tick()
    w.update([2], 1, -1.7)
    w.tick()
    H = w.half_table()
    assert H.dtype == numpy.float16 and H.shape == (16, 4)
    assert numpy.array_equal(H, w.averaged().astype(numpy.float16))
    assert w.half_table() is H  # cached
    w.update([3], 2, 1.0)
    assert w.half_table() is not H  # an update makes a new one
    big = HashedWeights(4, 2)
    big.set_params({"W": numpy.full((4, 2), 7e4, dtype=numpy.float32)})
    assert big.half_table() is None  # beyond float16: no half table, predict in float32


def test_half_only_weights_materialize_exactly_when_trained():
    """Loaded from float16, the weights hold no float32 table until one is needed; then it holds
    the same values, and training goes on from them."""
    w, H = _half_weights(32, 9)
    assert w.half_only and numpy.array_equal(w.half_table(), H)
    keys = numpy.arange(5, dtype=numpy.uint64)
    before = w.score(keys)
    assert w.half_only
    W = w.get_params()["W"]  # materializes
    assert not w.half_only and W.dtype == numpy.float32 and numpy.array_equal(W, H.astype(numpy.float32))
    assert w.score(keys).tolist() == before.tolist()
    w.update(keys, 3, 0.5)
    assert w.score(keys)[3] > before[3]
    w2, _ = _half_weights(32, 9)
    w2.update(keys, 3, 0.5)  # the Python API materializes first
    assert w2.score(keys).tolist() == w.score(keys).tolist()
    w3, H3 = _half_weights(32, 9)
    assert numpy.array_equal(w3.averaged(), H3.astype(numpy.float32)) and not w3.half_only


def test_set_half_params_checks_and_adopts():
    w = HashedWeights(8, 3)
    with pytest.raises(ValueError, match="float16"):
        w.set_half_params(numpy.zeros((8, 3), dtype=numpy.float32))
    with pytest.raises(ValueError, match="shape"):
        w.set_half_params(numpy.zeros((8, 4), dtype=numpy.float16))
    with pytest.raises(ValueError, match="finite"):
        w.set_half_params(numpy.full((8, 3), numpy.inf, dtype=numpy.float16))
    H = numpy.ones((8, 3), dtype=numpy.float16)
    w.set_half_params(H, copy=False)
    assert w.half_table() is H
    w.set_half_params(H)
    assert w.half_table() is not H and numpy.array_equal(w.half_table(), H)
    w.set_params({"W": numpy.zeros((8, 3), dtype=numpy.float32)})  # a float table ends half-only
    assert not w.half_only and not w.half_table().any()
