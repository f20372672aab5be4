"""Update strategies compared per epoch (bjorkelund2016 Figures 3 and 4).

Trains the transition engine on whole EWT training documents with `greedy`, `early`,
`max_violation` and `dlaso` for the same number of epochs and records, after every epoch, the
averaged model's dev sentence F1, UAS and LAS and the share of each gold transition sequence the
updates used. `greedy` is decoded with beam 1 (a locally trained classifier's scores are not made for
a beam); the other strategies with the training beam. Tags are PREDICTED on train and dev by a spaCy tagger (`--tagger`, e.g. the
baseline's): never gold.

    python -m spacy_joint_sbd.experiments.strategies --tagger training/ewt-plain/tagger_parser/model-best \
        --train assets/ud/en_ewt/train.conllu --dev assets/ud/en_ewt/dev.conllu --out results/strategies
"""
import argparse
import time
from pathlib import Path
from typing import Dict, List, Sequence

import srsly
from tqdm import tqdm

from ..corpus import DocRecord, read_conllu
from ..scoring import score_records
from ..transition import TransitionParser
from .replicate.data import predict_tags
from .replicate.systems import with_parse

STRATEGY_ORDER = ("greedy", "early", "max_violation", "dlaso")


def run(train: Sequence[DocRecord], dev: Sequence[DocRecord], strategies: Sequence[str], epochs: int,
        beam_width: int, learner: str = "pa", seed: int = 0) -> Dict[str, List[Dict]]:
    curves: Dict[str, List[Dict]] = {}
    for strategy in strategies:
        parser = TransitionParser.from_records(train, learner=learner)
        train_docs, dev_docs = parser.encode(train), parser.encode(dev)
        curve = []
        for epoch in tqdm(range(1, epochs + 1), desc=strategy, unit="epoch"):
            start = time.perf_counter()
            stats = parser.train_epoch(train_docs, strategy=strategy, beam_width=beam_width, shuffle=seed + epoch)
            seconds = time.perf_counter() - start
            # greedy is a locally trained classifier: it decodes greedily, as the paper's greedy baseline
            parses = parser.parse(dev_docs, beam_width=1 if strategy == "greedy" else beam_width)
            scores = score_records(with_parse(parser, dev, parses), dev).scores()
            curve.append({"epoch": epoch, "train_seconds": seconds, "used_pct": stats["used_pct"],
                          "violations": stats["violations"], **{k: scores[k] for k in
                                                                ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las")}})
        curves[strategy] = curve
    return curves


def plot(curves: Dict[str, List[Dict]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for name, curve in curves.items():
        xs = [c["epoch"] for c in curve]
        axes[0].plot(xs, [100 * c["sents_f"] for c in curve], marker="o", label=name)
        axes[1].plot(xs, [100 * c["dep_las"] for c in curve], marker="o", label=name)
        axes[2].plot(xs, [c["used_pct"] for c in curve], marker="o", label=name)
    for ax, label in zip(axes, ("dev sentence F1", "dev LAS", "% of gold sequence used")):
        ax.set_xlabel("epoch")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def table(curves: Dict[str, List[Dict]]) -> str:
    lines = ["| strategy | epoch | sents F1 | UAS | LAS | used % | s/epoch |", "|---|---|---|---|---|---|---|"]
    for name, curve in curves.items():
        best = max(curve, key=lambda c: c["sents_f"] + c["dep_las"])
        last = curve[-1]
        for tag, c in (("best", best), ("last", last)):
            lines.append(f"| {name} ({tag}) | {c['epoch']} | {100 * c['sents_f']:.2f} | {100 * c['dep_uas']:.2f} | "
                         f"{100 * c['dep_las']:.2f} | {c['used_pct']:.1f} | {c['train_seconds']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--dev", type=Path, required=True)
    ap.add_argument("--tagger", required=True, help="spaCy pipeline with tok2vec + tagger")
    ap.add_argument("--variant", default="plain")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--beam", type=int, default=20)
    ap.add_argument("--strategies", default=",".join(STRATEGY_ORDER))
    ap.add_argument("--limit", type=int, default=0, help="use only the first N training / dev documents")
    ap.add_argument("--learner", default="pa", choices=["pa", "perceptron"])
    args = ap.parse_args()
    train = read_conllu(args.train, args.variant)
    dev = read_conllu(args.dev, args.variant)
    if args.limit:
        train, dev = train[:args.limit], dev[:args.limit]
    train, dev = predict_tags(train, args.tagger), predict_tags(dev, args.tagger)
    curves = run(train, dev, args.strategies.split(","), args.epochs, args.beam, learner=args.learner)
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"ewt-{args.variant}-beam{args.beam}" + ("" if args.learner == "pa" else f"-{args.learner}")
    srsly.write_json(args.out / f"{name}.json", {"variant": args.variant, "beam": args.beam, "tags": "predicted",
                                                 "learner": args.learner,
                                                 "tagger": args.tagger, "curves": curves})
    title = f"EWT {args.variant}, beam {args.beam}, {args.learner}, predicted tags (bjorkelund2016 Fig. 3-4)"
    plot(curves, args.out / f"{name}.png", title)
    text = (f"# Update strategies, {title}\n\nGenerated by spacy_joint_sbd.experiments.strategies from {name}.json; "
            f"'best' = epoch with the best sentence F1 + LAS on dev.\n\n" + table(curves) + "\n")
    (args.out / f"{name}.md").write_text(text, encoding="utf8")
    print(text)


if __name__ == "__main__":
    main()
