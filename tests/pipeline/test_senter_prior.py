"""The senter_prior component: spaCy's senter trained by the usual update loop, writing
`doc._.boundary_probs` (not sentence starts), blending with an earlier prior, round-tripping, and
refusing a bad blend."""
import numpy
import pytest
import spacy

from spacy_joint_sbd.boundary import DOC_PROBS
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)
from spacy_joint_sbd.pipeline.senter_prior import SenterPrior  # noqa: F401  (registers the factory)

SMALL = {"model": {"tok2vec": {"embed": {"width": 32, "rows": [500, 100, 100, 100, 10]},
                               "encode": {"width": 32, "depth": 1}}}}


@pytest.fixture(scope="module")
def senter_nlp(sample_examples):
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("senter_prior", config=SMALL)
    train = examples[:24]
    optimizer = nlp.initialize(lambda: train)
    for _ in range(15):
        for i in range(0, len(train), 4):
            nlp.update(train[i:i + 4], sgd=optimizer)
    return nlp


def test_writes_probabilities_not_starts(senter_nlp, sample_examples):
    _, examples = sample_examples
    doc = senter_nlp(examples[24].reference.text)
    probs = doc._.get(DOC_PROBS)
    assert probs.shape == (len(doc),) and probs.dtype == numpy.float32
    assert ((probs > 0) & (probs < 1)).all()
    assert not doc.has_annotation("SENT_START")
    scores = senter_nlp.evaluate(examples[24:])
    assert 0.3 < scores["prior_f"] <= 1.0
    empty = senter_nlp("")
    assert empty._.get(DOC_PROBS).shape == (0,)


def test_blend_mixes_log_odds(senter_nlp):
    text = "so we went home. it was late and then we slept"
    pipe = senter_nlp.get_pipe("senter_prior")
    doc = senter_nlp.make_doc(text)
    scores = pipe.predict([doc])
    pipe.set_annotations([doc], scores)
    own = doc._.get(DOC_PROBS).astype(numpy.float64)
    doc._.set(DOC_PROBS, numpy.full(len(doc), 0.5, dtype=numpy.float32))  # an earlier prior: log-odds 0
    pipe.blend = 0.25
    try:
        pipe.set_annotations([doc], scores)
    finally:
        pipe.blend = 1.0
    mixed = doc._.get(DOC_PROBS).astype(numpy.float64)
    logit = numpy.log(own) - numpy.log1p(-own)
    assert numpy.allclose(numpy.log(mixed) - numpy.log1p(-mixed), 0.25 * logit, atol=1e-3)


def test_round_trips(senter_nlp, tmp_path):
    text = "so we went home. it was late and then we slept"
    want = senter_nlp(text)._.get(DOC_PROBS)
    senter_nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    assert numpy.allclose(loaded(text)._.get(DOC_PROBS), want, atol=1e-6)


@pytest.mark.parametrize("bad", [-0.1, 1.5, "1", None, True, float("nan")])
def test_bad_blend_is_refused(bad):
    nlp = spacy.blank("en")
    with pytest.raises(Exception, match="blend"):
        nlp.add_pipe("senter_prior", config={"blend": bad})


def test_bad_saved_blend_is_refused_where_read(senter_nlp):
    pipe = senter_nlp.get_pipe("senter_prior")
    pipe.cfg["blend"] = "half"
    try:
        with pytest.raises(ValueError, match=r"\[senter_prior\] blend must be a number in \[0, 1\], got 'half'"):
            senter_nlp("so we went home")
    finally:
        pipe.cfg["blend"] = 1.0
