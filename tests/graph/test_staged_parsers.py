"""Two- and three-stage parsing (Li et al. §II.B-C): the gold stages recombine into the gold
tree, and the combination of trained stages is one valid single-rooted labelled tree on every
sentence of EWT dev, in every setting."""
import pytest

from spacy_joint_sbd.graph.split_punct import analyse, is_tree
from spacy_joint_sbd.graph.staged_parsers import (
    ROOT_LABEL, ThreeStageParser, TwoStageParser, combine, fragment_examples, inter_example,
    sentence_tuples, sub_root_counts)

SMALL = {"n_rows": 1 << 16, "label_rows": 1 << 12}
CATS = (["I", "saw", "cats", ",", "dogs", "and", "birds", "."], ["PRP", "VBD", "NNS", ",", "NNS", "CC", "NNS", "."],
        ["PRON", "VERB", "NOUN", "PUNCT", "NOUN", "CCONJ", "NOUN", "PUNCT"], [1, -1, 1, 4, 2, 6, 2, 1],
        ["nsubj", "root", "obj", "punct", "conj", "cc", "conj", "punct"])


@pytest.fixture(scope="module")
def dev_sents(ewt_dev):
    return sentence_tuples(ewt_dev)


@pytest.fixture(scope="module")
def trained(dev_sents):
    train = dev_sents[:300]
    two = TwoStageParser(order=1, **SMALL)
    two.train(train, epochs=1)
    three = ThreeStageParser(order=1, **SMALL)
    three.train(train, epochs=1)
    return two, three


def test_training_structures():
    f0, f1 = fragment_examples(CATS)
    assert f0[0] == ["I", "saw", "cats"] and f0[3] == [1, -1, -1]
    assert f0[4] == ["nsubj", ROOT_LABEL, ROOT_LABEL]
    assert f1[3] == [-1, 2, -1] and f1[4] == [ROOT_LABEL, "cc", ROOT_LABEL]
    assert fragment_examples(CATS, well_formed_only=True) == []
    words, _, _, heads, deps = inter_example(CATS)
    assert words == ["saw", "cats", ",", "dogs", "birds", "."]
    assert heads == [-1, 0, 3, 1, 1, 0] and deps == ["root", "obj", "punct", "conj", "conj", "punct"]


def test_gold_stages_recombine_to_gold(dev_sents):
    """First-stage gold forests + the gold INTER tree = the gold tree, for every sentence."""
    for sent in dev_sents:
        words, _, _, heads, deps = sent
        n = len(words)
        inner, labels = [None] * n, [None] * n
        for f, x in zip(analyse(words, heads), fragment_examples(sent)):
            for i, (h, lab) in enumerate(zip(x[3], x[4])):
                if h >= 0:
                    inner[f.start + i], labels[f.start + i] = f.start + h, lab
        nodes = [i for i in range(n) if inner[i] is None]
        x = inter_example(sent)
        assert x[0] == [words[i] for i in nodes]
        assert combine(n, inner, labels, nodes, x[3], x[4]) == (heads, deps)


def test_combination_is_a_tree_on_every_ewt_dev_sentence(trained, dev_sents):
    two, three = trained
    assert len(dev_sents) == 2001
    for words, tags, upos, gold, _ in dev_sents:
        d = two.parse_detail(words, tags, upos)
        assert is_tree(d["heads"]), words
        assert all(isinstance(lab, str) and lab for lab in d["labels"])
        assert d["labels"][d["heads"].index(-1)] != ROOT_LABEL
        for mode in ThreeStageParser.MODES:
            heads, labels = three.parse(words, tags, upos, mode, gold)
            assert is_tree(heads) and all(labels), (mode, words)


def test_round_trip(trained, dev_sents):
    two, _ = trained
    copy = TwoStageParser().from_bytes(two.to_bytes())
    assert copy.order == 1 and copy.chars == two.chars
    for words, tags, upos, *_ in dev_sents[-50:]:
        assert copy.parse(words, tags, upos) == two.parse(words, tags, upos)


def test_learns(dev_sents):
    train = dev_sents[:200]
    two = TwoStageParser(order=2, **SMALL)
    two.train(train, epochs=4)
    right = total = 0
    for words, tags, upos, gold, _ in train:
        heads, _ = two.parse(words, tags, upos)
        right += sum(h == g for h, g in zip(heads, gold))
        total += len(gold)
    assert right / total > 0.9


def test_sub_root_counts_and_bad_mode():
    assert sub_root_counts([1, 4, 5], {1: 1, 2: 2, 4: 1, 6: 1}) == {
        "gold": 4, "system": 3, "correct": 2, "gold1": 3, "correct1": 2, "gold2": 1, "correct2": 0}
    words, tags, upos, heads, _ = CATS
    with pytest.raises(ValueError, match="unknown mode"):
        ThreeStageParser(order=1, **SMALL).parse(words, tags, upos, mode="oracle")
    with pytest.raises(ValueError, match="gold heads"):
        ThreeStageParser(order=1, **SMALL).parse(words, tags, upos, mode="gold")
