"""`context.shortlist`: the int8 shortlist finds the nearest centroid the float search finds, on
every shape of set and row, from several threads; `context.kmeans` uses it where the CPU can and
falls back to the float product for rows it cannot take."""
import threading

import numpy
import pytest

from spacy_joint_sbd.context import kmeans as kmeans_module
from spacy_joint_sbd.context import shortlist
from spacy_joint_sbd.context.kmeans import CentroidTable, nearest_in_sets

needs_kernel = pytest.mark.skipif(not shortlist.available(), reason="the CPU has neither AVX-512 VNNI nor AVX2")
FOUND = shortlist.KERNELS.index(shortlist.kernel())


@pytest.fixture(params=[1, 2], ids=["avx2", "vnni"])
def level(request):
    """Each kernel this CPU runs (AVX2 also where it has VNNI), the cap lifted after the test."""
    if request.param > FOUND:
        pytest.skip(f"the CPU does not run the {shortlist.KERNELS[request.param]} kernel")
    shortlist._cap_kernel(request.param)
    assert shortlist.kernel() == shortlist.KERNELS[request.param]
    yield request.param
    shortlist._cap_kernel(-1)


def brute(x: numpy.ndarray, c: numpy.ndarray) -> numpy.ndarray:
    """The nearest centroid of each row by float64 distances."""
    x64, c64 = x.astype(numpy.float64), c.astype(numpy.float64)
    return ((x64[:, None, :] - c64[None, :, :]) ** 2).sum(2).argmin(1)


def run(x: numpy.ndarray, sets) -> numpy.ndarray:
    qs = [shortlist.QuantizedSet(c, (c.astype(numpy.float32) ** 2).sum(1)) for c in sets]
    out = numpy.full((len(x), len(sets)), -1, dtype=numpy.int64)
    shortlist.nearest(x, qs, out)
    return out


@needs_kernel
@pytest.mark.parametrize("d", [1, 3, 4, 5, 64, 96, 97, 300])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 100])
def test_the_nearest_of_every_set_whatever_the_shapes(level, d, n):
    rng = numpy.random.RandomState(d * 1000 + n)
    sets = [rng.randn(k, d).astype(numpy.float32) for k in (1, 2, 31, 32, 33, 300)]
    x = rng.randn(n, d).astype(numpy.float32)
    out = run(x, sets)
    for j, c in enumerate(sets):
        assert out[:, j].tolist() == brute(x, c).tolist()


@needs_kernel
def test_near_neighbours_closer_than_the_quantization_step(level):
    """Centroids in tight pairs (1e-2 apart per dimension, below an int8 step: the quantization
    moves a distance by about 0.5, the pair's distances differ by about 0.01, float32 resolves
    1e-5) and rows right beside them: the approximate distances cannot tell the pair apart, the
    shortlist's float ones must."""
    rng = numpy.random.RandomState(7)
    base = rng.randn(200, 96).astype(numpy.float32) * rng.uniform(0.5, 2, size=(200, 1)).astype(numpy.float32)
    pairs = numpy.concatenate([base, base + 1e-2 * rng.randn(200, 96).astype(numpy.float32)])
    x = (pairs[rng.randint(0, 400, size=3000)] + 1e-3 * rng.randn(3000, 96)).astype(numpy.float32)
    out = run(x, [pairs])
    assert out[:, 0].tolist() == brute(x, pairs).tolist()


@needs_kernel
def test_rows_of_every_scale(level):
    """Zero rows, rows whose scale underflows, one dominant component, huge values: the error
    bound covers what the quantization loses (a tiny row is all error), and the shortlist ranks by
    double-precision distances, which tell apart what float32 cannot (a 1e-42 row's float32
    distances all underflow to ||c||^2)."""
    rng = numpy.random.RandomState(11)
    c = rng.randn(100, 16).astype(numpy.float32)
    c[0] = 0.0
    c[1] = 1e-42  # subnormal: its scale underflows to 0
    rows = [numpy.zeros(16), numpy.full(16, 1e-42), numpy.full(16, 1e-30), numpy.eye(16)[3] * 1e4,
            rng.randn(16) * 1e15, numpy.r_[1e6, rng.randn(15) * 1e-3]]
    x = numpy.asarray(rows, dtype=numpy.float32)
    assert run(x, [c])[:, 0].tolist() == brute(x, c).tolist() == [0, 1, 1, 82, 97, 94]


