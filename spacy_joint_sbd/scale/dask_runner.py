"""Shards on a Dask distributed cluster: one task per shard, progress over all workers.

Dask is imported here and only here, inside the functions: it is the optional extra `scale`
(`pip install "spacy-joint-sbd[scale]"`), never a requirement of the library.

Why Dask distributed and not Ray: the job is a map of one pure function over independent files
whose results are small records (the sentences go to disk, not through the engine). Dask
distributed is pure Python on top of tornado/msgpack, a scheduler and nanny-supervised worker
processes, and restarts a killed worker and reschedules its task by itself; Ray brings its own
shared-memory object store, a raylet per node and actors, none of which this job uses. Dask's
measured costs (import, cluster start, idle worker memory, install size) are in `docs/scale.md`;
Ray was not measured.

Failure model: a shard's output appears only by `os.replace` of a complete file, so a worker
killed mid-shard loses only that shard's unfinished work; Dask runs the task again on another
worker (up to `distributed.scheduler.allowed-failures` worker deaths per task), and a rerun of
the whole command skips every shard whose output exists.
"""
import uuid
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

from tqdm import tqdm

from .shards import Settings, Shard, ShardResult, process_shard


@dataclass
class RunReport:
    results: List[ShardResult] = field(default_factory=list)
    failed: List[Tuple[str, str]] = field(default_factory=list)
    """(shard name, error message) of every shard that raised or whose workers kept dying."""


def local_cluster(workers: int = 2):
    """A loopback-only cluster of `workers` processes with one thread each (no dashboard)."""
    from dask.distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None)


def run_on_client(client, shards: List[Shard], settings: Settings, progress: bool = True,
                  on_result: Optional[Callable[[ShardResult], None]] = None) -> RunReport:
    """Submit one task per shard to `client` and gather the records as they complete.

    `on_result` is called in this process after each finished shard (tests use it to kill a
    worker in the middle of a run)."""
    from dask.distributed import as_completed

    report = RunReport()
    if not shards:
        return report
    run = uuid.uuid4().hex[:12]
    futures = {client.submit(process_shard, shard, settings, pure=False, key=f"segment-{run}-{i}"): shard
               for i, shard in enumerate(shards)}
    bar = tqdm(total=len(futures), desc="segment-corpus", unit="shard", disable=None if progress else True)
    try:
        for fut in as_completed(list(futures)):
            shard = futures.pop(fut)
            if fut.status == "finished":
                res = fut.result()
                report.results.append(res)
                if on_result is not None:
                    on_result(res)
            else:
                exc = fut.exception()
                report.failed.append((shard.name, f"{type(exc).__name__}: {exc}"))
            fut.release()
            bar.update(1)
    finally:
        bar.close()
        for fut in futures:
            fut.cancel()
    return report


def run_dask(shards: List[Shard], settings: Settings, scheduler: str = "local", workers: int = 2,
             progress: bool = True) -> RunReport:
    """Run the shards on a fresh local cluster (`scheduler="local"`) or on the cluster whose
    scheduler listens at `scheduler` (e.g. tcp://10.0.0.5:8786)."""
    from dask.distributed import Client

    if scheduler == "local":
        with local_cluster(workers) as cluster, Client(cluster) as client:
            return run_on_client(client, shards, settings, progress)
    with Client(scheduler) as client:
        return run_on_client(client, shards, settings, progress)
