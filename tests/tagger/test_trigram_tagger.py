"""The trigram perceptron tagger: Viterbi = brute force over all tag sequences, training fits the
EWT sample, bad input raises ValueError."""
import itertools

import numpy
import pytest

from spacy_joint_sbd.graph.parser import sentence_tuples
from spacy_joint_sbd.tagger.trigram import TrigramTagger, train_trigram_tagger, viterbi


def _score(tags, E, Tr):
    T = E.shape[1]
    a = b = T
    total = 0.0
    for i, t in enumerate(tags):
        total += E[i, t] + Tr[a, b, t]
        a, b = b, t
    return total


@pytest.mark.parametrize("n,T,seed", [(1, 3, 0), (2, 3, 1), (4, 3, 2), (5, 2, 3), (3, 4, 4)])
def test_viterbi_equals_brute_force(n, T, seed):
    rng = numpy.random.default_rng(seed)
    E = rng.normal(size=(n, T))
    Tr = rng.normal(size=(T + 1, T + 1, T))
    tags, score = viterbi(E, Tr)
    best = max(itertools.product(range(T), repeat=n), key=lambda seq: _score(seq, E, Tr))
    assert score == pytest.approx(_score(best, E, Tr))
    assert score == pytest.approx(_score(tags, E, Tr))


def test_training_fits_the_sample(sample_docs):
    sents = [(s[0], s[2]) for s in sentence_tuples(sample_docs)]
    tagger = train_trigram_tagger(sents[:150], epochs=4)
    history = tagger.train(sents[:150], epochs=1)  # a fifth epoch on the same data
    assert history[0] > 0.9
    correct = total = 0
    for words, gold in sents[150:]:
        pred = tagger.predict(words)
        correct += sum(p == g for p, g in zip(pred, gold))
        total += len(gold)
    assert correct / total > 0.7  # 150 training sentences, held-out sentences (measured 0.75)


def test_bad_input():
    with pytest.raises(ValueError, match="labels"):
        TrigramTagger([])
    with pytest.raises(ValueError, match="labels"):
        TrigramTagger(["A", "A"])
    tagger = TrigramTagger(["A", "B"])
    with pytest.raises(ValueError, match="among the tagger"):
        tagger.train([(["x"], ["C"])])
    with pytest.raises(ValueError, match="words but"):
        tagger.train([(["x", "y"], ["A"])])
    with pytest.raises(ValueError, match="epochs"):
        tagger.train([(["x"], ["A"])], epochs=0)
    with pytest.raises(ValueError, match="Tr must"):
        viterbi(numpy.zeros((2, 2)), numpy.zeros((2, 2, 2)))
    assert tagger.predict([]) == []


def test_bad_scores_and_updates_are_refused():
    import numpy
    from spacy_joint_sbd.tagger.trigram import TrigramTagger, viterbi, word_features

    with pytest.raises(ValueError, match="NaN"):
        viterbi(numpy.full((2, 2), numpy.nan), numpy.zeros((3, 3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        viterbi(numpy.zeros((2, 2)), numpy.full((3, 3, 2), numpy.inf))
    with pytest.raises(ValueError, match="Tr must be"):
        viterbi(numpy.zeros((2, 2)), [[0.0]])
    tagger = TrigramTagger(["A", "B"])
    with pytest.raises(ValueError, match="gold tags for 2 feature rows"):
        tagger.update(word_features(["a", "b"]), [0])
    with pytest.raises(ValueError, match=r"in \[0, 2\)"):
        tagger.update(word_features(["a", "b"]), [0, 5])
    with pytest.raises(ValueError, match="not one string"):
        TrigramTagger("AB")
