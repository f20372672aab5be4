"""The `joint_sbd_parser` component: annotations, serialization, robustness."""
import numpy
import pytest
import spacy
import srsly
from spacy import displacy
from spacy.tokens import Doc
from thinc.api import Model

from spacy_joint_sbd.corpus.docs import doc_to_record

TEXT = ("so i went to the store and they had no milk left i asked the clerk about it "
        "she said the truck comes on tuesdays which is annoying because i need it today")


def heads_and_starts(doc):
    return [t.head.i for t in doc], [t.dep_ for t in doc], [bool(t.is_sent_start) for t in doc]


def assert_valid(doc):
    """One root per predicted sentence, no head crossing a sentence boundary."""
    for sent in doc.sents:
        roots = [t for t in sent if t.head.i == t.i]
        assert len(roots) == 1
        assert all(sent.start <= t.head.i < sent.end for t in sent)


def test_factory_found_through_entry_points():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("joint_sbd_parser")
    assert pipe.cfg["beam_width"] == 20 and pipe.cfg["update"] == "dlaso"
    with pytest.raises(ValueError, match="not initialized"):
        nlp("a b c")


@pytest.mark.parametrize("bad", [{"update": "nope"}, {"sb_oracle": "middle"}, {"learner": "svm"},
                                 {"beam_width": 0}, {"attrs": ["NOT_AN_ATTR"]}])
def test_bad_config_is_a_clear_error(bad):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError):
        nlp.add_pipe("joint_sbd_parser", config=bad)


def test_training_reduces_violations(sample_examples):
    nlp, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4})
    nlp.initialize(lambda: examples[:8])
    per_epoch = []
    for _ in range(4):
        losses = {}
        nlp.update(examples[:8], losses=losses)
        per_epoch.append(losses["joint_sbd_parser"])
        assert losses["joint_sbd_parser_used_pct"] == 100.0  # DLaSO uses every gold transition
    assert per_epoch[-1] < per_epoch[0]


def test_annotations_are_a_valid_segmentation(trained_nlp):
    doc = trained_nlp(TEXT)
    assert doc.has_annotation("DEP") and doc.has_annotation("SENT_START")
    assert_valid(doc)
    assert heads_and_starts(trained_nlp(TEXT)) == heads_and_starts(doc)  # deterministic
    html = displacy.render(doc, style="dep", jupyter=False)
    assert "<svg" in html


def test_score_reports_our_metrics(trained_nlp, sample_examples):
    """`nlp.evaluate` reports the component's scorer, i.e. `scoring` on the same predictions, and
    training moved the parser far above what it does untrained (every token the next one's child)."""
    from spacy.training import Example

    from spacy_joint_sbd.scoring import score_docs

    nlp, examples = sample_examples
    held_out = examples[24:]  # trained_nlp saw the first 24 documents
    scores = trained_nlp.evaluate(held_out)
    preds = [trained_nlp(eg.predicted.copy()) for eg in held_out]
    direct = score_docs(preds, [eg.reference for eg in held_out])
    for key in ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las"):
        assert scores[key] == pytest.approx(direct[key])
    untrained = spacy.blank("en")
    untrained.add_pipe("joint_sbd_parser", config={"beam_width": 4, "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"]})
    untrained.initialize(lambda: examples[:24])
    before = untrained.evaluate(held_out)
    assert scores["dep_uas"] > before["dep_uas"] + 0.2 and scores["sents_f"] > before["sents_f"]


def test_bytes_round_trip_identical(trained_nlp):
    data = trained_nlp.to_bytes()
    nlp2 = spacy.blank("en")
    config = {k: v for k, v in trained_nlp.get_pipe_config("joint_sbd_parser").items() if k != "factory"}
    nlp2.add_pipe("joint_sbd_parser", config=config)
    nlp2.from_bytes(data)
    assert heads_and_starts(nlp2(TEXT)) == heads_and_starts(trained_nlp(TEXT))
    assert nlp2.get_pipe("joint_sbd_parser").labels == trained_nlp.get_pipe("joint_sbd_parser").labels


def test_disk_round_trip_identical(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "model")
    nlp2 = spacy.load(tmp_path / "model")
    docs = list(trained_nlp.pipe([TEXT, TEXT.upper(), "one"]))
    docs2 = list(nlp2.pipe([TEXT, TEXT.upper(), "one"]))
    assert [heads_and_starts(d) for d in docs] == [heads_and_starts(d) for d in docs2]


