"""A fine-tuned snapshot → an encoder directory: ONNX (int8), tokenizer, calibration, card.

    python scripts/export.py SNAPSHOT_DIR BASE_DIR OUT_DIR --dev TEXT_DIR --include ami/dev,sgd/dev \
        [--dev-words 60000] [--float]

The graph is built from the snapshot's weights (`spacy_joint_sbd.encoder.export`, no torch) and
checked against the torch model on prepared windows when torch is installed (largest difference of
a logit ≤ 1e-3). It is quantised to int8 (`--float` keeps float32 too, as `encoder_fp32.onnx`).
Calibration: Platt scaling of the int8 logits (`boundary.platt_fit`) on dev documents, half of them
speech-like (`prepare.corrupt`): dev sets choose, they never train. The card (`encoder.json`)
records the digests, the calibration, the training record (`train.json`), and boundary P/R/F1 at
p ≥ 0.5 of float and int8 on those dev words, so the int8 loss is on record.
"""
import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import numpy
import spacy
from safetensors.numpy import load_file

sys.path.insert(0, str(Path(__file__).parent))
from prepare import corrupt  # noqa: E402

from spacy_joint_sbd.boundary import platt_fit  # noqa: E402
from spacy_joint_sbd.corpus.running_text import iter_file_records, iter_text_files  # noqa: E402
from spacy_joint_sbd.encoder.config import BertShape  # noqa: E402
from spacy_joint_sbd.encoder.export import OUTPUT, export, quantize  # noqa: E402
from spacy_joint_sbd.encoder.heads import CANDIDATES, has_heads  # noqa: E402
from spacy_joint_sbd.encoder.files import GRAPH, EncoderFiles  # noqa: E402
from spacy_joint_sbd.encoder.session import BoundaryEncoder  # noqa: E402


def dev_streams(text: Path, include: str, words: int, seed: int):
    """[(words, starts)] of whole dev documents, every other one corrupted, ~`words` words in all."""
    rng = random.Random(seed)
    files = list(iter_text_files([text / p for p in include.split(",") if p], root=text, allow_dev=True))
    rng.shuffle(files)
    out, n = [], 0
    for k, (_, rec) in enumerate(iter_file_records(files, spacy.blank("en").tokenizer)):
        keep = [i for i, w in enumerate(rec.words) if w.strip()]
        w, s = [rec.words[i] for i in keep], [bool(rec.sent_starts[i]) for i in keep]
        if k % 2:
            w, s = corrupt(w, s)
        if len(w) > 1:
            s[0] = False
            out.append((w, numpy.asarray(s)))
            n += len(w)
        if n >= words:
            break
    return out


def prf(logits, gold, scale=1.0, shift=0.0):
    p = numpy.concatenate([1 / (1 + numpy.exp(-(scale * lg[1:] + shift))) >= 0.5 for lg in logits])
    g = numpy.concatenate([s[1:] for s in gold])
    tp = float((p & g).sum())
    P, R = tp / max(1, p.sum()), tp / max(1, g.sum())
    return {"p": round(100 * P, 2), "r": round(100 * R, 2), "f": round(200 * P * R / max(1e-9, P + R), 2)}


