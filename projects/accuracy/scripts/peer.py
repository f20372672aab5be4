"""The parser a spaCy user would train on our data: spaCy's own tok2vec + tagger + parser.

    python scripts/peer.py UD_DIR training/peer --steps 6000 --eval-frequency 500

The root's configs/tagger_parser.cfg (spaCy's default CNN tok2vec, tagger and arc-eager parser,
which also predicts sentence starts) trained by `spacy train` on CPU on the joint pipelines'
treebank documents: EWT, GUM and ATIS train, each document both as written and star (lower-cased,
punctuation removed), read as whole documents (`spacy_joint_sbd.DocumentCorpus.v1` over a folder of
DocBins); EWT dev, plain and star, picks model-best. Writes OUT/corpus/ and OUT/model-best.
"""
from pathlib import Path

import spacy
import typer
from spacy.cli.train import train
from spacy.tokens import DocBin

from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.corpus.docs import record_to_doc

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "configs" / "tagger_parser.cfg"
TRAIN = ("en_ewt", "en_gum", "en_atis")
VARIANTS = ("plain", "star")


def write_docbin(conllu: Path, variant: str, out: Path) -> int:
    """The documents of `conllu` in `variant` as a DocBin at `out`; how many."""
    vocab = spacy.blank("en").vocab
    db = DocBin(store_user_data=True)
    records = read_conllu(conllu, variant)
    for rec in records:
        if rec.words:
            db.add(record_to_doc(vocab, rec))
    out.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(out)
    return len(db)


def main(ud: Path, out: Path, steps: int = typer.Option(6000, help="training steps (spaCy's max_steps)"),
         eval_frequency: int = typer.Option(500, help="steps between dev scores")) -> None:
    corpus = out / "corpus"
    for split, treebanks in (("train", TRAIN), ("dev", ("en_ewt",))):
        for tb in treebanks:
            for variant in VARIANTS:
                n = write_docbin(ud / tb / f"{split}.conllu", variant, corpus / split / f"{tb}-{variant}.spacy")
                print(f"{tb} {split} {variant}: {n} documents")
    train(CONFIG, out, overrides={"paths.train": str(corpus / "train"), "paths.dev": str(corpus / "dev"),
                                  "training.max_steps": steps, "training.eval_frequency": eval_frequency})


if __name__ == "__main__":
    typer.run(main)
