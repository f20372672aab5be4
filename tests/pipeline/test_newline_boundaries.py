"""`newline_boundaries`: line / paragraph breaks become preset sentence starts."""
import pytest
import spacy

from spacy_joint_sbd.pipeline.newline_boundaries import NewlineBoundaries

TEXT = "one two\nthree four\n\nfive six  seven\n \n eight"


def starts(mode):
    doc = NewlineBoundaries(mode)(spacy.blank("en").make_doc(TEXT))
    return [t.text for t in doc if t.is_sent_start and t.i > 0]


def test_modes():
    assert starts("line") == ["three", "five", "eight"]
    assert starts("paragraph") == ["five", "eight"]
    assert starts("ignore") == []


def test_whitespace_tokens_never_start_a_sentence():
    doc = NewlineBoundaries("line")(spacy.blank("en").make_doc(TEXT))
    assert not any(t.is_sent_start for t in doc if t.is_space)


def test_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        NewlineBoundaries("sometimes")
