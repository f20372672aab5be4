"""Every public entry point of the engine checks its arguments and raises ValueError (OracleError
is one) instead of reading or writing out of bounds: each case below crashed the interpreter or
silently misread memory before these checks (setup.py builds with boundscheck=False, which also drops
the checks on Python-list indexing)."""
import numpy
import pytest

from spacy_joint_sbd.learn import make_learner
from spacy_joint_sbd.transition import Engine, OracleError, n_classes_for, oracle_actions
from spacy_joint_sbd.transition.beam import MAX_BEAM_WIDTH
from spacy_joint_sbd.transition.moves import move_name
from spacy_joint_sbd.transition.oracle import mpc_roots, projective_order
from spacy_joint_sbd.transition.stateclass import StateClass
from spacy_joint_sbd.transition.testing import gold_score, replay, state_features

LEARNER = make_learner("perceptron")


@pytest.fixture
def engine():
    return Engine(2, 2, 0, 1, (), n_rows=1 << 8)


@pytest.fixture
def attrs():
    return numpy.arange(6, dtype=numpy.uint64).reshape(3, 2)


def test_gold_score_checks_moves(engine, attrs):
    with pytest.raises(OracleError, match="LEFTARC .* invalid at step 0"):
        gold_score(engine, attrs, [3])  # LEFTARC on the initial state: was a NULL dereference
    with pytest.raises(ValueError, match="class id"):
        gold_score(engine, attrs, [0, 99])
    with pytest.raises(OracleError):
        state_features(engine, attrs, [0, 1])  # SWAP with the root as s1
    assert gold_score(engine, attrs, [0, 0]) == 0.0


@pytest.mark.parametrize("gold", [[0, 10 ** 6], [0, -5], [0, 2 ** 40], [[0]], [0.5], "ab"])
def test_train_checks_class_ids(engine, attrs, gold):
    with pytest.raises(ValueError):  # 10**6 was written through SparseUpdate.apply: segfault
        engine.train(attrs, gold, "dlaso", 2, LEARNER)


def test_train_checks_update_learner_and_width(engine, attrs):
    gold = oracle_actions([0, 2, 0, 2], [0, 0, 0, 0], [0, 1, 0, 0], 2)
    with pytest.raises(ValueError, match="unknown update"):
        engine.train(attrs, gold, "beam", 2, LEARNER)
    with pytest.raises(ValueError, match="learner"):
        engine.train(attrs, gold, "dlaso", 2, "pa")
    for width in (0, -3, MAX_BEAM_WIDTH + 1, 2 ** 31, 1.5):  # 0 and -3 were heap overflows
        with pytest.raises(ValueError, match="beam_width"):
            engine.train(attrs, gold, "early", width, LEARNER)
    assert engine.train(attrs, gold, "early", 2, LEARNER)["n_gold"] == len(gold)


def test_oracle_checks_lengths_and_ranges():
    with pytest.raises(ValueError, match="same length"):
        oracle_actions([0, 2, 0, 2] * 1000, [0], [0, 1], 2)  # read past the labels: segfault
    with pytest.raises(ValueError, match="same length"):
        oracle_actions([0, 0, 1, 2], [0, 0, 0, 0], [0], 2)
    with pytest.raises(ValueError, match="label id"):
        oracle_actions([0, 0], [0, 7], [0, 1], 2)  # was class 12 of 7, accepted
    with pytest.raises(ValueError, match="n_labels"):
        oracle_actions([0, 0], [0, 0], [0, 1], 0)  # label_of divides by n_labels
    with pytest.raises(ValueError, match="integers"):
        oracle_actions([0, 0.5], [0, 0], [0, 1], 2)
    with pytest.raises(ValueError, match="index 0"):
        oracle_actions([], [], [], 2)
    with pytest.raises(OracleError):
        oracle_actions([0, 10 ** 12], [0, 0], [0, 1], 2)
    with pytest.raises(ValueError, match="heads"):
        projective_order([0], 5)
    with pytest.raises(ValueError, match="starts"):
        mpc_roots([0, 0, 1], [0], 2)


def test_replay_checks_fixed_starts_and_classes():
    with pytest.raises(ValueError, match="fixed_starts"):
        replay(5, 2, [0] * 5, fixed_starts=[True])
    with pytest.raises(ValueError, match="class id"):
        replay(3, 2, [0, 99])  # was read as RIGHTARC with label 99 % 2
    with pytest.raises(ValueError, match="tokens"):
        replay(-1, 2, [])
    with pytest.raises(OracleError, match="invalid at step 1"):
        replay(3, 2, [0, 3])


