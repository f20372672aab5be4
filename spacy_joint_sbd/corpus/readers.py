"""Registered spaCy corpus readers and augmenters: whole documents as training `Example`s.

`spacy convert --converter conllu` ignores `# newdoc` and makes N-sentence windows; these readers
keep each document whole, which is what joint segmentation + parsing trains on.
"""
import random
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Union

import spacy
from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from .conllu import DEFAULT_SENTS_PER_DOC, read_conllu
from .docs import DOC_ID_KEY, doc_to_record, record_to_doc
from .variants import apply_variant, doc_genre, expand_genres


def read_docbin(path: Union[str, Path], vocab) -> List[Doc]:
    """Read a DocBin written by `python -m spacy_joint_sbd convert` (or any DocBin)."""
    path = Path(path)
    try:
        return list(DocBin().from_disk(path).get_docs(vocab))
    except Exception as e:  # noqa: BLE001 - srsly/msgpack raise many types on foreign files
        raise ValueError(f"{path}: not a readable DocBin ({type(e).__name__}: {e})") from e


def load_gold_docs(
    path: Union[str, Path],
    vocab,
    variant: str = "plain",
    genres: Optional[Iterable[str]] = None,
    sents_per_doc: int = DEFAULT_SENTS_PER_DOC,
) -> List[Doc]:
    """Gold documents from a `.conllu` file (read, filtered, variant applied) or a `.spacy` DocBin
    (genres and variant applied to the stored documents)."""
    path = Path(path)
    if path.suffix == ".spacy":
        docs = read_docbin(path, vocab)
        if genres:
            wanted = expand_genres(genres)
            docs = [d for d in docs if doc_genre(str(d.user_data.get(DOC_ID_KEY, ""))) in wanted]
        if variant != "plain":
            docs = [record_to_doc(vocab, apply_variant(doc_to_record(d), variant)) for d in docs]
        return docs
    records = read_conllu(path, variant, genres=genres, sents_per_doc=sents_per_doc)
    return [record_to_doc(vocab, r) for r in records]


def tokens_only(vocab, gold: Doc) -> Doc:
    """The gold tokens and nothing else: what a pipeline may see at prediction time."""
    doc = Doc(vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold])
    doc.user_data[DOC_ID_KEY] = gold.user_data.get(DOC_ID_KEY, "")
    return doc


def corpus_files(path: Union[str, Path]) -> List[Path]:
    """`path` itself, or every .conllu and .spacy file below the folder `path` in sorted order;
    ValueError naming a folder without any."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.suffix in (".conllu", ".spacy") and p.is_file())
    if not files:
        raise ValueError(f"{path}: no .conllu or .spacy file in this folder")
    return files


@spacy.registry.readers("spacy_joint_sbd.DocumentCorpus.v1")
def create_document_corpus(
    path: str,
    variant: str = "plain",
    genres: Optional[List[str]] = None,
    sents_per_doc: int = DEFAULT_SENTS_PER_DOC,
    limit: int = 0,
    augmenter: Optional[Callable[[Language, Example], Iterable[Example]]] = None,
) -> Callable[[Language], Iterator[Example]]:
    """One Example per document: `reference` holds the gold annotation, `predicted` only the gold
    tokens. `path` is a .conllu file, a .spacy DocBin or a folder of them (every .conllu and .spacy
    file below it, in the order of their paths: e.g. several treebanks, or a treebank in several
    variants); `limit` keeps the first N documents."""

    def corpus(nlp: Language) -> Iterator[Example]:
        docs = [d for p in corpus_files(path) for d in load_gold_docs(p, nlp.vocab, variant, genres, sents_per_doc)]
        if limit:
            docs = docs[:limit]
        for gold in docs:
            eg = Example(tokens_only(nlp.vocab, gold), gold)
            if augmenter is None:
                yield eg
            else:
                yield from augmenter(nlp, eg)

    return corpus


def _variant_augmenter(choose: Callable[[], str]) -> Callable[[Language, Example], Iterator[Example]]:
    """An augmenter that replaces each document by the variant `choose()` names for it."""
    def augment(nlp: Language, example: Example) -> Iterator[Example]:
        variant = choose()
        if variant == "plain":
            yield example
            return
        gold = record_to_doc(nlp.vocab, apply_variant(doc_to_record(example.reference), variant))
        if len(gold):
            yield Example(tokens_only(nlp.vocab, gold), gold)

    return augment


@spacy.registry.augmenters("spacy_joint_sbd.star_augmenter.v1")
def create_star_augmenter(probability: float = 1.0, partial: float = 0.0) -> Callable[[Language, Example], Iterator[Example]]:
    """Turn training documents into speech-like text, so one model serves punctuated, partly
    punctuated (ASR output) and unpunctuated text.

    probability: share of documents changed (the rest stay `plain`); 1.0 = every document `star`.
    partial: share of the changed documents that get a partial variant instead of `star` — half
        `lower` (lower-cased, punctuation kept), half `nopunct` (punctuation removed, case kept).
    The draw is made anew for each document in each epoch (Python's `random`, seeded by spaCy)."""
    for name, value in (("probability", probability), ("partial", partial)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"star_augmenter: {name} must be in [0, 1], got {value}")

    def choose() -> str:
        if random.random() >= probability:
            return "plain"
        if random.random() < partial:
            return "lower" if random.random() < 0.5 else "nopunct"
        return "star"

    return _variant_augmenter(choose)


@spacy.registry.augmenters("spacy_joint_sbd.nosyntax_augmenter.v1")
def create_nosyntax_augmenter() -> Callable[[Language, Example], Iterator[Example]]:
    """Replace every training tree by the trivial `nosyntax` chains (bjorkelund2016 §5)."""
    return _variant_augmenter(lambda: "nosyntax")
