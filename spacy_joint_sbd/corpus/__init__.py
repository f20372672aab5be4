"""CoNLL-U ⇄ spaCy Docs, one Doc per document; variants; registered spaCy readers."""
from .conllu import ConllUError, iter_conllu, read_conllu
from .record import ROOT, DocRecord
from .variants import SPOKEN_GENRES, apply_variant, genre_filter, nosyntax, plain, star

__all__ = [
    "ConllUError", "DocRecord", "ROOT", "SPOKEN_GENRES", "apply_variant", "genre_filter", "iter_conllu",
    "nosyntax", "plain", "read_conllu", "star",
]
