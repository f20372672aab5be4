"""`sb_bias_unmarked`: a boundary that no sentence-final mark or line break
announces gets the bias, in punctuated documents only."""
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.pipeline.joint.unmarked import unmarked_sb_scores, unmarked_words


def flagged(text):
    doc = spacy.blank("en")(text)
    return [t.text for t, u in zip(doc, unmarked_words(doc)) if u]


def test_words_after_a_word_are_unmarked_after_a_mark_or_line_break_they_are_not():
    assert flagged('Bottom line: If we go. He said "no." Then (later) he left!\nNew') == [
        "line", ":", "If", "we", "go", ".", "said", '"', "no", ".", "(", "later", ")", "he", "left", "!"]
    # closing quotes and brackets after the mark are passed over; a plain space too
    assert "But" not in flagged('He left.") But then') and "But" in flagged("He left But then")
    assert "Next" not in flagged("a heading\n\nNext one") and "Next" in flagged("a heading  Next one")


def test_edge_cases_never_fail():
    nlp = spacy.blank("en")
    assert unmarked_words(nlp("")).shape == (0,)
    assert not unmarked_words(nlp("word")).any()
    assert unmarked_words(nlp("\n\n")).tolist() == [False]
    doc = Doc(nlp.vocab, words=["a", "\n", "b", " ", "c"], spaces=[False, False, False, False, False])
    assert unmarked_words(doc).tolist() == [False, False, False, False, True]


def test_scores_cover_the_engines_tokens_and_add_to_what_is_there():
    doc = spacy.blank("en")("one two\n\nthree four")
    scores = unmarked_sb_scores(doc, -2.0)
    assert scores.tolist() == [0.0, -2.0, 0.0, -2.0]      # the whitespace token is left out
    assert unmarked_sb_scores(doc, -2.0, scores).tolist() == [0.0, -4.0, 0.0, -4.0]
    assert unmarked_sb_scores(doc, 0.0) is None


def test_the_bias_splits_punctuated_text_less_and_leaves_unpunctuated_text_alone(trained_model_dir, sample_examples):
    _, examples = sample_examples
    nlp = spacy.blank("en")
    punctuated = [eg.reference.text.replace(". ", " ", 1) for eg in examples[24:]]  # a mark dropped
    punctuated = [x for x in punctuated if any(t.text in ".?!" for t in nlp(x))]
    bare = [" ".join(t.lower_ for t in eg.reference if not t.is_punct and not t.is_space) for eg in examples[24:]]
    assert len(punctuated) >= 5

    def boundaries(config, texts):
        nlp = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": config}})
        return [[t.i for t in d if t.is_sent_start] for d in nlp.pipe(texts)]

    base = boundaries({"sb_bias": 3.0}, punctuated)
    lazy = boundaries({"sb_bias": 3.0, "sb_bias_unmarked": -30.0}, punctuated)
    assert sum(map(len, lazy)) < sum(map(len, base))
    for text, starts in zip(punctuated, lazy):      # -30 leaves no boundary after a bare word
        doc = nlp(text)
        assert not any(unmarked_words(doc)[i] for i in starts)
    assert boundaries({"sb_bias_unmarked": -30.0}, bare) == boundaries({}, bare)
