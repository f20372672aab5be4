"""The hashed perceptron tagger: learns real EWT tags, jackknifes honestly, checks its inputs, and
round-trips as the `perceptron_tagger` component."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.learn import HashedWeights
from spacy_joint_sbd.tagger import encode_doc, jackknife, tag_doc, train_tagger


@pytest.fixture(scope="module")
def data(sample_docs):
    vocab = spacy.blank("en").vocab
    docs = [record_to_doc(vocab, r) for r in sample_docs]
    return [(encode_doc(d), [t.tag_ for t in d]) for d in docs]


def accuracy(tagger, data):
    pairs = [(p, g) for attrs, gold in data for p, g in zip(tagger.predict(attrs), gold)]
    return sum(p == g for p, g in pairs) / len(pairs)


def test_learns_held_out_tags(data):
    train, held_out = data[:22], data[22:]
    tagger = train_tagger(train, epochs=5)
    majority = max(accuracy_of_constant(tag, held_out) for tag in ("NN", "IN", "DT"))
    assert accuracy(tagger, held_out) > 0.6 > 2 * majority
    assert accuracy(tagger, train) > accuracy(tagger, held_out)


def accuracy_of_constant(tag, data):
    gold = [g for _, tags in data for g in tags]
    return sum(g == tag for g in gold) / len(gold)


def test_jackknifed_tags_are_held_out_tags(data):
    """Each fold is tagged by a tagger that never saw it: accuracy like held-out, not like train."""
    jk = jackknife(data, folds=4, epochs=5)
    assert [len(t) for t in jk] == [len(g) for _, g in data]
    jk_acc = sum(p == g for tags, (_, gold) in zip(jk, data) for p, g in zip(tags, gold)) / sum(len(g) for _, g in data)
    self_acc = accuracy(train_tagger(data, epochs=5), data)
    assert 0.6 < jk_acc < self_acc - 0.03


def test_jackknife_learns_only_from_flagged_documents(data):
    """Documents flagged not to learn from (no gold XPOS, as ATIS) are tagged but never taught:
    their placeholder tags never show up in any prediction, and the flags must match the data."""
    blank = [(attrs, ["_"] * len(tags)) for attrs, tags in data[:4]]
    jk = jackknife(blank + list(data), folds=4, epochs=3, learn=[False] * 4 + [True] * len(data))
    assert [len(t) for t in jk[:4]] == [len(g) for _, g in blank]
    assert "_" not in {t for tags in jk for t in tags}
    with pytest.raises(ValueError, match="flags"):
        jackknife(list(data), folds=4, learn=[True])
    with pytest.raises(ValueError, match="no document to learn from"):
        jackknife(list(data), folds=4, learn=[False] * len(data))


def test_jackknife_keeps_given_folds_together(data):
    """fold_of deals documents into given folds (two copies of a text in one fold, as the default
    pipeline keeps a text's variants together): a copy is never tagged by a tagger that saw its
    twin, so it is tagged like held-out text; on_fold reports each fold; bad folds are refused."""
    twins = list(data) + list(data)
    n = len(data)
    together = [i % 4 for i in range(n)] * 2
    seen = []
    jk = jackknife(twins, folds=4, epochs=5, fold_of=together, on_fold=seen.append)
    assert seen == [0, 1, 2, 3]
    gold = [g for _, tags in twins for g in tags]
    acc = sum(p == g for p, g in zip([t for tags in jk for t in tags], gold)) / len(gold)
    apart = jackknife(twins, folds=4, epochs=5, fold_of=[i % 4 for i in range(n)] + [(i + 1) % 4 for i in range(n)])
    leaked = sum(p == g for p, g in zip([t for tags in apart for t in tags], gold)) / len(gold)
    assert acc < leaked - 0.03  # a twin in the training folds is a leak
    for bad in ([0] * (2 * n - 1), [4] * (2 * n), [-1] * (2 * n)):
        with pytest.raises(ValueError, match="fold_of"):
            jackknife(twins, folds=4, fold_of=bad)
    with pytest.raises(ValueError, match="fold 0 leaves no document"):
        jackknife(twins, folds=2, learn=[i % 2 == 0 for i in range(2 * n)], fold_of=[i % 2 for i in range(2 * n)])


def test_tag_doc_checks_its_arguments():
    w = HashedWeights(64, 3)
    with pytest.raises(ValueError):
        tag_doc(w, numpy.zeros((4, 5), dtype=numpy.uint64))
    with pytest.raises(ValueError):
        tag_doc(w, numpy.zeros((4, 6), dtype=numpy.uint64), [0, 1, 2, 3], train=True)
    with pytest.raises(ValueError):
        tag_doc(w, numpy.zeros((2, 6), dtype=numpy.uint64), train=True)
    tags, errors = tag_doc(w, numpy.zeros((0, 6), dtype=numpy.uint64))
    assert len(tags) == 0 and errors == 0


def test_component_trains_and_round_trips(sample_docs, tmp_path):
    nlp = spacy.blank("en")
    tagger = nlp.add_pipe("perceptron_tagger")
    golds = [record_to_doc(nlp.vocab, r) for r in sample_docs]
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g]), g)
                for g in golds]
    nlp.initialize(lambda: examples)
    errors = [tagger.update(examples[:20])["perceptron_tagger"] for _ in range(4)]
    assert errors[-1] < errors[0]
    scores = nlp.evaluate(examples[20:])
    assert scores["tag_acc"] > 0.6
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    text = golds[25].text
    assert [t.tag_ for t in loaded(text)] == [t.tag_ for t in nlp(text)]
    assert loaded.get_pipe("perceptron_tagger").from_bytes(nlp.get_pipe("perceptron_tagger").to_bytes())
    with pytest.raises(ValueError, match="perceptron_tagger"):
        loaded.get_pipe("perceptron_tagger").from_bytes(b"\x00not a model")
    (tmp_path / "p" / "perceptron_tagger" / "model").write_bytes(b"truncated")
    with pytest.raises(ValueError, match=r"perceptron_tagger\] .*model: corrupted"):
        spacy.load(tmp_path / "p")
    (tmp_path / "p" / "perceptron_tagger" / "checksums.json").unlink()  # without checksums: the reader's checks
    with pytest.raises(ValueError, match="truncated or foreign"):
        spacy.load(tmp_path / "p")


def test_untrained_component_says_so():
    nlp = spacy.blank("en")
    nlp.add_pipe("perceptron_tagger")
    with pytest.raises(ValueError, match="initialize"):
        nlp("some text")


def test_context_columns_are_features(data):
    """A context column that carries the tag (as a tok2vec's clusters nearly do) is learnt: held-out
    accuracy rises far above the words-only tagger's; the tagger remembers how many columns it
    reads and refuses attributes of another width."""
    labels = sorted({t for _, tags in data for t in tags})
    ids = {t: i + 1 for i, t in enumerate(labels)}
    noisy = [(numpy.concatenate([a, numpy.asarray([[ids[t]] for t in tags], dtype=numpy.uint64)], axis=1), tags)
             for a, tags in data]
    words_only = train_tagger(data[:22], epochs=5)
    with_context = train_tagger(noisy[:22], epochs=5)
    assert words_only.n_context == 0 and with_context.n_context == 1
    assert accuracy(with_context, noisy[22:]) > max(0.97, accuracy(words_only, data[22:]) + 0.1)
    with pytest.raises(ValueError, match="1 context columns"):
        with_context.predict(data[22][0])
    with pytest.raises(ValueError, match="widths"):
        train_tagger([data[0], noisy[1]], epochs=1)
    with pytest.raises(ValueError, match="c ≤ 8"):
        tag_doc(HashedWeights(64, 3), numpy.zeros((4, 15), dtype=numpy.uint64))


def test_component_reads_the_context_clusters(sample_docs, tmp_path):
    """perceptron_tagger(context_clusters=...) fits the clusters on the vectors of the tok2vec
    before it, tags from them, saves them, and shares `columns` with a parser holding the same
    clusters; a tagger that reads context columns needs its clusters."""
    from spacy_joint_sbd.context import clusters as cc

    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    pipe = nlp.add_pipe("perceptron_tagger", config={"context_clusters": [4, 16]})
    golds = [record_to_doc(nlp.vocab, r) for r in sample_docs]
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g]), g)
                for g in golds]
    nlp.initialize(lambda: examples[:20])
    assert pipe.clusters is not None and pipe.clusters.ks == [4, 16] and pipe.tagger.n_context == 2
    tok2vec = nlp.get_pipe("tok2vec")
    train = [Example(tok2vec(eg.predicted.copy()), eg.reference) for eg in examples[:20]]
    errors = [pipe.update(train)["perceptron_tagger"] for _ in range(4)]
    assert errors[-1] < errors[0]
    text = golds[25].text
    doc = nlp(text)
    assert all(t.tag_ for t in doc)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("perceptron_tagger").clusters.fingerprint == pipe.clusters.fingerprint
    assert [t.tag_ for t in loaded(text)] == [t.tag_ for t in doc]
    # the columns of one tensor are computed once per set of clusters, and forgotten with it
    vec = tok2vec(nlp.make_doc(text))
    first = pipe.clusters.columns(vec)
    assert (pipe.clusters.fingerprint, id(vec.tensor)) in cc._columns_cache
    assert numpy.array_equal(loaded.get_pipe("perceptron_tagger").clusters.columns(vec), first)
    key = (pipe.clusters.fingerprint, id(vec.tensor))
    vec.tensor = numpy.zeros((len(vec), 3), dtype=numpy.float32)
    assert key not in cc._columns_cache
    with pytest.raises(ValueError, match="width 3"):
        pipe.clusters.columns(vec)
    # threads share the columns cache: the same tags as one thread
    from concurrent.futures import ThreadPoolExecutor

    texts = [g.text for g in golds[20:]] * 4
    sequential = [[t.tag_ for t in nlp(x)] for x in texts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda x: [t.tag_ for t in nlp(x)], texts)) == sequential
    # use_tagger: the clusters must match the tagger's context columns
    with pytest.raises(ValueError, match="reads 2 context columns"):
        spacy.blank("en").add_pipe("perceptron_tagger").use_tagger(pipe.tagger)
    with pytest.raises(ValueError, match="context_clusters"):
        spacy.blank("en").add_pipe("perceptron_tagger", config={"context_clusters": [0]})
    blob = pipe.to_bytes()
    bare = spacy.blank("en")
    bare.add_pipe("perceptron_tagger").from_bytes(blob)
    with pytest.raises(ValueError, match="no token vectors"):
        bare("a text without a tok2vec")
