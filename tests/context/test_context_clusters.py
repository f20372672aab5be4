"""Contextual cluster features (`context.clusters`, `context.kmeans`) and the
`joint_sbd_parser` that reads them from a tok2vec's `Doc.tensor`."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.corpus.docs import doc_name
from spacy_joint_sbd.context import kmeans as kmeans_module
from spacy_joint_sbd.context.kmeans import CentroidTable, kmeans, nearest, nearest_in_sets
from spacy_joint_sbd.context.clusters import ContextClusters, has_vectors

TEXT = ("so i went to the store and they had no milk left i asked the clerk about it "
        "she said the truck comes on tuesdays which is annoying because i need it today")


def test_kmeans_finds_separated_groups_deterministically():
    rng = numpy.random.RandomState(1)
    centers = numpy.array([[0, 0], [10, 0], [0, 10]], dtype=numpy.float32)
    x = numpy.concatenate([c + rng.normal(0, 0.5, (50, 2)) for c in centers]).astype(numpy.float32)
    c = kmeans(x, 3, seed=0)
    assert numpy.array_equal(c, kmeans(x, 3, seed=0))
    labels = nearest(x, c)
    assert [len(set(labels[i:i + 50])) for i in (0, 50, 100)] == [1, 1, 1]
    assert len(set(labels)) == 3
    assert numpy.abs(numpy.sort(c, axis=0) - numpy.sort(centers, axis=0)).max() < 0.5


@pytest.mark.parametrize("args", [(numpy.zeros((5, 0)), 2), (numpy.zeros((5, 3)), 2), (numpy.ones((5, 3)), 0),
                                  (numpy.full((5, 3), numpy.nan), 1), (numpy.zeros(4), 1)])
def test_kmeans_refuses_what_it_cannot_cluster(args):
    with pytest.raises(ValueError):
        kmeans(*args)


@pytest.fixture(scope="module")
def tok2vec_nlp(sample_examples):
    """A blank pipeline with a (randomly initialized, then frozen) tok2vec that sets Doc.tensor."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    _, examples = sample_examples
    nlp.initialize(lambda: examples[:4])
    return nlp


def test_clusters_roundtrip_and_name_the_document_without_vectors(tok2vec_nlp, sample_examples):
    _, examples = sample_examples
    docs = [tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=[t.text for t in eg.reference])) for eg in examples[:6]]
    ctx = ContextClusters.fit(docs, [4, 16])
    assert ctx.names == ["CTX4", "CTX16"] and ctx.ks == [4, 16]
    cols = ctx.columns(docs[0])
    assert cols.shape == (len(docs[0]), 2) and cols.dtype == numpy.uint64
    assert cols.min() >= 1 and cols[:, 0].max() <= 4 and cols[:, 1].max() <= 16
    again = ContextClusters.from_dict(ctx.to_dict())
    assert all(numpy.array_equal(a, b) for a, b in zip(again.centroids, ctx.centroids))
    assert numpy.array_equal(again.columns(docs[1]), ctx.columns(docs[1]))
    assert ctx.columns(Doc(tok2vec_nlp.vocab, words=[])).shape == (0, 2)
    bare = Doc(tok2vec_nlp.vocab, words=["no", "vectors", "here"])
    with pytest.raises(ValueError, match="'no vectors here.*no token vectors"):
        ctx.columns(bare)
    bare.tensor = numpy.zeros((3, 5), dtype=numpy.float32)
    with pytest.raises(ValueError, match="width 5"):
        ctx.columns(bare)
    for bad in ({}, {"ks": [4], "width": 96, "centroids": "!!"}, {"ks": [0], "width": 1, "centroids": ""},
                {"ks": [4, 16], "width": ctx.width, "centroids": ctx.to_dict()["centroids"][:-8]}, "junk"):
        with pytest.raises(ValueError, match="not saved context clusters"):
            ContextClusters.from_dict(bad)


