"""`BoundedTok2Vec`: a tok2vec that feeds its network at most `max_tokens` tokens a call gives the
vectors of the whole-batch call, bit for bit, and the default pipeline's callback applies it."""
import numpy
import pytest
import spacy
from spacy.pipeline import Tok2Vec
from thinc.api import Model

from spacy_joint_sbd.context.bounded_tok2vec import (DEFAULT_MAX_TOKENS, BoundedTok2Vec, bound_tok2vec,
                                                      receptive_radius)
from spacy_joint_sbd.context.numpy_gemm import use_numpy_gemm


@pytest.fixture(scope="module")
def tok2vec_nlp(sample_examples):
    """A blank pipeline with spaCy's default CNN tok2vec (depth 4, window 1), initialized."""
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.initialize(lambda: examples[:4])
    return nlp


@pytest.fixture(scope="module")
def text(sample_examples):
    _, examples = sample_examples
    return "\n\n".join(eg.reference.text for eg in examples)


def model_calls(monkeypatch):
    """The token counts of each call of spaCy's `Tok2Vec.predict` (the whole-batch model call)."""
    calls = []
    predict = Tok2Vec.predict

    def counting(self, docs):
        calls.append(sum(len(d) for d in docs))
        return predict(self, docs)

    monkeypatch.setattr(Tok2Vec, "predict", counting)
    return calls


def test_pieces_and_groups_give_the_whole_calls_vectors(tok2vec_nlp, text, monkeypatch):
    pipe = tok2vec_nlp.get_pipe("tok2vec")
    assert receptive_radius(pipe.model) == 4
    long_doc = tok2vec_nlp.make_doc(text)
    short = [tok2vec_nlp.make_doc(t) for t in text.split("\n\n")[:12]]
    docs = [long_doc, *short[:6], tok2vec_nlp.make_doc(""), *short[6:]]
    want = pipe.predict(docs)
    bounded = spacy.blank("en", vocab=tok2vec_nlp.vocab)
    bounded.add_pipe("tok2vec", source=tok2vec_nlp)
    bound_tok2vec(bounded, max_tokens=64)
    piped = bounded.get_pipe("tok2vec")
    assert isinstance(piped, BoundedTok2Vec)
    calls = model_calls(monkeypatch)
    got = piped.predict(docs)
    assert len(long_doc) > 20 * 64 and max(calls) <= 64 and len(calls) > len(long_doc) // 64
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape and numpy.array_equal(a, b)


def test_a_model_of_unknown_reach_is_never_cut(tok2vec_nlp, text, monkeypatch):
    """A leaf layer that is not known to be row-wise (an LSTM, say): no radius, Docs whole."""
    pipe = tok2vec_nlp.get_pipe("tok2vec")
    mystery = Model("mystery", lambda model, X, is_train: (X, lambda dY: dY))
    assert receptive_radius(mystery) is None
    bounded = spacy.blank("en", vocab=tok2vec_nlp.vocab)
    bounded.add_pipe("tok2vec", source=tok2vec_nlp)
    bound_tok2vec(bounded, max_tokens=64)
    piped = bounded.get_pipe("tok2vec")
    monkeypatch.setattr("spacy_joint_sbd.context.bounded_tok2vec.receptive_radius", lambda model: None)
    doc = tok2vec_nlp.make_doc(text)
    want = pipe.predict([doc])[0]
    calls = model_calls(monkeypatch)
    assert numpy.array_equal(piped.predict([doc])[0], want) and calls == [len(doc)]


def test_the_default_pipelines_callback_bounds_a_loaded_tok2vec(tok2vec_nlp, text, tmp_path, monkeypatch):
    """`spacy_joint_sbd.numpy_gemm.v1` (the default pipeline's `after_pipeline_creation`) makes a
    loaded pipeline's tok2vec predict a Doc of any length `DEFAULT_MAX_TOKENS` tokens at a time."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", source=tok2vec_nlp)
    use_numpy_gemm(nlp)
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    pipe = loaded.get_pipe("tok2vec")
    calls = model_calls(monkeypatch)
    words = text.split()
    doc = loaded((" ".join(words) + " ") * (2 * DEFAULT_MAX_TOKENS // len(words) + 1))
    assert len(doc) > 2 * DEFAULT_MAX_TOKENS and max(calls) <= DEFAULT_MAX_TOKENS
    assert doc.tensor.shape == (len(doc), pipe.model.get_dim("nO"))


def test_bad_arguments_are_refused(tok2vec_nlp):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    with pytest.raises(ValueError, match="'sentencizer' is not a tok2vec"):
        bound_tok2vec(nlp, ["sentencizer"])
    with pytest.raises(ValueError, match="'tok2vec' is not a tok2vec"):
        bound_tok2vec(nlp)
    with pytest.raises(ValueError, match="max_tokens must be an int >= 64, got 0"):
        bound_tok2vec(tok2vec_nlp, max_tokens=0)


def test_a_long_doc_is_read_once_not_once_per_piece(tok2vec_nlp):
    """`Span.as_doc` reads the whole Doc's array unless given it: a Doc cut into k pieces read k
    times made the cutting quadratic (a 1 MB run of brackets took 10 times prose's time)."""
    from spacy.tokens import Doc

    from spacy_joint_sbd.context.bounded_tok2vec import plan_pieces

    reads = []

    class CountingDoc(Doc):
        def to_array(self, *args, **kwargs):
            reads.append(len(self))
            return super().to_array(*args, **kwargs)

    doc = CountingDoc(tok2vec_nlp.vocab, words=["("] * 5000)
    pieces = plan_pieces([doc], 64, 4)
    assert len(pieces) == -(-5000 // 56) and reads == [5000]
    assert [len(p[1]) for p in pieces[:2]] == [60, 64] and pieces[1][2:] == (4, 56, 56)
