"""Quotes and brackets stay with the sentence they close, whatever whitespace follows (a
closing `"` before a line break was moved to the start of the next sentence), and so do
numbered citations after them (`computer. [1] The latter`: a sentence `[1]` of its own), and a list
label stays with its item (`1. | Preheat the oven.`: a sentence `1.` of its own)."""
import itertools
import random

import pytest

from spacy.strings import hash_string
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_joint_sbd.pipeline.joint.doc_encoding import doc_attrs, doc_presets, engine_input, planned_engine_doc, space_plan
from spacy_joint_sbd.pipeline.joint.whitespace import (citation_marks, closing_marks, closing_quote_tags, forbid_closing_starts,
                                                 list_labels)

PAIRS = {'"': '"', "'": "'", ")": "(", "]": "[", "}": "{", "”": "“", "’": "‘", "»": "«"}
WHITESPACE = [" ", "\n", "\n\n", "\r\n", "\t"]
EAGER = 1000.0
"""An SB bias that makes the parser split wherever a boundary is allowed."""


def _text(close: str, ws: str) -> str:
    return f"He said {PAIRS[close]}it is over.{close}{ws}The next day we left."


@pytest.fixture()
def eager(trained_nlp):
    """The trained fixture splitting at every allowed place (restored afterwards)."""
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before = pipe.cfg["sb_bias"]
    pipe.cfg["sb_bias"] = EAGER
    yield trained_nlp
    pipe.cfg["sb_bias"] = before


@pytest.mark.parametrize("close,ws", list(itertools.product(PAIRS, WHITESPACE)))
def test_closing_mark_is_never_a_predicted_start(eager, close, ws):
    doc = eager(_text(close, ws))
    mark = next(t for t in doc if t.text == close and t.i > 3)
    assert doc[mark.i - 1].text == "." and not mark.is_sent_start and mark._.sent_start_prob == 0.0
    sent = mark.sent
    assert sent.text.rstrip().endswith(f".{close}"), [s.text for s in doc.sents]
    after = next(t for t in doc[mark.i + 1:] if not t.is_space)
    assert after.text == "The" and after.is_sent_start  # the eager parser still splits right after it


@pytest.mark.parametrize("ws", WHITESPACE)
def test_newline_boundaries_do_not_orphan_the_mark(trained_nlp, ws):
    """With `newline_boundaries` forcing the word after a line break, the mark is not a sentence
    of its own (it was, with `--newlines paragraph`)."""
    nlp = trained_nlp
    doc = nlp.make_doc(_text('"', ws))
    after = next(t for t in doc if t.text == "The")
    after.is_sent_start = True
    pipe = nlp.get_pipe("joint_sbd_parser")
    before = pipe.cfg["sb_bias"]
    pipe.cfg["sb_bias"] = EAGER
    try:
        doc = pipe(doc)
    finally:
        pipe.cfg["sb_bias"] = before
    mark = next(t for t in doc if t.text == '"' and doc[t.i - 1].text == ".")
    assert not mark.is_sent_start and mark.sent.text.rstrip().endswith('."'), [s.text for s in doc.sents]
    assert doc[after.i].is_sent_start


def test_only_closing_marks_are_forbidden(trained_nlp):
    """Opening quotes and marks with a space before them stay free; forced starts stay forced."""
    doc = trained_nlp.make_doc('He said "yes." "No," she said (twice) \'x\' students\' » ok')
    doc[6].is_sent_start = True  # the second quote, opening: forced by hand
    presets = forbid_closing_starts(doc, doc_presets(doc))
    forbidden = [t.text for t, p in zip(doc, presets) if p == 0]
    assert forbidden == ['"', '"', ")", "'", "'"]
    assert presets[6] == 1 and [t.i for t in doc if t.text == "»" and presets[t.i] == -1]
    glued_close = [t.i for t in doc if t.text == '"'][1]
    assert presets[glued_close] == 0 and doc[glued_close - 1].text == "."


def test_a_forced_closing_mark_stays_forced(trained_nlp):
    doc = trained_nlp.make_doc(_text(")", "\n"))
    mark = next(t for t in doc if t.text == ")")
    mark.is_sent_start = True
    doc = trained_nlp.get_pipe("joint_sbd_parser")(doc)
    assert doc[mark.i].is_sent_start and doc[mark.i]._.sent_start_prob == 1.0


def test_a_quote_glued_on_both_sides_stays_free(trained_nlp):
    """`said."Hello`: a missing space, the quote may open the next sentence."""
    doc = Doc(trained_nlp.vocab, words=["He", "said", ".", '"', "Hello"], spaces=[True, False, False, False, False])
    assert forbid_closing_starts(doc, doc_presets(doc))[3] == -1