def test_stateclass_refuses_invalid_moves():
    state = StateClass(3, 2)
    for call in (lambda: state.apply("LEFTARC"), lambda: state.apply_clas(3),
                 lambda: state.apply("SWAP")):
        with pytest.raises(ValueError, match="not valid"):
            call()  # apply(check=False) and apply_clas were segfaults
    assert state.stack == [0] and state.buffer == [1, 2, 3]  # unchanged
    with pytest.raises(ValueError, match="class"):
        state.apply_clas(99)
    with pytest.raises(ValueError, match="unknown move"):
        state.apply("REDUCE")
    with pytest.raises(ValueError, match="label"):
        state.apply("SHIFT").apply("SHIFT").apply("LEFTARC", 5)
    with pytest.raises(ValueError, match="n_labels"):
        StateClass(3, 0)
    with pytest.raises(ValueError, match="tokens"):
        StateClass(-3, 2)
    with pytest.raises(ValueError, match="class"):
        move_name(-5, 2)  # indexed a tuple at -5 without wraparound
    with pytest.raises(ValueError, match="n_labels"):
        n_classes_for(0)


@pytest.mark.parametrize("bad", [
    numpy.ones(3, dtype=numpy.uint64), numpy.ones((3, 2, 1), dtype=numpy.uint64),
    numpy.ones((3, 5), dtype=numpy.uint64), numpy.ones((3, 2)) * 1.5, [[1, 2], [3]], "text",
    [[2 ** 64, 0]], [[0.5, 1]]])
def test_attrs_of_the_wrong_shape_or_type(engine, bad):
    with pytest.raises(ValueError, match="attrs"):
        engine.parse(bad)
    with pytest.raises(ValueError, match="attrs"):
        engine.train(bad, [0], "greedy", 1, LEARNER)


def test_attrs_accepted(engine):
    ref = engine.parse(numpy.arange(6, dtype=numpy.uint64).reshape(3, 2))
    for same in (numpy.arange(6, dtype=numpy.int32).reshape(3, 2), [[0, 1], [2, 3], [4, 5]],
                 numpy.asfortranarray(numpy.arange(6, dtype=numpy.uint64).reshape(3, 2))):
        assert all(numpy.array_equal(a, b) for a, b in zip(ref, engine.parse(same)))
    assert engine.parse(numpy.zeros((0, 2)))[0].shape == (0,)  # empty: any numeric dtype
    # signed ids are taken modulo 2**64, as numpy casts them
    wrapped = engine.parse(numpy.asarray([[2 ** 64 - 1, 0]], dtype=numpy.uint64))
    assert all(numpy.array_equal(a, b) for a, b in zip(wrapped, engine.parse([[-1, 0]])))


@pytest.mark.parametrize("width", [0, -1, MAX_BEAM_WIDTH + 1, 2 ** 30, 2 ** 31 - 1, 1.5, "4", None])
def test_beam_width_is_bounded(engine, attrs, width):
    # 2**30 · n_classes overflowed an int and the unchecked malloc result was written to
    with pytest.raises(ValueError, match="beam_width"):
        engine.parse(attrs, width)


def test_engine_and_weights_sizes():
    with pytest.raises(ValueError, match="n_rows"):
        Engine(2, 2, n_rows=0)
    with pytest.raises(ValueError, match="n_rows"):
        Engine(2, 2, n_rows=-5)
    with pytest.raises(ValueError, match="n_labels"):
        Engine(2 ** 30, 2)  # n_classes overflowed to a negative int
    with pytest.raises(ValueError, match="extra_cols"):
        Engine(2, 2, 0, 1, [0] * 13)  # MAX_EXTRA = 12
    with pytest.raises(ValueError, match="extra_cols"):
        Engine(2, 2, 0, 1, [5])


def test_objects_made_without_init():
    """`cls.__new__(cls)` skips __init__: the C pointers are NULL and the sizes 0 (a division by
    zero or a NULL dereference before)."""
    from spacy_joint_sbd.learn import HashedWeights, SparseUpdate

    with pytest.raises(ValueError, match="not initialised"):
        Engine.__new__(Engine).parse(numpy.zeros((2, 0), dtype=numpy.uint64))
    with pytest.raises(ValueError, match="not initialised"):
        StateClass.__new__(StateClass).apply("SHIFT")
    with pytest.raises(ValueError, match="not initialised"):
        StateClass.__new__(StateClass).stack
    with pytest.raises(ValueError, match="not initialised"):
        HashedWeights.__new__(HashedWeights).score([1])
    with pytest.raises(ValueError, match="not initialised"):
        HashedWeights.__new__(HashedWeights).update([1], 0, 1.0)
    with pytest.raises(ValueError, match="not initialised"):
        SparseUpdate.__new__(SparseUpdate).add([1], 0, 1.0)