@pytest.fixture(scope="module")
def context_nlp(sample_examples):
    """tok2vec + joint_sbd_parser(context_clusters=[4, 16]): initialize fits the clusters on the
    vectors the tok2vec gives the (tensor-less) training docs; the tok2vec stays frozen."""
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4, "context_clusters": [4, 16],
                                              "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"]})
    train = examples[:12]
    nlp.initialize(lambda: train)
    tok2vec, parser = nlp.get_pipe("tok2vec"), nlp.get_pipe("joint_sbd_parser")
    for eg in train:
        eg.predicted = tok2vec(eg.predicted.copy())
    for _ in range(2):
        parser.update(train)
    return nlp


def test_parser_learns_and_predicts_with_context_columns(context_nlp):
    parser = context_nlp.get_pipe("joint_sbd_parser")
    assert parser.cfg["context"] is not None and parser.parser.attrs[-2:] == ("CTX4", "CTX16")
    assert parser.last_epoch_stats["violations"] > 0
    doc = context_nlp(TEXT)
    assert doc.has_annotation("DEP") and len(list(doc.sents)) >= 1
    # the engine reads the cluster ids of the doc's vectors as its last feature columns
    from spacy_joint_sbd.pipeline.joint.doc_encoding import engine_input

    vec_doc = context_nlp.get_pipe("tok2vec")(context_nlp.make_doc(TEXT))
    enc = engine_input(vec_doc, parser.cfg["attrs"], True, parser._context)
    assert enc.attrs.shape == (len(vec_doc), len(parser.cfg["attrs"]) + 2)
    assert numpy.array_equal(enc.attrs[:, -2:], parser._context.columns(vec_doc))
    assert len(set(enc.attrs[:, -1].tolist())) > 1


def test_saved_context_model_predicts_the_same(context_nlp, tmp_path):
    doc = context_nlp(TEXT)
    context_nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    assert loaded.get_pipe("joint_sbd_parser").cfg["context_clusters"] == [4, 16]
    again = loaded(TEXT)
    assert [(t.head.i, t.dep_, t.is_sent_start) for t in again] == [(t.head.i, t.dep_, t.is_sent_start) for t in doc]
    blob = context_nlp.get_pipe("joint_sbd_parser").to_bytes()
    fresh = spacy.blank("en")
    fresh.add_pipe("tok2vec").from_bytes(context_nlp.get_pipe("tok2vec").to_bytes())
    fresh.add_pipe("joint_sbd_parser").from_bytes(blob)
    assert [t.head.i for t in fresh(TEXT)] == [t.head.i for t in doc]


def test_context_parser_without_tok2vec_is_a_clear_error(context_nlp):
    blob = context_nlp.get_pipe("joint_sbd_parser").to_bytes()
    nlp = spacy.blank("en")
    nlp.add_pipe("joint_sbd_parser").from_bytes(blob)
    with pytest.raises(ValueError, match="tok2vec before the parser"):
        nlp("a short text")


def test_bad_context_settings_and_saved_context_are_refused(context_nlp):
    for bad in ([0], [2.5], "16", [1 << 20]):
        with pytest.raises(ValueError, match="context_clusters"):
            spacy.blank("en").add_pipe("joint_sbd_parser", config={"context_clusters": bad})
    parser = context_nlp.get_pipe("joint_sbd_parser")
    cfg = dict(parser.cfg, context={"ks": [4], "width": 3, "centroids": "AAAA"})
    with pytest.raises(ValueError, match="context"):
        parser._check_cfg(cfg, "test")


