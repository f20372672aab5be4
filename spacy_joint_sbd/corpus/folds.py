"""A treebank document's fold for jackknifing, the same wherever it is asked.

A model whose outputs another model learns to read (an encoder's head candidates and boundary
probabilities, read by the joint parser) must give them, on that model's training documents, as
an encoder that never saw those documents would: each fold's encoder trains on the other folds.
The encoder's data (projects/encoder `prepare_syntax.py`) and the parser's training
(`scripts/train_default.py --fold-encoders`) deal documents into folds with this one function, from
a digest of the treebank's name and the document's id: stable across runs, machines, file orders and
variants (all variants of a document share its fold).
"""
import hashlib


def document_fold(treebank: str, doc_id: str, folds: int) -> int:
    """The fold in [0, folds) of document `doc_id` of `treebank` (e.g. "en_ewt"); 0 when folds ≤ 1."""
    digest = hashlib.sha256(f"{treebank}/{doc_id}".encode("utf8")).digest()
    return int.from_bytes(digest[:4], "little") % max(1, folds)
