"""A fast hashed averaged-perceptron tagger (greedy, Cython) and jackknifing for matched tags."""
from .greedy import tag_doc
from .model import DEFAULT_N_ROWS, PerceptronTagger, encode_doc, jackknife, train_tagger

__all__ = ["DEFAULT_N_ROWS", "PerceptronTagger", "encode_doc", "jackknife", "tag_doc", "train_tagger"]
