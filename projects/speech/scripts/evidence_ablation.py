"""Ablation of the boundary evidence, with significance over documents.

    python scripts/evidence_ablation.py results/ablation.json --arm no_prior=PIPELINE ... --arm NAME=PIPELINE
        --ud UD_DIR --text TEXT_DIR

Writes the JSON and beside it a markdown table (`.md`): boundary F1 (LAS) per arm and set, ^ / v
where an arm is better / worse than the one above it at p < 0.01 (bootstrap).

Each `--arm` is a finished pipeline (its weights, SB biases and prior weight chosen on dev by the
project command that built it: no tuning here). Every arm is scored on the same gold documents of
every set of `prior_ablation.sets`: token-level boundary P / R / F1 (each document's first token
excluded), LAS where the set has trees, words/s (wall clock, one process), and per-document counts.
Then each arm is compared with each earlier one on each set, over documents:

- boundary F1: the one-sided Wilcoxon signed-rank test on per-document F1 (bjorkelund2016's test,
  `significance.wilcoxon_greater`) and the paired bootstrap of the corpus F1 the table shows
  (`significance.bootstrap_corpus_greater`), both ways (is the later arm better? worse?);
- LAS: the paired bootstrap of corpus LAS, both ways.

A set of one document (ATIS dev is scored as one stream) has no test. The dev sets the arms'
settings were chosen on are scored too and flagged `in_sample`. Every arm reads blank lines the
same way: one without `newline_boundaries` (a parser saved before the prior was added) gets it
first, in `paragraph` mode as the default pipeline has it (`--newlines keep`: as saved).

Significance here is over documents of one trained model per arm; training noise (seeds) is
another source of variance, ~1 F1 on unpunctuated text, not covered by these tests.
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

import spacy
from tqdm import tqdm

from spacy_joint_sbd import significance
from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.evaluation import predict
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)
from spacy_joint_sbd.scoring import score_records

sys.path.insert(0, str(Path(__file__).parent))
from prior_ablation import figures, sets  # noqa: E402  (the same sets and figures)

ALPHA = 0.01
IN_SAMPLE = ("ewt-dev-plain", "ewt-dev-star", "ami-dev-star")
"""Sets the arms' weights and biases were chosen on (AMI: a share of it)."""
SAMPLES = 5_000


def arm(spec: str) -> Tuple[str, str]:
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--arm takes NAME=PIPELINE, got {spec!r}")
    return name, path


def score_arm(nlp, golds, has_parse: bool) -> Dict:
    """Corpus figures and per-document counts (document ids made unique by their position)."""
    preds, seconds = predict(nlp, golds)
    counts = score_records(preds, [doc_to_record(g) for g in golds], has_parse=has_parse)
    per_doc = [dict(d, doc_id=f"{i:05d}:{d['doc_id']}") for i, d in enumerate(counts.per_doc)]
    return {"scores": figures(counts, golds, seconds, has_parse), "per_doc": per_doc}


def compare(later: Dict, earlier: Dict, has_parse: bool) -> Dict:
    """p-values that `later` is better / worse than `earlier` on one set (None: one document)."""
    a, b = {"per_doc": later["per_doc"]}, {"per_doc": earlier["per_doc"]}
    if len(a["per_doc"]) < 2:
        return {"documents": len(a["per_doc"]), "note": "one document: no test over documents"}
    xs, ys = significance.paired(a, b, "sents_f")
    out = {"documents": len(xs),
           "sents_f_delta": round(later["scores"]["sents_f"] - earlier["scores"]["sents_f"], 2),
           "docs_better": sum(x > y for x, y in zip(xs, ys)), "docs_worse": sum(x < y for x, y in zip(xs, ys)),
           "sents_f_wilcoxon_p_better": float(f"{significance.wilcoxon_greater(xs, ys):.3g}"),
           "sents_f_wilcoxon_p_worse": float(f"{significance.wilcoxon_greater(ys, xs):.3g}"),
           "sents_f_bootstrap_p_better": significance.bootstrap_corpus_greater(a, b, "sents_f", SAMPLES),
           "sents_f_bootstrap_p_worse": significance.bootstrap_corpus_greater(b, a, "sents_f", SAMPLES)}
    if has_parse:
        out["las_delta"] = round(later["scores"]["dep_las"] - earlier["scores"]["dep_las"], 2)
        out["las_bootstrap_p_better"] = significance.bootstrap_corpus_greater(a, b, "las", SAMPLES)
        out["las_bootstrap_p_worse"] = significance.bootstrap_corpus_greater(b, a, "las", SAMPLES)
    return out


