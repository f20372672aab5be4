"""Masks and checker agree on real trees: EWT dev gold trees, decoded with scores that make the
gold tree the unique best, come back unchanged under exactly the constraints they satisfy."""
import numpy
import pytest

from spacy_joint_sbd.graph.constraints import ALL_CONSTRAINTS, build_masks, satisfies
from spacy_joint_sbd.graph.eisner import eisner
from spacy_joint_sbd.graph.eisner2 import eisner2
from spacy_joint_sbd.graph.punct_fragments import fragments, strip_punct, word_fragments
from spacy_joint_sbd.graph.stats import constraint_stats, format_stats, is_projective


def gold_sentences(records, strip):
    for rec in records:
        for start, end in rec.sentences():
            heads = [h - start if h >= 0 else -1 for h in rec.heads[start:end]]
            is_punct = [u == "PUNCT" for u in rec.upos[start:end]]
            if not fragments(is_punct):
                continue
            if strip:
                heads, _ = strip_punct(heads, is_punct)
                frags = word_fragments(is_punct)
            else:
                frags = fragments(is_punct)
            if heads.count(-1) == 1 and is_projective(heads):
                yield heads, frags


def gold_scores(heads):
    n = len(heads)
    arc = numpy.zeros((n + 1, n + 1))
    for d, h in enumerate(heads):
        arc[h + 1, d + 1] = 1.0
    return arc


@pytest.mark.slow
@pytest.mark.parametrize("strip", [True, False], ids=["stripped", "with_punct"])
def test_gold_trees_agree_with_checker(ewt_dev, strip):
    kept = {name: 0 for name in ALL_CONSTRAINTS}
    changed = {name: 0 for name in ALL_CONSTRAINTS}
    for i, (heads, frags) in enumerate(gold_sentences(ewt_dev, strip)):
        arc = gold_scores(heads)
        sib = numpy.zeros((len(heads) + 1,) * 3) if i % 10 == 0 and len(heads) < 60 else None
        for name in ALL_CONSTRAINTS:
            masks = build_masks(len(heads), frags, name)
            decoded, score = eisner(arc, masks)
            if satisfies(heads, frags, name):
                assert decoded == heads, (name, heads, frags)
                kept[name] += 1
            else:
                assert decoded is None or (score < len(heads) and decoded != heads)
                assert decoded is None or satisfies(decoded, frags, name)
                changed[name] += 1
            if sib is not None:
                decoded2, score2 = eisner2(arc, sib, masks)
                assert score2 == score  # trees may differ in ties
                assert decoded2 == decoded or satisfies(decoded2, frags, name)
    assert changed["none"] == 0
    for name in ("loose", "sprawl", "tear", "thread"):
        assert kept[name] > 100 and changed[name] > 5, (kept, changed)


@pytest.mark.slow
def test_stats_on_ewt_dev(ewt_dev):
    stats = constraint_stats(ewt_dev)
    assert stats["sentences"] == sum(len(r.sentences()) for r in ewt_dev)
    assert 0 < stats["punctuated_sentences"] < stats["sentences"]
    assert stats["multi_token_fragments"] <= stats["fragments"]
    pct = [stats["percent"][c] for c in ("strict", "loose", "sprawl", "tear", "thread")]
    assert pct == sorted(pct) and 0 < pct[0] and pct[-1] <= 100.0
    text = format_stats(stats, title="EWT dev")
    assert "sprawl" in text and "92.9" in text


def test_fragments_and_strip():
    P, W = True, False
    assert fragments([W, W, P]) == []
    assert fragments([P, W, P, W, W, P]) == [(1, 1), (3, 4)]
    assert word_fragments([P, W, P, W, W, P]) == [(0, 0), (1, 2)]
    # "a , b c": c heads everything; the comma (1) heads b (2): b goes up to c.
    assert strip_punct([3, 3, 1, -1], [W, P, W, W]) == ([2, 2, -1], [0, 2, 3])
