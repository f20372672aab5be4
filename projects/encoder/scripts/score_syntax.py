"""The multi-task encoder alone on gold tokens: its best head candidate and that arc's label as the
tree (argmax heads, no tree decoding), UAS / LAS and UPOS accuracy, plain and `*`.

    python scripts/score_syntax.py ENCODER_DIR OUT.json --ud UD_DIR \
        --sets en_ewt/test,en_gum/dev,en_lines/dev [--variants plain,star]

Each document's words go through the library's session as at run time (windows of the card's
size, each word read where it is most central, int8 as shipped). Attachment is counted by
`spacy_joint_sbd.scoring.count_heads` over every word (`las_universal`: labels before `:`).
`syntax_scores` is what `export.py` records on the card for float32 and int8 on dev sets.
"""
import argparse
import json
import time
from pathlib import Path
from typing import Dict, List

import numpy

from spacy_joint_sbd.corpus.conllu import read_conllu
from spacy_joint_sbd.corpus.record import DocRecord
from spacy_joint_sbd.encoder.session import ROOT, BoundaryEncoder
from spacy_joint_sbd.scoring import HeadCounts, count_heads


def syntax_scores(encoder: BoundaryEncoder, records: List[DocRecord], labels: List[str], upos: List[str]) -> Dict[str, float]:
    """UAS / LAS / LAS over universal labels / UPOS accuracy (percent) of the encoder's best
    candidates on these documents, and words per second."""
    total = HeadCounts()
    upos_ok = 0
    t0 = time.time()
    outputs = encoder.many_outputs([rec.words for rec in records])
    seconds = time.time() - t0
    for rec, out in zip(records, outputs):
        best = out.heads[:, 0]
        heads = [int(h) if h >= 0 else ROOT for h in best]
        deps = [labels[int(i)] for i in out.head_labels[:, 0]]
        total.add(count_heads(heads, deps, rec.heads, rec.deps, rec.upos))
        upos_ok += int(sum(upos[int(u)] == g for u, g in zip(out.upos, rec.upos)))
    n = max(1, total.tokens)
    return {"words": total.tokens, "uas": round(100 * total.uas / n, 2), "las": round(100 * total.las / n, 2),
            "las_universal": round(100 * total.las_universal / n, 2), "upos": round(100 * upos_ok / n, 2),
            "words_per_second": round(total.tokens / max(1e-9, seconds))}


def read_sets(ud: Path, sets: List[str], variants: List[str]) -> Dict[str, List[DocRecord]]:
    """{"en_ewt/test", "en_ewt/test*", ...: documents} (`*`: the star variant)."""
    out = {}
    for name in sets:
        tb, split = name.split("/")
        for v in variants:
            out[name + ("*" if v == "star" else "")] = read_conllu(ud / tb / f"{split}.conllu", v)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("encoder", type=Path, help="an encoder directory with syntax heads")
    ap.add_argument("output", type=Path)
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--sets", default="en_ewt/test,en_gum/dev,en_lines/dev")
    ap.add_argument("--variants", default="plain,star")
    ap.add_argument("--fp32", action="store_true", help="score encoder_fp32.onnx beside the int8 graph")
    args = ap.parse_args()
    from spacy_joint_sbd.encoder.files import EncoderFiles

    files = EncoderFiles.from_disk(args.encoder)
    syntax = files.card.get("syntax") or {}
    if not syntax.get("labels"):
        raise SystemExit(f"error: {args.encoder}: not a multi-task encoder (no syntax labels on its card)")
    graphs = {"int8": files.graph}
    if args.fp32:
        graphs["float32"] = (args.encoder / "encoder_fp32.onnx").read_bytes()
    data = read_sets(args.ud, [s for s in args.sets.split(",") if s], [v for v in args.variants.split(",") if v])
    out = {"encoder": str(files.card.get("command", args.encoder.name)), "top_k": syntax.get("top_k"), "sets": {}}
    for kind, graph in graphs.items():
        enc = BoundaryEncoder(graph, files.tokenizer, max_words=int(files.card.get("max_words", 96)), top_k=int(syntax["top_k"]))
        for name, recs in data.items():
            got = syntax_scores(enc, recs, syntax["labels"], syntax["upos"])
            out["sets"].setdefault(name, {})[kind] = got
            print(name, kind, json.dumps(got), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    numpy.seterr(all="ignore")
    main()
