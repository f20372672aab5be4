"""Each precondition of Figure 2 (bjorkelund2016), pinned on explicit move sequences.

Tokens are 1..n, 0 is the document root; StateClass(n, n_labels, fixed_starts=None) with
fixed_starts None or n bools, 0-based (the library's one convention).
"""
import random

import pytest

from spacy_joint_sbd.transition import Move, n_classes_for
from spacy_joint_sbd.transition.moves import MOVE_NAMES, move_name
from spacy_joint_sbd.transition.stateclass import StateClass


def given(n, starts):
    """fixed_starts for tokens 1..n with the given (1-based) sentence-initial tokens."""
    return [i in starts for i in range(1, n + 1)]


def run(n, moves, **kwargs):
    state = StateClass(n, 2, **kwargs)
    for move in moves:
        state.apply(move)
    return state


def test_move_enum_and_class_layout():
    assert MOVE_NAMES == ("SHIFT", "SWAP", "SB", "LEFTARC", "RIGHTARC")
    assert [m.name for m in Move] == list(MOVE_NAMES)
    assert n_classes_for(2) == 7  # SHIFT, SWAP, SB, LEFTARC × 2, RIGHTARC × 2
    state = StateClass(3, 2)
    assert [state.clas(m, 1) for m in MOVE_NAMES] == [0, 1, 2, 4, 6]
    assert [move_name(c, 2) for c in range(7)] == [
        "SHIFT", "SWAP", "SB", "LEFTARC", "LEFTARC", "RIGHTARC", "RIGHTARC"]


def test_initial_state_only_shift():
    state = StateClass(3, 2)
    assert state.stack == [0] and state.buffer == [1, 2, 3] and state.last_sb == 1
    assert state.valid() == ["SHIFT"]


def test_leftarc_needs_s1_not_root():
    state = run(3, ["SHIFT"])
    assert not state.is_valid("LEFTARC")  # s1 is the root
    state.apply("SHIFT")
    assert state.is_valid("LEFTARC")
    state.apply("LEFTARC", 1)
    assert state.stack == [0, 2]
    assert state.arcs()[0][1] == 2 and state.arcs()[1][1] == 1


def test_swap_needs_s1_before_s0_and_not_root():
    state = run(3, ["SHIFT"])
    assert not state.is_valid("SWAP")  # s1 = root
    state.apply("SHIFT")
    assert state.is_valid("SWAP")
    state.apply("SWAP")
    assert state.stack == [0, 2] and state.buffer == [1, 3] and state.swapped
    state.apply("SHIFT")
    assert state.stack == [0, 2, 1]
    assert not state.is_valid("SWAP")  # s1 = 2 > s0 = 1


def test_shift_blocked_at_last_boundary_unless_stack_is_root():
    state = run(4, ["SHIFT", "SHIFT", "SB"])
    assert state.last_sb == 3 and state.buffer[0] == 3
    assert not state.is_valid("SHIFT")  # b0 = LAST(S), |σ| > 1
    state.apply("LEFTARC", 0).apply("RIGHTARC", 0)
    assert state.stack == [0]
    assert state.is_valid("SHIFT")  # |σ| = 1: the sentence is complete


def test_shift_allowed_at_last_boundary_when_swapped():
    state = run(4, ["SHIFT", "SHIFT", "SB", "SWAP"])
    assert state.buffer == [1, 3, 4] and state.swapped
    assert state.last_sb == 3 > state.buffer[0]
    assert state.is_valid("SHIFT")  # SWAPPED(β)
    state.apply("SHIFT")
    assert state.buffer[0] == 3 and not state.swapped
    assert not state.is_valid("SHIFT")  # back at LAST(S) with |σ| > 1


def test_sb_needs_last_before_b0_and_no_swapped_items():
    state = run(4, ["SHIFT"])
    assert state.is_valid("SB")  # LAST(S) = 1 < b0 = 2
    state.apply("SB")
    assert not state.is_valid("SB")  # LAST(S) = b0
    state = run(4, ["SHIFT", "SHIFT", "SWAP"])
    assert state.swapped and not state.is_valid("SB")
    assert not StateClass(1, 2).apply("SHIFT").is_valid("SB")  # empty buffer


def test_one_root_per_sentence():
    # RIGHTARC to the root is blocked while items are swapped back into the buffer
    state = run(4, ["SHIFT", "SHIFT", "SHIFT", "SWAP", "RIGHTARC"])
    assert state.stack == [0, 1] and state.swapped
    assert not state.is_valid("RIGHTARC")
    # attaching a root mid-text closes the sentence: only SB (a late boundary) may follow
    state = run(4, ["SHIFT", "SHIFT", "LEFTARC", "RIGHTARC"])
    assert state.stack == [0] and state.valid() == ["SB"]
    state.apply("SB").apply("SHIFT")
    assert state.arcs()[2] == [False, True, False, True, False]


def test_given_boundaries():
    state = StateClass(4, 2, fixed_starts=given(4, {1, 3}))
    state.apply("SHIFT")
    assert not state.is_valid("SB")  # b0 = 2 is not a given start
    assert not state.is_valid("RIGHTARC")  # sentence 1..2 not complete
    state.apply("SHIFT")
    assert state.valid() == ["SWAP", "SB", "LEFTARC", "RIGHTARC"]
    state.apply("LEFTARC")
    assert not state.is_valid("SHIFT")  # may not pass the given start at 3
    assert state.valid() == ["SB", "RIGHTARC"]


def random_derivation(n, rng, fixed=None):
    state = StateClass(n, 3, fixed_starts=None if fixed is None else given(n, set(fixed)))
    steps = 0
    while not state.is_final:
        valid = state.valid()
        assert valid, f"dead end in {state}"
        move = rng.choice(valid)
        state.apply(move, rng.randrange(3))
        steps += 1
        assert steps < 4 * n * n + 10
    return state.arcs()


@pytest.mark.parametrize("seed", range(40))
def test_random_derivations_give_one_tree_per_predicted_sentence(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    fixed = None
    if seed % 2:
        fixed = sorted({1} | {rng.randint(1, n) for _ in range(rng.randint(0, 3))})
    heads, labels, starts = random_derivation(n, rng, fixed)
    if fixed is not None:
        assert [i for i in range(1, n + 1) if starts[i]] == fixed
    sent = [0] * (n + 1)
    for i in range(1, n + 1):
        sent[i] = sent[i - 1] + (1 if starts[i] else 0)
    roots = {}
    for i in range(1, n + 1):
        assert heads[i] >= 0, "every token gets a head"
        if heads[i] == 0:
            assert sent[i] not in roots, "one root per predicted sentence"
            roots[sent[i]] = i
        else:
            assert sent[heads[i]] == sent[i], "heads never cross a boundary"
    assert set(roots) == set(sent[1:])
    for i in range(1, n + 1):  # acyclic
        seen, j = set(), i
        while j:
            assert j not in seen
            seen.add(j)
            j = heads[j]
