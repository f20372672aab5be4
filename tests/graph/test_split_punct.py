"""Li et al. §II.A on hand-made trees: split punctuation, fragments, sub-roots of type 1 / 2,
WF / IF, the FRG and INTER training structures and Table I; forest decoding against brute
force; and the two facts the two-stage parser relies on, on every EWT dev sentence."""
import random

import numpy
import pytest

from brute_force import projective_trees, second_order_score
from spacy_joint_sbd.corpus.record import DocRecord
from spacy_joint_sbd.graph.forest import decode_forest
from spacy_joint_sbd.graph.split_punct import (
    analyse, format_table1, frg_structure, induced_heads, inter_nodes, is_split_punct, is_tree,
    segment, split_chars, sub_root_types, table1_stats)

# "He said , we won ." -- two WF fragments.
SAID = (["He", "said", ",", "we", "won", "."], [1, -1, 1, 4, 1, 1])
# "I saw cats , dogs and birds ." (UD: the comma on the next conjunct) -- two IF fragments;
# "cats" heads "dogs" across the comma: a type-2 sub-root.
CATS = (["I", "saw", "cats", ",", "dogs", "and", "birds", "."], [1, -1, 1, 4, 2, 6, 2, 1])


@pytest.mark.parametrize("word,expected", [
    (",", True), (".", True), ("...", True), ("?!", True), (";", True), (":", True),
    ("，", True), ("。", True), ("？", True), ("！", True), ("：", True), ("；", True),
    ("、", False), (":)", False), ("e.g.", False), ("-", False), ('"', False), ("", False),
])
def test_split_punctuation(word, expected):
    assert is_split_punct(word) is expected


def test_ideographic_comma_is_an_option():
    assert is_split_punct("、", split_chars(ideographic_comma=True))
    assert segment(["甲", "、", "乙"]) == [(0, 3)]
    assert segment(["甲", "、", "乙"], split_chars(ideographic_comma=True)) == [(0, 1), (2, 3)]


def test_segment_skips_empty_fragments():
    assert segment([",", "a", ",", ",", "b", "c", "."]) == [(1, 2), (4, 6)]
    assert segment(["!", "..."]) == []
    assert segment(["a", "b"]) == [(0, 2)]
    assert segment([]) == []


def test_well_formed_fragments():
    words, heads = SAID
    frags = analyse(words, heads)
    assert [(f.start, f.end) for f in frags] == [(0, 2), (3, 5)]
    assert [f.sub_roots for f in frags] == [(1,), (4,)]
    assert [f.type2 for f in frags] == [(), ()]
    assert all(f.well_formed for f in frags)


def test_ill_formed_fragments_and_type2():
    words, heads = CATS
    assert sub_root_types(heads, segment(words)) == {1: 1, 2: 2, 4: 1, 6: 1}
    f0, f1 = analyse(words, heads)
    assert (f0.sub_roots, f0.type2, f0.type1) == ((1, 2), (2,), (1,))
    assert (f1.sub_roots, f1.type2) == ((4, 6), ())
    assert not f0.well_formed and not f1.well_formed


def test_a_token_heading_split_punctuation_is_a_sub_root():
    # "a b , c": the comma hangs on "b", the fragment's non-root token: b becomes type 2.
    words, heads = ["a", "b", ",", "c"], [-1, 0, 1, 0]
    assert sub_root_types(heads, segment(words)) == {0: 1, 1: 2, 3: 1}


def test_chinese_full_width():
    # 我 看 ， 他 走 。 : 看 root, 走 conj of 看, punctuation on 看.
    words, heads = ["我", "看", "，", "他", "走", "。"], [1, -1, 1, 4, 1, 1]
    assert [(f.start, f.end, f.sub_roots) for f in analyse(words, heads)] == [(0, 2, (1,)), (3, 5, (4,))]


