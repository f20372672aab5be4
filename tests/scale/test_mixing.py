"""Iterative parameter mixing (`scale.mixing`, `scale.dask_training`): the averaged model is exactly
the mean of the mixed trajectory (checked against a brute-force mean of every mixed step), one
shard is single-process training, and the Dask engine reproduces the serial one exactly."""
import numpy
import pytest

from engine_docs import encode
from spacy_joint_sbd.learn import HashedWeights
from spacy_joint_sbd.scale.mixing import (mix_params, mixing_weights, round_chunks, shard_result,
                                          split_shards, train_serial)
from spacy_joint_sbd.transition import TransitionParser

N_ROWS = 1 << 12


def close(a, b, rel=2e-5):
    """Equal up to float32 rounding (relative to the table's scale)."""
    a, b = numpy.asarray(a, numpy.float64), numpy.asarray(b, numpy.float64)
    scale = max(1.0, float(numpy.abs(b).max()))
    return float(numpy.abs(a - b).max()) <= rel * scale


@pytest.fixture(scope="module")
def small(sample_docs):
    """The 8 shortest sample documents, encoded, and a parser configuration for them."""
    recs = sorted(sample_docs, key=lambda r: len(r.words))[:8]
    proto = TransitionParser.from_records(sample_docs, n_rows=N_ROWS)
    return proto.cfg, encode(proto, recs)


def test_split_shards_balanced_and_complete(small):
    _, docs = small
    shards = split_shards(docs, 3)
    assert sorted(id(d) for s in shards for d in s) == sorted(id(d) for d in docs)
    for s in shards:  # input order kept inside a shard
        idx = [next(i for i, d in enumerate(docs) if d is x) for x in s]
        assert idx == sorted(idx)
    loads = [sum(len(d) for d in s) for s in shards]
    assert max(loads) - min(loads) <= max(len(d) for d in docs)
    assert split_shards(docs, 1) == [list(docs)]
    with pytest.raises(ValueError):
        split_shards(docs, 0)


def test_mix_of_synthetic_shards_is_mean_of_mixed_trajectory():
    """HashedWeights alone: random updates between ticks, shards of unequal length (one empty),
    a non-zero starting state; brute force keeps every table at every tick."""
    rng = numpy.random.default_rng(0)
    n_rows, n_classes = 16, 3
    start = HashedWeights(n_rows, n_classes)
    snaps = []  # the trajectory so far (single process before mixing)
    for _ in range(5):
        start.update(rng.integers(0, 1 << 40, size=4), int(rng.integers(n_classes)), float(rng.normal()))
        start.tick()
        snaps.append(start.get_params()["W"].astype(numpy.float64).copy())
    params = {k: v.copy() for k, v in start.get_params().items()}
    W0 = params["W"]
    results, shard_snaps = [], []
    for s, n_ticks in enumerate([4, 7, 0]):
        w = HashedWeights(n_rows, n_classes)
        w.set_params({"W": W0, "time": [0.0]})
        trace = []
        for _ in range(n_ticks):
            for _ in range(int(rng.integers(0, 3))):  # 0–2 updates before each tick
                w.update(rng.integers(0, 1 << 40, size=3), int(rng.integers(n_classes)), float(rng.normal()))
            w.tick()
            trace.append(w.get_params()["W"].astype(numpy.float64).copy())
        results.append(shard_result(W0, w.get_params(), {"violations": 3 - s}))
        shard_snaps.append(trace)
    for weighting in ("uniform", "updates"):
        mu = mixing_weights(results, weighting)
        n = max(len(t) for t in shard_snaps)
        mixed = [sum(m * (t[min(k, len(t)) - 1] if t else W0.astype(numpy.float64))
                     for m, t in zip(mu, shard_snaps)) for k in range(1, n + 1)]
        out = mix_params(params, results, weighting)
        assert out["time"][0] == 5 + n
        assert close(out["W"], mixed[-1])
        got = HashedWeights(n_rows, n_classes)
        got.set_params(out)
        assert close(got.averaged(), numpy.mean(snaps + mixed, axis=0))
    assert numpy.allclose(mixing_weights(results, "updates"), [3 / 6, 2 / 6, 1 / 6])
    assert params["W"] is W0 and (params["W"] == start.get_params()["W"]).all()  # inputs untouched


def test_round_chunks_cut_the_epoch_order():
    import random

    order = list(range(11))
    random.Random(5).shuffle(order)
    assert round_chunks(11, 5, 1) == [order]
    chunks = round_chunks(11, 5, 3)
    assert [i for c in chunks for i in c] == order and [len(c) for c in chunks] == [3, 4, 4]
    assert round_chunks(2, None, 4) == [[], [0], [], [1]]
    with pytest.raises(ValueError):
        round_chunks(3, None, 0)