def test_a_loaded_component_holds_one_table_and_saves_it_again(trained_nlp, tmp_path):
    """After `spacy.load` the Thinc parameter and the engine's table are one float16 array (not
    two copies of the parser's largest object, and no float32 table: half-only weights), and the
    pipeline saves and reloads to the same parses as the trained one, which predicts with the
    same float16 table."""
    trained_nlp.to_disk(tmp_path / "model")
    nlp2 = spacy.load(tmp_path / "model")
    pipe = nlp2.get_pipe("joint_sbd_parser")
    assert pipe.parser.weights.half_only and pipe.model.get_param("W").dtype == numpy.float16
    assert pipe.model.get_param("W") is pipe.parser.weights.half_table()
    before = heads_and_starts(nlp2(TEXT))
    assert pipe.parser.weights.half_only  # predicting never builds the float32 table
    nlp2.to_disk(tmp_path / "again")
    assert heads_and_starts(spacy.load(tmp_path / "again")(TEXT)) == before == heads_and_starts(trained_nlp(TEXT))


def test_the_saved_table_is_packed_and_a_dense_one_still_loads(trained_nlp, tmp_path):
    """The model file stores the weight table by its nonzero weights (a fraction of the dense
    table), and a model file written before packing (the dense Thinc form) loads to the same parses."""
    trained_nlp.to_disk(tmp_path / "model")
    model_file = tmp_path / "model" / "joint_sbd_parser" / "model"
    loaded = spacy.load(tmp_path / "model").get_pipe("joint_sbd_parser").model
    W = loaded.get_param("W")
    assert model_file.stat().st_size < 0.5 * W.nbytes
    model = loaded.copy()
    assert type(model) is type(loaded)  # a copy keeps the packing
    dense = srsly.msgpack_dumps(Model.to_dict(model))  # Thinc's own layout, as saved before packing
    assert len(dense) > W.nbytes
    model_file.write_bytes(dense)
    (model_file.parent / "checksums.json").unlink()  # saved before checksums too
    nlp2 = spacy.load(tmp_path / "model")
    assert numpy.array_equal(nlp2.get_pipe("joint_sbd_parser").model.get_param("W").view("u2"), W.view("u2"))
    assert heads_and_starts(nlp2(TEXT)) == heads_and_starts(trained_nlp(TEXT))


def test_a_packed_table_is_adopted_as_unpacked(trained_nlp, monkeypatch):
    """Loading keeps the one array `packing.unpack` rebuilt (Thinc would copy it: twice the
    table's memory at the load's peak), and the parser predicts from that same array."""
    from spacy_joint_sbd.learn import packing

    made = []

    def recording_unpack(value):
        out = packing.unpack.__wrapped__(value)
        made.append(out)
        return out

    recording_unpack.__wrapped__ = packing.unpack
    monkeypatch.setattr(packing, "unpack", recording_unpack)
    data = trained_nlp.get_pipe("joint_sbd_parser").to_bytes()
    nlp2 = spacy.blank("en")
    pipe = nlp2.add_pipe("joint_sbd_parser", config={"beam_width": 4, "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"]})
    pipe.from_bytes(data)
    W = pipe.model.get_param("W")
    assert len(made) == 1 and W is made[0] and W.flags.writeable
    assert heads_and_starts(nlp2(TEXT)) == heads_and_starts(trained_nlp(TEXT))


def test_a_float32_table_saved_before_half_precision_loads_and_stays(trained_nlp, tmp_path):
    """A model file with a float32 table (saved before the weights were saved in float16) loads as float32 weights, parses
    as the float16 one does (the same values), and is saved again as it was loaded."""
    trained_nlp.to_disk(tmp_path / "model")
    model_file = tmp_path / "model" / "joint_sbd_parser" / "model"
    model = spacy.load(tmp_path / "model").get_pipe("joint_sbd_parser").model.copy()
    model.set_param("W", model.get_param("W").astype(numpy.float32))
    model_file.write_bytes(model.to_bytes())
    (model_file.parent / "checksums.json").unlink()  # saved before checksums too
    nlp2 = spacy.load(tmp_path / "model")
    pipe = nlp2.get_pipe("joint_sbd_parser")
    assert not pipe.parser.weights.half_only and pipe.model.get_param("W").dtype == numpy.float32
    assert heads_and_starts(nlp2(TEXT)) == heads_and_starts(trained_nlp(TEXT))
    nlp2.to_disk(tmp_path / "again")
    assert spacy.load(tmp_path / "again").get_pipe("joint_sbd_parser").model.get_param("W").dtype == numpy.float32


