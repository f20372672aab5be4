"""Sentence-boundary evidence from a pretrained encoder, on CPU.

A BERT token classifier fine-tuned to mark the words that start a sentence (the `encoder` project
trains it) is exported to ONNX (`export.py`, from its weights, no torch), quantised to int8 and run
by onnxruntime over overlapping windows of a document's words (`windows.py`, `session.py`) with the
encoder's own WordPiece tokenizer (`pieces.py`). Nothing here knows spaCy: the
`encoder_boundaries` component (pipeline/encoder_boundaries.py) writes the probabilities on the Doc
(`doc._.boundary_probs`), where the joint parser reads them. Needs the `trf` extra (onnxruntime,
tokenizers); exporting needs `onnx` too.
"""
from .config import BertShape

__all__ = ["BertShape"]
