"""Iterative parameter mixing on Dask distributed workers (`mixing` has the method and the maths).

    from spacy_joint_sbd.scale.dask_training import train_dask
    shards = split_shards(train_docs, 2)
    train_dask(parser, shards, epochs=4, beam_width=4, workers=2)          # local loopback cluster
    train_dask(parser, shards, epochs=4, scheduler="tcp://10.0.0.5:8786")  # an existing cluster

Dask is imported inside the functions only (optional extra `scale`). Each shard's documents are
scattered once, to one worker, and stay there for every epoch (with their cached oracle
sequences); each worker builds its scratch parser once per configuration. Per epoch the client
broadcasts the mixed table W, each worker trains its shards and sends back only the rows they
changed, and the client mixes (`mixing.mix_params`): the same code path as `mixing.train_serial`,
whose result it reproduces exactly (same shards, seeds and weighting → the same W, U and clock).
"""
import json
import uuid
from typing import Callable, Dict, List, Optional, Sequence

import numpy

from .mixing import ShardResult, round_chunks, run_epochs, scratch_parser, shard_seed, train_shard

_PARSERS: Dict[str, object] = {}
"""This worker process's scratch parsers, one per configuration (built once, reused per epoch)."""


def _worker_parser(cfg_json: str):
    parser = _PARSERS.get(cfg_json)
    if parser is None:
        _PARSERS.clear()  # one configuration at a time: a table is n_rows × n_classes × 8 bytes
        parser = _PARSERS[cfg_json] = scratch_parser(json.loads(cfg_json))
    return parser


def _train_shard_task(cfg_json: str, docs, W: numpy.ndarray, update: str, beam_width: int,
                      chunk: List[int]) -> ShardResult:
    return train_shard(_worker_parser(cfg_json), docs, W, update, beam_width, chunk=chunk)


def train_on_client(client, parser, shards: Sequence[Sequence], epochs: int, update: str = "dlaso",
                    beam_width: int = 20, weighting: str = "uniform", seed: Optional[int] = None,
                    log: Optional[Callable[[Dict], None]] = None, rounds: int = 1) -> List[Dict]:
    """`mixing.train_serial` with each round's shards trained in parallel on `client`'s workers
    (shard s pinned to worker s mod the number of workers)."""
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    cfg_json = json.dumps(parser.cfg, sort_keys=True)
    run = uuid.uuid4().hex[:12]
    where = [workers[s % len(workers)] for s in range(len(shards))]
    doc_futs = [client.scatter([list(docs)], workers=[w], hash=False)[0] for docs, w in zip(shards, where)]

    sizes = [len(docs) for docs in shards]

    def run_round(epoch: int, r: int, W: numpy.ndarray) -> List[ShardResult]:
        W_fut = client.scatter(W, broadcast=True, hash=False)
        futs = [client.submit(_train_shard_task, cfg_json, d, W_fut, update, beam_width,
                              round_chunks(n, shard_seed(seed, epoch, s), rounds)[r], workers=[w],
                              allow_other_workers=True, pure=False, key=f"ipm-{run}-{epoch}-{r}-{s}")
                for s, (d, w, n) in enumerate(zip(doc_futs, where, sizes))]
        try:
            return client.gather(futs)
        finally:
            for f in futs:
                f.release()
            W_fut.release()

    try:
        return run_epochs(parser, run_round, epochs, weighting, log, rounds)
    finally:
        for f in doc_futs:
            f.release()


def train_dask(parser, shards: Sequence[Sequence], epochs: int, update: str = "dlaso", beam_width: int = 20,
               weighting: str = "uniform", seed: Optional[int] = None, scheduler: str = "local",
               workers: int = 2, log: Optional[Callable[[Dict], None]] = None, rounds: int = 1) -> List[Dict]:
    """`train_on_client` on a fresh loopback cluster of `workers` processes (`scheduler="local"`)
    or on the cluster whose scheduler listens at `scheduler`."""
    from dask.distributed import Client

    from .dask_runner import local_cluster

    kwargs = dict(update=update, beam_width=beam_width, weighting=weighting, seed=seed, log=log, rounds=rounds)
    if scheduler == "local":
        with local_cluster(workers) as cluster, Client(cluster) as client:
            return train_on_client(client, parser, shards, epochs, **kwargs)
    with Client(scheduler) as client:
        return train_on_client(client, parser, shards, epochs, **kwargs)
