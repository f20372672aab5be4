"""Parallel training by iterative parameter mixing (McDonald, Hall & Mann 2010, "Distributed
training strategies for the structured perceptron", Figure 3), as pure functions: the engine that
runs the shards (this process: `train_serial`; Dask: `dask_training.train_dask`) only moves them.

    shards = split_shards(docs, 2)                          # balanced by tokens, order kept
    params = train_serial(parser, shards, epochs=4, beam_width=4)   # parser ends with the mix

Each epoch every shard trains one pass (`TransitionParser.train_epoch`) starting from the current
mixed weights W; then W' = W + Σ_s μ_s (W_s − W), with μ uniform or, as in the paper, proportional
to each shard's number of updates in the epoch, or μ_s = 1 ("sum": every shard's change kept, as
a mini-batch of the shards' documents would).

`rounds` > 1 mixes that many times per epoch: each shard's epoch order is cut into `rounds`
consecutive chunks and round r trains every shard's chunk r from the weights mixed after round
r − 1. The paper mixes once per epoch (rounds = 1), which at equal epochs costs accuracy when the
shards are few and the data small (docs/scale.md); more rounds bring the mixed trajectory closer
to single-process training at the price of one broadcast of W per round.

Averaging stays exact. The averaged model is the mean of the **mixed trajectory** over all steps:
within a round, step k of the mixed trajectory is W + Σ_s μ_s (W_s(k) − W), where W_s(k) is shard s's
table at its k-th tick (Daumé's clock, one tick per document with beam updates) and a shard that
has finished (n_s ticks) stays at W_s(n_s); the round has n = max_s n_s steps and ends at W'.
A shard trains from (W, U = 0, clock 0), so its own accumulator is U_s = Σ τ·Δ over its updates
(τ = its local clock) and the sum of its snapshots is n_s·W_s − U_s. Summing over the round:

    Σ_{k=1..n} [W + Σ_s μ_s (W_s(min(k, n_s)) − W)] = n·W' − Σ_s μ_s U_s   (any μ).

Folding that into the global state (W, U, T), whose average is W − U/T, gives T' = T + n and
U' = U + T·(W' − W) + Σ_s μ_s U_s: exactly as if the mixed change W' − W had been made at global
clock T, plus the within-epoch timing. With one shard this is single-process training, bit for
bit in W (`tests/scale/test_mixing.py` checks both, and the average against a brute-force mean of
every mixed step).

Shards report only the rows they changed (`ShardResult`), so a worker sends back
O(touched rows), not two whole tables. Arithmetic of the mix is float64, stored as float32 as
`HashedWeights` keeps it.
"""
import time as _time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import numpy

from ..transition.parser import epoch_order

WEIGHTINGS = ("uniform", "updates", "sum")


@dataclass
class ShardResult:
    """What one shard's epoch changed: the rows it touched, their new W and local U, its ticks."""

    rows: numpy.ndarray
    """int64 row indices (sorted) where W or U differ from the start (other rows: W_s = W, U_s = 0)."""
    W_rows: numpy.ndarray
    """float32 (len(rows), n_classes): W_s on those rows."""
    U_rows: numpy.ndarray
    """float32 (len(rows), n_classes): U_s on those rows (accumulated with the shard's local clock)."""
    ticks: int
    """n_s: the shard's clock at the end of the epoch (documents trained, with beam updates)."""
    stats: Dict = field(default_factory=dict)
    """`train_epoch`'s stats (docs, n_gold, violations, errors, used_pct) plus `seconds`."""


def split_shards(docs: Sequence, n_shards: int) -> List[List]:
    """`n_shards` lists of documents balanced by token count (longest first onto the lightest
    shard; ties by index), each keeping the input order. Deterministic."""
    if n_shards < 1:
        raise ValueError(f"n_shards must be ≥ 1, got {n_shards}")
    loads = [0] * n_shards
    members: List[List[int]] = [[] for _ in range(n_shards)]
    for i in sorted(range(len(docs)), key=lambda i: (-len(docs[i]), i)):
        s = min(range(n_shards), key=lambda s: (loads[s], s))
        loads[s] += len(docs[i])
        members[s].append(i)
    return [[docs[i] for i in sorted(m)] for m in members]


def shard_seed(seed: Optional[int], epoch: int, shard: int) -> Optional[int]:
    """The shuffle seed of a shard's epoch (None: documents in order)."""
    return None if seed is None else seed + 1000 * epoch + shard


