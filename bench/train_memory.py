"""Resident memory of a `joint_sbd_parser` training run, epoch by epoch (bounded memory).

Trains the component through `nlp.update` (as `spacy train` does: fresh Examples and engine
documents every epoch) on whole EWT train documents and prints the process's RSS after each epoch,
with the growth after epoch 1 as a share of it. Flat means the training loop keeps nothing per
batch alive (the oracle sequences live on each batch's engine documents and die with them).

    python bench/train_memory.py --docs 200 --epochs 5 [--json results/bench/train_memory.json]
"""
import argparse
import json
import os
import platform
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SJS_DATA", ROOT.parent / "shared" / "data" / "ud")) / "en_ewt"


def rss_mb() -> float:
    """Current resident set size (Linux /proc), in MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def main() -> None:
    import spacy

    from spacy_joint_sbd.corpus.readers import create_document_corpus

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=200, help="EWT train documents (0 = all)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--beam", type=int, default=8)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    nlp = spacy.blank("en")
    examples = list(create_document_corpus(str(DATA / "train.conllu"), limit=args.docs)(nlp))
    pipe = nlp.add_pipe("joint_sbd_parser", config={"beam_width": args.beam})
    nlp.initialize(lambda: examples)
    rows = []
    rng = random.Random(0)
    print(f"{len(examples)} documents, {sum(len(e.reference) for e in examples)} tokens; "
          f"RSS after initialize {rss_mb():.1f} MB", flush=True)
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        order = list(examples)
        rng.shuffle(order)
        for i in range(0, len(order), args.batch):
            # new Example objects each batch, as spaCy's training loop makes them
            batch = [type(eg)(eg.predicted.copy(), eg.reference) for eg in order[i:i + args.batch]]
            nlp.update(batch)
        rows.append({"epoch": epoch, "rss_mb": rss_mb(), "seconds": time.perf_counter() - start})
        print(f"epoch {epoch}: RSS {rows[-1]['rss_mb']:.1f} MB, {rows[-1]['seconds']:.1f} s", flush=True)
    first, last = rows[0]["rss_mb"], rows[-1]["rss_mb"]
    growth = 100 * (last - first) / first
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"growth after epoch 1: {last - first:+.1f} MB ({growth:+.2f} %); peak RSS {peak:.1f} MB; "
          f"skipped examples {pipe.skipped_examples}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": platform.processor() or platform.machine(),
                                         "cpus": os.cpu_count(), "docs": len(examples), "beam": args.beam,
                                         "epochs": rows, "growth_mb": last - first, "growth_pct": growth,
                                         "peak_rss_mb": peak}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
