"""The `encoder_boundaries` component: probabilities on the Doc, saved and loaded with the
pipeline, checked files, and the joint parser reading them."""
import threading

import numpy
import pytest
import spacy

from spacy_joint_sbd.boundary import DOC_FEATURE_PROBS, DOC_PROBS
from spacy_joint_sbd.encoder.files import CARD, GRAPH, TOKENIZER
from tiny_bert import write_encoder_dir

TEXT = "so i went to the store they had no milk left\n\ni asked the clerk about it okay hello there"


def _nlp(encoder_dir, **cfg):
    nlp = spacy.blank("en")
    nlp.add_pipe("encoder_boundaries", config=cfg)
    nlp.get_pipe("encoder_boundaries").initialize(model_dir=encoder_dir)
    return nlp


def test_probabilities_for_every_token_spaces_never_start(tiny_encoder_dir):
    doc = _nlp(tiny_encoder_dir)(TEXT)
    p = doc._.get(DOC_PROBS)
    assert p.shape == (len(doc),) and p.dtype == numpy.float32
    assert ((p > 0) & (p < 1)).all()
    space = numpy.array([t.is_space for t in doc])
    assert space.any() and (p[space] <= 1e-6).all()
    assert p[~space].std() > 0
    assert [t._.boundary_prob for t in doc] == pytest.approx(p.tolist())
    assert all(t.is_sent_start is None for t in doc[1:])  # it sets no boundary


def test_calibration_in_the_card_is_applied(tmp_path):
    plain = _nlp(write_encoder_dir(tmp_path / "a"))(TEXT)._.get(DOC_PROBS).astype(float)
    shifted = _nlp(write_encoder_dir(tmp_path / "b", calibration={"scale": 2.0, "shift": -1.0}))(TEXT)
    q = shifted._.get(DOC_PROBS).astype(float)
    keep = plain > 1e-5
    logit = numpy.log(plain[keep] / (1 - plain[keep]))
    numpy.testing.assert_allclose(q[keep], 1 / (1 + numpy.exp(-(2 * logit - 1))), atol=1e-5)


def test_blend_mixes_with_earlier_probabilities(tiny_encoder_dir):
    nlp = _nlp(tiny_encoder_dir, blend=0.5)
    doc = nlp.make_doc(TEXT)
    doc._.set(DOC_PROBS, numpy.full(len(doc), 0.9, dtype=numpy.float32))
    mixed = nlp.get_pipe("encoder_boundaries")(doc)._.get(DOC_PROBS)
    own = _nlp(tiny_encoder_dir)(TEXT)._.get(DOC_PROBS)
    word = numpy.array([not t.is_space for t in doc])
    lo = lambda p: numpy.log(p / (1 - p))  # noqa: E731
    numpy.testing.assert_allclose(lo(mixed[word].astype(float)), 0.5 * lo(0.9) + 0.5 * lo(own[word].astype(float)),
                                  atol=1e-3)


def test_blend_punctuated_applies_to_punctuated_docs_only(tiny_encoder_dir, monkeypatch):
    """blend_punctuated 0: a Doc with sentence-final punctuation keeps the earlier probabilities
    and the encoder never reads it; a Doc without keeps `blend`."""
    nlp = _nlp(tiny_encoder_dir, blend=1.0, blend_punctuated=0.0)
    pipe = nlp.get_pipe("encoder_boundaries")
    read = []
    many = pipe.encoder.many_logits
    monkeypatch.setattr(pipe.encoder, "many_logits", lambda words: read.append(len(words)) or many(words))
    punct, bare = nlp.make_doc("I went home. Then I slept."), nlp.make_doc(TEXT)
    for doc in (punct, bare):
        doc._.set(DOC_PROBS, numpy.full(len(doc), 0.25, dtype=numpy.float32))
    pipe(punct)
    numpy.testing.assert_array_equal(punct._.get(DOC_PROBS), numpy.full(len(punct), 0.25, dtype=numpy.float32))
    assert read == [0]
    pipe(bare)
    numpy.testing.assert_array_equal(bare._.get(DOC_PROBS), _nlp(tiny_encoder_dir)(TEXT)._.get(DOC_PROBS))
    # without earlier probabilities a punctuated Doc is still read (there is nothing to keep)
    alone = pipe(nlp.make_doc("I went home. Then I slept."))._.get(DOC_PROBS)
    assert alone.std() > 0 and read[-1] == 1


def test_own_features_are_the_encoders_own_on_every_doc(tiny_encoder_dir, tmp_path):
    """own_features: every Doc gets the encoder's own probabilities as the parser's features, a
    punctuated Doc at blend_punctuated 0 included (its boundary_probs stay the earlier ones), and
    the setting is saved with the pipeline."""
    nlp = _nlp(tiny_encoder_dir, blend=0.5, blend_punctuated=0.0, own_features=True)
    pipe = nlp.get_pipe("encoder_boundaries")
    alone = _nlp(tiny_encoder_dir)
    for text, punctuated in (("I went home. Then I slept.", True), (TEXT, False)):
        doc = nlp.make_doc(text)
        doc._.set(DOC_PROBS, numpy.full(len(doc), 0.25, dtype=numpy.float32))
        pipe(doc)
        numpy.testing.assert_array_equal(doc._.get(DOC_FEATURE_PROBS), alone(text)._.get(DOC_PROBS))
        kept = numpy.array_equal(doc._.get(DOC_PROBS), numpy.full(len(doc), 0.25, dtype=numpy.float32))
        assert kept == punctuated
    assert _nlp(tiny_encoder_dir)(TEXT)._.get(DOC_FEATURE_PROBS) is None  # off by default
    nlp.to_disk(tmp_path / "p")
    assert spacy.load(tmp_path / "p").get_pipe("encoder_boundaries").cfg["own_features"] is True


