"""Fine-tune the encoder with every head: sentence starts, dependency arcs and labels, UPOS.

    python scripts/finetune_syntax.py TREEBANK.npz TEXT_WINDOWS.npz START_DIR OUT_DIR --epochs 3 \
        [--fold K] [--eval DEV.npz] [--text-share 0.25] [--resume] [--device auto]

`TREEBANK.npz` is `prepare_syntax.py`'s file (whole documents, both variants); each epoch cuts every
document into windows of at most `--window-words` words and `--max-pieces` pieces, the first cut at
an offset drawn anew each epoch, so that words meet the edges of windows at new places, and shuffles
them. A share `--text-share` of every batch is running-text windows (`prepare.py`'s file: sentence
starts only), so the boundary head keeps learning from text the treebanks do not cover. Losses:
binary cross-entropy of sentence starts (every window), cross-entropy of each word's head among the
window's words and [CLS] (the root; a word whose head lies outside its window is not scored), of its
label given the gold head, and of its UPOS (`multitask.losses`; `--boundary-weight` scales the
first). `--freeze-steps` trains the new heads alone at first, so that their random start does not
disturb the encoder's boundary knowledge.

`START_DIR` holds `config.json` and `model.safetensors` of a BERT token classifier: the shipped
boundary encoder (`dequantize.py`) or the pretrained one (its classifier then starts at random).
`--fold K` trains on the documents of every fold but K (`prepare_syntax.py --folds`): the
encoder whose outputs the joint parser reads on fold K's documents has not seen them.

AdamW, the encoder at `--lr` and the new heads at `--head-lr`, linear warm-up then decay to 0.
Deterministic for one device. `OUT_DIR/checkpoint.pt` every `--checkpoint-every` steps and at the
end, atomically (`--resume` goes on from it); at the end of each epoch the weights go to
`OUT_DIR/epoch_<E>/` (and at each of `--snapshot-steps` to `OUT_DIR/step_<N>/`) (`model.safetensors`, `config.json`, `train.json` with the dev scores of
`--eval`: UAS, LAS, UPOS accuracy and boundary P/R/F1 at logit ≥ 0, per variant, words whose gold
head lies in their window).
"""
import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Dict

import torch
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).parent))
from finetune import save_atomic  # noqa: E402
from multitask import MultiTaskEncoder, losses  # noqa: E402
from syntax_windows import TextWindows, Treebank, collate, plan  # noqa: E402


def evaluate(model: MultiTaskEncoder, tb: Treebank, device, ids3, window_words: int, max_pieces: int,
             batch: int = 32) -> Dict[str, Dict[str, float]]:
    """Per variant: UAS, LAS, UPOS accuracy (words with gold heads in their window) and boundary
    P/R/F1 at logit >= 0 (words other than a document's first), windows cut without offsets."""
    variants = [name.split("/")[1] for name in tb.meta["names"]]
    counts: Dict[str, Dict[str, int]] = {}
    wins = tb.windows(window_words, max_pieces, None)
    model.eval()
    with torch.no_grad():
        for k in range(0, len(wins), batch):
            part = wins[k:k + batch]
            rows = [tb.window(*w) for w in part]
            t = {n: torch.from_numpy(v).to(device) for n, v in collate(rows, *ids3).items()}
            x = model.encode(t["ids"], t["mask"])
            s = model.arc_scores(x, t["candidates"])
            pred = s.argmax(-1)
            bsel = t["heads"] >= 0
            b, dep = bsel.nonzero(as_tuple=True)
            lab = model.label_logits(x, b, dep, pred[b, dep]).argmax(-1)
            up = model.upos_logits(x).argmax(-1)
            bl = model.boundary_logits(x) >= 0
            arc_ok = (pred == t["heads"]) & bsel
            lab_full = torch.full_like(t["heads"], -2)
            lab_full[b, dep] = lab
            for i, (d, _, _) in enumerate(part):
                c = counts.setdefault(variants[d], {"n": 0, "ua": 0, "la": 0, "up": 0, "tp": 0, "fp": 0, "fn": 0})
                sel = bsel[i]
                c["n"] += int(sel.sum())
                c["ua"] += int(arc_ok[i].sum())
                c["la"] += int((arc_ok[i] & (lab_full[i] == t["labels"][i])).sum())
                c["up"] += int(((up[i] == t["upos"][i]) & sel).sum())
                ysel = t["boundary"][i] >= 0
                g = (t["boundary"][i] == 1) & ysel
                p = bl[i] & ysel
                c["tp"] += int((p & g).sum())
                c["fp"] += int((p & ~g).sum())
                c["fn"] += int((~p & g).sum())
    model.train()
    out = {}
    for v, c in counts.items():
        P, R = c["tp"] / max(1, c["tp"] + c["fp"]), c["tp"] / max(1, c["tp"] + c["fn"])
        out[v] = {"uas": round(100 * c["ua"] / max(1, c["n"]), 2), "las": round(100 * c["la"] / max(1, c["n"]), 2),
                  "upos": round(100 * c["up"] / max(1, c["n"]), 2), "words": c["n"],
                  "boundary": {"p": round(100 * P, 2), "r": round(100 * R, 2),
                               "f": round(200 * P * R / max(1e-9, P + R), 2)}}
    return out


