"""Fuzzing the engine API with Hypothesis: random move sequences, class ids, label and
start lists, attribute arrays, beam widths and feature keys go into `StateClass`, `replay`,
`oracle_actions`, `gold_score`, `Engine.parse`, `Engine.train`, `HashedWeights` and
`SparseUpdate`. Nothing may crash the interpreter: each call either succeeds or raises ValueError
(OracleError is one); valid inputs give well-formed trees (and the oracle round trip holds).

Budget: a few dozen examples per property in the normal run (a few seconds, derandomized so CI
is reproducible); `SJS_FUZZ_EXAMPLES=5000` runs that many per property with fresh randomness, best
on an AddressSanitizer build (see setup.py), which also reports out-of-bounds reads that happen
not to crash:
    CFLAGS=-fsanitize=address LDFLAGS=-fsanitize=address python setup.py build_ext --inplace
    LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
        SJS_FUZZ_EXAMPLES=5000 python -m pytest tests/transition/test_fuzz.py --hypothesis-show-statistics
"""
import os
from collections import Counter

import numpy
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from spacy_joint_sbd.learn import HashedWeights, SparseUpdate, make_learner
from spacy_joint_sbd.transition import Engine, Move, OracleError, n_classes_for, oracle_actions
from spacy_joint_sbd.transition.stateclass import StateClass
from spacy_joint_sbd.transition.testing import gold_score, replay
from spacy_joint_sbd.transition.updates import UPDATES

EXAMPLES = int(os.environ.get("SJS_FUZZ_EXAMPLES", "0"))
MIN_ACCEPTED = 3
"""The fewest inputs a property that refuses bad ones must still accept in its run."""


