"""The syntax heads' ONNX nodes compute what the multi-task encoder's heads compute."""
import numpy
import onnxruntime
import pytest

from spacy_joint_sbd.encoder.export import bert_graph, export, quantize
from spacy_joint_sbd.encoder.heads import OUTPUTS, HeadShape, check_head_weights
from tiny_bert import SHAPE, VOCAB, forward, forward_heads, random_head_weights, random_weights


def _inputs(seed: int = 1, b: int = 3, t: int = 17):
    rng = numpy.random.default_rng(seed)
    ids = rng.integers(5, len(VOCAB), (b, t)).astype(numpy.int64)
    mask = numpy.ones_like(ids)
    mask[1, 10:] = 0
    cand = (rng.random((b, t)) < 0.7).astype(numpy.int64)
    cand[:, 0] = 1
    cand[mask == 0] = 0
    return ids, mask, cand


def _run(graph: bytes, ids, mask, cand):
    s = onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, {"input_ids": ids, "attention_mask": mask, "candidates": cand})))


def test_heads_graph_matches_reference():
    w = {**random_weights(7), **random_head_weights(8)}
    ids, mask, cand = _inputs()
    out = _run(bert_graph(w, SHAPE, top_k=3).SerializeToString(), ids, mask, cand)
    assert list(out) == ["logits", *OUTPUTS]
    index, score, label, upos = forward_heads(w, ids, mask, cand, 3)
    real = mask == 1
    numpy.testing.assert_allclose(out["logits"][real], forward(w, ids, mask)[real], atol=2e-5)
    numpy.testing.assert_array_equal(out["head_index"][real], index[real])
    numpy.testing.assert_allclose(out["head_score"][real], score[real], atol=1e-4)
    numpy.testing.assert_array_equal(out["head_label"][real], label[real])
    numpy.testing.assert_array_equal(out["upos"][real], upos[real])
    # A piece's candidates are [CLS] and first pieces, never itself, best first.
    for b, i in zip(*numpy.nonzero(real)):
        for j in out["head_index"][b, i][out["head_score"][b, i] > -1000]:
            assert cand[b, j] == 1 and j != i
    assert (numpy.diff(out["head_score"], axis=-1) <= 0).all()


def test_int8_heads_stay_close(tmp_path):
    w = {**random_weights(9), **random_head_weights(10)}
    ids, mask, cand = _inputs(seed=2, t=30)
    f32 = export(w, SHAPE, tmp_path / "f.onnx", top_k=2)
    i8 = quantize(f32, tmp_path / "q.onnx")
    a, b = _run(f32.read_bytes(), ids, mask, cand), _run(i8.read_bytes(), ids, mask, cand)
    real = (mask == 1) & (cand == 1)
    agree = (a["head_index"][..., 0] == b["head_index"][..., 0])[real].mean()
    assert agree > 0.6  # a broken graph agrees about as often as a random pick (1 in ~20)
    assert not numpy.array_equal(a["head_score"], b["head_score"])  # it did quantise


def test_bad_head_weights_are_named():
    w = random_head_weights(0)
    assert HeadShape.from_weights(w) == HeadShape(arc_dim=12, label_dim=8, n_labels=5, n_upos=4)
    with pytest.raises(ValueError, match="lab_V.weight"):
        check_head_weights({**w, "lab_V.weight": numpy.zeros((5, 3), numpy.float32)}, SHAPE.hidden_size)
    with pytest.raises(KeyError, match="upos.bias"):
        check_head_weights({k: v for k, v in w.items() if k != "upos.bias"}, SHAPE.hidden_size)
    bad = dict(w)
    bad["arc_u"] = numpy.full(12, numpy.nan, numpy.float32)
    with pytest.raises(ValueError, match="arc_u"):
        check_head_weights(bad, SHAPE.hidden_size)
    with pytest.raises(ValueError, match="top_k"):
        bert_graph({**random_weights(0), **w}, SHAPE, top_k=0)


def _syntax_encoder(tmp_path, top_k: int = 3, **kw):
    from spacy_joint_sbd.encoder.session import BoundaryEncoder
    from tiny_bert import wordpiece_tokenizer_json

    w = {**random_weights(11), **random_head_weights(12)}
    graph = bert_graph(w, SHAPE, top_k=top_k).SerializeToString()
    return w, BoundaryEncoder(graph, wordpiece_tokenizer_json(), top_k=top_k, **kw)


def test_session_maps_candidates_to_words(tmp_path):
    from spacy_joint_sbd.encoder.session import NO_HEAD, ROOT

    w, enc = _syntax_encoder(tmp_path)
    assert enc.syntax
    words = "so i went to the store they had no milk left".split()
    out = enc.many_outputs([words])[0]
    ids, offsets = enc.pieces.encode(words)
    x = numpy.concatenate([[enc.pieces.cls_id], ids, [enc.pieces.sep_id]])[None]
    cand = numpy.zeros_like(x)
    cand[0, 0] = 1
    cand[0, 1 + offsets[:-1]] = 1
    index, score, label, upos = forward_heads(w, x, numpy.ones_like(x), cand, 3)
    pos = 1 + offsets[:-1]
    piece_word = {int(1 + o): i for i, o in enumerate(offsets[:-1])}
    want = numpy.vectorize(lambda p: ROOT if p == 0 else piece_word[int(p)])(index[0, pos])
    numpy.testing.assert_array_equal(out.heads, want)
    numpy.testing.assert_allclose(out.head_scores, score[0, pos], atol=1e-4)
    numpy.testing.assert_array_equal(out.head_labels, label[0, pos])
    numpy.testing.assert_array_equal(out.upos, upos[0, pos])
    numpy.testing.assert_allclose(out.logits, enc.word_logits(words), atol=1e-6)
    assert (out.heads != numpy.arange(len(words))[:, None]).all() and (out.heads != NO_HEAD).all()


def test_session_long_text_and_tiny_windows(tmp_path):
    from spacy_joint_sbd.encoder.session import NO_HEAD, ROOT

    _, enc = _syntax_encoder(tmp_path, top_k=4, max_words=6)
    words = ("the store had no milk left so we went next door and asked the clerk " * 7).split()
    out = enc.many_outputs([words, ["hello"], []])
    long, one, none = out
    n = len(words)
    assert long.heads.shape == (n, 4) and one.heads.shape == (1, 4) and none.heads.shape == (0, 4)
    assert ((long.heads >= ROOT) & (long.heads < n) | (long.heads == NO_HEAD)).all()
    assert (long.heads != numpy.arange(n)[:, None]).all()
    # A candidate lies in the word's own window: at most max_words words away.
    real = long.heads >= 0
    assert (numpy.abs(long.heads - numpy.arange(n)[:, None])[real] < 6).all()
    # One word: its only candidate is the root; the other k - 1 are none.
    assert one.heads[0, 0] == ROOT and (one.heads[0, 1:] == NO_HEAD).all()
    assert numpy.isneginf(one.head_scores[0, 1:]).all()
    assert (numpy.diff(long.head_scores, axis=-1)[real[:, 1:]] <= 0).all()
