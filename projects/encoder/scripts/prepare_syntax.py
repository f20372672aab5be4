"""Treebank documents for the encoder's syntax heads: WordPiece ids with each word's head, label,
UPOS and sentence start, in every variant asked for.

    python scripts/prepare_syntax.py OUT.npz --ud UD_DIR --treebanks en_ewt,en_gum,en_atis \
        --split train --variants plain,star --tokenizer BASE/tokenizer.json --folds 2 --seed 0

Whole documents are kept (`finetune_syntax.py` cuts them into windows anew each epoch, as the
library's `encoder.windows` cuts a Doc at run time). Arrays, concatenated over documents:
`ids` (uint16 pieces, no [CLS]/[SEP]), `word_piece` (each word's first piece, an index into
`ids`), `heads` (int32, the head's word index inside its document, -1 for a root), `labels`
(int16 into `meta.labels`), `upos` (int8 into `meta.upos`), `starts` (int8: 1 a word that starts
a sentence, 0 one that does not, -1 a document's first word, which starts one by definition),
`doc_words` and `doc_pieces` (each document's first word and first piece; one more at the end),
`doc_fold` (the document's fold, from a digest of its treebank and id, so that a document and its
variants share a fold and the split does not depend on the order of files). Label and UPOS
inventories come from `--labels-from` (the training file's prepared meta) when given, so dev files
use the training file's ids; a label unseen there is -1 and is not scored.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

import numpy
from tqdm import tqdm

from spacy_joint_sbd.corpus.conllu import read_conllu
from spacy_joint_sbd.corpus.folds import document_fold
from spacy_joint_sbd.encoder.pieces import WordPieces

UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
        "PUNCT", "SCONJ", "SYM", "VERB", "X")


def prepare(ud: Path, treebanks: List[str], split: str, variants: List[str], pieces: WordPieces,
            folds: int, labels: Optional[List[str]] = None) -> Dict[str, numpy.ndarray]:
    docs = []
    for tb in treebanks:
        path = ud / tb / f"{split}.conllu"
        for variant in variants:
            for rec in tqdm(read_conllu(path, variant), desc=f"{tb} {split} {variant}", disable=None, leave=False):
                if len(rec.words) >= 1:
                    docs.append((tb, variant, rec))
    if labels is None:
        labels = sorted({d for _, _, rec in docs for d in rec.deps})
    label_id = {lab: i for i, lab in enumerate(labels)}
    upos_id = {u: i for i, u in enumerate(UPOS)}
    ids, word_piece, heads, labs, upos, starts = [], [], [], [], [], []
    doc_words, doc_pieces, doc_fold, doc_names = [0], [0], [], []
    n_pieces = 0
    for tb, variant, rec in docs:
        p, offsets = pieces.encode(rec.words)
        ids.append(p.astype(numpy.uint16))
        word_piece.append(offsets[:-1] + n_pieces)
        n_pieces += len(p)
        heads.append(numpy.asarray(rec.heads, dtype=numpy.int32))
        labs.append(numpy.asarray([label_id.get(d, -1) for d in rec.deps], dtype=numpy.int16))
        upos.append(numpy.asarray([upos_id.get(u, -1) for u in rec.upos], dtype=numpy.int8))
        s = numpy.asarray(rec.sent_starts, dtype=numpy.int8)
        s[0] = -1
        starts.append(s)
        doc_words.append(doc_words[-1] + len(rec.words))
        doc_pieces.append(n_pieces)
        doc_fold.append(document_fold(tb, rec.doc_id, folds))
        doc_names.append(f"{tb}/{variant}/{rec.doc_id}")
    meta = {"treebanks": treebanks, "split": split, "variants": variants, "folds": folds,
            "labels": labels, "upos": list(UPOS), "documents": len(docs), "words": int(doc_words[-1]),
            "pieces": int(n_pieces), "names": doc_names}
    cat = numpy.concatenate
    return {"ids": cat(ids), "word_piece": cat(word_piece).astype(numpy.int64), "heads": cat(heads),
            "labels": cat(labs), "upos": cat(upos), "starts": cat(starts),
            "doc_words": numpy.asarray(doc_words, dtype=numpy.int64),
            "doc_pieces": numpy.asarray(doc_pieces, dtype=numpy.int64),
            "doc_fold": numpy.asarray(doc_fold, dtype=numpy.int8), "meta": numpy.array(json.dumps(meta))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--treebanks", default="en_ewt,en_gum,en_atis")
    ap.add_argument("--split", default="train")
    ap.add_argument("--variants", default="plain,star")
    ap.add_argument("--tokenizer", type=Path, required=True, help="the encoder's tokenizer.json")
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--labels-from", type=Path, default=None,
                    help="a prepared training file whose label inventory this file uses")
    args = ap.parse_args()
    if args.split not in ("train", "dev", "test"):
        sys.exit(f"error: --split must be train, dev or test, not {args.split!r}")
    labels = None
    if args.labels_from is not None:
        labels = json.loads(str(numpy.load(args.labels_from)["meta"]))["labels"]
    pieces = WordPieces(args.tokenizer.read_text(encoding="utf8"))
    arrays = prepare(args.ud, [t for t in args.treebanks.split(",") if t], args.split,
                     [v for v in args.variants.split(",") if v], pieces, args.folds, labels)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    numpy.savez(args.output, **arrays)
    meta = json.loads(str(arrays["meta"]))
    print(json.dumps({k: v for k, v in meta.items() if k not in ("names", "labels")}))


if __name__ == "__main__":
    main()
