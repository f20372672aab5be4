"""Parallel training by iterative parameter mixing vs single-process training.

Trains the transition parser on the first `--train-docs` EWT train documents for `--epochs`
epochs (a) in one process (`train_epoch`, the reference), (b) by iterative parameter mixing over
`--shards` shards balanced by tokens, once with the shards trained one after another in this
process (`mixing.train_serial`), once on a loopback Dask cluster of 1 worker and once on one of
2 workers (`dask_training.train_on_client`; cluster started before the clock). Scores each
averaged model on the first `--dev-docs` EWT dev documents (whole documents, boundaries predicted):
LAS and boundary F1 (`spacy_joint_sbd.scoring`), their difference to single-process training,
the training wall time of each run and the 2-worker / 1-worker speed-up, and checks that the
Dask runs reproduce the serial mixing exactly.

Tags are the treebank's GOLD XPOS for both training and scoring: this compares training methods
at equal input (speed and equivalence), it is not an accuracy claim for the model.

    python bench/mixing.py [--train-docs 200] [--dev-docs 60] [--epochs 4] [--beam 4] [--json PATH]
    python bench/mixing.py --no-dask --more-epochs 4     # LAS / F1 after each epoch, mixing to 2x epochs
    python bench/mixing.py --epochs 12 --rounds 8 --weighting sum   # mix 8 times per epoch, keep every change
    python bench/mixing.py --epochs 12 --update laso   # laso updates (each applied at once) in both
"""
import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SJS_DATA", ROOT.parent / "shared" / "data" / "ud")) / "en_ewt"

from spacy_joint_sbd.corpus import read_conllu  # noqa: E402
from spacy_joint_sbd.persist.paths import portable_path  # noqa: E402
from spacy_joint_sbd.pipeline.joint.doc_encoding import encode_records  # noqa: E402
from spacy_joint_sbd.scale.mixing import split_shards, train_serial  # noqa: E402
from spacy_joint_sbd.scoring import Counts, count_doc  # noqa: E402
from spacy_joint_sbd.transition import UPDATES, TransitionParser  # noqa: E402


