"""Fine-tune a pretrained BERT to mark the words that start a sentence (torch; CPU or CUDA).

    python scripts/finetune.py WINDOWS.npz BASE_DIR OUT_DIR --words 4000000 --lr 5e-5 --batch 32 \
        --snapshots 1000000,2000000,4000000 [--resume] [--device auto] [--bf16 auto]

`BASE_DIR` holds a Hugging Face BERT (`config.json`, `model.safetensors`); one linear layer is
put on every piece (`BertForTokenClassification`, one logit) and the loss (binary cross-entropy)
is read on each word's first piece (`prepare.py`'s labels). The windows are taken in the prepared
file's order, `--words` words in all (the file is read again from its start if it is shorter);
AdamW with linear warm-up over the first `--warmup` share of steps, then linear decay to 0.

Deterministic for one device: seeds fixed, no data-dependent randomness. `OUT_DIR/checkpoint.pt`
(model, optimiser, schedule, step) is written every `--checkpoint-every` words and at the end,
atomically; `--resume` goes on from it (the snapshots it has passed stay as they were). At each word count in `--snapshots` the weights are saved
as `OUT_DIR/words_<N>/` (`model.safetensors` + `config.json` + `train.json`), what `export.py` reads;
with `--eval DEV.npz` (prepared dev windows) each snapshot's dev P/R/F1 goes into its `train.json`.
On CUDA the forward and backward run in bfloat16 autocast (`--bf16 auto`).
"""
import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy
import torch
from tqdm import tqdm

from snapshots import pending_snapshots


def batches(ids, labels, starts, order_from: int, batch: int, pad_id: int, cls_id: int, sep_id: int):
    """Endless (step, input_ids, attention_mask, labels, words) from window `order_from` on, in file order."""
    n = len(starts) - 1
    k = order_from
    while True:
        rows = [(k + r) % n for r in range(batch)]
        k += batch
        width = 2 + max(int(starts[r + 1] - starts[r]) for r in rows)
        x = numpy.full((batch, width), pad_id, dtype=numpy.int64)
        m = numpy.zeros((batch, width), dtype=numpy.int64)
        y = numpy.full((batch, width), -1, dtype=numpy.float32)
        words = 0
        for i, r in enumerate(rows):
            a, b = int(starts[r]), int(starts[r + 1])
            x[i, 0], x[i, 1:b - a + 1], x[i, b - a + 1] = cls_id, ids[a:b], sep_id
            m[i, :b - a + 2] = 1
            y[i, 1:b - a + 1] = labels[a:b]
            words += int((labels[a:b] >= 0).sum())
        yield torch.from_numpy(x), torch.from_numpy(m), torch.from_numpy(y), words


def evaluate(model, path: Path, device, bf16: bool, pad_id: int, cls_id: int, sep_id: int, batch: int = 64) -> dict:
    """Boundary P / R / F1 (percent) of the windows in `path` at logit >= 0 (p >= 0.5, uncalibrated)."""
    d = numpy.load(path)
    ids, labels, starts = d["ids"], d["labels"], d["starts"]
    n = len(starts) - 1
    tp = fp = fn = 0
    model.eval()
    with torch.no_grad():
        stream = batches(ids, labels, starts, 0, min(batch, n), pad_id, cls_id, sep_id)
        for _ in range(0, n, min(batch, n)):
            x, m, y, _ = next(stream)
            x, m, y = x.to(device), m.to(device), y.to(device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=bf16):
                logits = model(input_ids=x, attention_mask=m).logits[..., 0].float()
            sel = y >= 0
            pred, gold = (logits >= 0) & sel, (y == 1) & sel
            tp += int((pred & gold).sum())
            fp += int((pred & ~gold).sum())
            fn += int((~pred & gold).sum())
    model.train()
    p, r = tp / max(1, tp + fp), tp / max(1, tp + fn)
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f": round(200 * p * r / max(1e-9, p + r), 2)}