@needs_kernel
def test_threads_share_the_sets(level):
    rng = numpy.random.RandomState(5)
    sets = [rng.randn(k, 96).astype(numpy.float32) for k in (16, 1000)]
    qs = [shortlist.QuantizedSet(c, (c ** 2).sum(1)) for c in sets]
    xs = [rng.randn(500, 96).astype(numpy.float32) for _ in range(4)]
    alone = []
    for x in xs:
        out = numpy.zeros((500, 2), dtype=numpy.int64)
        shortlist.nearest(x, qs, out)
        alone.append(out)
    together = [numpy.zeros((500, 2), dtype=numpy.int64) for _ in xs]
    threads = [threading.Thread(target=shortlist.nearest, args=(x, qs, o)) for x, o in zip(xs, together)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(numpy.array_equal(a, b) for a, b in zip(alone, together))


@needs_kernel
def test_bad_arguments_are_refused():
    c = numpy.ones((4, 8), dtype=numpy.float32)
    qs = [shortlist.QuantizedSet(c, (c ** 2).sum(1))]
    x = numpy.ones((3, 8), dtype=numpy.float32)
    for bad_x, sets, out in [
        (x, qs, numpy.zeros((2, 1), dtype=numpy.int64)),  # out's rows
        (x, qs, numpy.zeros((3, 2), dtype=numpy.int64)),  # out's columns
        (numpy.ones((3, 7), dtype=numpy.float32), qs, numpy.zeros((3, 1), dtype=numpy.int64)),  # width
        (x, [c], numpy.zeros((3, 1), dtype=numpy.int64)),  # not a QuantizedSet
        (numpy.full((3, 8), numpy.nan, dtype=numpy.float32), qs, numpy.zeros((3, 1), dtype=numpy.int64)),
        (x, qs, numpy.zeros((3, 1), dtype=numpy.int32)),  # out's dtype
    ]:
        with pytest.raises(ValueError):
            shortlist.nearest(bad_x, sets, out)
    for bad in (numpy.zeros((0, 8)), numpy.zeros((3, 0)), numpy.full((2, 2), numpy.inf), numpy.zeros(3)):
        with pytest.raises(ValueError):
            shortlist.QuantizedSet(bad, numpy.zeros(len(bad)))
    for bad_norms in (numpy.ones(3), numpy.full(4, numpy.nan)):
        with pytest.raises(ValueError, match="norms"):
            shortlist.QuantizedSet(c, bad_norms)
    empty = numpy.zeros((0, 1), dtype=numpy.int64)
    shortlist.nearest(numpy.zeros((0, 8), dtype=numpy.float32), qs, empty)


def test_without_the_kernel_nearest_refuses_and_kmeans_multiplies(monkeypatch):
    rng = numpy.random.RandomState(9)
    sets = [rng.randn(k, 24).astype(numpy.float32) for k in (16, 500)]
    x = rng.randn(400, 24).astype(numpy.float32)
    table = CentroidTable(sets)
    first = nearest_in_sets(x, table)
    shortlist._cap_kernel(0)
    try:
        assert not shortlist.available()
        with pytest.raises(RuntimeError):
            shortlist.nearest(x, table.quantized(), numpy.zeros((400, 2), dtype=numpy.int64))
        assert numpy.array_equal(nearest_in_sets(x, table), first)
    finally:
        shortlist._cap_kernel(-1)
    monkeypatch.setattr(kmeans_module, "SHORTLIST", False)
    assert numpy.array_equal(nearest_in_sets(x, table), first)
    assert all(first[:, j].tolist() == brute(x, c).tolist() for j, c in enumerate(sets))


@needs_kernel
def test_kmeans_takes_the_float_product_for_rows_the_shortlist_cannot_take(monkeypatch):
    rng = numpy.random.RandomState(4)
    table = CentroidTable([rng.randn(64, 12).astype(numpy.float32)])
    x = rng.randn(50, 12).astype(numpy.float32)
    calls = []
    monkeypatch.setattr(kmeans_module, "_product", lambda block, cts: calls.append(len(block)) or [block @ ct for ct in cts])
    clean = nearest_in_sets(x, table)
    assert calls == []  # the shortlist took them
    x[5, 2] = numpy.nan
    mixed = nearest_in_sets(x, table)
    assert calls and mixed[5].tolist() == [0]
    assert numpy.array_equal(numpy.delete(mixed, 5, 0), numpy.delete(clean, 5, 0))


@needs_kernel
def test_float_product_turns_the_shortlist_off_inside_its_block_only(monkeypatch):
    """The training scripts' switch: inside `float_product` the float product assigns (the
    clusters of every model trained before the shortlist), after it the shortlist again, also
    when the block fails."""
    rng = numpy.random.RandomState(8)
    table = CentroidTable([rng.randn(64, 12).astype(numpy.float32)])
    x = rng.randn(20, 12).astype(numpy.float32)
    calls = []
    monkeypatch.setattr(kmeans_module, "_product", lambda block, cts: calls.append(len(block)) or [block @ ct for ct in cts])
    with kmeans_module.float_product():
        inside = nearest_in_sets(x, table)
    assert calls == [20]
    assert numpy.array_equal(nearest_in_sets(x, table), inside) and calls == [20]
    with pytest.raises(KeyError):
        with kmeans_module.float_product():
            raise KeyError("a failing block")
    assert kmeans_module.SHORTLIST is True


@needs_kernel
def test_extreme_codes_do_not_saturate(level):
    """Rows all at their largest code (255) against centroids all at theirs (+-63 for AVX2's
    maddubs, whose int16 pair sums saturate at 32,767, +-127 for VNNI): every pair sum at its
    bound, the ids still the float64 ones."""
    rng = numpy.random.RandomState(3)
    signs = numpy.where(rng.rand(40, 64) < 0.5, -1.0, 1.0).astype(numpy.float32)
    c = numpy.concatenate([signs, numpy.ones((1, 64), numpy.float32), -numpy.ones((1, 64), numpy.float32)])
    x = numpy.concatenate([numpy.ones((5, 64)), -numpy.ones((5, 64)), signs[:5] * 0.9]).astype(numpy.float32)
    out = run(x, [c])
    assert out[:, 0].tolist() == brute(x, c).tolist()
    assert out[:5, 0].tolist() == [40] * 5 and out[5:10, 0].tolist() == [41] * 5


@pytest.mark.skipif(FOUND < 2, reason="the CPU does not run both kernels")
def test_both_kernels_give_the_same_ids():
    """The two kernels rank their shortlists by the same double-precision sums in the same order:
    the same ids, tie for tie, on every CPU."""
    rng = numpy.random.RandomState(12)
    sets = [rng.randn(k, 96).astype(numpy.float32) for k in (16, 1000)]
    sets.append(numpy.repeat(sets[0], 3, axis=0))  # exact ties: the first of equals wins
    x = rng.randn(2000, 96).astype(numpy.float32)
    by = {}
    for lv in (1, 2):
        shortlist._cap_kernel(lv)
        try:
            by[lv] = run(x, sets)
        finally:
            shortlist._cap_kernel(-1)
    assert numpy.array_equal(by[1], by[2])
    assert (by[1][:, 2] % 3 == 0).all()


@needs_kernel
def test_a_set_runs_only_on_a_kernel_the_cpu_has():
    c = numpy.random.RandomState(2).randn(20, 8).astype(numpy.float32)
    norms = (c ** 2).sum(1)
    x = numpy.ones((3, 8), dtype=numpy.float32)
    out = numpy.zeros((3, 2), dtype=numpy.int64)
    with pytest.raises(ValueError, match="level"):
        shortlist.QuantizedSet(c, norms, 3)
    with pytest.raises(RuntimeError):  # one set per kernel
        shortlist.nearest(x, [shortlist.QuantizedSet(c, norms, 1), shortlist.QuantizedSet(c, norms, 2)], out)
    shortlist._cap_kernel(1)
    try:
        with pytest.raises(RuntimeError):  # VNNI sets where only AVX2 runs
            shortlist.nearest(x, [shortlist.QuantizedSet(c, norms, 2)] * 2, out)
        table = CentroidTable([c])
        assert [s.level for s in table.quantized()] == [1]
    finally:
        shortlist._cap_kernel(-1)
    assert [s.level for s in table.quantized()] == [FOUND]
