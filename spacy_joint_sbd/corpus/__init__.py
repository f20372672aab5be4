"""CoNLL-U ⇄ spaCy Docs, one Doc per document; variants; registered spaCy readers; punctuated
running text → whole-document Docs with derived boundaries (`running_text`, `text_shards`)."""
from .conllu import ConllUError, iter_conllu, read_conllu
from .labels import from_spacy_dep, to_spacy_dep
from .record import ROOT, DocRecord, SentenceSlice
from .running_text import iter_text_docs, iter_text_files
from .text_shards import read_shards, write_text_shards
from .variants import SPOKEN_GENRES, VARIANTS, apply_variant, genre_filter, lower, nopunct, nosyntax, plain, star

__all__ = [
    "ConllUError", "DocRecord", "ROOT", "SPOKEN_GENRES", "VARIANTS", "lower", "nopunct", "SentenceSlice", "from_spacy_dep", "to_spacy_dep", "apply_variant", "genre_filter", "iter_conllu",
    "nosyntax", "plain", "read_conllu", "star", "iter_text_docs", "iter_text_files", "read_shards", "write_text_shards",
]