def save_atomic(obj, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("windows", type=Path)
    ap.add_argument("base", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--words", type=int, default=4_000_000)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--snapshots", default="1000000,2000000,4000000,8000000,16000000")
    ap.add_argument("--checkpoint-every", type=int, default=250_000)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--bf16", default="auto", choices=["auto", "yes", "no"])
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's choice)")
    ap.add_argument("--eval", type=Path, default=None,
                    help="prepared dev windows (prepare.py --allow-dev): P/R/F1 at logit >= 0 at each snapshot")
    args = ap.parse_args()

    from transformers import BertForTokenClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.manual_seed(args.seed)
    numpy.random.seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))
    bf16 = args.bf16 == "yes" or (args.bf16 == "auto" and device.type == "cuda")
    data = numpy.load(args.windows)
    ids, labels, starts = data["ids"], data["labels"], data["starts"]
    meta = json.loads(str(data["meta"]))
    if len(starts) < 2:
        raise SystemExit(f"error: {args.windows} holds no window")
    words_per_window = meta["words"] / (len(starts) - 1)
    steps_total = max(1, int(round(args.words / (words_per_window * args.batch))))
    model = BertForTokenClassification.from_pretrained(str(args.base), num_labels=1).to(device)
    decay = [p for n, p in model.named_parameters() if not any(k in n for k in ("bias", "LayerNorm"))]
    rest = [p for n, p in model.named_parameters() if any(k in n for k in ("bias", "LayerNorm"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": rest, "weight_decay": 0.0}], lr=args.lr)
    warm = max(1, int(args.warmup * steps_total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps_total - s) / max(1, steps_total - warm))))
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt = args.out / "checkpoint.pt"
    step, words_done, seconds, log = 0, 0, 0.0, []
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["schedule"])
        step, words_done, seconds, log = state["step"], state["words"], state["seconds"], state["log"]
        torch.set_rng_state(state["rng"])
    snapshots = pending_snapshots(args.snapshots, args.words, words_done)
    machine = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or platform.machine(),
               "threads": torch.get_num_threads(), "bf16": bf16, "torch": torch.__version__}
    cfg = {"windows": str(args.windows.name), "windows_meta": meta, "lr": args.lr, "batch": args.batch,
           "warmup": args.warmup, "weight_decay": args.weight_decay, "seed": args.seed, "words_budget": args.words}
    pad_id = model.config.pad_token_id or 0
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(args.base / "tokenizer.json"))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="sum")
    model.train()
    stream = batches(ids, labels, starts, step * args.batch, args.batch, pad_id, cls_id, sep_id)
    bar = tqdm(total=args.words, initial=words_done, unit="word", unit_scale=True, desc="fine-tuning", disable=None)
    next_ckpt = (words_done // args.checkpoint_every + 1) * args.checkpoint_every
    t_start, run_loss, run_n = time.time() - seconds, 0.0, 0

    def save_checkpoint():
        save_atomic({"model": model.state_dict(), "optimizer": opt.state_dict(), "schedule": sched.state_dict(),
                     "step": step, "words": words_done, "seconds": time.time() - t_start, "log": log,
                     "rng": torch.get_rng_state(), "config": cfg}, ckpt)

    while step < steps_total:
        x, m, y, nw = next(stream)
        x, m, y = x.to(device), m.to(device), y.to(device)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(input_ids=x, attention_mask=m).logits[..., 0]
        sel = y >= 0
        loss = loss_fn(logits.float()[sel], y[sel]) / max(1, int(sel.sum()))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        words_done += nw
        run_loss, run_n = run_loss + loss.item(), run_n + 1
        bar.update(nw)
        if step % 50 == 0 or step == steps_total:
            log.append({"step": step, "words": words_done, "loss": round(run_loss / run_n, 5),
                        "seconds": round(time.time() - t_start, 1)})
            bar.set_postfix(loss=f"{run_loss / run_n:.4f}")
            if bar.disable:  # no terminal: a log line instead of the bar
                print(json.dumps(log[-1]), flush=True)
            run_loss, run_n = 0.0, 0
        while snapshots and (words_done >= snapshots[0] or step == steps_total):
            snap = args.out / f"words_{snapshots.pop(0)}"
            model.save_pretrained(snap, safe_serialization=True)
            record = {**cfg, "words": words_done, "steps": step, "seconds": round(time.time() - t_start, 1),
                      "machine": machine, "log": log[-20:]}
            if args.eval is not None:
                record["eval"] = {"windows": args.eval.name,
                                  **evaluate(model, args.eval, device, bf16, pad_id, cls_id, sep_id)}
                print(json.dumps({"words": words_done, "eval": record["eval"]}), flush=True)
            (snap / "train.json").write_text(json.dumps(record, indent=2))
        if words_done >= next_ckpt or step == steps_total:
            save_checkpoint()
            next_ckpt += args.checkpoint_every
    bar.close()
    print(json.dumps({"words": words_done, "steps": step, "seconds": round(time.time() - t_start, 1), "machine": machine}))


if __name__ == "__main__":
    main()