def build(start: Path, n_labels: int, n_upos: int, args) -> MultiTaskEncoder:
    from safetensors.torch import load_file
    from transformers import BertConfig, BertModel

    config = BertConfig.from_pretrained(str(start))
    bert = BertModel(config, add_pooling_layer=False)
    model = MultiTaskEncoder(bert, n_labels, n_upos, arc_dim=args.arc_dim, label_dim=args.label_dim,
                             dropout=args.head_dropout)
    weights = load_file(str(start / "model.safetensors"))
    weights = {(k if k.startswith(("bert.", "classifier.", "arc_", "lab_", "upos.")) else "bert." + k): v
               for k, v in weights.items() if not k.endswith("position_ids")}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if any(k.startswith("bert.") for k in missing) or unexpected:
        raise SystemExit(f"error: {start}: weights do not fit the encoder (missing {missing[:3]}, unexpected {unexpected[:3]})")
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("treebank", type=Path)
    ap.add_argument("text", type=Path, help="prepare.py's running-text windows ('-': none)")
    ap.add_argument("start", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (0: the epochs')")
    ap.add_argument("--fold", type=int, default=-1, help="train on every fold but this one (-1: every document)")
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--text-share", type=float, default=0.25)
    ap.add_argument("--freeze-steps", type=int, default=0, help="steps at the start that train the new heads only")
    ap.add_argument("--boundary-weight", type=float, default=1.0, help="the boundary loss's weight in the sum")
    ap.add_argument("--window-words", type=int, default=96)
    ap.add_argument("--max-pieces", type=int, default=254)
    ap.add_argument("--arc-dim", type=int, default=256)
    ap.add_argument("--label-dim", type=int, default=128)
    ap.add_argument("--head-dropout", type=float, default=0.2)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--checkpoint-every", type=int, default=100, help="steps")
    ap.add_argument("--snapshot-steps", default="", help="steps at which the weights are saved and scored besides each epoch's end (a learning curve)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--eval", type=Path, default=None, help="prepare_syntax.py's dev file: scores at each epoch")
    args = ap.parse_args()
    if not 0 <= args.text_share < 1:
        sys.exit("error: --text-share must be in [0, 1)")
    from tokenizers import Tokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))
    tb = Treebank(args.treebank, fold=None if args.fold is None or args.fold < 0 else args.fold)
    if not tb.docs:
        sys.exit(f"error: {args.treebank}: no document to train on (fold {args.fold})")
    text = None if str(args.text) == "-" else TextWindows(args.text)
    dev = Treebank(args.eval) if args.eval is not None else None
    if dev is not None and dev.meta["labels"] != tb.meta["labels"]:
        sys.exit(f"error: {args.eval} has another label inventory than {args.treebank} (prepare it with --labels-from)")
    model = build(args.start, len(tb.meta["labels"]), len(tb.meta["upos"]), args).to(device)
    heads = [p for n, p in model.named_parameters() if not n.startswith(("bert.", "classifier."))]
    enc = [(n, p) for n, p in model.named_parameters() if n.startswith(("bert.", "classifier."))]
    opt = torch.optim.AdamW([
        {"params": [p for n, p in enc if not any(k in n for k in ("bias", "LayerNorm"))], "weight_decay": args.weight_decay, "lr": args.lr},
        {"params": [p for n, p in enc if any(k in n for k in ("bias", "LayerNorm"))], "weight_decay": 0.0, "lr": args.lr},
        {"params": heads, "weight_decay": 0.0, "lr": args.head_lr}])
    n_tb, steps_total, stream = plan(tb, text, args.epochs, args.batch, args.text_share, args.seed,
                                     args.window_words, args.max_pieces)
    if args.max_steps:
        steps_total = min(steps_total, args.max_steps)
    warm = max(1, int(args.warmup * steps_total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps_total - s) / max(1, steps_total - warm))))
    tok = Tokenizer.from_file(str(Path(__file__).parents[1] / "assets" / "base" / "tokenizer.json")) \
        if not (args.start / "tokenizer.json").exists() else Tokenizer.from_file(str(args.start / "tokenizer.json"))
    ids3 = (model.bert.config.pad_token_id or 0, tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]"))
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt = args.out / "checkpoint.pt"
    step, words, seconds, log, done_epochs = 0, 0, 0.0, [], 0
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["schedule"])
        step, words, seconds, log, done_epochs = state["step"], state["words"], state["seconds"], state["log"], state["epochs"]
        torch.set_rng_state(state["rng"])
    machine = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or platform.machine(),
               "threads": torch.get_num_threads(), "torch": torch.__version__}
    cfg = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k not in ("resume", "device", "threads")}
    cfg.update({"treebank_meta": {k: v for k, v in tb.meta.items() if k != "names"}, "train_words": tb.words,
                "steps_total": steps_total, "treebank_windows_per_batch": n_tb})
    bar = tqdm(total=steps_total, initial=step, unit="step", desc="fine-tuning", disable=None)
    t0 = time.time() - seconds
    run: Dict[str, float] = {}
    run_n = 0

    def checkpoint() -> None:
        save_atomic({"model": model.state_dict(), "optimizer": opt.state_dict(), "schedule": sched.state_dict(),
                     "step": step, "words": words, "seconds": time.time() - t0, "log": log, "epochs": done_epochs,
                     "rng": torch.get_rng_state(), "config": cfg}, ckpt)

    def snapshot(name: str) -> None:
        from safetensors.torch import save_file

        snap = args.out / name
        snap.mkdir(parents=True, exist_ok=True)
        save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, str(snap / "model.safetensors"))
        model.bert.config.to_json_file(str(snap / "config.json"))
        record = {**cfg, "steps": step, "words": words, "seconds": round(time.time() - t0, 1), "machine": machine,
                  "log": log[-10:]}
        if dev is not None:
            record["eval"] = evaluate(model, dev, device, ids3, args.window_words, args.max_pieces)
            print(json.dumps({"snapshot": name, "eval": record["eval"]}), flush=True)
        (snap / "train.json").write_text(json.dumps(record, indent=2))

    snapshot_steps = {int(v) for v in args.snapshot_steps.split(",") if v.strip()}
    model.train()
    for s, epoch, tb_rows, text_rows in stream:
        if s < step:
            continue
        if s >= steps_total:
            break
        if epoch > done_epochs:
            snapshot(f"epoch_{done_epochs + 1}")
            done_epochs = epoch
            checkpoint()
        rows = [tb.window(*w) for w in tb_rows] + ([text.window(k) for k in text_rows] if text is not None else [])
        batch = {n: torch.from_numpy(v).to(device) for n, v in collate(rows, *ids3).items()}
        loss, parts = losses(model, batch, frozen=step < args.freeze_steps, boundary_weight=args.boundary_weight)
        opt.zero_grad(set_to_none=True)
        if not loss.requires_grad:  # nothing to learn from in this batch
            continue
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        words += sum(int(r["words"]) for r in rows)
        for k, v in parts.items():
            run[k] = run.get(k, 0.0) + v
        run_n += 1
        bar.update(1)
        if step % 25 == 0 or step == steps_total:
            log.append({"step": step, "words": words, "seconds": round(time.time() - t0, 1),
                        **{k: round(v / run_n, 4) for k, v in run.items()}})
            bar.set_postfix({k: f"{v / run_n:.3f}" for k, v in run.items()})
            if bar.disable:
                print(json.dumps(log[-1]), flush=True)
            run, run_n = {}, 0
        if step in snapshot_steps:
            snapshot(f"step_{step}")
        if step % args.checkpoint_every == 0:
            checkpoint()
    bar.close()
    if step >= steps_total and not (args.out / "final").exists():
        done_epochs = args.epochs
        snapshot("final")
        checkpoint()
    print(json.dumps({"steps": step, "words": words, "seconds": round(time.time() - t0, 1), "machine": machine}))


if __name__ == "__main__":
    main()