def test_nearest_checks_shapes_and_survives_non_finite_rows():
    c = numpy.eye(3, dtype=numpy.float32)
    x = numpy.array([[0, 0, 5], [numpy.nan, 0, 0], [numpy.inf, 0, 0], [0, 4, 0]], dtype=numpy.float32)
    assert nearest(x, c).tolist() == [2, 0, 0, 1]
    # rows and centroids of every scale, up to distances that overflow: a non-finite distance never
    # wins (the pass that maps them is skipped only where none can occur)
    rng = numpy.random.RandomState(5)
    for c_scale in (1.0, 1e17, 1e19):
        cs = (rng.normal(size=(7, 4)) * c_scale).astype(numpy.float32)
        with numpy.errstate(over="ignore", invalid="ignore"):  # some rows overflow to inf
            xs = numpy.concatenate([(rng.normal(size=(20, 4)) * s).astype(numpy.float32)
                                    for s in (1.0, 1e10, 1e18, 1e19, 1e30, 3e38)])
            d = (xs @ cs.T) * numpy.float32(-2) + (cs * cs).sum(1)
        d[~numpy.isfinite(d)] = numpy.inf
        expected = numpy.where(numpy.isfinite(xs).all(1), d.argmin(1), 0)
        with numpy.errstate(over="ignore"):  # the largest centroids' squared norms overflow
            assert nearest(xs, cs).tolist() == expected.tolist()
    for bad in ((numpy.zeros((2, 2)), c), (x, numpy.zeros((0, 3))), (numpy.zeros(3), c)):
        with pytest.raises(ValueError):
            nearest(*bad)


def test_assignment_and_kmeans_do_not_depend_on_the_block_size(monkeypatch):
    rng = numpy.random.RandomState(2)
    x = rng.normal(size=(3000, 8)).astype(numpy.float32)
    x[7, 3] = numpy.nan
    sets = [rng.normal(size=(k, 8)).astype(numpy.float32) for k in (3, 50, 200)]
    table = CentroidTable(sets)
    together = nearest_in_sets(x, table)
    assert together.shape == (3000, 3) and together[7].tolist() == [0, 0, 0]
    assert all(numpy.array_equal(together[:, j], nearest(x, c)) for j, c in enumerate(sets))
    clean = numpy.delete(x, 7, axis=0)
    big = kmeans(clean, 20, seed=1)
    monkeypatch.setattr(kmeans_module, "BLOCK", 512)  # many row blocks, clusters larger than a block
    assert numpy.array_equal(nearest_in_sets(x, table), together)
    assert kmeans(clean, 20, seed=1).tobytes() == big.tobytes()