@pytest.mark.parametrize("weighting,rounds", [("uniform", 1), ("updates", 1), ("sum", 1), ("uniform", 2)])
def test_parser_mixing_average_equals_brute_force(small, weighting, rounds):
    """2 shards of unequal length, 2 epochs of `rounds` mixes, beam updates (one tick per
    document): the mixed parser's averaged table equals the mean over every step of the mixed
    trajectory, rebuilt by training one document at a time and keeping each shard's table after
    every document."""
    cfg, docs = small
    shards = [docs[:3], docs[3:8]]
    parser = TransitionParser(**cfg)
    train_serial(parser, shards, epochs=2, beam_width=2, weighting=weighting, rounds=rounds)

    brute = TransitionParser(**cfg)
    W = brute.get_params()["W"].astype(numpy.float64).copy()
    steps = []
    for epoch in range(2):
        mus = []
        for r in range(rounds):
            traces, updates = [], []
            for shard in shards:
                brute.set_params({"W": W.astype(numpy.float32), "time": [0.0]})
                trace, k = [], 0
                for i in round_chunks(len(shard), None, rounds)[r]:
                    k += brute.train_epoch([shard[i]], beam_width=2)["violations"]
                    trace.append(brute.get_params()["W"].astype(numpy.float64).copy())
                traces.append(trace)
                updates.append(k)
            mu = (numpy.asarray(updates) / sum(updates) if weighting == "updates" and sum(updates)
                  else numpy.ones(len(shards)) if weighting == "sum" else numpy.full(len(shards), 1 / len(shards)))
            mus.append(mu)
            n = max(len(t) for t in traces)
            round_steps = [W + sum(m * ((t[min(k, len(t)) - 1] if t else W) - W) for m, t in zip(mu, traces))
                           for k in range(1, n + 1)]
            steps += round_steps
            W = round_steps[-1] if round_steps else W
        assert numpy.allclose(numpy.mean(mus, axis=0), parser.epoch_stats[epoch]["mu"])
        assert parser.epoch_stats[epoch]["rounds"] == rounds
    assert parser.weights.time == len(steps) == 2 * 5  # rounds of 1+2 and 2+3 documents: max 2 + 3
    assert close(parser.get_params()["W"], W)
    assert close(parser.weights.averaged(), numpy.mean(steps, axis=0))
    assert numpy.abs(parser.weights.averaged()).max() > 0  # something was learnt


@pytest.mark.parametrize("rounds,weighting,update", [(1, "uniform", "dlaso"), (3, "sum", "dlaso"),
                                                     (1, "uniform", "laso")])
def test_one_shard_is_single_process_training(small, rounds, weighting, update):
    """One shard is single-process training, also when mixed after every chunk of the epoch (the
    chunks keep the epoch's order), and with laso's updates inside each document."""
    cfg, docs = small
    single = TransitionParser(**cfg)
    for epoch in range(2):
        single.train_epoch(docs, update=update, beam_width=2, shuffle=7 + 1000 * epoch)
    mixed = TransitionParser(**cfg)
    log = train_serial(mixed, [docs], epochs=2, update=update, beam_width=2, seed=7, rounds=rounds,
                       weighting=weighting)
    a, b = single.get_params(), mixed.get_params()
    assert (a["W"] == b["W"]).all()  # the same weights, bit for bit
    assert a["time"][0] == b["time"][0] == 2 * len(docs)
    assert close(single.weights.averaged(), mixed.weights.averaged())
    assert [e["ticks"] for e in log] == [[len(docs)], [len(docs)]]


def test_train_serial_checks_rounds_and_weighting(small):
    cfg, docs = small
    parser = TransitionParser(**cfg)
    with pytest.raises(ValueError, match="rounds"):
        train_serial(parser, [docs], epochs=1, rounds=0)
    with pytest.raises(ValueError, match="weighting"):
        train_serial(parser, [docs], epochs=1, weighting="median")


def test_dask_workers_reproduce_serial_mixing(small):
    pytest.importorskip("distributed")
    from dask.distributed import Client

    from spacy_joint_sbd.scale.dask_runner import local_cluster
    from spacy_joint_sbd.scale.dask_training import train_on_client

    cfg, docs = small
    shards = split_shards(docs, 2)
    serial = TransitionParser(**cfg)
    train_serial(serial, shards, epochs=2, beam_width=2, weighting="updates", seed=3)
    dask = TransitionParser(**cfg)
    with local_cluster(2) as cluster, Client(cluster) as client:
        log = train_on_client(client, dask, shards, epochs=2, beam_width=2, weighting="updates", seed=3)
    assert len(log) == 2 and all(len(e["ticks"]) == 2 for e in log)
    for k in ("W", "U", "time"):
        assert (serial.get_params()[k] == dask.get_params()[k]).all(), k
    serial, dask = TransitionParser(**cfg), TransitionParser(**cfg)  # several mixes per epoch
    train_serial(serial, shards, epochs=1, beam_width=2, weighting="sum", seed=3, rounds=2)
    with local_cluster(2) as cluster, Client(cluster) as client:
        train_on_client(client, dask, shards, epochs=1, beam_width=2, weighting="sum", seed=3, rounds=2)
    for k in ("W", "U", "time"):
        assert (serial.get_params()[k] == dask.get_params()[k]).all(), k
