"""`BoundaryEncoder`: word pieces, windows and the most central window's logit, thread-safe."""
import threading

import numpy
import onnxruntime
import pytest

from spacy_joint_sbd.encoder.files import EncoderFiles
from spacy_joint_sbd.encoder.pieces import WordPieces
from spacy_joint_sbd.encoder.session import BoundaryEncoder
from spacy_joint_sbd.encoder.windows import central_windows, plan_windows
from tiny_bert import wordpiece_tokenizer_json

WORDS = ("so i went to the store they had no milk left i asked the clerk about it . okay "
         "hello there world , the next day came and she said yes").split()


def _encoder(files: EncoderFiles, **kw) -> BoundaryEncoder:
    return BoundaryEncoder(files.graph, files.tokenizer, **kw)


def test_pieces_offsets_cap_and_unknown():
    wp = WordPieces(wordpiece_tokenizer_json(), max_word_pieces=2)
    ids, offsets = wp.encode(["went", "unasked", "\x00", "", "went"])
    assert offsets[0] == 0 and len(offsets) == 6 and (numpy.diff(offsets) >= 1).all()
    assert (numpy.diff(offsets) <= 2).all()
    assert ids[offsets[2]] == wp.unk_id and ids[offsets[3]] == wp.unk_id
    assert ids[offsets[0]] == ids[offsets[4]]
    with pytest.raises(ValueError, match="max_word_pieces"):
        WordPieces(wordpiece_tokenizer_json(), max_word_pieces=0)
    with pytest.raises(ValueError, match="tokenizer.json"):
        WordPieces("{not json")


def test_each_word_gets_its_central_windows_logit(tiny_encoder_dir):
    files = EncoderFiles.from_disk(tiny_encoder_dir)
    words = WORDS * 4
    enc = _encoder(files, max_words=10, max_pieces=40)
    got = enc.word_logits(words)
    ids, offsets = enc.pieces.encode(words)
    spans = plan_windows(numpy.diff(offsets), 10, 38)
    owner = central_windows(spans, len(words))
    sess = onnxruntime.InferenceSession(files.graph, providers=["CPUExecutionProvider"])
    for i in (0, 7, 31, len(words) - 1):
        s, e = spans[owner[i]]
        x = numpy.concatenate([[enc.pieces.cls_id], ids[offsets[s]:offsets[e]], [enc.pieces.sep_id]])[None]
        lg = sess.run(None, {"input_ids": x, "attention_mask": numpy.ones_like(x)})[0]
        assert got[i] == pytest.approx(float(lg[0, 1 + offsets[i] - offsets[s]]), abs=1e-5)


def test_texts_alone_and_together_agree(tiny_encoder_dir):
    files = EncoderFiles.from_disk(tiny_encoder_dir)
    texts = [WORDS, WORDS[:3], [], WORDS * 3]
    enc = _encoder(files, max_words=12)
    one = [enc.word_logits(t) for t in texts]
    many = enc.many_logits(texts)
    for a, b in zip(one, many):
        numpy.testing.assert_array_equal(a, b)
    assert many[2].shape == (0,)


def test_float_graph_batches_agree(tmp_path):
    from tiny_bert import write_encoder_dir

    files = EncoderFiles.from_disk(write_encoder_dir(tmp_path / "f32", quantized=False))
    texts = [WORDS, WORDS[:3], WORDS * 3]
    one = _encoder(files, max_words=12).many_logits(texts)
    many = _encoder(files, max_words=12, batch_size=5).many_logits(texts)
    for a, b in zip(one, many):
        numpy.testing.assert_allclose(a, b, atol=1e-4)


def test_long_words_and_long_texts(tiny_encoder_dir):
    files = EncoderFiles.from_disk(tiny_encoder_dir)
    enc = _encoder(files, max_words=96, max_pieces=64, max_word_pieces=8, batch_size=4)
    words = ["x" * 5000, "went"] + WORDS * 40
    out = enc.word_logits(words)
    assert out.shape == (len(words),) and numpy.isfinite(out).all()


def test_one_encoder_serves_many_threads(tiny_encoder_dir):
    files = EncoderFiles.from_disk(tiny_encoder_dir)
    enc = _encoder(files, max_words=16)
    texts = [WORDS[i:] + WORDS[:i] for i in range(8)]
    want = [enc.word_logits(t) for t in texts]
    got = [None] * len(texts)

    def work(k):
        for _ in range(5):
            got[k] = enc.word_logits(texts[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(want, got):
        numpy.testing.assert_array_equal(a, b)


def test_bad_settings_and_bad_graphs(tiny_encoder_dir):
    files = EncoderFiles.from_disk(tiny_encoder_dir)
    with pytest.raises(ValueError, match="max_words"):
        _encoder(files, max_words=0)
    with pytest.raises(ValueError, match="room for"):
        _encoder(files, max_pieces=8, max_word_pieces=8)
    with pytest.raises(ValueError, match="not an ONNX encoder graph"):
        BoundaryEncoder(b"garbage", files.tokenizer)