def test_frg_and_inter_structures():
    words, heads = CATS
    f0, f1 = analyse(words, heads)
    assert frg_structure(heads, f0) == [1, -1, -1]
    assert frg_structure(heads, f1) == [-1, 2, -1]
    nodes = inter_nodes(words, f0.sub_roots + f1.sub_roots)
    assert nodes == [1, 2, 3, 4, 6, 7]
    assert induced_heads(heads, nodes) == [-1, 0, 3, 1, 1, 0]
    assert induced_heads(heads, [1, 4]) is None  # 4's head (2) is missing


def test_is_tree():
    assert is_tree([-1]) and is_tree([1, -1, 1])
    assert not is_tree([-1, -1]) and not is_tree([1, 0]) and not is_tree([2, -1, 0, 2])
    assert not is_tree([0]) and not is_tree([5, -1])


def _record(*sents):
    words, heads, starts = [], [], []
    for w, h in sents:
        off = len(words)
        words += w
        heads += [x + off if x >= 0 else -1 for x in h]
        starts += [True] + [False] * (len(w) - 1)
    n = len(words)
    return DocRecord("d", words, [True] * n, words, ["X"] * n, ["X"] * n, ["_"] * n, heads,
                     ["dep"] * n, starts)


def test_table1():
    stats = table1_stats([_record(SAID, CATS), _record((["Hi"], [-1]))])
    assert {k: stats[k] for k in ("sentences", "fragments", "wf", "sub_roots", "sub_roots_type2",
                                  "split_punct", "tokens")} == {
        "sentences": 3, "fragments": 5, "wf": 3, "sub_roots": 7, "sub_roots_type2": 1,
        "split_punct": 4, "tokens": 15}
    table = format_table1({"toy": stats})
    assert "| toy | 3 | 5 | 3 | 7 | 1 |" in table


def _forests(n):
    """All projective forests of n tokens: projective trees of n + 1 tokens rooted at token 0."""
    trees = projective_trees(n + 1)
    return [[-1 if h == 0 else h - 1 for h in t[1:]] for t in trees.tolist() if t[0] == -1]


@pytest.mark.parametrize("n", range(1, 6))
def test_forest_decoding_equals_brute_force(n):
    rng = numpy.random.default_rng(n)
    forests = _forests(n)
    for _ in range(8):
        arc = rng.normal(size=(n + 1, n + 1))
        sib = rng.normal(size=(n + 1, n + 1, n + 1))
        for s in (None, sib):
            score = (lambda f: second_order_score(f, arc, s)) if s is not None else \
                (lambda f: sum(arc[h + 1, d + 1] for d, h in enumerate(f)))
            best = max(score(f) for f in forests)
            got = decode_forest(arc, s)
            assert got in forests
            assert score(got) == pytest.approx(best)


def test_forest_decoding_allows_many_roots():
    arc = numpy.full((4, 4), -5.0)
    arc[0, 1:] = 5.0
    assert decode_forest(arc) == [-1, -1, -1]
    assert decode_forest(numpy.zeros((1, 1))) == []


def test_gold_structures_on_ewt_dev(ewt_dev):
    """The sub-roots and split punctuation are closed under heads (the INTER structure is a tree)
    and each fragment's FRG structure is a forest whose roots are exactly its sub-roots."""
    n_sents = 0
    for rec in ewt_dev:
        for start, end in rec.sentences():
            words = rec.words[start:end]
            heads = [h - start if h >= 0 else -1 for h in rec.heads[start:end]]
            frags = analyse(words, heads)
            nodes = inter_nodes(words, [r for f in frags for r in f.sub_roots])
            sub = induced_heads(heads, nodes)
            assert sub is not None and is_tree(sub)
            for f in frags:
                fh = frg_structure(heads, f)
                assert all(-1 <= h < len(f) for h in fh)
                assert [f.start + i for i, h in enumerate(fh) if h < 0] == list(f.sub_roots)
            n_sents += 1
    assert n_sents == 2001
