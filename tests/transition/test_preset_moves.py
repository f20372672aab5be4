"""Preset boundaries in whole-document mode: `fixed_starts` with 1 forced / 0 forbidden
/ -1 free per token, the SB bias and the sentence-start probabilities of `Engine.parse`."""
import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_joint_sbd.pipeline.joint.doc_encoding import tree_problem
from spacy_joint_sbd.transition import TransitionParser, oracle_actions
from spacy_joint_sbd.transition.engine_doc import to_engine_numbering
from spacy_joint_sbd.transition.stateclass import StateClass
from spacy_joint_sbd.transition.testing import replay
from engine_docs import encode


@pytest.fixture(scope="module")
def trained(small_docs):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 14, learner="pa")
    docs = encode(parser, small_docs)
    for epoch in range(3):
        parser.train_epoch(docs, update="max_violation", beam_width=4, shuffle=epoch)
    return parser, docs


def test_forbidden_token_refuses_sb_and_sentence_end():
    # engine tokens 1..4 (presets are 0-based): token 3 forbidden, the others free
    state = StateClass(4, 1, [None, None, False, None])
    state.apply("SHIFT")
    assert state.is_valid("SB")              # b0 = 2 is free
    state.apply("SHIFT")
    assert not state.is_valid("SB")          # b0 = 3 is forbidden
    state.apply("LEFTARC")
    assert not state.is_valid("RIGHTARC")    # a root arc would close a sentence before token 3
    state.apply("SHIFT")
    assert state.is_valid("SB")              # b0 = 4 is free


def test_forced_token_needs_sb_before_shift():
    state = StateClass(3, 1, [None, 1, -1])
    state.apply("SHIFT")
    assert state.valid() == ["SB", "RIGHTARC"]   # b0 = 2 is forced: SHIFT may not pass it
    state.apply("SB").apply("RIGHTARC").apply("SHIFT")
    assert state.is_valid("SB")                  # b0 = 3 is free


def test_all_bools_is_the_given_mode():
    given_ = [True, False, True]
    for fixed in (given_, numpy.asarray(given_), [1, 0, 1], numpy.asarray([1, 0, 1], dtype=numpy.int8)):
        assert StateClass(3, 1, fixed).apply("SHIFT").valid() == StateClass(3, 1, given_).apply("SHIFT").valid()


def _presets_from(rng, starts):
    """Presets that agree with the gold starts on a random subset of the tokens."""
    n = len(starts)
    choice = rng.integers(0, 3, size=n)  # 0 free, 1 set from the gold
    presets = numpy.where(choice == 1, numpy.where(starts, 1, 0), -1).astype(numpy.int8)
    return presets


@pytest.mark.parametrize("late", [False, True])
def test_oracle_respects_presets_that_agree_with_the_gold(small_docs, trained, late):
    parser, docs = trained
    rng = numpy.random.default_rng(0)
    for doc in docs:
        heads, labels, starts = to_engine_numbering(doc)
        for _ in range(3):
            presets = _presets_from(rng, doc.sent_starts)
            actions = oracle_actions(heads, labels, starts, len(parser.labels), late=late,
                                     fixed_starts=presets)
            h, l, s, final = replay(len(doc), len(parser.labels), actions, fixed_starts=presets)
            assert final and list(h[1:]) == heads[1:] and list(s[1:]) == starts[1:]


def _check_parse(heads, starts, presets):
    assert starts[0]
    assert all(starts[presets == 1]), "a forced boundary is missing"
    assert not any(starts[1:][presets[1:] == 0]), "a forbidden boundary is present"
    assert tree_problem(list(heads), list(starts)) is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_parse_keeps_random_presets(trained, data):
    parser, docs = trained
    doc = docs[data.draw(st.integers(0, len(docs) - 1))]
    presets = numpy.asarray(data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=len(doc),
                                               max_size=len(doc))), dtype=numpy.int8)
    width = data.draw(st.sampled_from([1, 4]))
    bias = data.draw(st.sampled_from([-5.0, 0.0, 5.0]))
    heads, labels, starts, probs = parser.engine.parse(doc.attrs, width, presets, True, sb_bias=bias,
                                                       return_probs=True)
    _check_parse(heads, starts, presets)
    assert ((probs >= 0) & (probs <= 1)).all()
    assert (probs[presets == 1] == 1.0).all() and (probs[1:][presets[1:] == 0] == 0.0).all()
    assert probs[0] == 1.0


def test_training_with_presets(small_docs):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 12)
    docs = encode(parser, small_docs)
    rng = numpy.random.default_rng(1)
    for doc in docs:
        doc.presets = _presets_from(rng, doc.sent_starts)
    stats = parser.train_epoch(docs, update="dlaso", beam_width=4)
    assert stats["docs"] == len(docs)
    for doc, parse in zip(docs, parser.parse(docs, beam_width=4)):
        _check_parse(parse.heads, parse.sent_starts, doc.presets)


def test_no_presets_equals_all_free(trained):
    parser, docs = trained
    for doc in docs:
        free = numpy.full((len(doc),), -1, dtype=numpy.int8)
        a = parser.engine.parse(doc.attrs, 4, None, True)
        b = parser.engine.parse(doc.attrs, 4, free, True)
        c = parser.engine.parse(doc.attrs, 4, None, True, sb_bias=0.0, return_probs=True)
        for x, y, z in zip(a, b, c):
            assert numpy.array_equal(x, y) and numpy.array_equal(x, z)


def test_probabilities_and_bias(trained):
    parser, docs = trained
    for doc in docs:
        greedy = parser.engine.parse(doc.attrs, 1, None, True, return_probs=True)
        assert set(numpy.unique(greedy[3])) <= {0.0, 1.0}
        assert numpy.array_equal(greedy[3] == 1.0, greedy[2])
        beam = parser.engine.parse(doc.attrs, 8, None, True, return_probs=True)
        assert ((beam[3] >= 0) & (beam[3] <= 1)).all()
        assert (beam[3][beam[2]] > 0).all()    # the best item's boundaries have weight
    counts = []
    for bias in (-5.0, -1.0, 0.0, 1.0, 5.0):
        counts.append(sum(int(p.sent_starts.sum()) for p in parser.parse(docs, beam_width=4, sb_bias=bias)))
    assert counts == sorted(counts) and counts[0] < counts[-1]
