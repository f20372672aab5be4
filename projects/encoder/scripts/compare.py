"""Pipelines side by side on the speech project's sets, with paired significance over documents.

    python scripts/compare.py results/compare.json --ud UD_DIR --text TEXT_DIR \
        --pipeline en_joint_sbd_trf --pipeline en_joint_sbd --encoder training/RUN/pipeline_N

Each `--pipeline` (a joint pipeline, its own settings and calibration, nothing tuned here) and the
`--encoder` pipeline alone (`encoder_boundaries`: a boundary where its calibrated p >= 0.5) read
the same gold tokens: EWT test and GUM dev (plain and star, documents of 10 sentences), ATIS dev (one
stream), AMI dev and SGD dev (running text with its layout, plain and star). Per set: boundary
P / R / F1, LAS for joint pipelines, and for the first pipeline against each other system the
paired bootstrap over documents (`significance.bootstrap_corpus_greater`, 10,000 resamples of the
corpus F1 or LAS): the share of resamples where the first is not better (small: it is better; one
minus it small: it is worse). A set of fewer than 10 documents gets no p. EWT dev and AMI dev* chose
the pipelines' settings: they are marked `in_sample` in the output.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Dict

import spacy
from tqdm import tqdm

from spacy_joint_sbd.boundary import DOC_PROBS
from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.readers import tokens_only
from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (the factory)
from spacy_joint_sbd.scoring import count_doc, score_records
from spacy_joint_sbd.significance import bootstrap_corpus_greater

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "speech" / "scripts"))
from prior_ablation import sets  # noqa: E402

SETS = ("ewt-test-plain", "ewt-test-star", "gum-dev-plain", "gum-dev-star", "atis-dev", "ami-dev-plain",
        "ami-dev-star", "sgd-dev-plain", "sgd-dev-star")
IN_SAMPLE = ("ami-dev-star",)
MIN_DOCS = 10


def joint_counts(nlp, golds) -> Dict:
    docs = nlp.pipe((tokens_only(nlp.vocab, g) for g in golds), batch_size=32)
    counts = score_records([doc_to_record(d) for d in docs], [doc_to_record(g) for g in golds])
    return {"scores": counts.scores(), "per_doc": counts.per_doc}


def encoder_counts(nlp, golds) -> Dict:
    total = None
    for g in golds:
        d = nlp(tokens_only(nlp.vocab, g))
        starts = d._.get(DOC_PROBS) >= 0.5
        rec = doc_to_record(g)
        c = count_doc(list(range(len(g))), [""] * len(g), [True, *starts[1:].tolist()], rec, has_parse=False)
        if total is None:
            total = c
        else:
            total.add(c)
    return {"scores": total.scores(), "per_doc": total.per_doc}


def figures(result: Dict, parse: bool) -> Dict[str, float]:
    s = result["scores"]
    out = {k: round(100 * s[k], 2) for k in ("sents_p", "sents_r", "sents_f")}
    if parse and s.get("dep_las") is not None:
        out["dep_las"] = round(100 * s["dep_las"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--text", type=Path, required=True)
    ap.add_argument("--pipeline", action="append", required=True, help="a joint pipeline (repeatable; the first is compared)")
    ap.add_argument("--encoder", default=None, help="an encoder_boundaries pipeline, scored alone")
    ap.add_argument("--only", default="", help="comma-separated set names (default: all)")
    ap.add_argument("--samples", type=int, default=10_000)
    args = ap.parse_args()
    systems = {Path(p).name: spacy.load(p) for p in args.pipeline}
    if args.encoder:
        systems["encoder alone"] = spacy.load(args.encoder)
    first = next(iter(systems))
    data = sets(systems[first], args.ud, args.text)
    names = [n for n in SETS if not args.only or n in args.only.split(",")]
    out: Dict = {"systems": list(systems), "compared": first, "in_sample": list(IN_SAMPLE), "sets": {}}
    for name in tqdm(names, desc="sets", disable=None):
        golds, has_parse = data[name]()
        results = {}
        for label, nlp in systems.items():
            joint = "joint_sbd_parser" in nlp.pipe_names
            results[label] = (joint_counts if joint else encoder_counts)(nlp, golds)
            results[label]["parse"] = joint and has_parse
        row: Dict = {"documents": len(golds), "words": sum(len(g) for g in golds), "systems": {}}
        for label, r in results.items():
            row["systems"][label] = figures(r, r["parse"])
            if label != first and len(golds) >= MIN_DOCS:
                row["systems"][label]["p_first_not_better_f"] = bootstrap_corpus_greater(
                    results[first], r, "sents_f", args.samples)
                if r["parse"] and results[first]["parse"]:
                    row["systems"][label]["p_first_not_better_las"] = bootstrap_corpus_greater(
                        results[first], r, "las", args.samples)
        out["sets"][name] = row
        tqdm.write(f"{name}: " + "  ".join(f"{k} {v['sents_f']}" for k, v in row["systems"].items()))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