def torch_check(snapshot: Path, graph: bytes, windows: int = 8) -> float:
    """Largest |torch logit − ONNX logit| of the boundary head on random id windows (torch
    installed), else NaN; a multi-task graph is given every piece as a head candidate."""
    try:
        import torch
        from transformers import BertForTokenClassification
    except ImportError:
        return float("nan")
    import onnxruntime

    model = BertForTokenClassification.from_pretrained(str(snapshot), num_labels=1).eval()
    rng = numpy.random.default_rng(0)
    x = rng.integers(min(1000, model.config.vocab_size // 2), model.config.vocab_size, (windows, 64)).astype(numpy.int64)
    m = numpy.ones_like(x)
    m[1, 40:] = 0
    with torch.no_grad():
        ref = model(input_ids=torch.from_numpy(x), attention_mask=torch.from_numpy(m)).logits[..., 0].numpy()
    session = onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
    feed = {"input_ids": x, "attention_mask": m}
    if CANDIDATES in [i.name for i in session.get_inputs()]:
        feed[CANDIDATES] = m
    got = session.run([OUTPUT], feed)[0]
    return float(numpy.abs(ref - got)[m == 1].max())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("base", type=Path, help="the pretrained encoder's folder (its tokenizer.json)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--dev", type=Path, required=True, help="the running text's root (its dev folders)")
    ap.add_argument("--include", default="ami/dev,sgd/dev")
    ap.add_argument("--dev-words", type=int, default=60000)
    ap.add_argument("--base-name", default="all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0)",
                    help="the pretrained encoder, as the card names it")
    ap.add_argument("--float", action="store_true", help="keep the float32 graph beside the int8 one")
    ap.add_argument("--top-k", type=int, default=4, help="a multi-task encoder's head candidates per word")
    ap.add_argument("--ud", type=Path, default=None, help="UD treebanks: a multi-task encoder's dev scores")
    ap.add_argument("--syntax-sets", default="en_ewt/dev,en_gum/dev")
    args = ap.parse_args()
    shape = BertShape.from_file(args.snapshot / "config.json")
    weights = load_file(str(args.snapshot / "model.safetensors"))
    tok = (args.base / "tokenizer.json").read_text(encoding="utf8")
    with tempfile.TemporaryDirectory() as tmp:
        f32 = export(weights, shape, Path(tmp) / "f32.onnx", top_k=args.top_k)
        i8 = quantize(f32, Path(tmp) / "i8.onnx")
        graph32, graph8 = f32.read_bytes(), i8.read_bytes()
    diff = torch_check(args.snapshot, graph32)
    if diff == diff and diff > 1e-3:
        raise SystemExit(f"error: the ONNX graph differs from the torch model by {diff:.2e}")
    dev = dev_streams(args.dev, args.include, args.dev_words, seed=0)
    words, gold = [d[0] for d in dev], [d[1] for d in dev]
    enc32, enc8 = (BoundaryEncoder(g, tok, top_k=args.top_k) for g in (graph32, graph8))
    lg32, lg8 = enc32.many_logits(words), enc8.many_logits(words)
    a, b = platt_fit(numpy.concatenate([lg[1:] for lg in lg8]).astype(numpy.float64),
                     numpy.concatenate([g[1:] for g in gold]).astype(numpy.float64))
    train = json.loads((args.snapshot / "train.json").read_text()) if (args.snapshot / "train.json").exists() else {}
    card = {"base": args.base_name, "shape": shape.to_dict(),
            "calibration": {"scale": a, "shift": b}, "max_words": train.get("windows_meta", {}).get("window_words", 96),
            "train": {k: v for k, v in train.items() if k != "log"},
            "torch_onnx_max_diff": None if diff != diff else diff,
            "dev": {"sets": args.include, "words": int(sum(len(w) for w in words)),
                    "float32": prf(lg32, gold), "int8": prf(lg8, gold), "int8_calibrated": prf(lg8, gold, a, b)}}
    if has_heads(weights):
        meta = train.get("treebank_meta") or {}
        if not meta.get("labels"):
            raise SystemExit(f"error: {args.snapshot}: train.json names no labels (finetune_syntax.py writes them)")
        card["syntax"] = {"labels": meta["labels"], "upos": meta["upos"], "top_k": args.top_k}
        if args.ud is not None:
            from score_syntax import read_sets, syntax_scores

            card["syntax"]["dev"] = {}
            for name, recs in read_sets(args.ud, args.syntax_sets.split(","), ["plain", "star"]).items():
                card["syntax"]["dev"][name] = {
                    kind: syntax_scores(enc, recs, meta["labels"], meta["upos"])
                    for kind, enc in (("float32", enc32), ("int8", enc8))}
                print(name, json.dumps(card["syntax"]["dev"][name]), flush=True)
    if args.out.exists():
        shutil.rmtree(args.out)
    EncoderFiles(graph8, tok, card).to_disk(args.out)
    if args.float:
        (args.out / GRAPH.replace(".onnx", "_fp32.onnx")).write_bytes(graph32)
    print(json.dumps(card["dev"]), f"int8 {len(graph8) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
