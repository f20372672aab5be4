"""Small matrix products on one BLAS thread, from any thread of the process.

Per-Doc products at prediction time are small (tens to hundreds of rows): handing them to a second
BLAS thread costs more than the product itself (2-core VM: a 20-row product against the default
pipeline's 5,456 centroids took 4.1 CPU ms on OpenBLAS's default threads, 0.8 on one), and the last
bits of a product depend on how many threads shared it. `single_threaded_blas` limits the
process's BLAS libraries to one thread for a block; `OneThreadNumpyOps` is Thinc's `NumpyOps`
with its matrix products done that way by numpy's BLAS instead of BLIS.
"""
import threading
from contextlib import contextmanager
from typing import Iterator, Optional

from thinc.api import NumpyOps
from threadpoolctl import ThreadpoolController

_blas_lock = threading.RLock()
"""Serializes `single_threaded_blas` blocks across threads (see there)."""
_blas: Optional[ThreadpoolController] = None
"""threadpoolctl's controller of the BLAS libraries loaded (numpy's among them), made once, lazily
(`ThreadpoolController()` scans the loaded libraries: about 0.5 ms)."""


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit the process's BLAS libraries to one thread for the duration of the block, with
    threadpoolctl (`limit(limits=1)`, its count restored on leaving): about 12 µs per block.

    BLAS thread counts are process-global, so the blocks are serialized by a lock: a thread's limit
    is set and restored by that thread with no other block in between. Without the lock, a second
    thread entering while the first is inside would either save 1 as its "original" count and
    restore it, leaving BLAS on one thread for good (threadpoolctl without thread ownership), or
    find its limit ignored because the first thread holds OpenBLAS's control and run
    multi-threaded once the first leaves (threadpoolctl 3.8, installed here: one thread at a time
    may set OpenBLAS's count, the others' calls do nothing). The price of the lock: the small
    products of two threads do not overlap (each is a fraction of a millisecond); while a block
    runs, other threads' BLAS calls in this process run on one thread too; and when another thread
    holds OpenBLAS's control (e.g. inside its own `threadpool_limits`), the limit does nothing and
    that thread's setting applies."""
    global _blas
    with _blas_lock:
        if _blas is None:
            _blas = ThreadpoolController().select(user_api="blas")
        with _blas.limit(limits=1):
            yield


class OneThreadNumpyOps(NumpyOps):
    """Thinc's `NumpyOps` whose `gemm` is numpy's `dot` (the BLAS numpy ships: OpenBLAS, with
    kernels chosen for the CPU at run time) on one BLAS thread (`single_threaded_blas`), not
    BLIS. Every other op is NumpyOps' own.

    Why: Thinc's BLIS picks its kernels by CPU model and falls back to generic reference C where
    it does not know the model (the project's AMD EPYC VM, family 25: `bli_sgemm_generic_ref`, 40%
    of a tok2vec's time); the same tok2vec then runs in about 0.6 of the CPU time. The products
    differ from BLIS's in the last bits (float32 sums in another order), so a model reads the
    vectors it was trained with only if it was trained with these ops too.
    Products of several threads are serialized (see `single_threaded_blas`)."""

    name = "numpy"

    def __init__(self, device_type: str = "cpu", device_id: int = -1, **kwargs) -> None:
        kwargs["use_blis"] = False
        super().__init__(device_type, device_id, **kwargs)

    def gemm(self, x, y, *, out=None, trans1: bool = False, trans2: bool = False):
        with single_threaded_blas():
            return super().gemm(x, y, out=out, trans1=trans1, trans2=trans2)
