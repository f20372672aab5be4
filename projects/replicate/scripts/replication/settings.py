"""The data settings of the replication (bjorkelund2016 §4-6) and the corpus files they read.

| setting   | paper       | train               | tune (iterations) | test                        |
|-----------|-------------|---------------------|-------------------|-----------------------------|
| ewt-plain | WSJ         | EWT train           | EWT dev           | EWT test                    |
| ewt-star  | WSJ*        | EWT train, star     | EWT dev, star     | EWT test, star              |
| gum-star  | Switchboard | GUM train minus tune| every 10th GUM    | GUM dev, star; and its      |
|           |             | docs, star          | train doc, star   | spoken documents            |

GUM has no public test set here, so GUM dev is its test set, and the iterations (and spaCy's
model-best) are tuned on documents held out of GUM train: never on the documents we report. The GUM
train file also contains four dev documents (GUM_court_loan, GUM_essay_evolved, GUM_letter_arendt,
GUM_podcast_wrestling); they are dropped from training.
`prepare` writes every split as a plain DocBin (one Doc per document); the variant is applied when
the split is read, as the spaCy readers do.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from spacy_joint_sbd.corpus import DocRecord, read_conllu

TUNE_EVERY = 10
"""GUM: every TUNE_EVERY-th training document (by file order) is held out for tuning."""


@dataclass(frozen=True)
class Setting:
    name: str
    paper: str
    """The paper's data set this stands in for."""
    corpus: str
    variant: str
    tests: Tuple[str, ...]
    """Test split names, reported in this order."""


SETTINGS: Dict[str, Setting] = {
    "ewt-plain": Setting("ewt-plain", "WSJ", "en_ewt", "plain", ("test",)),
    "ewt-star": Setting("ewt-star", "WSJ*", "en_ewt", "star", ("test",)),
    "gum-star": Setting("gum-star", "Switchboard", "en_gum", "star", ("dev", "dev-spoken")),
}

SPLIT_TITLES = {"test": "test", "dev": "dev", "dev-spoken": "dev, spoken docs"}


def _split(records: Sequence[DocRecord], every: int) -> Tuple[List[DocRecord], List[DocRecord]]:
    train = [r for i, r in enumerate(records) if i % every != every - 1]
    tune = [r for i, r in enumerate(records) if i % every == every - 1]
    return train, tune


def corpus_splits(data_dir: Path, corpus: str, limit_train: int = 0,
                  limit_eval: int = 0) -> Dict[str, List[DocRecord]]:
    """The plain gold documents of every split of `corpus` ("en_ewt" or "en_gum"), optionally the
    first N documents only (the small run)."""
    def cut(recs: List[DocRecord], n: int) -> List[DocRecord]:
        return recs[:n] if n else recs

    if corpus == "en_ewt":
        splits = {
            "train": read_conllu(data_dir / "en_ewt" / "train.conllu"),
            "tune": read_conllu(data_dir / "en_ewt" / "dev.conllu"),
            "test": read_conllu(data_dir / "en_ewt" / "test.conllu"),
        }
    elif corpus == "en_gum":
        dev = read_conllu(data_dir / "en_gum" / "dev.conllu")
        train_all = read_conllu(data_dir / "en_gum" / "train.conllu")
        dev_ids = {r.doc_id for r in dev}
        leaked = [r.doc_id for r in train_all if r.doc_id in dev_ids]
        if leaked:
            # The GUM train file holds some dev documents as well; they must not train a model that
            # is scored on GUM dev.
            print(f"{data_dir / 'en_gum' / 'train.conllu'}: {len(leaked)} documents are also in dev.conllu "
                  f"and are left out of training: {', '.join(leaked)}")
        train, tune = _split([r for r in train_all if r.doc_id not in dev_ids], TUNE_EVERY)
        spoken = read_conllu(data_dir / "en_gum" / "dev.conllu", genres=["spoken"])
        splits = {"train": train, "tune": tune, "dev": dev, "dev-spoken": spoken}
    else:
        raise ValueError(f"unknown corpus {corpus!r}: en_ewt or en_gum")
    return {name: cut(recs, limit_train if name == "train" else limit_eval) for name, recs in splits.items()}


def split_path(corpus_dir: Path, corpus: str, split: str) -> Path:
    return Path(corpus_dir) / corpus / f"{split}.spacy"