def round_chunks(n_docs: int, seed: Optional[int], rounds: int) -> List[List[int]]:
    """A shard's epoch order (`epoch_order`: the order `TransitionParser.train_epoch` uses with
    shuffle seed `seed`) cut into `rounds` consecutive chunks of near-equal size (some empty when
    rounds > n_docs)."""
    if rounds < 1:
        raise ValueError(f"rounds must be ≥ 1, got {rounds}")
    order = epoch_order(n_docs, seed)
    return [order[n_docs * r // rounds:n_docs * (r + 1) // rounds] for r in range(rounds)]


def train_shard(parser, docs: Sequence, W: numpy.ndarray, update: str = "dlaso", beam_width: int = 20,
                chunk: Optional[Sequence[int]] = None) -> ShardResult:
    """One pass of `parser` over `docs[i] for i in chunk`, in that order (None: every document in
    input order; `round_chunks` gives a shuffled epoch's chunks) starting from table `W` (U = 0,
    clock 0). The parser's own weights are overwritten (a worker's scratch parser)."""
    if chunk is not None:
        docs = [docs[i] for i in chunk]
    parser.weights.restart_from(W)  # = set_params({"W": W, "time": [0]}), without allocating
    start = _time.perf_counter()
    stats = parser.train_epoch(docs, update=update, beam_width=beam_width)
    seconds = _time.perf_counter() - start
    stats = {k: v for k, v in stats.items() if k != "used_per_doc"}
    stats["seconds"] = seconds
    return shard_result(W, parser.get_params(), stats)


def shard_result(W: numpy.ndarray, params: Dict[str, numpy.ndarray], stats: Optional[Dict] = None) -> ShardResult:
    """The `ShardResult` of a shard that started at (W, U = 0, clock 0) and ended at `params`
    ({W, U, time} as `HashedWeights.get_params()` gives them)."""
    W_s, U_s = params["W"], params["U"]
    rows = numpy.flatnonzero((W_s != W).any(axis=1) | (U_s != 0).any(axis=1))
    return ShardResult(rows=rows.astype(numpy.int64), W_rows=W_s[rows].copy(), U_rows=U_s[rows].copy(),
                       ticks=int(round(float(numpy.asarray(params["time"]).ravel()[0]))), stats=dict(stats or {}))


def mixing_weights(results: Sequence[ShardResult], weighting: str = "uniform") -> numpy.ndarray:
    """μ_s: uniform, or proportional to each shard's updates (`violations`; uniform if none), or
    1 for every shard ("sum")."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    S = len(results)
    if S == 0:
        raise ValueError("nothing to mix")
    if weighting == "sum":
        return numpy.ones(S)
    if weighting == "updates":
        k = numpy.asarray([r.stats.get("violations", 0) for r in results], dtype=numpy.float64)
        if k.sum() > 0:
            return k / k.sum()
    return numpy.full(S, 1.0 / S)


def mixed_rows(params: Dict[str, numpy.ndarray], results: Sequence[ShardResult], weighting: str = "uniform"):
    """The mix on the rows some shard touched: (rows, W' rows, U' rows as float32, T'), from the
    state the shards started at (`params`, as `HashedWeights.get_params()` gives it; U may be
    missing = 0). Other rows keep W and U. Pure: the inputs are not modified."""
    mu = mixing_weights(results, weighting)
    W = params["W"]
    U = params.get("U")
    if U is not None:
        U = numpy.asarray(U).reshape(W.shape)
    T = float(numpy.asarray(params.get("time", [0.0]), dtype=numpy.float64).ravel()[0])
    rows = numpy.unique(numpy.concatenate([r.rows for r in results])) if results else numpy.zeros(0, numpy.int64)
    W0 = numpy.asarray(W[rows], dtype=numpy.float64)
    dW = numpy.zeros_like(W0)     # Σ μ_s (W_s − W) on the touched rows
    U_loc = numpy.zeros_like(W0)  # Σ μ_s U_s
    for m, r in zip(mu, results):
        if r.rows.size:
            pos = numpy.searchsorted(rows, r.rows)
            dW[pos] += m * (r.W_rows.astype(numpy.float64) - W0[pos])
            U_loc[pos] += m * r.U_rows.astype(numpy.float64)
    W_rows = (W0 + dW).astype(numpy.float32)
    # U' = U + T·(W' − W) + Σ μ_s U_s, with W' − W as stored (float32), so that W' − U'/T'
    # is the trajectory's mean of the tables actually used
    U0 = numpy.zeros_like(W0) if U is None else numpy.asarray(U[rows], dtype=numpy.float64)
    U_rows = (U0 + T * (W_rows.astype(numpy.float64) - W0) + U_loc).astype(numpy.float32)
    n = max((r.ticks for r in results), default=0)
    return rows, W_rows, U_rows, T + n


def mix_params(params: Dict[str, numpy.ndarray], results: Sequence[ShardResult],
               weighting: str = "uniform") -> Dict[str, numpy.ndarray]:
    """The next global state {W, U, time} (new arrays) from the state the shards started at
    (`params`, as `HashedWeights.get_params()` gives it; U may be missing = 0) and their results.
    Pure: the inputs are not modified. (`run_epochs` writes `mixed_rows` into the parser's tables
    in place instead.)"""
    rows, W_rows, U_rows, T = mixed_rows(params, results, weighting)
    W_new = numpy.array(params["W"], dtype=numpy.float32, copy=True)
    U = params.get("U")
    U_new = numpy.zeros_like(W_new) if U is None else numpy.array(U, dtype=numpy.float32, copy=True).reshape(W_new.shape)
    W_new[rows] = W_rows
    U_new[rows] = U_rows
    return {"W": W_new, "U": U_new, "time": numpy.asarray([T], dtype=numpy.float64)}


def epoch_summary(epoch: int, rounds: Sequence[Sequence[ShardResult]], mus: Sequence[numpy.ndarray],
                  seconds: float) -> Dict:
    """One line of the training log: the shards' stats summed over the epoch's rounds, μ (the
    mean over rounds), the rounds and the epoch's wall time."""
    S = len(rounds[0]) if rounds else 0
    per = [[rr[s] for rr in rounds] for s in range(S)]  # shard s's result in each round
    tot = {k: sum(r.stats.get(k, 0) for rr in rounds for r in rr) for k in ("docs", "n_gold", "violations", "errors")}
    tot.update(epoch=epoch, rounds=len(rounds), ticks=[sum(r.ticks for r in p) for p in per],
               mu=[float(m) for m in numpy.mean(mus, axis=0)] if len(mus) else [],
               shard_seconds=[round(sum(r.stats.get("seconds", 0.0) for r in p), 3) for p in per],
               seconds=seconds, touched_rows=[max(int(r.rows.size) for r in p) for p in per])
    return tot


RunRound = Callable[[int, int, numpy.ndarray], List[ShardResult]]
"""run_round(epoch, round, W) → one ShardResult per shard, in shard order: each shard trains its
chunk `round` of the epoch (`round_chunks`) from W. How the shards run is the engine's business:
in this process, or on Dask workers."""


def run_epochs(parser, run_round: RunRound, epochs: int, weighting: str = "uniform",
               log: Optional[Callable[[Dict], None]] = None, rounds: int = 1) -> List[Dict]:
    """The mixing loop shared by every engine: `epochs` × `rounds` × (run the shards from the
    parser's current W, mix, load the mix into `parser`). Training continues from the parser's
    state (its W, U and clock). Returns one `epoch_summary` per epoch (also appended to
    `parser.epoch_stats`)."""
    if epochs < 0:
        raise ValueError(f"epochs must be ≥ 0, got {epochs}")
    if rounds < 1:
        raise ValueError(f"rounds must be ≥ 1, got {rounds}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    summaries = []
    for epoch in range(epochs):
        start = _time.perf_counter()
        done, mus = [], []
        for r in range(rounds):
            params = parser.get_params()  # the live tables: shards train copies, never these
            results = run_round(epoch, r, params["W"])
            parser.weights.load_rows(*mixed_rows(params, results, weighting))
            done.append(results)
            mus.append(mixing_weights(results, weighting))
        summary = epoch_summary(epoch, done, mus, _time.perf_counter() - start)
        parser.epoch_stats.append(summary)
        summaries.append(summary)
        if log is not None:
            log(summary)
    return summaries


def scratch_parser(cfg: Dict):
    """A parser with `cfg` (`TransitionParser.cfg`) and fresh weights: a shard's trainer."""
    from ..transition import TransitionParser

    return TransitionParser(**cfg)


def train_serial(parser, shards: Sequence[Sequence], epochs: int, update: str = "dlaso", beam_width: int = 20,
                 weighting: str = "uniform", seed: Optional[int] = None,
                 log: Optional[Callable[[Dict], None]] = None, rounds: int = 1) -> List[Dict]:
    """Iterative parameter mixing with the shards trained one after another in this process (the
    reference the Dask engine must reproduce exactly). `parser` ends with the mixed state; its
    averaged weights (`parse`, `to_disk`) are the mean of the mixed trajectory."""
    worker = scratch_parser(parser.cfg)

    def run_round(epoch: int, r: int, W: numpy.ndarray) -> List[ShardResult]:
        return [train_shard(worker, docs, W, update, beam_width,
                            chunk=round_chunks(len(docs), shard_seed(seed, epoch, s), rounds)[r])
                for s, docs in enumerate(shards)]

    return run_epochs(parser, run_round, epochs, weighting, log, rounds)
