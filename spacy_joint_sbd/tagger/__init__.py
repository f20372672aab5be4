"""A fast hashed averaged-perceptron tagger (greedy, Cython), jackknifing for matched tags, and a
trigram perceptron tagger decoded by Viterbi (`trigram`, rush2012's sentence-level tagger)."""
from .greedy import tag_doc
from .model import DEFAULT_N_ROWS, PerceptronTagger, encode_doc, jackknife, train_tagger
from .trigram import TrigramTagger, train_trigram_tagger, viterbi

__all__ = ["DEFAULT_N_ROWS", "PerceptronTagger", "TrigramTagger", "encode_doc", "jackknife",
           "tag_doc", "train_tagger", "train_trigram_tagger", "viterbi"]
