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


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_newline_convention_breaks_lines_alike(newline):
    """Old Mac files end lines with a lone `\r`: a line break, and two a blank line, as `\n`
    (only `\n` counted, so such a file had no forced boundary in any mode)."""
    text = newline.join(["one two", "three four", "", "five six"])
    nlp = spacy.blank("en")
    got = {mode: [t.text for t in NewlineBoundaries(mode)(nlp.make_doc(text)) if t.is_sent_start and t.i > 0]
           for mode in ("line", "paragraph")}
    assert got == {"line": ["three", "five"], "paragraph": ["five"]}


def test_whitespace_tokens_never_start_a_sentence():
    doc = NewlineBoundaries("line")(spacy.blank("en").make_doc(TEXT))
    assert not any(t.is_sent_start for t in doc if t.is_space)


def test_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        NewlineBoundaries("sometimes")


def _reference_starts(doc, mode):
    """Token by token, as the component first did: a word after a whitespace run holding a break."""
    out, pending = [], False
    for token in doc:
        if token.is_space:
            breaks = token.text.count("\n") + token.text.replace("\r\n", "").count("\r")
            pending = pending or breaks >= (1 if mode == "line" else 2)
            continue
        if pending and token.i > 0:
            out.append(token.i)
        pending = False
    return out


@pytest.mark.parametrize("mode", ["line", "paragraph"])
def test_same_starts_as_the_token_by_token_rule_on_random_layout(mode):
    import random

    rng = random.Random(7)
    pieces = ["word", "Word.", "a", "\n", "\n\n", " \n ", "\n \n", "  ", "\t", "\r\n", "\r\n\r\n", "\r", "\r\r", "\n\r", "“quote”"]
    nlp = spacy.blank("en")
    for _ in range(200):
        text = "".join(rng.choice(pieces) + rng.choice(["", " "]) for _ in range(rng.randint(0, 30)))
        doc = NewlineBoundaries(mode)(nlp.make_doc(text))
        got = [t.i for t in doc if t.is_sent_start and t.i > 0]
        assert got == _reference_starts(nlp.make_doc(text), mode), repr(text)


@pytest.mark.parametrize("text,expected", [
    ("Agenda\n* Budget review\n* Hiring plan", ["*", "*"]),
    ("Notes:\n• First point\r\n• Second point", ["•", "•"]),
    ("Done.\n\n▪ An item", ["▪"]),                     # the blank line makes it a start anyway
    ("One bullet\n• alone is an item", ["•"]),
    ("He went there\n- and came back", []),             # a dash: wrapped prose does this
    ("A 5 * 3 product\n*emphasis* here", []),           # no space after the mark
    ("A list:\n*\nnothing after", []),                  # no word on the bullet's line
    ("Rated 3 * in\nthe guide", []),                    # not at a line's start
    ("Steps\na) Open the box\nb) Take it out", ["a", "b"]),
    ("Options:\nA. Red\nB. Blue\n\nC. Green", ["A.", "B.", "C."]),
    ("To do:\n1. Buy milk\nand then\n2. Call mom", []),   # no two items on adjacent lines
    ("He scored\n3. That was the end of it.", []),     # wrapped prose: one line, not a list
])
def test_list_items_start_sentences(text, expected):
    doc = NewlineBoundaries("paragraph")(spacy.blank("en").make_doc(text))
    got = [t.text for t in doc if t.is_sent_start and t.i > 0]
    assert got == expected, [(t.text, t.is_sent_start) for t in doc]


def test_list_items_can_be_switched_off_and_ignore_leaves_the_doc_alone():
    text = "Agenda\n* Budget review\n* Hiring plan\na) one\nb) two"
    for comp in (NewlineBoundaries("paragraph", list_items=False), NewlineBoundaries("ignore")):
        doc = comp(spacy.blank("en").make_doc(text))
        assert not any(t.is_sent_start and t.i > 0 for t in doc)
    with pytest.raises(ValueError, match="list_items must be true or false"):
        NewlineBoundaries("line", list_items="yes")


def test_list_items_default_on_in_a_pipeline():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("newline_boundaries", config={"mode": "paragraph"})
    assert pipe.list_items and nlp.config["components"]["newline_boundaries"]["list_items"] is True
    doc = nlp("Agenda\n• Budget review")
    assert [t.text for t in doc if t.is_sent_start] == ["Agenda", "•"]