def test_saved_and_loaded_with_the_pipeline(tiny_encoder_dir, tmp_path):
    nlp = _nlp(tiny_encoder_dir, max_words=8)
    want = nlp(TEXT)._.get(DOC_PROBS)
    nlp.to_disk(tmp_path / "p")
    assert sorted(f.name for f in (tmp_path / "p" / "encoder_boundaries").iterdir()) == sorted([CARD, GRAPH, TOKENIZER])
    numpy.testing.assert_array_equal(spacy.load(tmp_path / "p")(TEXT)._.get(DOC_PROBS), want)
    again = spacy.blank("en")
    again.add_pipe("encoder_boundaries", config={"max_words": 8})
    again.from_bytes(nlp.to_bytes())
    numpy.testing.assert_array_equal(again(TEXT)._.get(DOC_PROBS), want)


def test_pipe_matches_one_by_one(tiny_encoder_dir):
    nlp = _nlp(tiny_encoder_dir, max_words=10)
    texts = [TEXT, "", "   ", "okay", TEXT * 5]
    for a, b in zip(nlp.pipe(texts, batch_size=3), [nlp(t) for t in texts]):
        numpy.testing.assert_array_equal(a._.get(DOC_PROBS), b._.get(DOC_PROBS))


def test_threads_share_one_pipeline(tiny_encoder_dir):
    nlp = _nlp(tiny_encoder_dir, max_words=10)
    texts = [TEXT[i:] for i in range(0, 40, 5)]
    want = [nlp(t)._.get(DOC_PROBS) for t in texts]
    got = [None] * len(texts)

    def work(k):
        got[k] = nlp(texts[k])._.get(DOC_PROBS)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(len(texts))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for a, b in zip(want, got):
        numpy.testing.assert_array_equal(a, b)


def test_corrupted_files_are_named(tiny_encoder_dir, tmp_path):
    nlp = _nlp(tiny_encoder_dir)
    nlp.to_disk(tmp_path / "p")
    graph = tmp_path / "p" / "encoder_boundaries" / GRAPH
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF
    graph.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"encoder\.onnx.*sha256"):
        spacy.load(tmp_path / "p")
    (tmp_path / "p" / "encoder_boundaries" / TOKENIZER).unlink()
    with pytest.raises(ValueError, match=r"tokenizer\.json: missing"):
        spacy.load(tmp_path / "p")


