"""How eager the splitting is, and how far `token._.sent_start_prob` can be trusted (EWT* dev).

Writes to OUT (default training/default/report/curves, untracked; `default_scores.py --publish`
copies a report's curves to the committed results/default):
- boundary_pr.png / .json: precision–recall of sentence boundaries as the `sb_bias` knob moves
  (each point a full decoding of the dev documents, the same bias for every document), and as a
  threshold on `sent_start_prob` over the decoding at the pipeline's saved operating point;
- boundary_reliability.png: reliability diagram of `sent_start_prob` (10 bins: mean predicted
  probability vs the share of tokens in the bin that start a gold sentence, with bin counts).
Token-level, first token of each document excluded (as every boundary score here).

    python scripts/boundary_curves.py training/default/model-best corpus/en_ewt/dev.spacy --variant star
"""
import argparse
import json
from pathlib import Path
from typing import List, Tuple

import numpy
import spacy

from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.readers import load_gold_docs, tokens_only
from spacy_joint_sbd.operating_point import sweep_sb_bias_scores
from spacy_joint_sbd.pipeline.joint.calibration import expected_calibration_error

BIASES = (-1.0, -0.5, 0.0, 0.4, 0.7, 1.0, 1.3, 1.6, 2.0)
"""Around the default pipeline's operating points (with its boundary prior, sb_bias about 0.8)."""


def prf(tp: int, n_pred: int, n_gold: int) -> Tuple[float, float, float]:
    p = tp / n_pred if n_pred else 1.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _finish(fig, ax, xlabel: str, ylabel: str, title: str, path: Path) -> None:
    """Labels, grid and legend of one plot, saved as PNG."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_curves(model: str, gold_path: Path, variant: str, out: Path) -> None:
    """The sweep, the JSON and the two PNGs for `model` on `gold_path` in `variant`."""
    args = argparse.Namespace(model=model, gold=gold_path, variant=variant, out=out)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nlp = spacy.load(args.model)
    comp = nlp.get_pipe("joint_sbd_parser")
    golds = load_gold_docs(args.gold, nlp.vocab, args.variant)
    gold_recs = [doc_to_record(g) for g in golds]
    knob = []
    tuned = (comp.cfg.get("sb_bias", 0.0), comp.cfg.get("sb_bias_unpunctuated"))
    comp.cfg["sb_bias_unpunctuated"] = None  # one knob for every document during the sweep
    try:
        sweep = sweep_sb_bias_scores(nlp, golds, BIASES, "sb_bias")  # leaves sb_bias as it was
    finally:
        comp.cfg["sb_bias_unpunctuated"] = tuned[1]  # probabilities at the saved operating point
    for bias, s in sweep.items():
        knob.append({"sb_bias": bias, "precision": s["sents_p"], "recall": s["sents_r"], "f1": s["sents_f"]})
        print(f"sb_bias {bias:+.2f}: P {s['sents_p']:.2%} R {s['sents_r']:.2%} F1 {s['sents_f']:.2%}")
    probs: List[float] = []
    gold: List[bool] = []
    for doc, g in zip(nlp.pipe((tokens_only(nlp.vocab, g) for g in golds), batch_size=16), gold_recs):
        probs.extend(float(t._.sent_start_prob) for t in doc[1:])
        gold.extend(bool(x) for x in g.sent_starts[1:])
    probs_a, gold_a = numpy.asarray(probs), numpy.asarray(gold)
    thresholds = [round(x, 2) for x in numpy.linspace(0.05, 0.95, 19)]
    by_threshold = []
    for t in thresholds:
        pred = probs_a >= t
        p, r, f = prf(int((pred & gold_a).sum()), int(pred.sum()), int(gold_a.sum()))
        by_threshold.append({"threshold": t, "precision": p, "recall": r, "f1": f})
    edges = numpy.linspace(0, 1, 11)
    bins = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (probs_a >= lo) & ((probs_a < hi) if hi < 1 else (probs_a <= hi))
        if mask.any():
            bins.append({"lo": float(lo), "hi": float(hi), "n": int(mask.sum()),
                         "mean_prob": float(probs_a[mask].mean()), "gold_rate": float(gold_a[mask].mean())})
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "boundary_pr.json").write_text(json.dumps(
        {"model": str(args.model), "gold": str(args.gold), "variant": args.variant, "sb_bias": knob,
         "operating_point": {"sb_bias": tuned[0], "sb_bias_unpunctuated": tuned[1]},
         "threshold": by_threshold, "reliability": bins,
         "ece": expected_calibration_error(probs_a, gold_a)}, indent=2))

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot([k["recall"] for k in knob], [k["precision"] for k in knob], "o-", label="sb_bias (decoded)")
    for k in knob:
        ax.annotate(f"{k['sb_bias']:+g}", (k["recall"], k["precision"]), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")
    ax.plot([b["recall"] for b in by_threshold], [b["precision"] for b in by_threshold], "s--", ms=3,
            label="threshold on sent_start_prob")
    _finish(fig, ax, "recall", "precision", f"Sentence boundaries, EWT dev {args.variant}", args.out / "boundary_pr.png")

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot([0, 1], [0, 1], ":", color="grey", label="calibrated")
    ax.plot([b["mean_prob"] for b in bins], [b["gold_rate"] for b in bins], "o-", label="sent_start_prob")
    for b in bins:
        ax.annotate(str(b["n"]), (b["mean_prob"], b["gold_rate"]), fontsize=7, xytext=(3, -9), textcoords="offset points")
    _finish(fig, ax, "mean predicted probability (bin)", "share of tokens that start a gold sentence", f"sent_start_prob, EWT dev {args.variant} (ECE {expected_calibration_error(probs_a, gold_a):.3f}, in-sample)", args.out / "boundary_reliability.png")
    print(f"wrote {args.out}/boundary_pr.png, boundary_reliability.png, boundary_pr.json")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("gold", type=Path)
    ap.add_argument("--variant", default="star")
    ap.add_argument("--out", type=Path, default=Path("training/default/report/curves"))
    args = ap.parse_args()
    write_curves(args.model, args.gold, args.variant, args.out)


if __name__ == "__main__":
    main()
