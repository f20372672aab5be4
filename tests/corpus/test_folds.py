"""`corpus.folds.document_fold`: the one split of treebank documents into jackknifing folds."""
from collections import Counter

from spacy_joint_sbd.corpus.folds import document_fold

PINNED = [1, 0, 5]
DOC = "weblog-juancole.com_juancole_20051126063000_ENG_20051126_063000"


def test_a_document_keeps_its_fold():
    """Pinned: encoders trained on folds and parsers that read their outputs must agree across
    versions, so the digest behind a fold never changes."""
    assert [document_fold("en_ewt", DOC, k) for k in (2, 3, 10)] == PINNED
    assert document_fold("en_gum", DOC, 2) in (0, 1)


def test_folds_are_balanced_and_in_range():
    counts = Counter(document_fold("en_gum", f"doc-{i}", 3) for i in range(900))
    assert set(counts) == {0, 1, 2} and min(counts.values()) > 250
    assert {document_fold("en_ewt", f"doc-{i}", 1) for i in range(50)} == {0}
    assert {document_fold("en_ewt", f"doc-{i}", 0) for i in range(50)} == {0}
