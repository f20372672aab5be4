"""The learning curve: every snapshot of a fine-tuning run scored on prepared dev windows.

    python scripts/curve.py training/RUN results/curve_RUN.json --tokenizer assets/base/tokenizer.json \
        --dev star=corpus/dev_star.npz --dev written=corpus/dev_written.npz [--png results/curve_RUN.png]
    python scripts/curve.py training/RUN results/curve_RUN.json --png results/curve_RUN.png --replot \
        [--with results/curve_OTHER.json]

Each `words_N` folder of the run (`finetune --snapshots`) is read by torch in float32; for each set
of dev windows (`prepare.py --allow-dev`: AMI dev and SGD dev, speech-like with `--corrupt 1`, as
written with `--corrupt 0`) it reports boundary P / R / F1 at logit >= 0 (p >= 0.5 before any
calibration) and the best F1 over thresholds with its probability (dev text: the threshold a user
would choose there). With the run's wall time and machine from the snapshot's `train.json`.
`--replot --with` draws other runs' curves (their own budgets and schedules) in the same figure.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

import numpy

from snapshots import snapshot_is_consistent


def dev_logits(model, path: Path, cls_id: int, sep_id: int, batch: int = 64) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(logit, label) of every word's first piece in the windows at `path`."""
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from finetune import batches
    d = numpy.load(path)
    ids, labels, starts = d["ids"], d["labels"], d["starts"]
    n = len(starts) - 1
    cfg = model.config
    out_l, out_y = [], []
    with torch.no_grad():
        stream = batches(ids, labels, starts, 0, min(batch, n), cfg.pad_token_id or 0, cls_id, sep_id)
        for k in range(0, n, min(batch, n)):
            x, m, y, _ = next(stream)
            logits = model(input_ids=x, attention_mask=m).logits[..., 0].float()
            take = min(batch, n - k)  # the last batch wraps around to the first windows: not counted twice
            sel = y[:take] >= 0
            out_l.append(logits[:take][sel].numpy())
            out_y.append(y[:take][sel].numpy())
    return numpy.concatenate(out_l), numpy.concatenate(out_y)


def prf(pred: numpy.ndarray, gold: numpy.ndarray) -> Dict[str, float]:
    tp, fp, fn = int((pred & gold).sum()), int((pred & ~gold).sum()), int((~pred & gold).sum())
    p, r = tp / max(1, tp + fp), tp / max(1, tp + fn)
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f": round(200 * p * r / max(1e-9, p + r), 2)}


def best_threshold(logits: numpy.ndarray, gold: numpy.ndarray) -> Dict[str, float]:
    """The highest F1 over all thresholds, and the probability it is reached at."""
    order = numpy.argsort(-logits)
    hits = numpy.cumsum(gold[order])
    k = numpy.arange(1, len(order) + 1)
    f = 2 * hits / (k + gold.sum())
    i = int(numpy.argmax(f))
    return {"f": round(100 * float(f[i]), 2), "p_threshold": round(float(1 / (1 + numpy.exp(-logits[order][i]))), 3)}


def words_label(n: int) -> str:
    """250000 → 250k, 6000000 → 6M (the snapshots' axis)."""
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def plot(curves: Union[Dict, Sequence[Dict]], png: Path) -> None:
    """F1 at p >= 0.5 (and, for one run, at the best threshold) of every dev set against the
    snapshots' word counts; several runs (each with its own learning-rate schedule) in one figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = [curves] if isinstance(curves, dict) else list(curves)
    single = len(curves) == 1
    fig, ax = plt.subplots(figsize=(6, 4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ticks = set()
    for k, curve in enumerate(curves):
        rows = curve["snapshots"]
        words = [r["words"] for r in rows]
        ticks.update(words)
        for j, name in enumerate(curve["dev"]):
            label = f"{name}, p >= 0.5" if single else f"{name}, run {curve['run']}"
            style = "o-" if single else ("o-", "s--", "^:", "d-.")[k % 4]
            color = colors[(2 * j if single else j + len(curve["dev"]) * k) % len(colors)]
            ax.plot(words, [r["sets"][name]["f"] for r in rows], style, color=color, label=label)
            if single:
                ax.plot(words, [r["sets"][name]["best"]["f"] for r in rows], "s:", color=colors[(2 * j + 1) % len(colors)],
                        label=f"{name}, best threshold")
    ax.set_xscale("log")
    ax.set_xticks(sorted(ticks), [words_label(w) for w in sorted(ticks)])
    ax.minorticks_off()
    ax.set_xlabel("fine-tuning words")
    ax.set_ylabel("boundary F1 (dev windows)")
    ax.set_title(f"Encoder learning curve ({', '.join(c['run'] for c in curves)})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--dev", action="append", default=[], help="NAME=WINDOWS.npz (repeatable)")
    ap.add_argument("--tokenizer", type=Path, default=None, help="the base encoder's tokenizer.json")
    ap.add_argument("--png", type=Path, default=None)
    ap.add_argument("--replot", action="store_true", help="draw --png from OUTPUT as it is, scoring nothing")
    ap.add_argument("--with", dest="others", action="append", type=Path, default=[],
                    help="with --replot: another run's curve JSON drawn in the same figure (repeatable)")
    args = ap.parse_args()
    if args.replot:
        if args.png is None or not args.output.is_file():
            raise SystemExit("error: --replot draws --png from an existing OUTPUT")
        missing = [str(p) for p in args.others if not p.is_file()]
        if missing:
            raise SystemExit(f"error: no curve JSON at {', '.join(missing)}")
        curves = [json.loads(p.read_text()) for p in (*args.others, args.output)]
        plot(curves[0] if len(curves) == 1 else curves, args.png)
        return
    if not args.dev or args.tokenizer is None:
        raise SystemExit("error: scoring needs --dev NAME=WINDOWS.npz and --tokenizer")
    from transformers import BertForTokenClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(args.tokenizer))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    sets = dict(d.split("=", 1) for d in args.dev)
    snaps = sorted((int(p.name.split("_")[1]), p) for p in args.run.glob("words_*") if (p / "train.json").exists())
    if not snaps:
        raise SystemExit(f"error: {args.run} holds no snapshot (words_N/train.json)")
    rows: List[Dict] = []
    for words, path in snaps:
        info = json.loads((path / "train.json").read_text())
        if not snapshot_is_consistent(words, info["words"]):
            raise SystemExit(f"error: {path} holds the weights of {info['words']} words, not {words}")
        model = BertForTokenClassification.from_pretrained(str(path)).eval()
        row = {"words": words, "seconds": info["seconds"], "machine": info["machine"], "sets": {}}
        for name, windows in sets.items():
            logits, y = dev_logits(model, Path(windows), cls_id, sep_id)
            gold = y == 1
            row["sets"][name] = {**prf(logits >= 0, gold), "best": best_threshold(logits, gold), "words": int(len(y))}
        print(json.dumps({"words": words, **{k: v["f"] for k, v in row["sets"].items()}}), flush=True)
        rows.append(row)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"run": args.run.name, "dev": {k: Path(v).name for k, v in sets.items()},
                                       "snapshots": rows}, indent=2))
    if args.png is not None:
        plot(json.loads(args.output.read_text()), args.png)

if __name__ == "__main__":
    main()
