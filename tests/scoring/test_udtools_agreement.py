"""Our scorer against the official CoNLL 2018 evaluator (udtools) on perturbed EWT predictions.

udtools is a test requirement: a missing evaluator fails the suite instead of skipping the check."""
import random
from copy import deepcopy

import pytest

from spacy_joint_sbd.corpus.record import ROOT
from spacy_joint_sbd.corpus.writer import write_conllu
from spacy_joint_sbd.scoring import score_records

from udtools import udeval


def _descendant(heads, node, anc):
    """Is `node` a descendant of `anc` (or anc itself)?"""
    seen = 0
    while node != ROOT and seen <= len(heads):
        if node == anc:
            return True
        node = heads[node]
        seen += 1
    return False


def perturb(rec, rng):
    """Move sentence boundaries, then change heads and labels; the result is a valid forest."""
    p = deepcopy(rec)
    n = len(p.words)
    starts = list(p.sent_starts)
    for i in range(1, n):
        r = rng.random()
        if starts[i] and r < 0.15:
            starts[i] = False  # drop a boundary
            j = min(n - 1, i + rng.randint(1, 3))
            if rng.random() < 0.5:
                starts[j] = True  # ... or move it to the right
        elif not starts[i] and r < 0.02:
            starts[i] = True  # add a boundary
    starts[0] = True
    p.sent_starts = starts
    heads = list(p.heads)
    for s, e in p.sentences():
        inside = range(s, e)
        gold_roots = [i for i in inside if heads[i] == ROOT]
        root = gold_roots[0] if gold_roots else s
        heads[root] = ROOT
        for i in inside:
            if i != root and (heads[i] == ROOT or not (s <= heads[i] < e)):
                heads[i] = root
        for i in inside:
            if i != root and rng.random() < 0.1:
                h = rng.randrange(s, e)
                if h != i and not _descendant(heads, h, i):
                    heads[i] = h
    p.heads = heads
    labels = sorted(set(rec.deps))
    p.deps = [rng.choice(labels) if rng.random() < 0.1 and h != ROOT else ("root" if h == ROOT else d)
              for d, h in zip(p.deps, heads)]
    return p


def check_agreement(golds, tmp_path, min_changed_docs):
    rng = random.Random(0)
    preds = [perturb(g, rng) for g in golds]
    assert sum(p.sent_starts != g.sent_starts for p, g in zip(preds, golds)) >= min_changed_docs
    write_conllu(golds, tmp_path / "gold.conllu")
    write_conllu(preds, tmp_path / "pred.conllu")
    ours = score_records(preds, golds).scores()
    gold_ud = udeval.load_conllu_file(str(tmp_path / "gold.conllu"))
    pred_ud = udeval.load_conllu_file(str(tmp_path / "pred.conllu"))
    theirs = udeval.evaluate(gold_ud, pred_ud)
    assert theirs["Words"].f1 == pytest.approx(1.0)
    assert 0.5 < ours["dep_las_universal"] < 0.95  # the perturbation really perturbed
    assert abs(100 * ours["dep_uas"] - 100 * theirs["UAS"].f1) < 0.01
    assert abs(100 * ours["dep_las_universal"] - 100 * theirs["LAS"].f1) < 0.01
    assert theirs["Sentences"].f1 < 1.0 and ours["sents_f"] < 1.0


def test_scorer_agrees_with_udtools_on_sample(sample_docs, tmp_path):
    check_agreement(sample_docs, tmp_path, min_changed_docs=10)


@pytest.mark.slow
def test_scorer_agrees_with_udtools_on_ewt_dev(ewt_dev, tmp_path):
    check_agreement(ewt_dev, tmp_path, min_changed_docs=100)
