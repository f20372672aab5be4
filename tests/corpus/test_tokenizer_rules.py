"""Citation marks glued to what precedes them (`ending.[5] The next`) are split off by the default
pipeline's tokenizer (`corpus.tokenizer_rules`), in training text and user text alike."""
import pytest
import spacy

from spacy_joint_sbd.corpus.running_text import as_tokenizer, text_records
from spacy_joint_sbd.corpus.tokenizer_rules import CITATION_SUFFIX, NAME, add_citation_suffix, use_citation_tokens

CASES = [
    ("It was the ending.[5] The next one began.",
     ["It", "was", "the", "ending", ".", "[", "5", "]", "The", "next", "one", "began", "."]),
    ("see this.[12][13] Then go.", ["see", "this", ".", "[", "12", "]", "[", "13", "]", "Then", "go", "."]),
    ('He left."[3] She stayed.', ["He", "left", ".", '"', "[", "3", "]", "She", "stayed", "."]),
    ("It ended (badly).[4] Next", ["It", "ended", "(", "badly", ")", ".", "[", "4", "]", "Next"]),
    ("a word[7], then", ["a", "word", "[", "7", "]", ",", "then"]),
    ("x[10] = 3", ["x", "[", "10", "]", "=", "3"]),
    # as spaCy's English tokenizer leaves them
    ("at [12] and", ["at", "[", "12", "]", "and"]),
    ("[1] Smith, J.", ["[", "1", "]", "Smith", ",", "J."]),
    ("word[12345]", ["word[12345", "]"]),               # five digits: no citation
    ("word[a]", ["word[a", "]"]),
]


@pytest.fixture(scope="module")
def nlp():
    return use_citation_tokens(spacy.blank("en"))


@pytest.mark.parametrize("text,tokens", CASES)
def test_citations_are_split_off(nlp, text, tokens):
    assert [t.text for t in nlp(text)] == tokens


def test_without_the_rule_the_mark_is_glued():
    """What the rule is for: spaCy's English tokenizer alone keeps `ending.[5` whole."""
    assert "ending.[5" in [t.text for t in spacy.blank("en")("the ending.[5] The next")]


def test_the_rule_is_added_once(nlp):
    pattern = nlp.tokenizer.suffix_search.__self__.pattern
    add_citation_suffix(nlp.tokenizer)
    assert nlp.tokenizer.suffix_search.__self__.pattern == pattern
    assert pattern.split("|").count(CITATION_SUFFIX) == 1


def test_a_tokenizer_without_suffixes_gets_the_rule_alone():
    tok = spacy.blank("en").tokenizer
    tok.suffix_search = None
    add_citation_suffix(tok)
    assert tok.suffix_search.__self__.pattern == CITATION_SUFFIX


def test_the_saved_pipeline_keeps_the_rule(nlp, tmp_path):
    assert nlp.config["nlp"]["after_creation"] == {"@callbacks": NAME}
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert [t.text for t in loaded("the ending.[5] The")] == ["the", "ending", ".", "[", "5", "]", "The"]
    assert loaded.config["nlp"]["after_creation"] == {"@callbacks": NAME}


def test_another_after_creation_callback_is_refused():
    other = spacy.blank("en")
    other.config["nlp"]["after_creation"] = {"@callbacks": "spacy_joint_sbd.copy_lookups.v1"}
    with pytest.raises(ValueError, match="after_creation"):
        use_citation_tokens(other)


def test_running_text_keeps_the_citation_with_its_sentence():
    """Training text (Project Gutenberg footnotes): the derived start is on the word after the
    citation, and the full stop is a token of its own that ends the sentence."""
    (rec,) = text_records("It was the ending.[5] The next one began.\n", as_tokenizer(None), "t")
    starts = [w for w, s in zip(rec.words, rec.sent_starts) if s]
    assert rec.words[3:8] == ["ending", ".", "[", "5", "]"]
    assert starts == ["It", "The"]


@pytest.fixture()
def eager_with_rule(trained_nlp):
    """The trained fixture with the rule, splitting wherever a boundary is allowed (restored after)."""
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before_bias, before_search = pipe.cfg["sb_bias"], trained_nlp.tokenizer.suffix_search
    add_citation_suffix(trained_nlp.tokenizer)
    pipe.cfg["sb_bias"] = 1000.0
    yield trained_nlp
    pipe.cfg["sb_bias"] = before_bias
    trained_nlp.tokenizer.suffix_search = before_search


@pytest.mark.parametrize("glue", [".", '."', ".)"])
def test_a_glued_citation_stays_with_the_sentence_before_it(eager_with_rule, glue):
    doc = eager_with_rule(f"Keep a list on your computer{glue}[1] The latter option is easier.")
    opening = next(t for t in doc if t.text == "[")
    assert not opening.is_sent_start and not doc[opening.i + 1].is_sent_start
    assert opening.sent.text.rstrip().endswith(f"{glue}[1]"), [s.text for s in doc.sents]
    assert next(t for t in doc if t.text == "The").is_sent_start
