"""The default pipeline's tokenizer gives spaCy's tokens in time linear in the length of a run
without whitespace (`corpus.bounded_tokenizer`): a ruler of 10,000 `=` took 36 s in spaCy's
English tokenizer, and the time grows fourfold per doubling."""
import pickle
import random

import pytest
import spacy
from spacy.tokenizer import Tokenizer

from spacy_joint_sbd.corpus import bounded_tokenizer as bt
from spacy_joint_sbd.corpus.tokenizer_rules import add_citation_suffix, use_citation_tokens

MARKS = list('.,;:!?"\'()[]{}<>-–—=*_/\\|#$%&+~`^…“”‘’«»') + [
    "...", "a", "1", "A", "km", "'s", "n't", " ", "  ", "\n", "\t", "http://x.y/z", "U.S.", "e.g.", "[5]"]


@pytest.fixture(scope="module")
def pair():
    """spaCy's English tokenizer with the citation rule, and the default pipeline's."""
    ref = spacy.blank("en")
    add_citation_suffix(ref.tokenizer)
    return ref.tokenizer, use_citation_tokens(spacy.blank("en")).tokenizer


def tokens(tokenizer, text):
    return [t.text_with_ws for t in tokenizer(text)]


def test_the_default_pipeline_tokenizer_is_bounded(pair):
    ref, bounded = pair
    assert type(ref) is Tokenizer and isinstance(bounded, bt.BoundedTokenizer)


def test_the_same_tokens_as_spacy_on_random_mark_soup(pair):
    """Spans of marks, words and whitespace up to 600 characters (the suffix window is 256): the
    window's answer is the whole span's."""
    ref, bounded = pair
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(MARKS) for _ in range(rng.randint(1, 300)))
        assert tokens(bounded, text) == tokens(ref, text), repr(text)


@pytest.mark.parametrize("mark", list('=".)-…*?') + ["...", "'s"])
@pytest.mark.parametrize("n", [100, 300, 850])
def test_the_same_tokens_on_runs_below_the_cut(pair, mark, n):
    """A repeating suffix (a run of dots) that reaches past the window is found on the whole span."""
    ref, bounded = pair
    text = "x" + mark * (n // len(mark)) + "y" + mark * 40
    assert len(text) <= bt.MAX_RUN
    assert tokens(bounded, text) == tokens(ref, text)


def test_the_suffix_search_reads_a_bounded_window(pair):
    """The work that made a long run quadratic: characters the suffix regex is run over. spaCy's
    tokenizer runs it over the whole rest of the span at each step."""
    ref, bounded = pair
    text = "=" * 3000

    def searched(tokenizer):
        search, seen = tokenizer.suffix_search, [0]

        def counting(s):
            seen[0] += len(s)
            return search(s)

        tokenizer.suffix_search = counting
        try:
            tokenizer._flush_cache()
            doc = tokenizer(text)
        finally:
            tokenizer.suffix_search = search
        return seen[0], len(doc)

    ours, n_ours = searched(bounded)
    theirs, n_theirs = searched(ref)
    assert n_ours == n_theirs == 3000
    assert ours <= len(text) * bt.SUFFIX_WINDOW < theirs


def test_cut_long_runs_joins_to_the_text():
    text = "a " + "=" * 2500 + "\n\n" + "b" * 1000 + " " + '"' * 1001
    pieces = bt.cut_long_runs(text)
    assert "".join(pieces) == text
    # the 2500-run in 1000 + 1000 + 500 (the last with what follows), the 1000-run whole, the 1001-run cut once
    assert [len(p) for p in pieces] == [2 + 1000, 1000, 500 + 2 + 1000 + 1 + 1000, 1]
    assert bt.cut_long_runs("") == [""] and bt.cut_long_runs("ab cd", 2) == ["ab cd"]
    assert bt.cut_long_runs("abcde", 2) == ["ab", "cd", "e"]
    with pytest.raises(ValueError, match="max_run"):
        bt.cut_long_runs("abc", 0)


@pytest.mark.parametrize("ws", [" ", "\n", "\r\n", "\t", "  ", "\u00a0"])
def test_a_cut_run_keeps_the_text_and_the_whitespace(pair, ws):
    _, bounded = pair
    text = "Start." + ws + "=" * 2500 + ws + "Then (" + '"' * 1200 + ")" + ws
    doc = bounded(text)
    assert doc.text == text
    assert sum(len(t.text) for t in doc if set(t.text) == {"="}) == 2500
    assert [t.text for t in doc][:2] == ["Start", "."]


def test_the_saved_pipeline_loads_bounded_and_pickles(tmp_path):
    nlp = use_citation_tokens(spacy.blank("en"))
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert isinstance(loaded.tokenizer, bt.BoundedTokenizer)
    assert [t.text for t in loaded("the ending.[5] The")] == ["the", "ending", ".", "[", "5", "]", "The"]
    again = pickle.loads(pickle.dumps(loaded.tokenizer))
    assert isinstance(again, bt.BoundedTokenizer)
    assert tokens(again, "ending.[5] " + "=" * 1500) == tokens(loaded.tokenizer, "ending.[5] " + "=" * 1500)


def test_another_tokenizer_is_left_alone():
    nlp = spacy.blank("en")
    nlp.tokenizer = bt.BoundedTokenizer(nlp.vocab)
    kept = nlp.tokenizer
    assert bt.bound_tokenizer(nlp).tokenizer is kept
    nlp.tokenizer = custom = (lambda text: spacy.tokens.Doc(nlp.vocab, words=text.split()))
    assert bt.bound_tokenizer(nlp).tokenizer is custom


@pytest.mark.parametrize("bad", [None, b"bytes", 3])
def test_a_non_string_is_a_type_error(pair, bad):
    with pytest.raises(TypeError, match="str"):
        pair[1](bad)
