"""An encoder's head candidates as the engine's columns (`pipeline.joint.head_evidence`): renumbered
as the engine numbers tokens, whitespace tokens left out, cut or padded to K, none without evidence,
and a clear error when the extensions do not fit the Doc."""
import numpy
import pytest
import spacy

from spacy_joint_sbd.pipeline.joint.doc_encoding import engine_input
from spacy_joint_sbd.pipeline.joint.head_evidence import (DOC_HEAD_LABELS, DOC_HEAD_SCORES, DOC_HEADS, NO_HEAD, ROOT,
                                                          head_columns)
from spacy_joint_sbd.transition import head_attrs


def _doc(text="the cat  sat \n on it"):
    return spacy.blank("en")(text)


def _set(doc, heads, scores, labels):
    doc._.set(DOC_HEADS, numpy.asarray(heads, dtype=numpy.int32))
    doc._.set(DOC_HEAD_SCORES, numpy.asarray(scores, dtype=numpy.float32))
    doc._.set(DOC_HEAD_LABELS, numpy.asarray(labels, dtype=numpy.uint64))


def test_numbering_bins_and_labels():
    doc = _doc("the cat sat")
    _set(doc, [[1, ROOT], [2, 0], [ROOT, NO_HEAD]], [[0.9, 0.05], [0.5, 0.3], [0.99, 0.0]], [[7, 8], [9, 10], [11, 0]])
    cols = head_columns(doc, 2)
    assert cols.shape == (3, 6) and cols.dtype == numpy.uint64
    # engine numbers are token index + 1, and the column holds them + 1 (0 none, 1 the root)
    assert cols[:, :2].tolist() == [[3, 1], [4, 2], [1, 0]]
    assert cols[:, 2:4].tolist() == [[6, 2], [4, 3], [7, 0]]  # bins of 0.9, 0.05 (edge), 0.5, 0.3, 0.99; none: 0
    assert cols[:, 4:].tolist() == [[7, 8], [9, 10], [11, 0]]


def test_whitespace_tokens_are_left_out_as_the_engine_leaves_them():
    doc = _doc()
    words = [i for i, t in enumerate(doc) if not t.is_space]
    n = len(doc)
    heads = numpy.full((n, 1), NO_HEAD)
    heads[words[0], 0] = words[2]  # "the" → "sat", past the space token
    heads[words[2], 0] = ROOT
    space = next(i for i, t in enumerate(doc) if t.is_space)
    heads[words[1], 0] = space  # a whitespace token is no head the engine knows
    _set(doc, heads, numpy.full((n, 1), 0.7), numpy.full((n, 1), 5))
    engine = engine_input(doc, ["NORM"], heads=1)
    assert engine.attrs.shape == (len(words), 1 + 3)
    cand = engine.attrs[:, 1]
    assert cand[0] == 3 + 1 and cand[2] == 1 and cand[1] == 0  # "sat" is engine token 3


def test_cut_padded_and_none():
    doc = _doc("a b")
    assert not head_columns(doc, 2).any()  # no evidence: none everywhere
    _set(doc, [[1, ROOT, NO_HEAD], [ROOT, 0, NO_HEAD]], [[0.5, 0.2, 0.0]] * 2, [[1, 2, 0]] * 2)
    assert head_columns(doc, 2)[:, :2].tolist() == [[3, 1], [1, 2]]
    padded = head_columns(doc, 4)
    assert padded[:, 3].tolist() == [0, 0] and padded[:, 7].tolist() == [0, 0]
    assert head_columns(doc, 4)[:, :2].tolist() == head_columns(doc, 2)[:, :2].tolist()
    out_of_range = _doc("a b")
    _set(out_of_range, [[5], [-7]], [[0.5], [0.5]], [[1], [1]])
    assert not head_columns(out_of_range, 1)[:, 0].any()


def test_evidence_that_does_not_fit_is_named():
    doc = _doc("a b c")
    _set(doc, [[1], [2]], [[0.5], [0.5]], [[1], [1]])
    with pytest.raises(ValueError, match="head_candidates"):
        head_columns(doc, 1)
    doc = _doc("a b")
    _set(doc, [[1], [ROOT]], [[numpy.nan], [0.5]], [[1], [1]])
    with pytest.raises(ValueError, match="head_scores"):
        head_columns(doc, 1)


def test_column_names_match_the_layout():
    assert head_attrs(2) == ["HEAD_CAND_0", "HEAD_CAND_1", "HEAD_SCORE_0", "HEAD_SCORE_1", "HEAD_LABEL_0", "HEAD_LABEL_1"]
