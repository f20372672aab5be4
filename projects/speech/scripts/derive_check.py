"""How good are the boundaries `corpus.running_text` derives from punctuation and layout?

Each treebank document is rebuilt as raw text (surface tokens joined by their SpaceAfter, a blank
line at each `# newpar`, one text per `# newdoc`), read by the library exactly as a `.txt` file
of running text is, and its derived sentence starts are aligned with the gold ones by character
offset. Token-level boundary precision / recall / F1 as `spacy_joint_sbd.scoring` counts them: a
start is a sentence's first character, each document's first one excluded.

Also counts what the derivation makes of AMI dev (sentences, words) and writes a sample of its
boundaries, in context, to look at by eye.

    python scripts/derive_check.py UD_DIR TEXT_DIR results/derive_check.json
"""
import random
import sys
from pathlib import Path
from typing import Dict, List

import spacy
import srsly
import typer

from spacy_joint_sbd.corpus.raw_text import raw_documents
from spacy_joint_sbd.corpus.running_text import iter_file_records, iter_text_files, text_records

SETS = [("EWT dev", "en_ewt/dev.conllu"), ("EWT test", "en_ewt/test.conllu"),
        ("GUM dev", "en_gum/dev.conllu"), ("GUM test", "en_gum/test.conllu")]
CONTEXT = 40


def token_offsets(text: str, words: List[str]) -> List[int]:
    """Each token's character offset in `text` (dropped layout such as labels is skipped)."""
    offsets, pos = [], 0
    for w in words:
        if not w.strip():
            offsets.append(-1)
            continue
        at = text.find(w, pos)
        if at < 0:
            raise ValueError(f"token {w!r} not found after offset {pos}")
        offsets.append(at)
        pos = at + len(w)
    return offsets


def derived_starts(text: str, tokenizer, doc_id: str) -> List[int]:
    rec = next(text_records(text, tokenizer, doc_id, max_tokens=0))
    offsets = token_offsets(text, rec.words)
    return [o for o, s, w in zip(offsets, rec.sent_starts, rec.words) if s and w.strip()]


def context(text: str, at: int) -> str:
    return (text[max(0, at - CONTEXT):at] + " ‖ " + text[at:at + CONTEXT]).replace("\n", "⏎")


def score_set(path: Path, tokenizer, examples: int, rng: random.Random) -> Dict:
    tp = n_pred = n_gold = 0
    fps: List[str] = []
    fns: List[str] = []
    genres: Dict[str, List[int]] = {}
    n_docs = 0
    for doc in raw_documents(path):
        n_docs += 1
        gold = set(doc.gold[1:])
        first = doc.gold[0] if doc.gold else 0
        pred = {o for o in derived_starts(doc.text, tokenizer, doc.doc_id) if o > first}
        hit = len(gold & pred)
        tp, n_pred, n_gold = tp + hit, n_pred + len(pred), n_gold + len(gold)
        fps.extend(context(doc.text, o) for o in sorted(pred - gold))
        fns.extend(context(doc.text, o) for o in sorted(gold - pred))
        if doc.doc_id.startswith("GUM_"):
            g = genres.setdefault(doc.doc_id.split("_")[1], [0, 0, 0])
            g[0], g[1], g[2] = g[0] + hit, g[1] + len(pred), g[2] + len(gold)
    out = {"documents": n_docs, **prf(tp, n_pred, n_gold),
           "false_boundaries": sorted(rng.sample(fps, min(examples, len(fps)))),
           "missed_boundaries": sorted(rng.sample(fns, min(examples, len(fns))))}
    if genres:
        out["genres"] = {k: prf(*v) for k, v in sorted(genres.items())}
    return out


def prf(tp: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "pred": n_pred, "gold": n_gold, "p": round(100 * p, 2), "r": round(100 * r, 2),
            "f1": round(100 * f, 2)}


def ami_dev(text_dir: Path, tokenizer, sample: int, rng: random.Random) -> Dict:
    """What the derivation makes of AMI dev: documents, sentences, words; `sample` boundaries in
    context to read."""
    files = list(iter_text_files([text_dir / "ami" / "dev"], root=text_dir, allow_dev=True))
    n_docs = n_sents = n_words = n_tokens = 0
    boundaries: List[str] = []
    for tf, rec in iter_file_records(files, tokenizer, max_tokens=0):
        n_docs += 1
        n_sents += sum(rec.sent_starts)
        n_tokens += sum(1 for u in rec.upos if u != "SPACE")
        n_words += sum(1 for u in rec.upos if u not in ("SPACE", "PUNCT"))
        text = "".join(w + (" " if s else "") for w, s in zip(rec.words, rec.spaces))
        pos = 0
        for w, s, st in zip(rec.words, rec.spaces, rec.sent_starts):
            if st and pos:
                boundaries.append(f"{tf.name}: {context(text, pos)}")
            pos += len(w) + (1 if s else 0)
    return {"files": len(files), "documents": n_docs, "sentences": n_sents, "tokens": n_tokens, "words": n_words,
            "words_per_sentence": round(n_words / max(1, n_sents), 2),
            "sample": sorted(rng.sample(boundaries, min(sample, len(boundaries))))}


def main(ud_dir: Path, text_dir: Path, output: Path, examples: int = 15, ami_sample: int = 50, seed: int = 0) -> None:
    """Score the derivation on the treebanks' raw text; AMI dev's counts and sample."""
    tokenizer = spacy.blank("en").tokenizer
    rng = random.Random(seed)
    result: Dict = {"measure": "token-level boundary P/R/F1 by character offset, each document's first "
                               "sentence start excluded; raw text = surface tokens joined by SpaceAfter, "
                               "a blank line at each # newpar",
                    "sets": {}}
    for name, rel in SETS:
        path = ud_dir / rel
        if not path.exists():
            print(f"{name}: {rel} not found, skipped", file=sys.stderr)
            continue
        result["sets"][name] = score_set(path, tokenizer, examples, rng)
        s = result["sets"][name]
        print(f"{name}: P {s['p']:.2f} R {s['r']:.2f} F1 {s['f1']:.2f} ({s['documents']} documents)")
    if (text_dir / "ami" / "dev").exists():
        result["ami_dev"] = ami_dev(text_dir, tokenizer, ami_sample, rng)
        a = result["ami_dev"]
        print(f"AMI dev: {a['sentences']} sentences, {a['words']} words ({a['words_per_sentence']} per sentence)")
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)


if __name__ == "__main__":
    typer.run(main)
