"""Boundaries set before `joint_sbd_parser`: True forces, False forbids, None is
predicted; whitespace tokens; `token._.sent_start_prob`; the `sb_bias` knob."""
import math

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from spacy_joint_sbd.pipeline.joint_sbd_parser import JointSBDParser

SEPARATORS = [" "] * 6 + ["\n", "  ", "\n\n", " \n "]


@Language.component("test_newline_starts")
def newline_starts(doc: Doc) -> Doc:
    """Force a boundary after every newline token (as `segment --newlines line` will)."""
    for token in doc[1:]:
        if doc[token.i - 1].is_space and "\n" in doc[token.i - 1].text and not token.is_space:
            token.is_sent_start = True
    return doc


def check_doc(doc, presets):
    """Forced present, forbidden absent, one tree per sentence, no whitespace token heads a word,
    whitespace starts a sentence only when forced, probabilities agree with the presets."""
    for token, preset in zip(doc, presets):
        prob = token._.sent_start_prob
        assert 0.0 <= prob <= 1.0
        if token.i == 0:
            assert token.is_sent_start and prob == 1.0
            continue
        if preset is True:
            assert token.is_sent_start is True and prob == 1.0, token.i
        elif preset is False:
            assert token.is_sent_start is False and prob == 0.0, token.i
        elif token.is_space:
            assert token.is_sent_start is False, token.i
        if token.head.is_space and token.head.i != token.i:
            assert token.is_space, f"whitespace token {token.head.i} heads word {token.i}"
    for sent in doc.sents:
        assert len([t for t in sent if t.head.i == t.i]) == 1
        assert all(sent.start <= t.head.i < sent.end for t in sent)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_presets_are_kept(trained_nlp, sample_examples, data):
    _, examples = sample_examples
    eg = examples[data.draw(st.integers(0, len(examples) - 1), label="doc")]
    words = [t.text for t in eg.reference][:150]
    seps = data.draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    text = "".join(w + s for w, s in zip(words, seps)).strip()
    doc = trained_nlp.make_doc(text)
    presets = data.draw(st.lists(st.sampled_from([None, None, True, False]), min_size=len(doc),
                                 max_size=len(doc)), label="presets")
    for token, preset in zip(doc[1:], presets[1:]):
        token.is_sent_start = preset
    doc = trained_nlp.get_pipe("joint_sbd_parser")(doc)
    check_doc(doc, presets)


def test_no_presets_and_none_presets_agree(trained_nlp, sample_examples):
    _, examples = sample_examples
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    for eg in examples[:5]:
        a = trained_nlp(eg.reference.text)
        b = trained_nlp.make_doc(eg.reference.text)
        for token in b[1:]:
            token.is_sent_start = None
        b = pipe(b)
        assert [(t.head.i, t.dep_, t.is_sent_start) for t in a] == [(t.head.i, t.dep_, t.is_sent_start) for t in b]


def test_newline_presets_are_kept(trained_model_dir):
    nlp = spacy.load(trained_model_dir)
    nlp.add_pipe("test_newline_starts", first=True)
    doc = nlp("line one\nline two")
    assert [t.text for t in doc] == ["line", "one", "\n", "line", "two"]
    assert [s.text for s in doc.sents] == ["line one\n", "line two"]
    assert doc[2].head.i == 1 and doc[2].dep_ == "dep"      # the newline attaches to the word before
    assert doc[3]._.sent_start_prob == 1.0
    # by hand: a forbidden boundary after the newline is kept too
    doc = nlp.make_doc("line one\nline two")
    doc[3].is_sent_start = False
    doc = nlp.get_pipe("joint_sbd_parser")(doc)
    assert len(list(doc.sents)) == 1 and doc[3]._.sent_start_prob == 0.0


def test_forced_whitespace_token_starts_the_next_sentence(trained_nlp):
    doc = trained_nlp.make_doc("one two\n\nthree four")
    space = [t.i for t in doc if t.is_space]
    assert space == [2]
    doc[2].is_sent_start = True
    doc = trained_nlp.get_pipe("joint_sbd_parser")(doc)
    assert [s.text for s in doc.sents] == ["one two", "\n\nthree four"]
    assert doc[2].head.i == 3 and doc[2].dep_ == "dep"


def test_only_whitespace(trained_nlp):
    doc = trained_nlp("\n\n")
    assert len(doc) >= 1 and all(t.is_space for t in doc)
    assert doc[0].is_sent_start and doc[0].head.i == 0


def test_sb_bias_moves_boundaries_monotonically(trained_model_dir, sample_examples):
    _, examples = sample_examples
    texts = [eg.reference.text for eg in examples[24:]]
    counts = []
    for bias in (-5.0, -1.0, 0.0, 1.0, 5.0):
        nlp = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"sb_bias": bias}}})
        assert nlp.get_pipe("joint_sbd_parser").cfg["sb_bias"] == bias   # the saved cfg does not win
        docs = list(nlp.pipe(texts))
        counts.append(sum(bool(t.is_sent_start) for d in docs for t in d))
        for d in docs:
            assert all(0.0 <= t._.sent_start_prob <= 1.0 for t in d)
            assert all(t._.sent_start_prob > 0.0 for t in d if t.is_sent_start)
    assert counts == sorted(counts) and counts[0] < counts[-1], counts