def score(parser, dev, dev_recs, beam):
    total = Counts()
    for parse, gold in zip(parser.parse(dev, beam_width=beam), dev_recs):
        deps = [parser.labels.decode(int(l)) for l in parse.labels]
        total.add(count_doc([int(h) for h in parse.heads], deps, list(parse.sent_starts), gold))
    s = total.scores()
    return {"las": 100 * s["dep_las"], "uas": 100 * s["dep_uas"], "sents_f": 100 * s["sents_f"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train-docs", type=int, default=200)
    ap.add_argument("--dev-docs", type=int, default=60)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--weighting", default="uniform", choices=["uniform", "updates", "sum"])
    ap.add_argument("--rounds", type=int, default=1, help="mixes per epoch (1: the paper's once per epoch)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--learner", default="pa", choices=["pa", "perceptron"])
    ap.add_argument("--update", default="dlaso", choices=UPDATES)
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask runs")
    ap.add_argument("--curves", action="store_true", help="score single and serial mixing after every epoch")
    ap.add_argument("--more-epochs", type=int, default=0,
                    help="then continue the serial mixing this many epochs, scored after each (implies --curves)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    args.curves = args.curves or args.more_epochs > 0

    train_recs = read_conllu(DATA / "train.conllu")[:args.train_docs]
    dev_recs = read_conllu(DATA / "dev.conllu")[:args.dev_docs]
    proto = TransitionParser.from_records(train_recs, learner=args.learner)
    cfg = proto.cfg
    train = encode_records(train_recs, proto.labels, proto.attrs)
    dev = encode_records(dev_recs, proto.labels, proto.attrs)
    shards = split_shards(train, args.shards)
    print(f"EWT train: {len(train)} documents, {sum(len(d) for d in train)} tokens; dev: {len(dev)} documents, "
          f"{sum(len(d) for d in dev)} tokens. Tags: GOLD XPOS (training-method comparison, not an accuracy "
          f"claim). attrs {cfg['attrs']}, learner {cfg['learner']}, n_rows {cfg['n_rows']}, beam {args.beam}, "
          f"update {args.update}, {args.epochs} epochs, {args.shards} shards (tokens {[sum(len(d) for d in s) for s in shards]}),"
          f" mixing weights {args.weighting}, {args.rounds} mix(es) per epoch")
    load_before = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {load_before}")
    runs = {}

    def report(name, parser, seconds, extra=None):
        runs[name] = {"seconds": round(seconds, 2), **{k: round(v, 4) for k, v in score(parser, dev, dev_recs, args.beam).items()},
                      **(extra or {})}
        ref = runs.get("single")
        diff = "" if ref is None or name == "single" else \
            f"  ΔLAS {runs[name]['las'] - ref['las']:+.2f}  ΔF1 {runs[name]['sents_f'] - ref['sents_f']:+.2f}"
        print(f"{name:16s} train {seconds:7.1f} s  LAS {runs[name]['las']:6.2f}  UAS {runs[name]['uas']:6.2f}  "
              f"boundary F1 {runs[name]['sents_f']:6.2f}{diff}", flush=True)

    def curve_point(name, parser, epoch):
        s = score(parser, dev, dev_recs, args.beam)
        curves.setdefault(name, []).append({"epoch": epoch, **{k: round(v, 4) for k, v in s.items()}})

    curves = {}
    single = TransitionParser(**cfg)
    seconds = 0.0
    for epoch in range(args.epochs):
        t = time.perf_counter()
        single.train_epoch(train, update=args.update, beam_width=args.beam, shuffle=args.seed + 1000 * epoch)
        seconds += time.perf_counter() - t
        if args.curves:
            curve_point("single", single, epoch + 1)
    report("single", single, seconds)

    serial = TransitionParser(**cfg)
    log = train_serial(serial, shards, args.epochs, update=args.update, beam_width=args.beam, weighting=args.weighting, seed=args.seed,
                       rounds=args.rounds, log=(lambda e: curve_point("mix-serial", serial, e["epoch"] + 1)) if args.curves else None)
    report("mix-serial", serial, sum(e["seconds"] for e in log),
           {"epoch_seconds": [round(e["seconds"], 2) for e in log], "violations": [e["violations"] for e in log]})

    if not args.no_dask:
        from dask.distributed import Client

        from spacy_joint_sbd.scale.dask_runner import local_cluster
        from spacy_joint_sbd.scale.dask_training import train_on_client

        for workers in (1, 2):
            parser = TransitionParser(**cfg)
            with local_cluster(workers) as cluster, Client(cluster) as client:
                client.wait_for_workers(workers)
                t = time.perf_counter()
                log = train_on_client(client, parser, shards, args.epochs, update=args.update, beam_width=args.beam,
                                      weighting=args.weighting, seed=args.seed, rounds=args.rounds)
                seconds = time.perf_counter() - t
            same = all((parser.get_params()[k] == serial.get_params()[k]).all() for k in ("W", "U", "time"))
            report(f"mix-dask-{workers}w", parser, seconds,
                   {"equals_serial": bool(same), "epoch_seconds": [round(e["seconds"], 2) for e in log],
                    "shard_seconds": [e["shard_seconds"] for e in log]})
            print(f"  identical W, U, clock to mix-serial: {same}; shard seconds per epoch "
                  f"{[e['shard_seconds'] for e in log]}", flush=True)
        speedup = runs["mix-dask-1w"]["seconds"] / runs["mix-dask-2w"]["seconds"]
        print(f"speed-up 2 workers / 1 worker: {speedup:.2f}x; 2 workers vs single process: "
              f"{runs['single']['seconds'] / runs['mix-dask-2w']['seconds']:.2f}x")
        runs["speedup_2w_over_1w"] = round(speedup, 3)
    if args.more_epochs:  # the serial mixing continued (same seeds as one longer run), scored after each epoch
        more = serial
        train_serial(more, shards, args.more_epochs, update=args.update, beam_width=args.beam, weighting=args.weighting,
                     seed=args.seed + 1000 * args.epochs, rounds=args.rounds,
                     log=lambda e: curve_point("mix-serial", more, args.epochs + e["epoch"] + 1))
    for name, points in curves.items():
        print(f"{name} by epoch (LAS / boundary F1): " + ", ".join(
            f"{p['epoch']}: {p['las']:.2f} / {p['sents_f']:.2f}" for p in points))
    runs["curves"] = curves
    print(f"load average after: {os.getloadavg()}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"args": {k: portable_path(v) if isinstance(v, Path) else str(v)
                                                  for k, v in vars(args).items()}, "tags": "gold",
                                         "load_average_before": load_before,
                                         "load_average_after": os.getloadavg(), "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
