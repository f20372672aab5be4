"""BLAS thread counts as a test sees them: the count of each BLAS library loaded, a function run in a
thread of its own, and a fixture that sets BLAS to two threads where it can."""
import threading
from typing import Callable, List, TypeVar

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

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