def test_fit_on_per_doc_vectors_gets_the_stacked_result(tok2vec_nlp, sample_examples):
    """fit hands kmeans the docs' vectors one array per doc (stacked only in the sample when capped):
    the centroids are bit for bit those of k-means on the stacked vectors, with and without a cap;
    a list of lists is one array, not parts; bad parts and caps are refused."""
    _, examples = sample_examples
    docs = [tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=[t.text for t in eg.reference])) for eg in examples[:6]]
    x = numpy.concatenate([d.tensor for d in docs])
    for cap in (None, 200):
        fitted = ContextClusters.fit(iter(docs), [4, 16], seed=3, max_points=cap)
        assert all(c.tobytes() == kmeans(x, k, seed=3 + i, max_points=cap).tobytes()
                   for i, (c, k) in enumerate(zip(fitted.centroids, [4, 16])))
    parts = [d.tensor for d in docs]
    assert kmeans(parts, 8, seed=1, max_points=150).tobytes() == kmeans(x, 8, seed=1, max_points=150).tobytes()
    assert kmeans([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 2).shape == (2, 2)
    for bad in ([], [numpy.zeros((3, 2)), numpy.zeros((3, 4))], [numpy.zeros((3, 0))]):
        with pytest.raises(ValueError, match="kmeans: need"):
            kmeans(bad, 2)
    for cap in (0, -1, 2.5):
        with pytest.raises(ValueError, match="max_points"):
            kmeans(x, 2, max_points=cap)
    odd = Doc(tok2vec_nlp.vocab, words=["odd", "width"], spaces=[True, False])
    odd.tensor = numpy.zeros((2, 5), dtype=numpy.float32)
    with pytest.raises(ValueError, match="differ in width: document 'odd width' has width 5"):
        ContextClusters.fit(docs[:2] + [odd], [2])


def test_has_vectors_and_doc_name(tok2vec_nlp):
    doc = tok2vec_nlp("a doc with vectors")
    assert has_vectors(doc)
    bare = Doc(tok2vec_nlp.vocab, words=["no", "vectors"], spaces=[True, False])
    assert not has_vectors(bare) and not has_vectors(Doc(tok2vec_nlp.vocab, words=[]))
    bare.tensor = numpy.zeros((1, 4), dtype=numpy.float32)  # not one row per token
    assert not has_vectors(bare)
    assert doc_name(bare) == "document 'no vectors'"  # no id: the text's start
    bare.user_data["doc_id"] = "answers-0042"
    assert doc_name(bare) == "document 'answers-0042'"
    with pytest.raises(ValueError, match="document 'answers-0042': no token vectors"):
        ContextClusters([numpy.ones((2, 4))]).columns(bare)


# --- a tree of centroids ------------------------------------------------------------------------


def _blobs(n_groups=12, per=60, d=8, seed=3):
    rng = numpy.random.RandomState(seed)
    centres = rng.randn(n_groups, d) * 6
    return (numpy.repeat(centres, per, axis=0) + rng.randn(n_groups * per, d)).astype(numpy.float32)


def test_tree_descends_to_the_children_of_its_parent_deterministically():
    from spacy_joint_sbd.context.kmeans import kmeans_tree, tree_nearest

    x = _blobs()
    sets = kmeans_tree(x, [3, 6, 24], iters=6, seed=1)
    assert [len(c) for c in sets] == [3, 6, 24]
    again = kmeans_tree(list(numpy.array_split(x, 7)), [3, 6, 24], iters=6, seed=1)  # per-doc parts: the same
    assert all(numpy.array_equal(a, b) for a, b in zip(sets, again))
    ids = tree_nearest(x, sets)
    assert ids.shape == (len(x), 3)
    assert numpy.array_equal(ids[:, 1] // 2, ids[:, 0]) and numpy.array_equal(ids[:, 2] // 4, ids[:, 1])
    assert numpy.array_equal(ids[:, 0], nearest(x, sets[0]))  # the top level is an exact search
    # each level's choice is the nearest of its parent's children
    for level, b in ((1, 2), (2, 4)):
        for i in range(0, len(x), 17):
            parent = ids[i, level - 1]
            kids = sets[level][parent * b:(parent + 1) * b]
            assert ids[i, level] == parent * b + int(numpy.argmin(((kids - x[i]) ** 2).sum(1)))
    # quantization close to flat k-means at the finest level (squared error within 25 %)
    flat = kmeans(x, 24, iters=6, seed=1)
    err_tree = ((x - sets[2][ids[:, 2]]) ** 2).sum()
    err_flat = ((x - flat[nearest(x, flat)]) ** 2).sum()
    assert err_tree <= 1.25 * err_flat


def test_tree_survives_bad_rows_tiny_clusters_and_refuses_bad_granularities():
    from spacy_joint_sbd.context.kmeans import kmeans_tree, tree_nearest

    x = numpy.array([[0, 0], [0, 0.1], [5, 5], [5, 5]], dtype=numpy.float32)  # too few points to split
    sets = kmeans_tree(x, [2, 8], iters=3)
    assert sets[1].shape == (8, 2) and numpy.isfinite(sets[1]).all()
    rows = numpy.array([[numpy.nan, 1], [5, 5], [numpy.inf, 0]], dtype=numpy.float32)
    ids = tree_nearest(rows, sets)
    assert ids[0].tolist() == [0, 0] and ids[2].tolist() == [0, 0] and ids[1, 1] // 4 == ids[1, 0]
    with pytest.raises(ValueError, match="vectors"):
        tree_nearest(numpy.zeros((2, 3), dtype=numpy.float32), sets)
    for ks in ([4, 6], [4, 4], [8, 4], [], [0, 2], [2, True]):
        with pytest.raises(ValueError, match="divide the next"):
            kmeans_tree(x, ks)


def test_tree_clusters_save_search_and_differ_from_flat_ones(tok2vec_nlp, sample_examples):
    _, examples = sample_examples
    docs = [tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=[t.text for t in eg.reference])) for eg in examples[:6]]
    tree = ContextClusters.fit(docs, [4, 16], tree=True)
    flat = ContextClusters(tree.centroids)  # the same centroids searched whole
    assert tree.tree and not flat.tree and tree.fingerprint != flat.fingerprint
    cols = tree.columns(docs[0])
    assert numpy.array_equal((cols[:, 1] - 1) // 4, cols[:, 0] - 1)
    again = ContextClusters.from_dict(tree.to_dict())
    assert again.tree and numpy.array_equal(again.columns(docs[1]), tree.columns(docs[1]))
    assert "tree" not in flat.to_dict() and not ContextClusters.from_dict(flat.to_dict()).tree
    with pytest.raises(ValueError, match="not saved context clusters.*divide the next"):
        ContextClusters.from_dict({**ContextClusters.fit(docs, [4, 6]).to_dict(), "tree": True})
    with pytest.raises(ValueError, match="not saved context clusters.*tree"):
        ContextClusters.from_dict({**tree.to_dict(), "tree": "yes"})


def test_parser_fits_a_tree_when_asked_and_refuses_one_that_cannot_be(sample_examples):
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2, "context_clusters": [2, 8], "context_tree": True})
    nlp.initialize(lambda: examples[:6])
    parser = nlp.get_pipe("joint_sbd_parser")
    assert parser.clusters.tree and parser.cfg["context"]["tree"] is True
    assert nlp(TEXT).has_annotation("DEP")
    for bad in ({"context_clusters": [4, 6], "context_tree": True}, {"context_clusters": [4], "context_tree": "yes"}):
        with pytest.raises(ValueError, match="context"):
            spacy.blank("en").add_pipe("joint_sbd_parser", config=bad)


