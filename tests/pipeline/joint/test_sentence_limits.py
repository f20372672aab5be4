"""`threshold` and `max_length` of `joint_sbd_parser` (`pipeline.joint.sentence_limits`): sentences
re-drawn from `sent_start_prob`, trees repaired to one per sentence."""
import numpy
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_joint_sbd.pipeline.joint import calibration, sentence_limits
from spacy_joint_sbd.pipeline.joint.doc_encoding import tree_problem


def test_viterbi_cuts_at_the_most_probable_places_and_fits():
    # ten 4-character words ("abc "), one sentence of 39 characters, at most 12 per piece
    n = 10
    begin = numpy.arange(n) * 4
    end = begin + 3
    probs = numpy.full(n, 0.01)
    probs[[3, 6, 8]] = [0.9, 0.8, 0.3]
    starts = numpy.zeros(n, dtype=bool)
    out = sentence_limits.cut_long(starts, probs, begin, end, numpy.ones(n, dtype=bool), 12)
    cuts = list(numpy.flatnonzero(out))
    assert cuts == [0, 3, 6, 8]
    pieces = list(zip(cuts, cuts[1:] + [n]))
    assert all(end[b - 1] - begin[a] <= 12 for a, b in pieces)
    # a sentence that fits is left alone; a token longer than the limit stays whole
    assert list(numpy.flatnonzero(sentence_limits.cut_long(starts, probs, begin, end, numpy.ones(n, bool), 100))) == [0]
    wide = sentence_limits.cut_long(numpy.zeros(2, bool), [1.0, 0.5], [0, 10], [9, 30], [True, True], 5)
    assert list(wide) == [True, True]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_repaired_trees_are_one_per_sentence(data):
    n = data.draw(st.integers(1, 30))
    # a random forest: each token's head is an earlier token or -1, then shuffled positions
    order = data.draw(st.permutations(range(n)))
    heads = numpy.full(n, -1, dtype=numpy.int32)
    for k in range(1, n):
        if data.draw(st.booleans()):
            heads[order[k]] = order[data.draw(st.integers(0, k - 1))]
    labels = numpy.array(data.draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n)), dtype=numpy.int32)
    starts = numpy.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    starts[0] = True
    new_heads, new_labels = sentence_limits.repair_trees(heads, labels, starts, root_label=0, join_label=1)
    assert tree_problem(list(new_heads), list(starts)) is None
    # a token whose head stayed inside its sentence keeps head and label
    bounds = list(numpy.flatnonzero(starts)) + [n]
    sent = numpy.zeros(n, dtype=int)
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        sent[a:b] = k
    for i in range(n):
        if heads[i] != -1 and sent[heads[i]] == sent[i]:
            assert new_heads[i] == heads[i] and new_labels[i] == labels[i]


@pytest.fixture()
def calibrated(trained_model_dir):
    nlp = spacy.load(trained_model_dir)
    # an uninformative but smooth calibration: the probability follows the beam's log-odds
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = {k: [0.0, 0.0, 0.0, 0.0, 3.0] for k in calibration.REGIMES}
    return nlp


def _text(sample_examples, k=0):
    _, examples = sample_examples
    return " ".join(t.text for t in examples[k].reference)


def _check_trees(doc):
    heads = [t.head.i if t.head.i != t.i else -1 for t in doc]
    assert tree_problem(heads, [bool(t.is_sent_start) for t in doc]) is None


def test_threshold_splits_where_the_probability_reaches_it(calibrated, sample_examples):
    text = _text(sample_examples)
    for p in (0.2, 0.5, 0.9):
        calibrated.get_pipe("joint_sbd_parser").cfg["threshold"] = p
        doc = calibrated(text)
        assert [bool(t.is_sent_start) for t in doc[1:]] == [t._.sent_start_prob >= p for t in doc[1:]]
        _check_trees(doc)
    calibrated.get_pipe("joint_sbd_parser").cfg["threshold"] = 0.2
    low = len(list(calibrated(text).sents))
    calibrated.get_pipe("joint_sbd_parser").cfg["threshold"] = 0.9
    assert low >= len(list(calibrated(text).sents))


def test_max_length_cuts_long_sentences(calibrated, sample_examples):
    text = " ".join(_text(sample_examples, k) for k in range(3))
    pipe = calibrated.get_pipe("joint_sbd_parser")
    before = calibrated(text)
    longest = max(len(s.text) for s in before.sents)
    limit = max(20, longest // 3)
    pipe.cfg["max_length"] = limit
    doc = calibrated(text)
    assert all(len(s.text) <= limit for s in doc.sents)
    _check_trees(doc)
    # boundaries the search chose are kept; only cuts are added
    assert {t.i for t in before if t.is_sent_start} <= {t.i for t in doc if t.is_sent_start}


@pytest.mark.parametrize("key,value", [("threshold", 0), ("threshold", 1.5), ("threshold", "0.5"), ("threshold", True),
                                       ("max_length", 0), ("max_length", 2.5), ("max_length", "80")])
def test_bad_limits_are_named(trained_model_dir, key, value):
    with pytest.raises(ValueError, match=key):
        spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {key: value}}})
    nlp = spacy.load(trained_model_dir)
    nlp.get_pipe("joint_sbd_parser").cfg[key] = value
    with pytest.raises(ValueError, match=key):
        nlp("one two three")


def test_limits_given_at_load_are_used(trained_model_dir, sample_examples):
    nlp = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"max_length": 40}}})
    assert nlp.get_pipe("joint_sbd_parser").cfg["max_length"] == 40
    doc = nlp(_text(sample_examples))
    assert all(len(s.text) <= 40 or len(s) == 1 for s in doc.sents)