def test_sb_bias_is_validated():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="sb_bias"):
        nlp.add_pipe("joint_sbd_parser", config={"sb_bias": math.inf})
    with pytest.raises(ValueError, match="sb_bias_unpunctuated"):
        nlp.add_pipe("joint_sbd_parser", name="p2", config={"sb_bias_unpunctuated": math.nan})


@pytest.mark.parametrize("key,bad", [("sb_bias", math.nan), ("sb_bias", "8"), ("sb_bias", None),
                                     ("sb_bias", True), ("sb_bias_unpunctuated", math.inf),
                                     ("sb_bias_unpunctuated", "0.3"), ("beam_width", 0), ("beam_width", "8"),
                                     ("beam_width", 2.0)])
def test_settings_changed_by_hand_are_validated_before_predicting(trained_nlp, key, bad):
    """A setting put into cfg by hand is refused with the same message as at construction
    (it used to end in an AttributeError from an empty parse, a bare TypeError, or be taken
    silently: "8" as 8.0)."""
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before = pipe.cfg[key]
    pipe.cfg[key] = bad
    try:
        with pytest.raises(ValueError, match=rf"\[joint_sbd_parser\] {key} must be"):
            trained_nlp("so i went to the store they had no milk")
    finally:
        pipe.cfg[key] = before
    with pytest.raises(ValueError, match=rf"\[x\] {key} must be"):
        JointSBDParser(trained_nlp.vocab, pipe.model, "x", **{key: bad})


def test_beam_width_from_the_load_config_wins(trained_model_dir):
    """`spacy.load(..., config=...)` sets the beam a loaded pipeline parses with, as nlp.config
    says (the saved cfg's width used to win silently)."""
    saved = spacy.load(trained_model_dir).get_pipe("joint_sbd_parser").cfg["beam_width"]
    nlp = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"beam_width": saved + 3}}})
    assert nlp.config["components"]["joint_sbd_parser"]["beam_width"] == saved + 3
    assert nlp.get_pipe("joint_sbd_parser").cfg["beam_width"] == saved + 3
    with pytest.raises(ValueError, match="beam_width must be an int in \\[1, 65536\\], got 0"):
        spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"beam_width": 0}}})


def test_sb_bias_unpunctuated_applies_to_docs_without_final_punctuation_only(trained_model_dir, sample_examples):
    _, examples = sample_examples
    punctuated = [eg.reference.text for eg in examples[24:]]
    bare = [" ".join(t.lower_ for t in eg.reference if not t.is_punct and not t.is_space) + " :) & /"
            for eg in examples[24:]]   # symbols and emoticons are not sentence-final punctuation
    assert all(any(t.text in ".?!" for t in spacy.blank("en")(x)) for x in punctuated)

    def boundaries(config, texts):
        nlp = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": config}})
        return [[t.i for t in d if t.is_sent_start] for d in nlp.pipe(texts)]

    base_bare, base_punct = boundaries({}, bare), boundaries({}, punctuated)
    eager_bare = boundaries({"sb_bias_unpunctuated": 5.0}, bare)
    assert sum(map(len, eager_bare)) > sum(map(len, base_bare))
    assert boundaries({"sb_bias_unpunctuated": 5.0}, punctuated) == base_punct   # untouched
    # sb_bias alone still moves both; sb_bias_unpunctuated takes over where there is no punctuation
    assert boundaries({"sb_bias": 5.0, "sb_bias_unpunctuated": 0.0}, bare) == base_bare


def test_contradicting_training_presets_are_dropped_and_counted(sample_examples):
    _, examples = sample_examples
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2, "attrs": ["NORM", "SHAPE"]})
    train = examples[:3]
    nlp.initialize(lambda: train)
    made = []
    for eg in train:
        ref = eg.reference
        pred = Doc(nlp.vocab, words=[t.text for t in ref], spaces=[bool(t.whitespace_) for t in ref])
        gold = [bool(t.is_sent_start) for t in ref]
        wrong = next(i for i in range(1, len(pred)) if not gold[i])
        right = next(i for i in range(1, len(pred)) if gold[i])
        pred[wrong].is_sent_start = True        # contradicts the gold: dropped
        pred[right].is_sent_start = True        # agrees: kept
        made.append(Example(pred, eg.reference))
    losses = nlp.update(made)
    assert pipe.dropped_presets == 3 and losses["joint_sbd_parser_dropped_presets"] == 3
    assert pipe.skipped_examples == 0


def test_sent_start_probs_travel_with_the_doc(trained_model_dir, sample_examples):
    """The probabilities are written in bulk under spaCy's own keys for token attributes, so
    they behave as if set one by one: they survive Doc.to_bytes, a DocBin with user data and
    Span.as_doc(copy_user_data=True), and a Doc the component never saw reads None."""
    from spacy.tokens import Doc, DocBin

    _, examples = sample_examples
    nlp = spacy.load(trained_model_dir)
    doc = nlp(examples[24].reference.text)
    probs = [t._.sent_start_prob for t in doc]
    assert all(p is not None for p in probs) and probs[0] == 1.0
    assert len(probs) == len({k for k in doc.user_data if k[:2] == ("._.", "sent_start_prob")})
    again = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert [t._.sent_start_prob for t in again] == probs
    bin_ = DocBin(store_user_data=True, docs=[doc])
    assert [t._.sent_start_prob for t in next(bin_.get_docs(nlp.vocab))] == probs
    part = doc[3:].as_doc(copy_user_data=True)
    assert [t._.sent_start_prob for t in part] == probs[3:]
    assert all(t._.sent_start_prob is None for t in nlp.make_doc("no parse here"))
