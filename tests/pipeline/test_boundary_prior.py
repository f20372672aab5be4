"""The boundary_prior component: trains with spacy's update loop, writes calibrated probabilities,
round-trips to disk and bytes, and feeds the joint parser's SB move through `prior_weight`."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.boundary import DOC_PROBS
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)
from spacy_joint_sbd.pipeline.joint.prior_scores import prior_sb_scores


@pytest.fixture(scope="module")
def prior_nlp(sample_examples):
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 16}})
    train = examples[:24]
    nlp.initialize(lambda: train)
    for _ in range(3):
        for i in range(0, len(train), 8):
            nlp.update(train[i:i + 8])
    return nlp


def test_writes_probabilities_and_scores(prior_nlp, sample_examples):
    _, examples = sample_examples
    doc = prior_nlp(examples[24].reference.text)
    probs = doc._.get(DOC_PROBS)
    assert probs.shape == (len(doc),) and probs.dtype == numpy.float32 and probs[0] == 1.0
    assert doc[1]._.boundary_prob == pytest.approx(float(probs[1]))
    scores = prior_nlp.evaluate(examples[24:])
    assert 0.5 < scores["prior_f"] <= 1.0


def test_round_trips(prior_nlp, tmp_path):
    text = "so we went home. it was late and then we slept"
    want = prior_nlp(text)._.get(DOC_PROBS)
    prior_nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    assert numpy.array_equal(loaded(text)._.get(DOC_PROBS), want)
    other = spacy.blank("en")
    other.add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 16}})
    other.from_bytes(prior_nlp.to_bytes())
    assert numpy.array_equal(other(text)._.get(DOC_PROBS), want)
    with pytest.raises(ValueError):
        other.get_pipe("boundary_prior").from_bytes(b"not a model")


def test_calibrate_sets_platt(prior_nlp, sample_examples):
    _, examples = sample_examples
    other = spacy.blank("en")
    pipe = other.add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 16}})
    pipe.from_bytes(prior_nlp.get_pipe("boundary_prior").to_bytes())
    a, b = pipe.calibrate([eg.reference for eg in examples[24:]])
    assert pipe.cfg["platt"] == [a, b] and a > 0


def test_bad_settings():
    nlp = spacy.blank("en")
    for cfg in ({"learn_rate": 0}, {"pos_weight": float("nan")}, {"threshold": 1.5}):
        with pytest.raises(ValueError):
            nlp.add_pipe("boundary_prior", name=f"p{len(nlp.pipe_names)}", config=cfg)


def test_paragraph_windows_is_a_prediction_setting_the_config_sets(prior_nlp, tmp_path):
    """Off as trained; `spacy.load(..., config=...)` or the attribute turns it on; it changes the
    probabilities of a document with blank lines only, and a bad value is a one-line error."""
    prior_nlp.to_disk(tmp_path / "m")
    text = "We went home. It was late.\n\nso then we slept and the cat slept too\n\nThe end. Really."
    flat = text.replace("\n\n", " ")
    off = spacy.load(tmp_path / "m")
    on = spacy.load(tmp_path / "m", config={"components": {"boundary_prior": {"paragraph_windows": True}}})
    assert off.get_pipe("boundary_prior").paragraph_windows is False
    assert on.get_pipe("boundary_prior").paragraph_windows is True
    assert not numpy.array_equal(on(text)._.get(DOC_PROBS), off(text)._.get(DOC_PROBS))
    assert numpy.array_equal(on(flat)._.get(DOC_PROBS), off(flat)._.get(DOC_PROBS))
    pipe = off.get_pipe("boundary_prior")
    pipe.paragraph_windows = True
    assert numpy.array_equal(off(text)._.get(DOC_PROBS), on(text)._.get(DOC_PROBS))
    with pytest.raises(ValueError, match=r"^\[boundary_prior\] paragraph_windows must be true or false, got 'yes'$"):
        pipe.paragraph_windows = "yes"
    with pytest.raises(ValueError, match="paragraph_windows"):
        spacy.blank("en").add_pipe("boundary_prior", config={"paragraph_windows": 2})


def test_prior_sb_scores_leave_out_whitespace():
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["a", "\n", "b", "c"], spaces=[False, False, True, False])
    assert prior_sb_scores(doc, 1.0) is None  # no probabilities on the Doc
    doc._.set(DOC_PROBS, numpy.asarray([1.0, 0.0, 0.9, 0.1], dtype=numpy.float32))
    s = prior_sb_scores(doc, 2.0)
    assert s.shape == (3,) and s[1] == pytest.approx(2 * numpy.log(9), rel=1e-5) and s[2] < 0
    assert prior_sb_scores(doc, 0.0) is None
    doc._.set(DOC_PROBS, numpy.zeros(2))
    with pytest.raises(ValueError):
        prior_sb_scores(doc, 1.0)


def test_the_prior_moves_the_parsers_boundaries(trained_nlp, sample_examples):
    """Overwhelming prior scores decide every boundary: all-1 probabilities split at every token,
    all-0 at none; weight 0 leaves the parse as it was."""
    _, examples = sample_examples
    parser = trained_nlp.get_pipe("joint_sbd_parser")
    text = examples[25].reference.text
    base = [t.is_sent_start for t in trained_nlp(text)]

    def parse_with(p, weight):
        doc = trained_nlp.make_doc(text)
        doc._.set(DOC_PROBS, numpy.full((len(doc),), p, dtype=numpy.float32))
        old = parser.cfg.get("prior_weight", 0.0)
        parser.cfg["prior_weight"] = weight
        try:
            return [t.is_sent_start for t in parser(doc)]
        finally:
            parser.cfg["prior_weight"] = old

    assert parse_with(0.99, 0.0) == base
    assert sum(parse_with(1.0, 1000.0)) > sum(base)
    assert sum(parse_with(0.0, 1000.0)) == 1


def test_prior_weight_is_a_validated_setting(trained_nlp, trained_model_dir):
    nlp = spacy.blank("en")
    for bad in (float("nan"), -1.0, "1", True, None):
        with pytest.raises(ValueError, match="prior_weight"):
            nlp.add_pipe("joint_sbd_parser", name=f"p{len(nlp.pipe_names)}", config={"prior_weight": bad})
    parser = trained_nlp.get_pipe("joint_sbd_parser")
    old = parser.cfg["prior_weight"]
    parser.cfg["prior_weight"] = float("inf")
    try:
        with pytest.raises(ValueError, match="prior_weight"):
            trained_nlp("a short text")
    finally:
        parser.cfg["prior_weight"] = old
    loaded = spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"prior_weight": 0.7}}})
    assert loaded.get_pipe("joint_sbd_parser").cfg["prior_weight"] == 0.7


def test_tune_prior_keeps_no_prior_unless_dev_gains(trained_nlp, sample_examples, prior_nlp):
    from spacy_joint_sbd.operating_point import tune_prior

    _, examples = sample_examples
    dev = [eg.reference for eg in examples[24:]]
    star = [eg.reference for eg in examples[24:27]]
    parser = trained_nlp.get_pipe("joint_sbd_parser")
    before = dict(parser.cfg)
    # no component writes probabilities: every weight scores the same, and w = 0 stays
    chosen, table = tune_prior(trained_nlp, dev, [star], weights=(0.5,), punct_shifts=(0.0, 2.0),
                               unpunct_shifts=(0.0,))
    assert chosen["prior_weight"] == 0.0 and len(table) == 2
    assert set(table[1]["sb_bias"]) == {str(parser.cfg["sb_bias"]), str(parser.cfg["sb_bias"] + 1.0)}
    trained_nlp.add_pipe("boundary_prior", source=prior_nlp, before="joint_sbd_parser")
    try:
        chosen, table = tune_prior(trained_nlp, dev, [star], weights=(0.5, 1.0), punct_shifts=(0.0, 2.0),
                                   unpunct_shifts=(0.0, 2.0))
        assert chosen["prior_weight"] in (0.0, 0.5, 1.0) and len(table) == 3
        base = str(parser.cfg["sb_bias"])
        assert any(row["sb_bias"][base] != table[0]["sb_bias"][base] for row in table[1:])  # the prior moves the parses
    finally:
        trained_nlp.remove_pipe("boundary_prior")
    assert parser.cfg == before


def test_prior_column_bins_log_odds():
    from spacy_joint_sbd.pipeline.joint.prior_scores import BINS_PER_LOGIT, CLIP, NO_PRIOR, prior_column

    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["a", "b", "c", "d"])
    col = prior_column(doc)
    assert col.shape == (4, 1) and col.dtype == numpy.uint64 and (col == NO_PRIOR).all()
    doc._.set(DOC_PROBS, numpy.asarray([1.0, 0.5, 0.0, 0.9], dtype=numpy.float32))
    col = prior_column(doc)[:, 0].tolist()
    middle = 2 + int(CLIP * BINS_PER_LOGIT)
    assert col[:3] == [2 + 2 * int(CLIP * BINS_PER_LOGIT), middle, 2]  # clipped at ±CLIP, 0.5 in the middle
    assert col[3] == middle + round(numpy.log(9) * BINS_PER_LOGIT) and min(col) > NO_PRIOR
    doc._.set(DOC_PROBS, numpy.zeros(3))
    with pytest.raises(ValueError, match=DOC_PROBS):
        prior_column(doc)


def test_prior_column_prefers_the_feature_probabilities():
    """`boundary_feature_probs`, when a component wrote them, are the features; `boundary_probs`
    (what prior_weight adds) are not read then."""
    from spacy_joint_sbd.boundary import DOC_FEATURE_PROBS
    from spacy_joint_sbd.pipeline.joint.prior_scores import prior_column, prior_sb_scores

    doc = Doc(spacy.blank("en").vocab, words=["a", "b", "c"])
    doc._.set(DOC_PROBS, numpy.asarray([0.5, 0.5, 0.5], dtype=numpy.float32))
    blended = prior_column(doc)[:, 0].tolist()
    doc._.set(DOC_FEATURE_PROBS, numpy.asarray([0.9, 0.1, 0.5], dtype=numpy.float32))
    own = prior_column(doc)[:, 0].tolist()
    assert own[2] == blended[2] and own[0] > blended[0] > own[1]
    numpy.testing.assert_array_equal(prior_sb_scores(doc, 1.0), numpy.zeros(3, dtype=numpy.float32))
    doc._.set(DOC_FEATURE_PROBS, numpy.zeros(2))
    with pytest.raises(ValueError, match=DOC_FEATURE_PROBS):
        prior_column(doc)


def test_prior_features_are_learnt_and_saved(sample_examples, tmp_path):
    """A parser trained with `prior_features` on unpunctuated documents whose probabilities are
    informative (0.9 at gold sentence starts, 0.1 elsewhere) learns to read them: with
    `prior_weight` 0, a held-out document's boundaries follow its probabilities (more of them at
    the gold starts than with the probabilities flipped), the setting survives saving, and a Doc
    without probabilities still parses."""
    from spacy.training import Example

    from spacy_joint_sbd.corpus.docs import doc_to_record, record_to_doc
    from spacy_joint_sbd.corpus.variants import apply_variant

    _, examples = sample_examples
    vocab = examples[0].reference.vocab

    def star(eg):
        ref = record_to_doc(vocab, apply_variant(doc_to_record(eg.reference), "star"))
        gold = numpy.asarray([i == 0 or bool(t.is_sent_start) for i, t in enumerate(ref)])
        return ref, gold

    def predicted(ref, probs):
        doc = Doc(vocab, words=[t.text for t in ref], spaces=[bool(t.whitespace_) for t in ref])
        if probs is not None:
            doc._.set(DOC_PROBS, numpy.asarray(probs, dtype=numpy.float32))
        return doc

    train = []
    for eg in examples[:24]:
        ref, gold = star(eg)
        train.append(Example(predicted(ref, numpy.where(gold, 0.9, 0.1)), ref))
    nlp = spacy.blank("en", vocab=vocab)
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4, "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"],
                                             "prior_features": True})
    nlp.initialize(lambda: train)
    for _ in range(3):
        for i in range(0, len(train), 8):
            nlp.update(train[i:i + 8])
    parser = nlp.get_pipe("joint_sbd_parser")
    assert parser.cfg["prior_weight"] == 0.0 and "BOUNDARY_PRIOR" in parser.parser.attrs
    ref, gold = star(examples[25])
    probs = numpy.where(gold, 0.9, 0.1)

    def starts(p, pipe):
        return numpy.asarray([bool(t.is_sent_start) for t in pipe(predicted(ref, p))])

    hits = (starts(probs, parser)[1:] & gold[1:]).sum()
    flipped = (starts(1 - probs, parser)[1:] & gold[1:]).sum()
    assert hits > flipped + 2, (hits, flipped, gold.sum())
    assert starts(None, parser).sum() >= 1
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m").get_pipe("joint_sbd_parser")
    assert loaded.cfg["prior_features"] is True
    assert (starts(probs, loaded) == starts(probs, parser)).all()
    with pytest.raises(ValueError, match="prior_features"):
        spacy.blank("en").add_pipe("joint_sbd_parser", config={"prior_features": "yes"})
