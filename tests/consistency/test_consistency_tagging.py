"""Consistency tagging: certified = brute force over a tiny corpus, zero potentials = Viterbi,
lazy = full on the EWT sample, unknown types and their "+s" neighbours share a node."""
import itertools

import numpy
import pytest

from spacy_joint_sbd.consistency.tagging import build_tagging_mrf, consistency_tag
from spacy_joint_sbd.graph.parser import sentence_tuples
from spacy_joint_sbd.tagger.trigram import TrigramTagger, train_trigram_tagger


@pytest.fixture(scope="module")
def trained(sample_docs):
    sents = [(s[0], s[2]) for s in sentence_tuples(sample_docs)]
    return train_trigram_tagger(sents[:100], epochs=3), [w for w, _ in sents[100:]]


def test_nodes_are_unknown_types_with_plural_neighbours():
    tagger = TrigramTagger(["A", "B"])
    tagger.known = {"the"}
    sents = [["the", "blick", "blicks"], ["The", "blick", "zorp"]]
    problem = build_tagging_mrf(sents, tagger, (1.0, 0.5, 0.0))
    assert problem.types == [("blick", "blicks")]  # zorp occurs once: no node
    assert sorted((w.s, w.m) for w in problem.words) == [(0, 1), (0, 2), (1, 1)]


@pytest.mark.parametrize("seed", range(6))
def test_certified_equals_brute_force(seed):
    """Three tags, random tables, an unknown type in every sentence: brute force over 3^7 taggings."""
    from spacy_joint_sbd.tagger.trigram import word_features

    rng = numpy.random.default_rng(seed)
    tagger = TrigramTagger(["A", "B", "C"], n_rows=1 << 10)
    tagger.emit.set_params({"W": rng.normal(size=(1 << 10, 3)).astype(numpy.float32)})
    tagger.trans.set_params({"W": rng.normal(size=(16, 3)).astype(numpy.float32)})
    tagger.known = {"the", "ran", "a"}
    sents = [["the", "florp", "ran"], ["florps", "ran"], ["a", "florp"]]
    T = tagger.n_tags
    Tr = tagger.transitions()
    E = [tagger.emissions(word_features(ws)) for ws in sents]
    out = consistency_tag(tagger, sents, delta=(1.5, 0.5, 0.5), K=200, rate=1.0)
    problem = out.problem
    assert len(problem.words) == 3
    theta = problem.mrf.theta

    def objective(seqs):
        total = 0.0
        for s, seq in enumerate(seqs):
            a = b = T
            for i, t in enumerate(seq):
                total += E[s][i, t] + Tr[a, b, t]
                a, b = b, t
        for ms in problem.mrf.members:
            total += max(sum(theta[seqs[problem.words[i].s][problem.words[i].m], lab] for i in ms)
                         for lab in range(T + 1))
        return total

    best = max(objective(c) for c in itertools.product(
        *[list(itertools.product(range(T), repeat=len(ws))) for ws in sents]))
    found = [[tagger.label_ids[t] for t in ts] for ts in out.tags]
    assert min(out.result.dual) >= best - 1e-6
    assert out.result.certified  # these small instances all converge
    assert objective(found) == pytest.approx(best)
    assert out.result.dual[-1] == pytest.approx(best)


def test_zero_potentials_and_lazy_equals_full(trained):
    tagger, test = trained
    zero = consistency_tag(tagger, test, delta=(0.0, 0.0, 0.0))
    assert zero.result.iterations == 1 and zero.tags == [tagger.predict(w) for w in test]
    lazy = consistency_tag(tagger, test, delta=(3.0, 1.5, 0.0), K=30, rate=2.0, lazy=True)
    full = consistency_tag(tagger, test, delta=(3.0, 1.5, 0.0), K=30, rate=2.0, lazy=False)
    assert lazy.problem.words
    assert lazy.tags == full.tags and lazy.result.dual == full.result.dual
    assert sum(lazy.result.decoded) < sum(full.result.decoded)


def test_bad_input(trained):
    tagger, test = trained
    with pytest.raises(ValueError, match="TrigramTagger"):
        consistency_tag(object(), test)
    with pytest.raises(ValueError, match="delta"):
        consistency_tag(tagger, test, delta=(1.0,))
    with pytest.raises(ValueError, match="rate"):
        consistency_tag(tagger, test, rate=0)
    with pytest.raises(ValueError, match="min_occurrences"):
        build_tagging_mrf(test, tagger, min_occurrences=0)