def _mark(test: Dict, measure: str) -> str:
    """^ / v when the bootstrap says better / worse at p < ALPHA, else nothing."""
    if test.get(f"{measure}_bootstrap_p_better", 1) < ALPHA:
        return "^"
    return "v" if test.get(f"{measure}_bootstrap_p_worse", 1) < ALPHA else ""


def markdown(results: Dict) -> str:
    """Boundary F1 (LAS) per arm and set; ^ / v: better / worse than the arm above at p < ALPHA
    (paired bootstrap of the corpus figure over documents)."""
    names = list(results["arms"])
    sets_ = list(results["sets"])
    head = "| arm | " + " | ".join(f"{s}{' (dev: chosen on)' if results['sets'][s]['in_sample'] else ''}"
                                  for s in sets_) + " |"
    lines = [head, "|---" * (len(sets_) + 1) + "|"]
    for i, name in enumerate(names):
        cells = []
        for s in sets_:
            entry = results["sets"][s]
            sc = entry["scores"][name]
            test = entry["tests"].get(f"{name} vs {names[i - 1]}", {}) if i else {}
            cell = f"{sc['sents_f']:.2f}{_mark(test, 'sents_f')}"
            if "dep_las" in sc:
                cell += f" ({sc['dep_las']:.1f}{_mark(test, 'las')})"
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--arm", type=arm, action="append", required=True,
                    help="NAME=PIPELINE (directory or package), in the order of the ablation")
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--text", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated set names (default: all)")
    ap.add_argument("--no-tests", action="store_true", help="scores only (e.g. seeds of one arm)")
    ap.add_argument("--newlines", choices=("paragraph", "keep"), default="paragraph",
                    help="add newline_boundaries (paragraph) to arms without it, or keep the arms as saved")
    args = ap.parse_args()
    names = [n for n, _ in args.arm]
    if len(set(names)) != len(names):
        ap.error(f"arm names must differ: {names}")
    pipelines = {name: spacy.load(path) for name, path in args.arm}
    added = []
    for name, nlp in pipelines.items():
        if args.newlines == "paragraph" and "newline_boundaries" not in nlp.pipe_names:
            nlp.add_pipe("newline_boundaries", config={"mode": "paragraph"}, first=True)
            added.append(name)
    first = pipelines[names[0]]
    data = sets(first, args.ud, args.text)
    wanted = [s for s in args.only.split(",") if s] or list(data)
    unknown = sorted(set(wanted) - set(data))
    if unknown:
        ap.error(f"unknown sets {unknown}: {sorted(data)}")
    results: Dict = {"arms": {name: {"pipeline": Path(path).name,
                                     "settings": {k: pipelines[name].get_pipe("joint_sbd_parser").cfg[k]
                                                  for k in ("sb_bias", "sb_bias_unpunctuated", "prior_weight")},
                                     "components": pipelines[name].pipe_names}
                              for name, path in args.arm},
                     "newline_boundaries_added": added, "samples": SAMPLES, "sets": {}}
    for set_name in tqdm(wanted, desc="sets", unit="set", file=sys.stderr, disable=None):
        t0 = time.perf_counter()
        golds, has_parse = data[set_name]()
        by_arm = {}
        for name in names:
            nlp = pipelines[name]
            # `predict` copies the gold words into this pipeline's own vocab
            by_arm[name] = score_arm(nlp, golds, has_parse)
        entry: Dict = {"in_sample": set_name in IN_SAMPLE, "documents": len(golds),
                       "words": sum(len(g) for g in golds),
                       "scores": {name: by_arm[name]["scores"] for name in names}, "tests": {}}
        for i, later in enumerate([] if args.no_tests else names):
            for earlier in names[:i]:
                entry["tests"][f"{later} vs {earlier}"] = compare(by_arm[later], by_arm[earlier], has_parse)
        results["sets"][set_name] = entry
        print(set_name, json.dumps(entry["scores"]), f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    args.output.with_suffix(".md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
