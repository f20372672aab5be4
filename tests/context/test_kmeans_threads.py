"""`context.kmeans` multiplies small blocks with BLAS on one thread: the same clusters,
the limit in force during the product and released afterwards, from any thread, and two threads
never inside a limited product at once (BLAS thread counts are process-global)."""
import threading
from typing import Dict, List

import numpy
import pytest
from blas_threads import blas_threads, in_thread, two_blas_threads  # noqa: F401 (a fixture)

from spacy_joint_sbd.context import kmeans as kmeans_module
from spacy_joint_sbd.context.blas import single_threaded_blas
from spacy_joint_sbd.context.kmeans import CentroidTable, nearest_in_sets


@pytest.fixture(autouse=True)
def float_product(monkeypatch):
    """These tests are about the float product's BLAS threads: the int8 shortlist is off."""
    monkeypatch.setattr(kmeans_module, "SHORTLIST", False)


@pytest.fixture(scope="module")
def table() -> CentroidTable:
    rng = numpy.random.RandomState(3)
    return CentroidTable([rng.randn(k, 96).astype(numpy.float32) for k in (16, 256, 2000)])


def recording_product(seen: Dict[str, List[List[int]]]):
    """A `_product` that records, per calling thread, the BLAS thread counts during a block's products."""
    def product(block, cts):
        seen.setdefault(threading.current_thread().name, []).append(blas_threads())
        return [block @ ct for ct in cts]
    return product


def test_small_blocks_are_multiplied_on_one_thread_from_any_thread(two_blas_threads, table, monkeypatch):
    seen: Dict[str, List[List[int]]] = {}
    monkeypatch.setattr(kmeans_module, "_product", recording_product(seen))
    x = numpy.random.RandomState(0).randn(30, 96).astype(numpy.float32)
    nearest_in_sets(x, table)
    assert set(blas_threads()) == {2}
    in_thread(lambda: nearest_in_sets(x, table), name="worker")  # the main thread kept no control
    assert set(blas_threads()) == {2}
    ones = [1] * len(blas_threads())
    assert seen == {threading.current_thread().name: [ones], "worker": [ones]}
    seen.clear()
    monkeypatch.setattr(kmeans_module, "SINGLE_THREAD_ROWS", 30)  # 30 rows is no longer small
    nearest_in_sets(x, table)
    assert seen == {threading.current_thread().name: [[2] * len(blas_threads())]}


@pytest.mark.parametrize("n", [1, 7, 300, 2500])
def test_the_limit_does_not_change_the_clusters(two_blas_threads, table, monkeypatch, n):
    x = numpy.random.RandomState(n).randn(n, 96).astype(numpy.float32)
    x[n // 2, 3] = numpy.nan
    monkeypatch.setattr(kmeans_module, "BLOCK", 1 << 20)  # 2,500 rows: several blocks
    limited = nearest_in_sets(x, table)
    monkeypatch.setattr(kmeans_module, "SINGLE_THREAD_ROWS", 0)  # never limited: two threads
    assert numpy.array_equal(nearest_in_sets(x, table), limited)
    assert limited[n // 2].tolist() == [0, 0, 0]


def test_two_threads_never_multiply_at_once(two_blas_threads, table, monkeypatch):
    """Thread a, inside its product, lets b start and gives it time to enter its own: b must wait
    for a (one limit at a time), multiply on one thread too, and the count must come back to 2."""
    seen: Dict[str, List[List[int]]] = {}
    record = recording_product(seen)
    b_started, b_inside = threading.Event(), threading.Event()
    overlapped: List[bool] = []

    def product(block, cts):
        if threading.current_thread().name == "a":
            assert b_started.wait(10)
            overlapped.append(b_inside.wait(0.5))  # set only if b got in while a is inside
        else:
            b_inside.set()
        return record(block, cts)

    monkeypatch.setattr(kmeans_module, "_product", product)
    x = numpy.ones((5, 96), dtype=numpy.float32)
    a = threading.Thread(target=lambda: nearest_in_sets(x, table), name="a")
    a.start()

    def start_b() -> None:
        b_started.set()
        nearest_in_sets(x, table)
    in_thread(start_b, name="b")
    a.join(30)
    assert overlapped == [False]
    ones = [1] * len(blas_threads())
    assert seen == {"a": [ones], "b": [ones]}
    assert set(blas_threads()) == {2}


@pytest.mark.parametrize("n", [1, 40, 700])
def test_one_product_gives_the_distances_of_the_two_step_formula(table, n):
    """`[x, 1] @ part` for each of `CentroidTable.parts` (the norms inside the product) picks the centroids that
    `(x @ ct) * -2 + norms` picks, on vectors of a tok2vec's scale and on ties made on purpose."""
    rng = numpy.random.RandomState(n)
    x = rng.randn(n, 96).astype(numpy.float32) * 3
    x[0] = table.ct[:, 20]  # a centroid itself: distance 0 beside its neighbours
    with single_threaded_blas():
        d = (x @ table.ct) * numpy.float32(-2.0) + table.norms
    expected = numpy.stack([d[:, a:b].argmin(1) for a, b in table.bounds], axis=1)
    assert numpy.array_equal(nearest_in_sets(x, table), expected)
    assert nearest_in_sets(x[:1], table)[0, 1] == 20 - 16
