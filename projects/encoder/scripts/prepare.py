"""Training windows for the boundary encoder: WordPiece ids and sentence-start labels, pre-tokenised.

    python scripts/prepare.py OUT.npz --text TEXT_DIR --include gutenberg,ami/train,... \
        --tokenizer BASE/tokenizer.json --words 2000000 --window-words 96 --corrupt 0.6 --seed 0

Documents come from the library's running-text reader (`corpus.running_text`: sentence starts from
punctuation and layout, speaker labels and headers dropped), files in an order shuffled by the seed
so that every genre is met early. Each document's words are cut into windows of `--window-words`
words (at most `--max-pieces` pieces); a share `--corrupt` of the windows is made speech-like: every
word lower-cased and punctuation stripped from its edges, a word left empty dropped and its
sentence start passed to the next word. Windows are shuffled by the seed and the first `--words`
words' worth written: `ids` (uint16 pieces, no [CLS]/[SEP]), `starts` (each window's first piece;
one more at the end), `labels` (int8 per piece: 1 a word starting a sentence, 0 a word that does
not, -1 a word's later piece). Deterministic: the same arguments write the same file.
"""
import argparse
import json
import random
import sys
import time
import unicodedata
from pathlib import Path
from typing import List, Tuple

import numpy
import spacy
from tqdm import tqdm

from spacy_joint_sbd.corpus.running_text import iter_file_records, iter_text_files
from spacy_joint_sbd.encoder.pieces import WordPieces


def strip_marks(word: str) -> str:
    """The word without punctuation or symbols at its edges (what a speech transcript would keep)."""
    lo, hi = 0, len(word)
    while lo < hi and unicodedata.category(word[lo])[0] in "PS":
        lo += 1
    while hi > lo and unicodedata.category(word[hi - 1])[0] in "PS":
        hi -= 1
    return word[lo:hi]


def corrupt(words: List[str], starts: List[bool]) -> Tuple[List[str], List[bool]]:
    """Lower-cased words without edge punctuation; a dropped word's start moves to the next word."""
    out_w, out_s, carry = [], [], False
    for w, s in zip(words, starts):
        c = strip_marks(w.lower())
        if not c:
            carry = carry or s
            continue
        out_w.append(c)
        out_s.append(s or carry)
        carry = False
    return out_w, out_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--text", type=Path, required=True)
    ap.add_argument("--include", default="gutenberg,ami/train,cabnc,sgd/train,speeches")
    ap.add_argument("--tokenizer", type=Path, required=True, help="the encoder's tokenizer.json")
    ap.add_argument("--words", type=int, default=2_000_000, help="words written (all that is read: 0)")
    ap.add_argument("--read-words", type=int, default=0, help="stop reading after this many words (0: all)")
    ap.add_argument("--window-words", type=int, default=96)
    ap.add_argument("--max-pieces", type=int, default=254)
    ap.add_argument("--corrupt", type=float, default=0.6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--allow-dev", action="store_true",
                    help="read dev folders: evaluation windows only (finetune --eval), never training")
    args = ap.parse_args()
    if not 0 <= args.corrupt <= 1 or args.window_words < 2 or args.words < 0:
        sys.exit("error: --corrupt must be in [0, 1], --window-words >= 2, --words >= 0")
    rng = random.Random(args.seed)
    paths = [args.text / p for p in args.include.split(",") if p]
    files = list(iter_text_files(paths, root=args.text, allow_dev=args.allow_dev))
    rng.shuffle(files)
    pieces = WordPieces(args.tokenizer.read_text(encoding="utf8"))
    tokenizer = spacy.blank("en").tokenizer
    windows: List[Tuple[numpy.ndarray, numpy.ndarray, int]] = []
    read = 0
    t0 = time.time()
    bar = tqdm(total=args.read_words or None, unit="word", desc="reading", disable=None)
    for _, rec in iter_file_records(files, tokenizer):
        keep = [i for i, w in enumerate(rec.words) if w.strip()]
        words = [rec.words[i] for i in keep]
        starts = [bool(rec.sent_starts[i]) for i in keep]
        if keep:
            starts[0] = False  # a document's first word starts a sentence by definition: no evidence
        read += len(words)
        bar.update(len(words))
        for a in range(rng.randrange(args.window_words // 2 + 1) if len(words) > args.window_words else 0,
                       len(words), args.window_words):
            w, s = words[a:a + args.window_words], starts[a:a + args.window_words]
            if rng.random() < args.corrupt:
                w, s = corrupt(w, s)
            if len(w) < 2:
                continue
            ids, offsets = pieces.encode(w)
            cut = int(numpy.searchsorted(offsets, args.max_pieces, side="right")) - 1
            ids, offsets, s = ids[:offsets[cut]], offsets[:cut + 1], s[:cut]
            labels = numpy.full(len(ids), -1, dtype=numpy.int8)
            labels[offsets[:-1]] = numpy.asarray(s, dtype=numpy.int8)
            windows.append((ids.astype(numpy.uint16), labels, len(s)))
        if args.read_words and read >= args.read_words:
            break
    bar.close()
    rng.shuffle(windows)
    out, n_words = [], 0
    for win in windows:
        if args.words and n_words >= args.words:
            break
        out.append(win)
        n_words += win[2]
    starts = numpy.zeros(len(out) + 1, dtype=numpy.int64)
    numpy.cumsum([len(w[0]) for w in out], out=starts[1:])
    meta = {"words": n_words, "windows": len(out), "read_words": read, "window_words": args.window_words,
            "corrupt": args.corrupt, "seed": args.seed, "include": args.include,
            "positives": int(sum(int((w[1] == 1).sum()) for w in out)), "seconds": round(time.time() - t0, 1)}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    numpy.savez(args.output, ids=numpy.concatenate([w[0] for w in out]) if out else numpy.zeros(0, numpy.uint16),
                labels=numpy.concatenate([w[1] for w in out]) if out else numpy.zeros(0, numpy.int8),
                starts=starts, meta=numpy.array(json.dumps(meta)))
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
