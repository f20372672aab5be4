"""Training and dev documents for the `senter_prior` candidate.

    python scripts/senter_corpus.py UD_DIR TEXT_DIR TEXT_SHARDS OUT_DIR

OUT_DIR/train/ gets links to the running-text shards (`text-docs`) and the EWT, GUM and ATIS train
treebanks in plain and star (whole documents, as the joint parser trains on them); OUT_DIR/dev.spacy
gets EWT dev* and the star variant of every 4th AMI dev meeting (the sets that choose: only for
`spacy train`'s checkpoint choice).
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.corpus.running_text import iter_text_docs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ud", type=Path)
    ap.add_argument("text", type=Path)
    ap.add_argument("shards", type=Path)
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    nlp = spacy.blank("en")
    train = args.out / "train"
    train.mkdir(parents=True, exist_ok=True)
    for shard in sorted(args.shards.glob("shard-*.spacy")):
        link = train / f"text-{shard.name}"
        if not link.exists():
            link.symlink_to(shard.resolve())
    for tb in ("en_ewt", "en_gum", "en_atis"):
        for variant in ("plain", "star"):
            docs = load_gold_docs(args.ud / tb / "train.conllu", nlp.vocab, variant, None, 10 if tb != "en_atis" else 100)
            DocBin(docs=docs, attrs=["ORTH", "NORM", "SPACY", "SENT_START"]).to_disk(train / f"{tb}-{variant}.spacy")
            print(f"{tb} {variant}: {len(docs)} documents, {sum(len(d) for d in docs)} tokens")
    dev = load_gold_docs(args.ud / "en_ewt" / "dev.conllu", nlp.vocab, "star", None, 10)
    meetings = sorted((args.text / "ami" / "dev").glob("*.txt"))[::4]
    dev += list(iter_text_docs(meetings, nlp, variants=["star"], root=args.text, allow_dev=True))
    DocBin(docs=dev, attrs=["ORTH", "NORM", "SPACY", "SENT_START"]).to_disk(args.out / "dev.spacy")
    print(f"dev: {len(dev)} documents, {sum(len(d) for d in dev)} tokens")


if __name__ == "__main__":
    main()