def budget(default):
    return settings(max_examples=EXAMPLES or default, deadline=None, database=None,
                    derandomize=not EXAMPLES,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


N_LABELS = 3
N_ATTRS = 3
NC = n_classes_for(N_LABELS)
ENGINE = Engine(N_LABELS, N_ATTRS, 0, 1, [2], n_rows=1 << 10)
rng = numpy.random.default_rng(0)
ENGINE.weights.set_params({"W": rng.normal(size=(1 << 10, NC)).astype(numpy.float32)})

# ints that stress conversions: ordinary ids, boundaries, negatives, past int32 / int64 / uint64
wild_ints = st.one_of(st.integers(-3, NC + 3), st.sampled_from(
    [-1, -(1 << 31), (1 << 31) - 1, 1 << 31, 1 << 40, (1 << 63) - 1, 1 << 63, (1 << 64) - 1,
     1 << 64, -(1 << 63), 10 ** 30]))
class_ids = st.integers(0, NC - 1)


# ------------------------------------------------------------------------------ helpers

def check_tree(heads, labels, starts, n, fixed=None):
    """Engine-numbered arrays (index 0 unused, heads 0 = root): one tree per predicted sentence."""
    heads, labels, starts = list(heads), list(labels), list(starts)
    assert len(heads) == len(labels) == len(starts) == n + 1
    if n == 0:
        return
    assert starts[1]
    sent = [0] * (n + 1)
    for i in range(1, n + 1):
        sent[i] = sent[i - 1] + (1 if starts[i] else 0)
        assert 0 <= labels[i] < N_LABELS
    roots = {}
    for i in range(1, n + 1):
        assert 0 <= heads[i] <= n and heads[i] != i
        if heads[i] == 0:
            assert sent[i] not in roots
            roots[sent[i]] = i
        else:
            assert sent[heads[i]] == sent[i]
    assert set(roots) == set(sent[1:])
    for i in range(1, n + 1):
        seen, j = set(), i
        while j:
            assert j not in seen
            seen.add(j)
            j = heads[j]
    if fixed is not None:
        assert [bool(s) for s in starts[1:]] == [bool(f) or i == 0 for i, f in enumerate(fixed)]


def from_parse(parse):
    """Engine.parse output (absolute heads, -1 = root) in engine numbering."""
    heads, labels, starts = parse
    return [0] + [h + 1 for h in heads.tolist()], [0] + labels.tolist(), [0] + starts.tolist()


def random_walk(n, choices, fixed=None):
    """Follow `choices` (indices into the valid classes, cycled) to a final state."""
    state = StateClass(n, N_LABELS, fixed)
    seq, k = [], 0
    while not state.is_final:
        valid = [c for c in range(NC) if state.is_valid_class(c)]
        clas = valid[choices[k % len(choices)] % len(valid)] if choices else valid[0]
        k += 1
        state.apply_clas(clas)
        seq.append(clas)
    return seq, state


fixed_starts_for = lambda n: st.one_of(  # noqa: E731
    st.none(), st.lists(st.booleans(), min_size=n, max_size=n))
bad_fixed_starts = st.one_of(
    st.lists(st.booleans(), max_size=12), st.just("abc"), st.just(7), st.just([[1, 0], [0]]),
    st.just({"a": 1}))


# --------------------------------------------------------------------- StateClass, replay

@budget(150)
@given(n=st.integers(-2, 10), moves=st.lists(st.tuples(
    st.one_of(st.sampled_from([m.name for m in Move]), st.just("NOPE"), st.just(3)),
    st.one_of(st.integers(-2, N_LABELS + 1), st.just(True), st.just(1.5))), max_size=40))
def test_stateclass_random_moves(n, moves):
    try:
        state = StateClass(n, N_LABELS)
    except ValueError:
        assert n < 0
        return
    for move, label in moves:
        try:
            state.apply(move, label)
        except ValueError:
            continue
        assert state.stack[0] == 0 and all(1 <= t <= n for t in state.stack[1:])
    if state.is_final:
        check_tree(*state.arcs(), n)


@budget(150)
@given(n=st.integers(0, 9), classes=st.lists(wild_ints, max_size=40), data=st.data())
def test_stateclass_random_classes(n, classes, data):
    state = StateClass(n, N_LABELS, data.draw(fixed_starts_for(n)))
    for clas in classes:
        try:
            valid = state.is_valid_class(clas)
        except ValueError:
            assert not 0 <= clas < NC
            with pytest.raises(ValueError):
                state.apply_clas(clas)
            continue
        before = (state.stack, state.buffer)
        if valid:
            state.apply_clas(clas)
        else:
            with pytest.raises(ValueError):
                state.apply_clas(clas)
            assert (state.stack, state.buffer) == before
    if state.is_final:
        check_tree(*state.arcs(), n)


@budget(150)
@given(n=st.one_of(st.integers(-2, 9), st.just(1 << 40), st.just(1.5)),
       n_labels=st.one_of(st.integers(-1, 4), st.just(1 << 20)),
       actions=st.one_of(st.lists(wild_ints, max_size=40), st.just([[0]]), st.just(["a"]),
                         st.just([0.5, 1.0])),
       fixed=st.one_of(st.none(), bad_fixed_starts))
def test_replay_never_crashes(n, n_labels, actions, fixed):
    try:
        heads, labels, starts, final = replay(n, n_labels, actions, fixed)
    except ValueError:  # OracleError included
        return
    assert heads.shape == (n + 1,)


@budget(150)
@given(n=st.integers(1, 10), choices=st.lists(st.integers(0, 50), min_size=1, max_size=30),
       data=st.data())
def test_valid_walks_replay_to_trees(n, choices, data):
    fixed = data.draw(fixed_starts_for(n))
    seq, state = random_walk(n, choices, fixed)
    heads, labels, starts, final = replay(n, N_LABELS, seq, fixed)
    assert final
    check_tree(heads, labels, starts, n, fixed)
    assert [heads.tolist(), labels.tolist(), starts.tolist()] == [list(x) for x in state.arcs()]


# ------------------------------------------------------------------------------ oracle

@budget(200)
@given(heads=st.lists(st.one_of(st.integers(-2, 12), wild_ints), max_size=12),
       labels=st.lists(st.one_of(st.integers(-1, N_LABELS), wild_ints), max_size=12),
       starts=st.lists(st.one_of(st.booleans(), st.integers(0, 2)), max_size=12),
       late=st.booleans(), data=st.data())
def test_oracle_random_lists(heads, labels, starts, late, data):
    fixed = data.draw(st.one_of(st.none(), st.lists(st.booleans(), max_size=12)))
    try:
        actions = oracle_actions(heads, labels, starts, N_LABELS, late=late, fixed_starts=fixed)
    except ValueError:  # OracleError included
        return
    n = len(heads) - 1
    H, L, S, final = replay(n, N_LABELS, actions, fixed)
    assert final and H[1:].tolist() == heads[1:] and L[1:].tolist() == labels[1:]
    assert S[1:].tolist() == [bool(s) or i == 1 for i, s in enumerate(starts) if i >= 1]


@budget(150)
@given(n=st.integers(1, 10), choices=st.lists(st.integers(0, 50), min_size=1, max_size=30),
       late=st.booleans(), given_bounds=st.booleans())
def test_oracle_round_trip_on_random_trees(n, choices, late, given_bounds):
    """Any tree the system can build (a random valid walk) is derivable by the oracle."""
    _, state = random_walk(n, choices)
    heads, labels, starts = state.arcs()
    fixed = starts[1:] if given_bounds else None
    actions = oracle_actions(heads, labels, [int(s) for s in starts], N_LABELS, late=late,
                             fixed_starts=fixed)
    H, L, S, final = replay(n, N_LABELS, actions, fixed)
    assert final and H.tolist()[1:] == heads[1:] and L.tolist()[1:] == labels[1:]
    assert S.tolist()[1:] == starts[1:]


# ------------------------------------------------------------------------------ engine

attrs_arrays = st.one_of(
    st.builds(lambda n, k, dt: numpy.ones((n, k), dtype=dt) * 3, st.integers(0, 12),
              st.sampled_from([N_ATTRS, N_ATTRS, 1, 0, 5]),
              st.sampled_from([numpy.uint64, numpy.int64, numpy.int32, numpy.float64, bool])),
    st.builds(lambda n: -numpy.arange(n * N_ATTRS, dtype=numpy.int64).reshape(n, N_ATTRS),
              st.integers(0, 8)),
    st.lists(st.lists(st.one_of(st.integers(0, 5), wild_ints), min_size=N_ATTRS,
                      max_size=N_ATTRS), max_size=6),
    st.just(numpy.ones((3,), dtype=numpy.uint64)), st.just(numpy.ones((2, 3, 1))),
    st.just([[1, 2], [3]]), st.just("text"), st.just(None))
beam_widths = st.one_of(st.integers(1, 9), st.sampled_from(
    [0, -1, 1 << 16, (1 << 16) + 1, 1 << 31, 1 << 40, 1.5, "4", None, True]))


def good_attrs(n):
    return numpy.ascontiguousarray(rng.integers(0, 7, size=(n, N_ATTRS)).astype(numpy.uint64))


def test_parse_random_arguments():
    """Random arguments are refused with a ValueError or parsed into trees; some of them (the
    well-formed ones) must be parsed, or a check that refuses everything would pass."""
    outcomes = Counter()

    @budget(150)
    @given(attrs=attrs_arrays, width=beam_widths, fixed=st.one_of(st.none(), bad_fixed_starts),
           averaged=st.booleans())
    def parse_or_refuse(attrs, width, fixed, averaged):
        if width == 1 << 16:
            width = 3  # valid but slow: covered by test_parse_valid_documents_give_trees' bound
        try:
            parse = ENGINE.parse(attrs, width, fixed, averaged)
        except ValueError:
            outcomes["refused"] += 1
            return
        outcomes["accepted"] += 1
        n = len(parse[0])
        check_tree(*from_parse(parse), n, fixed)

    parse_or_refuse()
    assert outcomes["accepted"] >= MIN_ACCEPTED, outcomes


@budget(100)
@given(n=st.integers(0, 40), width=st.integers(1, 12), data=st.data())
def test_parse_valid_documents_give_trees(n, width, data):
    fixed = data.draw(fixed_starts_for(n))
    parse = ENGINE.parse(good_attrs(n), width, fixed)
    if n:
        check_tree(*from_parse(parse), n, fixed)
    else:
        assert all(len(x) == 0 for x in parse)


def fresh_engine():
    engine = Engine(N_LABELS, N_ATTRS, 0, 1, [2], n_rows=1 << 8)
    engine.weights.set_params({"W": numpy.ones((1 << 8, NC), dtype=numpy.float32)})
    return engine


@budget(150)
@given(attrs=st.one_of(attrs_arrays, st.builds(good_attrs, st.integers(0, 8))),
       gold=st.one_of(st.lists(wild_ints, max_size=30), st.just([[0]]), st.just([0.5]),
                      st.just("ab")),
       update=st.one_of(st.sampled_from(UPDATES), st.just("beam"), st.just(None)),
       width=beam_widths, learner=st.sampled_from(["pa", "perceptron", None, "junk"]),
       fixed=st.one_of(st.none(), bad_fixed_starts))
def test_train_random_arguments(attrs, gold, update, width, learner, fixed):
    if width == 1 << 16:
        width = 3
    engine = fresh_engine()
    before = engine.weights.get_params()["W"].copy()
    learner = make_learner(learner) if learner in ("pa", "perceptron") else learner
    try:
        stats = engine.train(attrs, gold, update, width, learner, fixed)
    except ValueError:
        # a rejected document changes nothing
        assert numpy.array_equal(engine.weights.get_params()["W"], before)
        assert engine.weights.time == 0
        return
    assert 0 <= stats["used"] <= stats["n_gold"] == len(gold)


@budget(100)
@given(n=st.integers(1, 10), choices=st.lists(st.integers(0, 50), min_size=1, max_size=30),
       update=st.sampled_from(UPDATES), width=st.integers(1, 6),
       learner=st.sampled_from(["pa", "perceptron"]), given_bounds=st.booleans(),
       cut=st.one_of(st.none(), st.integers(0, 60)), swap_in=st.one_of(st.none(), class_ids))
def test_train_on_valid_and_broken_gold(n, choices, update, width, learner, given_bounds, cut,
                                        swap_in):
    """Training on a valid gold sequence works and later parses are trees; a truncated or
    altered sequence is rejected with ValueError (or trains, if it is still a valid derivation)."""
    seq, state = random_walk(n, choices)
    fixed = state.arcs()[2][1:] if given_bounds else None
    if given_bounds:
        seq, _ = random_walk(n, choices, fixed)
    if cut is not None:
        seq = seq[:cut]
        if swap_in is not None and seq:
            seq[len(seq) // 2] = swap_in
    engine = fresh_engine()
    attrs = good_attrs(n)
    try:
        engine.train(attrs, seq, update, width, make_learner(learner), fixed)
    except ValueError:
        assert cut is not None
    check_tree(*from_parse(engine.parse(attrs, width, fixed)), n, fixed)


def test_gold_score_random_actions():
    """Random action sequences are refused with a ValueError or scored finitely; some of them
    (the legal ones) must be scored."""
    outcomes = Counter()

    @budget(150)
    @given(attrs=st.one_of(attrs_arrays, st.builds(good_attrs, st.integers(0, 8))),
           actions=st.one_of(st.lists(st.one_of(class_ids, wild_ints), max_size=30), st.just("ab")),
           fixed=st.one_of(st.none(), bad_fixed_starts))
    def score_or_refuse(attrs, actions, fixed):
        try:
            score = gold_score(ENGINE, attrs, actions, fixed)
        except ValueError:
            outcomes["refused"] += 1
            return
        outcomes["accepted"] += 1
        assert numpy.isfinite(score)

    score_or_refuse()
    assert outcomes["accepted"] >= MIN_ACCEPTED, outcomes


# -------------------------------------------------------------------------- learn/

keys = st.one_of(
    st.lists(st.one_of(st.integers(0, 100), wild_ints), max_size=8),
    st.builds(lambda a: numpy.asarray(a, dtype=numpy.int64), st.lists(st.integers(-5, 5), max_size=5)),
    st.just(numpy.zeros((2, 2), dtype=numpy.uint64)), st.just([0.5]), st.just(["x"]))


@budget(200)
@given(n_rows=st.integers(-1, 9), n_classes=st.integers(-1, 4), feats=keys,
       clas=st.one_of(st.integers(-2, 5), wild_ints), delta=st.floats(-2, 2),
       other_rows=st.integers(1, 9))
def test_weights_and_updates_random_arguments(n_rows, n_classes, feats, clas, delta, other_rows):
    try:
        w = HashedWeights(n_rows, n_classes)
    except ValueError:
        assert n_rows < 1 or n_classes < 1
        return
    u = SparseUpdate(n_rows, n_classes)
    for call in (lambda: w.score(feats), lambda: w.update(feats, clas, delta),
                 lambda: u.add(feats, clas, delta), lambda: u.apply(w, 0.5),
                 lambda: u.apply(HashedWeights(other_rows, n_classes)),
                 lambda: u.merge(SparseUpdate(other_rows, n_classes)),
                 lambda: w.tick(clas), lambda: u.apply(None)):
        try:
            call()
        except (ValueError, OverflowError, TypeError):
            pass
    assert numpy.isfinite(w.get_params()["W"]).all()
    assert w.score(numpy.arange(20, dtype=numpy.uint64)).shape == (n_classes,)
