"""Silver training documents: running text with boundaries from its punctuation and trees from the
joint parser (self-training).

    python scripts/silver_trees.py PIPELINE TEXT_FOLDER ... --words 200000 --every-file 8 -o corpus/silver.spacy

Each punctuated training document (`corpus.running_text.iter_text_docs`, plain variant, without
layout tokens; never a `dev` folder) keeps the boundaries derived from its punctuation: they are
preset on a token-only copy (`is_sent_start` True at each start, False elsewhere), so that the
joint parser keeps them, and its trees inside those sentences become the document's heads and
labels. The documents go to a DocBin without tags (the training script's tagger learns from gold
tags only), ready to be trained on beside the treebanks, where they are drawn as star, lower,
nopunct or plain like every other document: the parser learns from syntax it found on punctuated
text to find the sentences of the same text without punctuation.
"""
import argparse
import sys
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc, DocBin
from tqdm import tqdm

from spacy_joint_sbd.corpus.readers import DOC_ID_KEY
from spacy_joint_sbd.corpus.running_text import iter_text_docs


def preset(vocab, gold: Doc) -> Doc:
    """The gold tokens with every boundary decided: the derived starts kept, nothing else a start."""
    doc = Doc(vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold],
              sent_starts=[bool(t.is_sent_start) or i == 0 for i, t in enumerate(gold)])
    doc.user_data[DOC_ID_KEY] = gold.user_data.get(DOC_ID_KEY, "")
    return doc


def silver(parsed: Doc, gold: Doc) -> Doc:
    """Words, spaces, the derived boundaries and the parser's trees; UPOS PUNCT on punctuation
    tokens (what the star / nopunct variants drop, as on running text), no other tags."""
    heads = [t.head.i for t in parsed]
    deps = [t.dep_ or "dep" for t in parsed]
    starts = [bool(t.is_sent_start) for t in gold]
    starts[0] = True
    doc = Doc(gold.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold],
              heads=heads, deps=deps, sent_starts=starts)
    for t in doc:
        if t.is_punct:
            t.pos_ = "PUNCT"
    doc.user_data[DOC_ID_KEY] = "silver/" + str(gold.user_data.get(DOC_ID_KEY, ""))
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="the joint pipeline that parses, e.g. en_joint_sbd")
    ap.add_argument("folders", nargs="+", type=Path, help="folders of punctuated .txt documents (no dev folders)")
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--words", type=int, default=200_000, help="stop after this many words")
    ap.add_argument("--every-file", type=int, default=8, help="every k-th document chunk (spread over the sources)")
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    if any("dev" in p.parts for p in args.folders):
        ap.error("dev folders are for choosing and reporting, never for training")
    out = DocBin(attrs=["ORTH", "POS", "HEAD", "DEP", "SENT_START"], store_user_data=True)
    words = kept = mismatched = 0
    t0 = time.time()
    by_folder = max(1, args.words // len(args.folders))
    with tqdm(total=args.words, unit="word", desc="silver trees", file=sys.stderr, disable=None) as bar:
        for folder in args.folders:
            taken = 0
            docs = iter_text_docs([folder], nlp, variants=["plain"], layout=False, root=folder.parent)
            for k, gold in enumerate(docs):
                if taken >= by_folder:
                    break
                if k % args.every_file or len(gold) < 2:
                    continue
                parsed = nlp(preset(nlp.vocab, gold))
                if [bool(t.is_sent_start) for t in parsed][1:] != [bool(t.is_sent_start) for t in gold][1:]:
                    mismatched += 1  # a boundary the parser could not keep: not a clean silver document
                    continue
                out.add(silver(parsed, gold))
                kept += 1
                taken += len(gold)
                bar.update(len(gold))
            words += taken
    args.output.parent.mkdir(parents=True, exist_ok=True)
    out.to_disk(args.output)
    print(f"{kept} silver documents, {words:,} words from {len(args.folders)} folders "
          f"({mismatched} dropped: boundaries not kept), {time.time() - t0:.0f} s -> {args.output}")


if __name__ == "__main__":
    main()
