"""The multi-task fine-tuning's learning curve: each snapshot's treebank dev scores, JSON and PNG.

    python scripts/curve_syntax.py training/RUN results/RUN_curve.json --png results/RUN_curve.png

Reads the `eval` that `finetune_syntax.py` recorded in every snapshot's `train.json` (`step_N`,
`epoch_E`, `final`): UAS, LAS and boundary F1 at logit ≥ 0 on EWT and GUM dev, plain and `*`,
words whose gold head lies in their window, against the words trained on (treebank and text).
"""
import argparse
import json
from pathlib import Path


def points(run: Path):
    out = []
    for snap in sorted(run.iterdir()):
        record = snap / "train.json"
        if snap.is_dir() and record.exists():
            r = json.loads(record.read_text())
            if "eval" in r:
                out.append({"snapshot": snap.name, "steps": r["steps"], "words": r["words"],
                            "seconds": r["seconds"], "eval": r["eval"]})
    return sorted(out, key=lambda p: p["steps"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--png", type=Path, default=None)
    args = ap.parse_args()
    pts = points(args.run)
    if not pts:
        raise SystemExit(f"error: {args.run}: no snapshot with dev scores")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"run": args.run.name, "points": pts}, indent=2))
    if args.png is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        x = [p["words"] / 1e6 for p in pts]
        for variant, style in (("plain", "-"), ("star", "--")):
            a.plot(x, [p["eval"][variant]["las"] for p in pts], style, marker="o", label=f"LAS {variant}")
            a.plot(x, [p["eval"][variant]["uas"] for p in pts], style, marker="x", label=f"UAS {variant}")
            b.plot(x, [p["eval"][variant]["boundary"]["f"] for p in pts], style, marker="o", label=f"boundary F1 {variant}")
        for ax, title in ((a, "attachment (EWT + GUM dev)"), (b, "sentence starts (EWT + GUM dev)")):
            ax.set_xlabel("words trained on (millions)")
            ax.set_title(title)
            ax.grid(alpha=0.3)
            ax.legend()
        fig.tight_layout()
        args.png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.png, dpi=110)
    for p in pts:
        print(p["snapshot"], p["words"], json.dumps({v: (e["las"], e["boundary"]["f"]) for v, e in p["eval"].items()}))


if __name__ == "__main__":
    main()
