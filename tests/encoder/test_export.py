"""The ONNX graph built from BERT weights computes what BERT computes; int8 stays close."""
import numpy
import onnxruntime
import pytest

from spacy_joint_sbd.encoder.config import BertShape
from spacy_joint_sbd.encoder.export import bert_graph, export, quantize
from tiny_bert import SHAPE, VOCAB, forward, random_weights


def _run(graph: bytes, ids, mask):
    s = onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
    return s.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def _batch(seed: int = 1, b: int = 3, t: int = 19):
    rng = numpy.random.default_rng(seed)
    ids = rng.integers(0, len(VOCAB), (b, t)).astype(numpy.int64)
    mask = numpy.ones_like(ids)
    mask[1, 11:] = 0
    return ids, mask


def test_float_graph_is_bert():
    w = random_weights(3)
    ids, mask = _batch()
    got = _run(bert_graph(w, SHAPE).SerializeToString(), ids, mask)
    assert got.shape == ids.shape
    numpy.testing.assert_allclose(got[mask == 1], forward(w, ids, mask)[mask == 1], atol=2e-5)


def test_padding_does_not_reach_real_pieces():
    w = random_weights(4)
    ids, mask = _batch(t=12)
    graph = bert_graph(w, SHAPE).SerializeToString()
    short = _run(graph, ids[1:2, :11], mask[1:2, :11])
    padded = _run(graph, ids[1:2], mask[1:2])
    numpy.testing.assert_allclose(padded[0, :11], short[0], atol=1e-4)


def test_int8_stays_close(tmp_path):
    w = random_weights(5)
    ids, mask = _batch(t=40)
    f32 = export(w, SHAPE, tmp_path / "f.onnx")
    i8 = quantize(f32, tmp_path / "q.onnx")
    a, b = _run(f32.read_bytes(), ids, mask), _run(i8.read_bytes(), ids, mask)
    assert i8.stat().st_size < 0.6 * f32.stat().st_size
    assert numpy.corrcoef(a[mask == 1], b[mask == 1])[0, 1] > 0.98
    assert not numpy.array_equal(a, b)  # it did quantise


def test_prefix_free_names_export_alike():
    w = random_weights(6)
    bare = {k[5:] if k.startswith("bert.") else k: v for k, v in w.items()}
    assert bert_graph(w, SHAPE).SerializeToString() == bert_graph(bare, SHAPE).SerializeToString()


def test_missing_or_misshapen_or_not_finite_weights_are_named():
    w = random_weights(7)
    del w["bert.encoder.layer.1.output.dense.bias"]
    with pytest.raises(KeyError, match="layer.1.output.dense.bias"):
        bert_graph(w, SHAPE)
    w = random_weights(7)
    w["classifier.weight"] = w["classifier.weight"][:, :5]
    with pytest.raises(ValueError, match="classifier.weight"):
        bert_graph(w, SHAPE)
    w = random_weights(7)
    w["bert.embeddings.LayerNorm.bias"][3] = numpy.nan
    with pytest.raises(ValueError, match="not finite"):
        bert_graph(w, SHAPE)


def test_shape_from_hugging_face_config():
    cfg = {"model_type": "bert", "hidden_act": "gelu", "vocab_size": 30522, "hidden_size": 384,
           "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536,
           "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0}
    shape = BertShape.from_dict(cfg)
    assert shape.head_size == 32
    assert BertShape.from_dict(shape.to_dict()) == shape
    with pytest.raises(ValueError, match="GELU"):
        BertShape.from_dict({**cfg, "hidden_act": "relu"})
    with pytest.raises(ValueError, match="multiple"):
        BertShape.from_dict({**cfg, "num_attention_heads": 5})
    with pytest.raises(ValueError, match="vocab_size"):
        BertShape.from_dict({**cfg, "vocab_size": 0})
