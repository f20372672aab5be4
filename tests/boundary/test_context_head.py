"""The context head: window rows, the blend's logistic fit, an MLP that learns, its state; and
the boundary_prior carrying one (blended where the Doc has vectors, n-grams alone where it has
none, a wrong width refused, saved and loaded with the component)."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.boundary import DOC_PROBS
from spacy_joint_sbd.boundary.context_head import ContextHead, blend, stack_fit, window_rows
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)


def test_window_rows_read_two_words_either_side():
    v = numpy.arange(1, 7, dtype=numpy.float32).reshape((3, 2))  # words 0, 1, 2 of width 2
    rows = window_rows(v, 2)
    assert rows.shape == (3, 8)
    assert rows[0].tolist() == [0, 0, 0, 0, 1, 2, 3, 4]  # i-2, i-1 outside; i, i+1
    assert rows[2].tolist() == [1, 2, 3, 4, 5, 6, 0, 0]
    with pytest.raises(ValueError):
        window_rows(numpy.zeros(3))


def test_stack_fit_recovers_a_logistic_model():
    rng = numpy.random.default_rng(0)
    x = rng.normal(size=(20000, 2))
    z = 1.5 * x[:, 0] - 0.5 * x[:, 1] - 1.0
    y = (rng.random(20000) < 1 / (1 + numpy.exp(-z))).astype(float)
    coef = stack_fit(x, y)
    assert numpy.allclose(coef, [1.5, -0.5, -1.0], atol=0.1)
    p = blend(x[:, 0], x[:, 1], coef)
    assert abs(p.mean() - y.mean()) < 0.01
    with pytest.raises(ValueError):
        stack_fit(numpy.full((3, 2), numpy.nan), numpy.zeros(3))


def synthetic(n, width=4, seed=0):
    """Vectors whose first dimension is high on words that start a sentence (read at offset i)."""
    rng = numpy.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(numpy.uint8)
    v = rng.normal(size=(n, width)).astype(numpy.float32)
    v[:, 0] += 3 * y
    return v, y


def test_head_learns_and_round_trips():
    v, y = synthetic(6000)
    head = ContextHead(4, hidden=8, window=2)
    stats = head.fit(window_rows(v).astype(numpy.float16), y, epochs=4, batch=64, lr=0.01)
    assert stats["epochs"][-1]["loss"] < stats["epochs"][0]["loss"]
    tv, ty = synthetic(2000, seed=1)
    z = head.logits(tv)
    assert z.shape == (2000,) and z[ty == 1].mean() > z[ty == 0].mean() + 2
    again = ContextHead.from_state(head.get_state())
    assert numpy.array_equal(again.logits(tv), z)
    state = head.get_state()
    state["W1"] = state["W1"][:3]
    with pytest.raises(ValueError):
        ContextHead.from_state(state)
    with pytest.raises(ValueError):
        ContextHead.from_state({"width": 4})
    with pytest.raises(ValueError):
        head.logits(numpy.zeros((5, 3)))
    with pytest.raises(ValueError):
        ContextHead(0)


@pytest.fixture(scope="module")
def prior_with_head():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 12}})
    v, y = synthetic(4000)
    head = ContextHead(4, hidden=8, window=2)
    head.fit(window_rows(v), y, epochs=3, batch=64, lr=0.01)
    pipe.set_context_head(head, [1.0, 2.0, -1.0])
    return nlp


def doc_with(nlp, tensor):
    doc = Doc(nlp.vocab, words=["so", "we", "went", "home", "it", "was", "late"])
    if tensor is not None:
        doc.tensor = tensor
    return doc


def test_prior_blends_the_head_where_the_doc_has_vectors(prior_with_head, tmp_path):
    pipe = prior_with_head.get_pipe("boundary_prior")
    ngram = pipe(doc_with(prior_with_head, None))._.get(DOC_PROBS)
    tensor = numpy.zeros((7, 4), dtype=numpy.float32)
    tensor[4, 0] = 6.0  # "it" looks like a sentence start to the head
    blended = pipe(doc_with(prior_with_head, tensor))._.get(DOC_PROBS)
    assert blended[0] == 1.0 and blended[4] > ngram[4] and blended[4] > blended[3]
    with pytest.raises(ValueError, match="tensor"):
        pipe(doc_with(prior_with_head, numpy.zeros((7, 5), dtype=numpy.float32)))
    prior_with_head.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m").get_pipe("boundary_prior")
    assert numpy.array_equal(loaded(doc_with(prior_with_head, tensor))._.get(DOC_PROBS), blended)
    other = spacy.blank("en").add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 12}})
    other.from_bytes(pipe.to_bytes())
    assert numpy.array_equal(other(doc_with(prior_with_head, tensor))._.get(DOC_PROBS), blended)
    (tmp_path / "m" / "boundary_prior" / "head").unlink()  # the cfg still names a blend
    (tmp_path / "m" / "boundary_prior" / "checksums.json").unlink()  # which checksums would refuse first
    with pytest.raises(ValueError, match="context head"):
        spacy.load(tmp_path / "m")
    with pytest.raises(ValueError, match="blend"):
        pipe.set_context_head(pipe.context_head, [1.0, float("nan"), 0.0])
