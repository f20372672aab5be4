"""One Viterbi-EM iteration of the DMV (under `loose` within 1.5x unconstrained).

    python bench/dmv.py [--train PATH] [--max-len 45] [--repeats 3] [--output results/bench/dmv.json]

The iteration is `dmv.model.e_step` (Viterbi parse of every EWT training sentence of at most
``max-len`` words, counting the trees' events) plus the M-step (`DMVCounts.estimate`), from the
§3.1 weighted initializer. Constraint masks depend only on the fragments, so training builds them
once per sentence before EM; their building time is reported separately (and as the ratio of a
first iteration that includes it). Times are the minimum of ``repeats`` interleaved runs.
"""
import argparse
import json
import platform
import time
from pathlib import Path

from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.dmv.model import by_length, class_inventory, e_step, sentences_from_records, weighted_init

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", default=str(REPO.parent / "shared" / "data" / "ud" / "en_ewt" / "train.conllu"))
    ap.add_argument("--max-len", type=int, default=45)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--constraints", default="none,loose,sprawl,thread")
    ap.add_argument("--output", default=str(REPO / "results" / "bench" / "dmv.json"))
    args = ap.parse_args()
    sents = by_length(sentences_from_records(read_conllu(args.train)), args.max_len)
    tags, _ = class_inventory(sents)
    model = weighted_init(by_length(sents, 15), tags)
    names = args.constraints.split(",")
    mask_s = {}
    for c in names:
        t0 = time.perf_counter()
        for s in sents:
            s.masks(c)
        mask_s[c] = time.perf_counter() - t0
    best = {c: float("inf") for c in names}
    for _ in range(args.repeats):
        for c in names:
            t0 = time.perf_counter()
            counts, _, _ = e_step(model, sents, c)
            counts.estimate(model.classes, 1.0)
            best[c] = min(best[c], time.perf_counter() - t0)
    out = {
        "what": "one Viterbi-EM iteration (E-step + M-step) of the unlexicalized DMV over EWT train",
        "train": "/".join(Path(args.train).parts[-2:]), "max_len": args.max_len, "sentences": len(sents),
        "words": sum(len(s) for s in sents), "repeats": args.repeats,
        "iteration_seconds": {c: round(v, 3) for c, v in best.items()},
        "mask_building_seconds": {c: round(v, 3) for c, v in mask_s.items()},
        "ratio_vs_none": {c: round(best[c] / best["none"], 3) for c in names},
        "ratio_vs_none_with_mask_building": {c: round((best[c] + mask_s[c]) / best["none"], 3) for c in names},
        "target": "loose <= 1.5x none (masks built once before EM)",
        "machine": f"{platform.processor() or platform.machine()}, 2 cores shared with other jobs",
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(out, indent=1) + "\n", encoding="utf8")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