@pytest.mark.parametrize("fixed", [[2, 0, 0], [0, -2, 0], ["a", "b", "c"], [0.5, 0.0, 1.0], [None, "x", None],
                                   [None, 1.5, None], [True, False], [[1, 0, 1]], "abc", 7])
def test_presets_are_checked(engine, attrs, fixed):
    with pytest.raises(ValueError, match="fixed_starts"):
        engine.parse(attrs, 2, fixed)
    with pytest.raises(ValueError, match="fixed_starts"):
        engine.train(attrs, [0, 0, 0, 4, 4, 4], "greedy", 1, LEARNER, fixed)
    with pytest.raises(ValueError, match="fixed_starts"):
        replay(3, 2, [], fixed_starts=fixed)


@pytest.mark.parametrize("fixed", [None, [True, False, True], [1, 0, -1], [None, True, False],
                                   numpy.asarray([1, -1, 0], dtype=numpy.int8), numpy.full(3, -1)])
def test_presets_accepted(engine, attrs, fixed):
    heads, labels, starts = engine.parse(attrs, 2, fixed)
    assert len(heads) == 3 and starts[0]


@pytest.mark.parametrize("bias", [float("nan"), float("inf"), -float("inf"), 1e300, "1", True, None, [1.0]])
def test_sb_bias_is_checked(engine, attrs, bias):
    with pytest.raises(ValueError, match="sb_bias"):
        engine.parse(attrs, 2, None, sb_bias=bias)


def test_probs_of_empty_and_tiny_documents(engine):
    empty = numpy.zeros((0, 2), dtype=numpy.uint64)
    assert [len(x) for x in engine.parse(empty, 2, None, return_probs=True)] == [0, 0, 0, 0]
    one = numpy.zeros((1, 2), dtype=numpy.uint64)
    assert engine.parse(one, 3, [None], sb_bias=-2, return_probs=True)[3].tolist() == [1.0]


@pytest.mark.parametrize("scores", [[0.0, float("nan"), 0.0], [float("inf"), 0, 0], [0, 0, -float("inf")],
                                    [0, 2e30, 0], [0.0, 0.0], [[0.0, 0.0, 0.0]], ["a", "b", "c"]])
def test_sb_scores_are_checked(engine, attrs, scores):
    with pytest.raises(ValueError, match="sb_scores"):
        engine.parse(attrs, 2, None, sb_scores=scores)


@pytest.mark.parametrize("scores", [[0.0, 0.0, 0.0], [1e29, -1e29, 3.5], numpy.zeros(3, dtype=numpy.float64),
                                    numpy.arange(3)])
def test_sb_scores_accepted(engine, attrs, scores):
    assert len(engine.parse(attrs, 2, None, sb_scores=scores)[0]) == 3


def test_start_probs_follow_the_beam_and_the_presets():
    """Probabilities lie in [0, 1], are 1.0 at forced starts and token 0, 0.0 at forbidden ones,
    and 0 / 1 wherever every final item agrees (beam 1: everywhere)."""
    rng = numpy.random.default_rng(3)
    engine = Engine(2, 2, 0, 1, (), n_rows=1 << 8)
    engine.weights.set_params({"W": rng.normal(size=(1 << 8, n_classes_for(2))).astype(numpy.float32)})
    attrs = rng.integers(0, 50, size=(40, 2)).astype(numpy.uint64)
    fixed = numpy.full(40, -1, dtype=numpy.int8)
    fixed[[5, 17]] = 1
    fixed[[9, 30]] = 0
    for width in (1, 8):
        for bias in (-1.0, 0.0, 2.0):
            _, _, starts, probs = engine.parse(attrs, width, fixed, sb_bias=bias, return_probs=True)
            assert ((probs >= 0.0) & (probs <= 1.0)).all()
            assert probs[0] == 1.0 and probs[5] == 1.0 and probs[17] == 1.0 and probs[9] == 0.0 and probs[30] == 0.0
            if width == 1:
                assert (probs == starts.astype(float)).all()