@pytest.mark.parametrize("ws", WHITESPACE)
def test_closing_quotes_read_with_the_closing_tag(trained_nlp, ws):
    """A tagger that sees a closing quote before a line break tags it as an opening one (`` like
    en_core_web_sm's, from the SPACY feature): the parser reads the closing tag '' instead, so that
    it still sees the boundary after the quote. Opening quotes keep their tag."""
    words = ["He", "said", '"', "over", ".", '"'] + ([ws] if ws != " " else []) + ["The", "end"]
    spaces = [True, True, False, False, False, ws == " "] + ([False] if ws != " " else []) + [True, False]
    tags = ["PRP", "VBD", "``", "IN", ".", "``"] + (["_SP"] if ws != " " else []) + ["DT", "NN"]
    doc = Doc(trained_nlp.vocab, words=words, spaces=spaces, tags=tags)
    names = ["NORM", "TAG"]
    fixed = closing_quote_tags(doc, doc_attrs(doc, names), names)
    assert fixed[5, 1] == hash_string("''") and fixed[2, 1] == hash_string("``")
    assert doc[5].tag_ == "``"  # the Doc keeps what the tagger said
    assert engine_input(doc, names).attrs[5, 1] == hash_string("''")


@pytest.mark.parametrize("ws", [" ", "  ", "\t"])
def test_a_citation_stays_with_the_sentence_before_it(eager, ws):
    """`… computer. [1] The latter …` (wikiHow, Wikipedia): the eager parser splits after the
    citation, never before it or inside it."""
    doc = eager(f"Keep a list on your computer.{ws}[1] The latter option is easier.")
    opening = next(t for t in doc if t.text == "[")
    assert not doc[opening.i].is_sent_start and not doc[opening.i + 1].is_sent_start
    assert doc[opening.i].sent.text.rstrip().endswith("." + ws + "[1]"), [s.text for s in doc.sents]
    assert next(t for t in doc if t.text == "The").is_sent_start


@pytest.mark.parametrize("text,marked", [
    ("It is easy. [12] Then go.", ["[", "12"]),
    ("It is easy [3].", ["[", "3"]),
    ("It is easy.\n[1] Smith, J. A book.", []),        # a reference list: the line break decides
    ("It is easy.\n\n[1] Smith, J. A book.", []),
    ("It is easy. [a] Then go.", []),                   # not a number
    ("It is easy. [1, 2] Then go.", []),                # not one number: left to the parser
    ("[1] It is easy.", []),                            # the document's first token
    ("It is easy. [1", []),
])
def test_citation_marks(trained_nlp, text, marked):
    doc = trained_nlp.make_doc(text)
    assert [t.text for t, m in zip(doc, citation_marks(doc)) if m] == marked, [t.text for t in doc]


def test_a_forced_citation_stays_forced(trained_nlp):
    doc = trained_nlp.make_doc("It is easy. [12] Then go.")
    opening = next(t for t in doc if t.text == "[")
    opening.is_sent_start = True
    presets = forbid_closing_starts(doc, doc_presets(doc))
    assert presets[opening.i] == 1 and presets[opening.i + 1] == 0


def test_a_quote_before_a_glued_citation_closes(trained_nlp):
    """`He left."[3] She stayed.`: the quote is glued on both sides, yet closes (the citation after
    it belongs to the sentence too); before a word it stays free (`test_a_quote_glued_…`)."""
    words = ["He", "left", ".", '"', "[", "3", "]", "She", "stayed", "."]
    spaces = [True, False, False, False, False, False, True, True, False, False]
    doc = Doc(trained_nlp.vocab, words=words, spaces=spaces)
    marked = [t.text for t, m in zip(doc, closing_marks(doc)) if m]
    assert marked == ['"', "]"]
    glued = Doc(trained_nlp.vocab, words=["He", "left", ".", '"', "She"], spaces=[True, False, False, False, False])
    assert not closing_marks(glued)[3]


