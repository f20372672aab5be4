"""`convert IN.conllu OUT.spacy`: whole documents into a DocBin."""
from pathlib import Path
from typing import Optional

import spacy
import typer
from spacy.tokens import DocBin
from tqdm import tqdm
from wasabi import msg

from ..corpus import read_conllu
from ..corpus.conllu import DEFAULT_SENTS_PER_DOC
from ..corpus.docs import record_to_doc
from ._app import app
from ._util import atomic_path, split_list, user_errors


@app.command("convert")
def convert_cli(
    input_path: Path = typer.Argument(..., help="CoNLL-U file (gold tokens, # newdoc marks)"),
    output_path: Path = typer.Argument(..., help="DocBin (.spacy) to write"),
    variant: str = typer.Option("plain", "--variant", "-v", help="plain | star | nosyntax"),
    genres: Optional[str] = typer.Option(None, "--genres", "-g", help="GUM genres to keep, e.g. spoken,academic"),
    sents_per_doc: int = typer.Option(DEFAULT_SENTS_PER_DOC, "--sents-per-doc", "-n",
                                      help="document size for files without # newdoc"),
    lang: str = typer.Option("en", "--lang", help="language of the vocab"),
    repair: bool = typer.Option(False, "--repair", help="repair what can be repaired, reporting each repair"),
) -> None:
    """Convert CoNLL-U to a DocBin with ONE Doc PER DOCUMENT; print documents / sentences / tokens."""
    with user_errors():
        records = read_conllu(input_path, variant, genres=split_list(genres), sents_per_doc=sents_per_doc,
                              repair=repair, report=msg.warn)
        if not records:
            raise ValueError(f"{input_path}: no documents left after the genre filter / variant")
        vocab = spacy.blank(lang).vocab
        db = DocBin(store_user_data=True)
        for rec in tqdm(records, desc="documents", unit="doc", disable=None):
            db.add(record_to_doc(vocab, rec))
        output_path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(output_path) as tmp:
            db.to_disk(tmp)
    n_sents = sum(len(r.sentences()) for r in records)
    n_tokens = sum(len(r) for r in records)
    msg.good(f"{output_path}: {len(records)} documents, {n_sents} sentences, {n_tokens} tokens ({variant})")