@pytest.mark.parametrize("tree", [False, True])
def test_a_primed_batch_gets_the_ids_of_one_doc_at_a_time(tok2vec_nlp, sample_examples, tree):
    """`prime` (one search for a batch of Docs, as `nlp.pipe` gives the tagger and the parser)
    fills the cache with exactly what `columns` computes for each Doc alone."""
    from spacy_joint_sbd.context import clusters as module

    _, examples = sample_examples
    docs = [tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=[t.text for t in eg.reference])) for eg in examples[:8]]
    docs += [tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=w.split())) for w in ("hi", "ok then", "")]
    ctx = ContextClusters.fit(docs[:6], [4, 16], tree=tree)
    alone = [ctx.columns(d).copy() for d in docs]
    module._columns_cache.clear()
    ctx.prime(docs)
    assert sum(1 for key in module._columns_cache if key[0] == ctx.fingerprint) == len(docs) - 1  # not the empty one
    assert all(numpy.array_equal(ctx._cached(d), a) for d, a in zip(docs, alone) if len(d))
    assert all(numpy.array_equal(ctx.columns(d), a) for d, a in zip(docs, alone))
    bare = Doc(tok2vec_nlp.vocab, words=["no", "vectors"])
    with pytest.raises(ValueError, match="no token vectors"):
        ctx.prime([tok2vec_nlp(Doc(tok2vec_nlp.vocab, words=["fresh", "words"])), bare])


def test_tagger_and_parser_through_pipe_equal_one_doc_at_a_time(context_nlp, sample_docs):
    texts = [" ".join(r.words[:n]) for r, n in zip(sample_docs[:12], (3, 9, 27, 5, 40, 12, 1, 60, 7, 18, 2, 33))]
    alone = [context_nlp(t) for t in texts]
    piped = list(context_nlp.pipe(texts, batch_size=5))
    for a, b in zip(alone, piped):
        assert [t.head.i for t in a] == [t.head.i for t in b] and [t.dep_ for t in a] == [t.dep_ for t in b]
        assert [t.is_sent_start for t in a] == [t.is_sent_start for t in b]
