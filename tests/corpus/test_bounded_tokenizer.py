"""The default pipeline's tokenizer gives spaCy's tokens in time linear in the length of a run
without whitespace (`corpus.bounded_tokenizer`): a ruler of 10,000 `=` took 36 s in spaCy's
English tokenizer, and the time grows fourfold per doubling."""
import pickle
import random

import numpy
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


def test_a_cut_is_no_sentence_start(pair):
    """The first token of each later piece of a cut run is `is_sent_start = False`, every other
    token is left to the pipeline (None); runs at or below the cut get no mark at all."""
    _, bounded = pair
    text = "Start. " + "x" * 2500 + " and " + "=" * 1500 + " End."
    doc = bounded(text)
    cuts = {len("Start. ") + 1000, len("Start. ") + 2000, len("Start. ") + 2500 + len(" and ") + 1000}
    assert {t.idx for t in doc if t.is_sent_start is False} == cuts
    assert all(t.is_sent_start is None for t in doc[1:] if t.idx not in cuts)
    assert all(t.is_sent_start is None for t in bounded("Start. " + "x" * 1000 + " " + "=" * 900)[1:])


def test_a_cut_run_stays_one_sentence_through_the_parser(trained_model_dir):
    """With a bias that splits everywhere the parser may, no sentence starts at a cut (probability 0)."""
    nlp = use_citation_tokens(spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"sb_bias": 8.0}}}))
    text = "It was late . " + "x" * 3500 + " The next day came ."
    doc = nlp(text)
    cut_idx = {len("It was late . ") + k for k in (1000, 2000, 3000)}
    cut = [t for t in doc if t.idx in cut_idx]
    assert len(cut) == 3
    assert all(t.is_sent_start is False and t._.sent_start_prob == 0.0 for t in cut)
    assert sum(1 for t in doc if t.is_sent_start) > 2   # the bias does split where it may


@pytest.mark.parametrize("text, at", [("Bad \ud800 x", 4), ("ok " * 400 + "\udc80", 1200),
                                      ("x" * 1500 + "\udfff", 1500), ("\ud83d", 0)])
def test_a_lone_surrogate_names_its_place_in_the_text(pair, text, at):
    with pytest.raises(UnicodeEncodeError, match=f"lone surrogate .* at character {at} of the text") as err:
        pair[1](text)
    assert err.value.start == at
    assert [t.text for t in pair[1]("a \U0001F600 b")] == ["a", "\U0001F600", "b"]   # a real pair is fine


def test_a_cut_runs_doc_holds_each_pieces_tokens_as_the_tokenizer_made_them(pair):
    """Joining the pieces keeps every token's text, whitespace, offsets and norm (tokenizer
    exceptions set norms: "n't" is "not") as spaCy's tokenizer gives them piece by piece, and marks
    only the cuts."""
    from spacy.attrs import LENGTH, NORM, ORTH, SPACY

    _, bounded = pair
    text = "Start. I don't " + "x" * 2500 + " can't\n" + "(" * 1200 + "won't" + '"' * 3000 + " End. "
    pieces = [Tokenizer.__call__(bounded, p) for p in bt.cut_long_runs(text)]
    doc = bounded(text)
    attrs = [ORTH, NORM, SPACY, LENGTH]
    assert doc.text == text and len(pieces) == 7
    assert (doc.to_array(attrs) == numpy.concatenate([p.to_array(attrs) for p in pieces])).all()
    assert [t.idx for t in doc] == [t.idx + len("".join(bt.cut_long_runs(text)[:k]))
                                    for k, p in enumerate(pieces) for t in p]
    assert [t.norm_ for t in doc if t.text == "n't"] == ["not"] * 3
    cuts = numpy.cumsum([len(p) for p in pieces[:-1]]).tolist()
    assert [t.i for t in doc if t.is_sent_start is False] == cuts