def test_truncated_and_foreign_model_files(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "model")
    model_file = tmp_path / "model" / "joint_sbd_parser" / "model"
    model_file.write_bytes(model_file.read_bytes()[:1000])
    with pytest.raises(ValueError, match="model: corrupted or changed since it was saved"):
        spacy.load(tmp_path / "model")
    (model_file.parent / "checksums.json").unlink()  # without checksums, the reader's own checks
    with pytest.raises(ValueError, match="truncated or foreign"):
        spacy.load(tmp_path / "model")
    model_file.write_bytes(b"this is not a model")
    with pytest.raises(ValueError, match="truncated or foreign"):
        spacy.load(tmp_path / "model")
    pipe = spacy.blank("en").add_pipe("joint_sbd_parser")
    with pytest.raises(ValueError, match="foreign or truncated"):
        pipe.from_bytes(b"\x93\x01\x02\x03")


def test_empty_and_one_token_docs(trained_nlp):
    empty = trained_nlp.make_doc("")
    assert len(trained_nlp(empty)) == 0
    one = trained_nlp("hello")
    assert one[0].head.i == 0 and one[0].is_sent_start
    assert len(list(one.sents)) == 1


def test_unseen_words_labels_and_attributes_never_crash(trained_nlp):
    doc = Doc(trained_nlp.vocab, words=["qwxzzy", "ÆØÅ", "12345678", "@@@", "🙂"])
    doc = trained_nlp(doc)
    assert_valid(doc)


def test_multiprocess_pipe_equals_single(trained_nlp):
    texts = [TEXT, TEXT.replace("milk", "bread"), "short one", TEXT[:40]]
    single = [heads_and_starts(d) for d in trained_nlp.pipe(texts)]
    multi = [heads_and_starts(d) for d in trained_nlp.pipe(texts, n_process=2, batch_size=2)]
    assert single == multi


PUNCTUATED = "Hello there . I went to the store . It was closed ! Then I left .".split()


def test_hundred_thousand_token_document(trained_nlp):
    words = (PUNCTUATED * (100_000 // len(PUNCTUATED) + 1))[:100_000]
    doc = trained_nlp(Doc(trained_nlp.vocab, words=words))
    assert len(doc) == 100_000
    rec = doc_to_record(doc)
    assert rec.sent_starts[0] and sum(rec.sent_starts) > 1000  # boundaries all the way through
    assert_valid(doc)


def test_sentence_level_mode_keeps_given_boundaries(sample_examples):
    nlp, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2, "document_level": False})
    nlp.initialize(lambda: examples[:6])
    nlp.update(examples[:6])
    text = "I saw it. Then I left! Did you?"
    doc = nlp(text)
    assert [s.text for s in doc.sents] == ["I saw it.", "Then I left!", "Did you?"]
    assert_valid(doc)


def test_failed_load_leaves_the_component_as_it_was(trained_nlp):
    import srsly

    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before, cfg = heads_and_starts(trained_nlp(TEXT)), dict(pipe.cfg)
    data = pipe.to_bytes()
    msg = srsly.msgpack_loads(data)
    msg["cfg"] = srsly.json_dumps({**cfg, "labels": ["a", "b"], "beam_width": 3})
    msg["model"] = b"garbage"
    del msg["sha256"]  # as saved before checksums: the load itself must refuse it
    for bad in (data[: len(data) // 2], srsly.msgpack_dumps(msg)):
        with pytest.raises(ValueError, match="foreign or truncated"):
            pipe.from_bytes(bad)
        assert pipe.cfg == cfg
        assert heads_and_starts(trained_nlp(TEXT)) == before
    fresh = spacy.blank("en").add_pipe("joint_sbd_parser")
    fresh_cfg = dict(fresh.cfg)
    with pytest.raises(ValueError, match="foreign or truncated"):
        fresh.from_bytes(srsly.msgpack_dumps(msg))
    assert fresh.cfg == fresh_cfg and not fresh.model.has_param("W")


def test_unusable_training_examples_are_skipped_and_counted(sample_examples):
    from spacy.training import Example

    nlp, examples = sample_examples
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2})
    nlp.initialize(lambda: examples[:4])
    no_parse = Doc(nlp.vocab, words=["no", "parse", "here"])
    cycle = Doc(nlp.vocab, words=["a", "b", "c"], heads=[1, 0, 1], deps=["dep", "dep", "dep"])
    bad = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in (no_parse, cycle)]
    with pytest.warns(UserWarning, match="skipped 2 training example.*document 'no parse here ?': the reference has no"):
        losses = pipe.update(examples[:2] + bad)
    assert pipe.skipped_examples == 2 and losses["joint_sbd_parser_skipped"] == 2
    assert losses["joint_sbd_parser"] > 0  # the usable documents were learnt from