@pytest.mark.parametrize("text,marked", [
    ("1. Preheat the oven.\n2. Mix it.", [".", "Preheat", ".", "Mix"]),
    ("2) Target Israel.\r\n3) Make Iraq.", [")", "Target", ")", "Make"]),
    ("It ended.\n\n3. Discussion. We found", [".", "Discussion"]),
    ("IV. Results\nWe found it.", [".", "Results"]),
    ("10. Final item.", [".", "Final"]),
    ("a. First item.\nb. Second item.", ["First", "Second"]),    # `a.` is one token
    ("  1. Indented.", [".", "Indented"]),
    ('10. "We believe it," he said.', [".", '"', "We"]),
    ("Agenda\n• Budget review\n* Hiring plan", ["Budget", "Hiring"]),   # bullets
    ("Rated 3 * in the guide", []),
    ("Step 2. Then go.", []),                       # not at a line's start
    ("Go.\nStep 2. Then go.", []),
    ("1 . Spaced label.", []),                      # not glued: left to the parser
    ("1.\nThe item below.", []),                   # the line break decides
    ("123456. Then", []),                           # not a label
    ("(1) First.", []),
])
def test_list_labels(trained_nlp, text, marked):
    doc = trained_nlp.make_doc(text)
    assert [t.text for t, m in zip(doc, list_labels(doc)) if m] == marked, [t.text for t in doc]


@pytest.mark.parametrize("label", ["1.", "12.", "3)", "B.", "iv.", "•", "*"])
def test_a_list_label_stays_with_its_item(eager, label):
    """The eager parser splits wherever it may: never between a label and its item."""
    doc = eager(f"Before we start.\n{label} Preheat the oven to 200 degrees.\nThen wait.")
    item = next(t for t in doc if t.text == "Preheat")
    assert not item.is_sent_start, [s.text for s in doc.sents]
    assert item.sent.text.startswith(label), [s.text for s in doc.sents]


def test_closing_marks_follow_the_rule_on_random_token_sequences():
    """The rule of `closing_marks`' docstring, token by token, against the function on 3,000
    random Docs of words, marks, opening marks, citations and whitespace tokens: it reads only the
    few tokens its ORTH filter lets through, and must miss none."""
    vocab = Vocab()
    pieces = ["word", "It", "1", "[", "]", "(", "“", "‘", "«", "x"] + list(PAIRS) + ["''"] + WHITESPACE
    rng = random.Random(31)
    for _ in range(3000):
        words = [rng.choice(pieces) for _ in range(rng.randint(1, 12))]
        spaces = [rng.random() < 0.5 and not w.isspace() for w in words]
        doc = Doc(vocab, words=words, spaces=spaces)
        cites = citation_marks(doc)
        want = []
        for i, t in enumerate(doc):
            glued = i > 0 and not doc[i - 1].whitespace_ and not doc[i - 1].is_space
            spaced = i == len(doc) - 1 or bool(t.whitespace_) or doc[i + 1].is_space or bool(cites[i + 1])
            want.append(t.text in (")", "]", "}") or (t.text in ('"', "'", "''", "”", "’", "»") and glued and spaced))
        assert closing_marks(doc).tolist() == want, (words, spaces)


PIECES = ["He", "said", "it", "is", "over", ".", "1.", "2)", "•", "[", "3", "]", '"', "'", ")", "(", "”", "The",
          "\n", "\n\n", "  ", "\t", "\r\n"]


def test_one_read_encodes_as_the_separate_reads():
    """`planned_engine_doc` reads a Doc's columns once: the same features, presets and whitespace
    plan as `doc_attrs`, `doc_presets`, `forbid_closing_starts` and `space_plan` reading it one by
    one (random documents of words, marks, list labels, citations, whitespace and presets)."""
    rng = random.Random(7)
    vocab = Vocab()
    names = ["NORM", "TAG", "SHAPE"]
    for _ in range(300):
        words = [rng.choice(PIECES) for _ in range(rng.randint(1, 14))]
        spaces = [rng.random() < 0.6 and not w.isspace() for w in words]
        tags = [rng.choice(["``", "''", "NN", "_SP"]) for _ in words]
        doc = Doc(vocab, words=words, spaces=spaces, tags=tags)
        for t in doc[1:]:
            t.is_sent_start = rng.choice([None, None, True, False])
        one, plan = planned_engine_doc(doc, names)
        presets = forbid_closing_starts(doc, doc_presets(doc))
        sep = space_plan(doc, presets)
        attrs = closing_quote_tags(doc, doc_attrs(doc, names), names)
        assert (plan is None) == (sep is None)
        if sep is not None:
            attrs, presets = attrs[sep.keep], sep.word_presets
            assert (plan.keep == sep.keep).all() and (plan.heads == sep.heads).all() and plan.unstart == sep.unstart
        assert (one.attrs == attrs).all() and one.attrs.flags.c_contiguous
        assert (one.presets is None and (presets[1:] == -1).all()) or (one.presets == presets).all()
        assert (engine_input(doc, names).attrs == one.attrs).all()
