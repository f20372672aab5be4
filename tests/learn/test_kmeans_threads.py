"""`learn.kmeans` multiplies small blocks with BLAS on one thread (issue 32): the same clusters,
the limit in force during the product and released afterwards, from any thread, and two threads
never inside a limited product at once (BLAS thread counts are process-global)."""
import threading
from typing import Callable, Dict, List, TypeVar

import numpy
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from spacy_joint_sbd.learn import kmeans as kmeans_module
from spacy_joint_sbd.learn.kmeans import CentroidTable, nearest_in_sets

T = TypeVar("T")


def blas_threads() -> List[int]:
    """The thread count of each BLAS library loaded in this process."""
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def in_thread(fn: Callable[[], T], name: str = "helper") -> T:
    """fn() run in a new thread, its result (or its exception) returned here."""
    out: List = []

    def run() -> None:
        try:
            out.append((True, fn()))
        except BaseException as e:  # re-raised in the caller
            out.append((False, e))
    t = threading.Thread(target=run, name=name)
    t.start()
    t.join(30)
    ok, value = out[0]
    if not ok:
        raise value
    return value


@pytest.fixture
def two_blas_threads():
    """BLAS at two threads for the test, set from a helper thread that ends (threadpoolctl 3.8 lets
    the thread that set OpenBLAS's count keep control while it lives); skipped where BLAS cannot
    run two threads: there is no limit to observe."""
    limiter = in_thread(lambda: threadpool_limits(limits=2, user_api="blas"))
    try:
        if not blas_threads() or set(blas_threads()) != {2}:
            pytest.skip(f"BLAS cannot be set to 2 threads here ({blas_threads()})")
        yield
    finally:
        in_thread(limiter.restore_original_limits)


@pytest.fixture(scope="module")
def table() -> CentroidTable:
    rng = numpy.random.RandomState(3)
    return CentroidTable([rng.randn(k, 96).astype(numpy.float32) for k in (16, 256, 2000)])


def recording_product(seen: Dict[str, List[List[int]]]):
    """A `_product` that records, per calling thread, the BLAS thread counts during the product."""
    def product(block, ct):
        seen.setdefault(threading.current_thread().name, []).append(blas_threads())
        return block @ ct
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

    def product(block, ct):
        if threading.current_thread().name == "a":
            assert b_started.wait(10)
            overlapped.append(b_inside.wait(0.5))  # set only if b got in while a is inside
        else:
            b_inside.set()
        return record(block, ct)

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