@pytest.mark.parametrize("card", [{"sha256": {TOKENIZER: "x"}}, {}, None])
def test_the_card_must_record_every_checksum(tiny_encoder_dir, tmp_path, card):
    """A card without the graph's sha256 (or no card at all) would let a damaged graph load."""
    import json
    import shutil

    from spacy_joint_sbd.encoder.files import EncoderFiles

    enc = tmp_path / "enc"
    shutil.copytree(tiny_encoder_dir, enc)
    data = bytearray((enc / GRAPH).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (enc / GRAPH).write_bytes(bytes(data))
    if card is None:
        (enc / CARD).unlink()
    else:
        whole = json.loads((enc / CARD).read_text(encoding="utf8"))
        whole.pop("sha256")
        (enc / CARD).write_text(json.dumps({**whole, **card}), encoding="utf8")
    with pytest.raises(ValueError, match=r"encoder\.json: (no sha256 of encoder\.onnx|missing)"):
        EncoderFiles.from_disk(enc)


def test_no_encoder_and_bad_settings_are_clear_errors():
    nlp = spacy.blank("en")
    nlp.add_pipe("encoder_boundaries")
    with pytest.raises(ValueError, match="has no encoder"):
        nlp("hello there")
    for bad in ({"max_words": 0}, {"blend": 1.5}, {"stride": 0}, {"stride": 1.01}, {"max_pieces": 1000}, {"threads": -1},
                {"max_pieces": 8, "max_word_pieces": 8}, {"batch_size": True}, {"blend_punctuated": -0.1},
                {"blend_punctuated": "0"}, {"own_features": "yes"}, {"own_features": 1}):
        with pytest.raises(ValueError):
            spacy.blank("en").add_pipe("encoder_boundaries", config=bad)


def test_joint_parser_reads_the_encoders_evidence(trained_nlp, tmp_path):
    """A strongly positive encoder (classifier bias +6 via calibration) with prior_weight > 0 makes
    the trained parser start more sentences than the same parser without the evidence."""
    enc = write_encoder_dir(tmp_path / "eager", calibration={"scale": 0.0, "shift": 6.0})
    text = ("we met the team on monday and then we talked about the plan for the new office "
            "after that they went home and the next day the work began again with the same people") * 3
    plain = trained_nlp(text)
    nlp = spacy.blank("en")
    nlp.add_pipe("encoder_boundaries")
    nlp.get_pipe("encoder_boundaries").initialize(model_dir=enc)
    nlp.add_pipe("joint_sbd_parser", source=trained_nlp)  # a copy: trained_nlp keeps its settings
    assert len(list(nlp(text).sents)) == len(list(plain.sents))  # weight 0: the evidence is not read
    nlp.get_pipe("joint_sbd_parser").prior_weight = 1.5
    assert len(list(nlp(text).sents)) > len(list(plain.sents))


@pytest.fixture(scope="module")
def syntax_encoder_dir(tmp_path_factory):
    return write_encoder_dir(tmp_path_factory.mktemp("syntax") / "enc", syntax=True, top_k=3)


def test_syntax_evidence_on_tokens(syntax_encoder_dir, tmp_path):
    """A multi-task encoder writes each word's head candidates in Doc token indices (whitespace
    tokens none, never the token itself), their probabilities and labels; saved and loaded alike;
    `syntax` false writes none."""
    from spacy_joint_sbd.pipeline.encoder_boundaries import DOC_HEAD_LABELS, DOC_HEAD_SCORES, DOC_HEADS
    from tiny_bert import SYNTAX_LABELS

    nlp = _nlp(syntax_encoder_dir)
    doc = nlp(TEXT)
    heads, scores, labels = (doc._.get(n) for n in (DOC_HEADS, DOC_HEAD_SCORES, DOC_HEAD_LABELS))
    assert heads.shape == scores.shape == labels.shape == (len(doc), 3)
    space = numpy.array([t.is_space for t in doc])
    assert (heads[space] == -2).all() and (scores[space] == 0).all()
    words = ~space
    assert (heads[words, 0] >= -1).all()
    assert not (heads == numpy.arange(len(doc))[:, None]).any()
    real = heads[words] >= 0
    assert not space[heads[words][real]].any()  # a head is a word
    assert ((scores[words] >= 0) & (scores[words] <= 1)).all() and (numpy.diff(scores[words], axis=1) <= 1e-6).all()
    names = {nlp.vocab.strings[int(h)] for h in labels[words].ravel()}
    assert names <= {"ROOT" if x == "root" else x for x in SYNTAX_LABELS}
    assert doc._.get(DOC_PROBS).shape == (len(doc),)
    nlp.to_disk(tmp_path / "p")
    again = spacy.load(tmp_path / "p")(TEXT)
    numpy.testing.assert_array_equal(again._.get(DOC_HEADS), heads)
    numpy.testing.assert_array_equal(again._.get(DOC_HEAD_LABELS), labels)
    off = _nlp(syntax_encoder_dir, syntax=False)(TEXT)
    assert off._.get(DOC_HEADS) is None
    numpy.testing.assert_array_equal(off._.get(DOC_PROBS), doc._.get(DOC_PROBS))


def test_syntax_card_without_labels_is_an_error(tmp_path):
    import json

    d = write_encoder_dir(tmp_path / "enc", syntax=True)
    card = json.loads((d / CARD).read_text())
    del card["syntax"]
    (d / CARD).write_text(json.dumps(card))
    with pytest.raises(ValueError, match="syntax.labels"):
        _nlp(d)


def test_joint_parser_reads_the_head_candidates(syntax_encoder_dir, sample_examples, tmp_path):
    """A joint parser with `head_candidates` trained on Docs carrying a multi-task encoder's
    candidates parses with them (other trees when they are taken away), saved and loaded alike,
    and parses a Doc without any."""
    from spacy.training import Example

    from spacy_joint_sbd.pipeline.encoder_boundaries import DOC_HEADS

    encoder = _nlp(syntax_encoder_dir)
    _, examples = sample_examples
    train = [Example(encoder(eg.predicted.copy()), eg.reference) for eg in examples[:10]]
    assert all(eg.predicted._.get(DOC_HEADS) is not None for eg in train)
    nlp = spacy.blank("en")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2, "attrs": ["NORM", "SHAPE"], "head_candidates": 3})
    nlp.initialize(lambda: train)
    for _ in range(2):
        nlp.update(train)
    nlp.add_pipe("encoder_boundaries", source=encoder, before="joint_sbd_parser")
    text = " ".join(eg.reference.text for eg in examples[24:27])
    doc = nlp(text)
    parser = nlp.get_pipe("joint_sbd_parser")
    bare = encoder(nlp.make_doc(text))
    bare._.set(DOC_HEADS, None)
    without = parser(bare)
    assert [t.head.i for t in doc] != [t.head.i for t in without]
    nlp.to_disk(tmp_path / "p")
    again = spacy.load(tmp_path / "p")
    assert again.get_pipe("joint_sbd_parser").cfg["head_candidates"] == 3
    assert [(t.head.i, t.dep_) for t in again(text)] == [(t.head.i, t.dep_) for t in doc]