def test_tree_problem_names_roots_cycles_and_crossing_heads():
    from spacy_joint_sbd.pipeline.joint.doc_encoding import tree_problem

    assert tree_problem([1, -1, 1], [True, False, False]) is None
    assert "2 roots" in tree_problem([-1, -1, 1], [True, False, False])
    assert "cycle" in tree_problem([1, 0, -1], [True, False, False])
    assert "outside its sentence" in tree_problem([-1, 0, -1], [True, True, False])


def test_one_pipeline_serves_many_threads(trained_nlp, sample_docs):
    """4 threads × 200 documents on one pipeline give exactly the sequential output, including a
    3,000-token document parsed while short ones are (the engine keeps no per-document state)."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [" ".join(r.words) for r in sample_docs]
    texts = (texts * 7)[:199] + [" ".join(w for r in sample_docs for w in r.words) * 2]
    assert len(trained_nlp.make_doc(texts[-1])) > 3000
    sequential = [heads_and_starts(trained_nlp(t)) for t in texts]

    def run(offset):
        order = texts[offset:] + texts[:offset]  # every thread in another order
        out = [heads_and_starts(trained_nlp(t)) for t in order]
        return out[len(texts) - offset:] + out[:len(texts) - offset]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, [0, 50, 100, 199]))
    assert all(r == sequential for r in results)


def test_saved_cfg_attrs_are_normalised_on_load(trained_nlp, tmp_path):
    """Found by the fuzzer: a cfg whose attribute name changed case ("PREFiX") loaded, then every
    prediction failed. Attribute names are normalised as the constructor does."""
    import srsly

    trained_nlp.to_disk(tmp_path / "m")
    cfg_path = tmp_path / "m" / "joint_sbd_parser" / "cfg"
    cfg = srsly.read_json(cfg_path)
    cfg["attrs"] = [a.lower() for a in cfg["attrs"]]
    srsly.write_json(cfg_path, cfg)
    (cfg_path.parent / "checksums.json").unlink()  # a deliberate edit of the saved cfg
    nlp2 = spacy.load(tmp_path / "m")
    assert heads_and_starts(nlp2(TEXT)) == heads_and_starts(trained_nlp(TEXT))
    cfg["attrs"] = ["NORM", "NOT_AN_ATTR"]
    srsly.write_json(cfg_path, cfg)
    with pytest.raises(ValueError, match="truncated or foreign cfg"):
        spacy.load(tmp_path / "m")


def test_has_final_punct_agrees_with_the_token_rule():
    """The fast reading (text first, then distinct punctuation tokens) gives what the rule says:
    some token made only of sentence-final marks."""
    import random

    from spacy.pipeline import Sentencizer

    from spacy_joint_sbd.pipeline.joint_sbd_parser import has_final_punct

    marks = set(Sentencizer.default_punct_chars)
    nlp = spacy.blank("en")
    rng = random.Random(11)
    pieces = ["word", "e.g.", "a.m.", "3.5", "?!", ".", "...", "—", ",", "“", "。", "don't", "?x", "!!", "\n\n", "Dr."]
    for _ in range(300):
        doc = nlp.make_doc(" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))))
        expected = any(t.is_punct and set(t.text) <= marks for t in doc)
        assert has_final_punct(doc) == expected, doc.text


def test_choices_are_typed_so_spacy_names_the_permitted_values():
    """The factory's choices are `Literal` types: spaCy's config validation refuses an unknown
    value and lists the permitted ones; the Literal matches the engine's own list of updates."""
    from typing import get_args

    from spacy_joint_sbd.pipeline.joint_sbd_parser import Update
    from spacy_joint_sbd.transition import UPDATES

    assert set(get_args(Update)) == set(UPDATES)
    for setting, bad, permitted in (("update", "nope", "max_violation"), ("learner", "svm", "perceptron"),
                                    ("sb_oracle", "middle", "late")):
        with pytest.raises(ValueError, match=f"{setting}.*{bad}.*{permitted}"):
            spacy.blank("en").add_pipe("joint_sbd_parser", config={setting: bad})
