"""The `constrained_parser` component: trains with nlp.update, parses inside the Doc's sentences,
and loads from a saved pipeline / bytes with identical output, also when saved under its former
factory name `sprawl_decoder`."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_joint_sbd.pipeline.constrained_parser  # noqa: F401 (registers the factories)
from spacy_joint_sbd.corpus.docs import record_to_doc
from bad_model_checks import bad_model_tests

CFG = {"order": 1, "n_rows": 1 << 16, "label_rows": 1 << 14, "train_constraint": "loose"}


def predicted_doc(vocab, rec):
    """What a pipeline with a tagger and a segmenter would hand over: tokens, tags, sentences."""
    sent_starts = [bool(s) or i == 0 for i, s in enumerate(rec.sent_starts)]
    return Doc(vocab, words=rec.words, spaces=rec.spaces, tags=[t or None for t in rec.xpos],
               pos=[p or None for p in rec.upos], sent_starts=sent_starts)


def uas(docs, golds):
    right = total = 0
    for doc, gold in zip(docs, golds):
        for t, g in zip(doc, gold):
            right += t.head.i == g.head.i
            total += 1
    return right / total


@pytest.fixture(scope="module")
def trained(ewt_dev):
    nlp = spacy.blank("en")
    nlp.add_pipe("constrained_parser", config=CFG)
    recs = ewt_dev[:4]
    examples = [Example(predicted_doc(nlp.vocab, r), record_to_doc(nlp.vocab, r)) for r in recs]
    nlp.initialize(lambda: examples)
    for _ in range(8):
        losses = nlp.update(examples)
    assert "constrained_parser" in losses
    return nlp, recs


def test_parses_inside_sentences(trained):
    nlp, recs = trained
    docs = [nlp(predicted_doc(nlp.vocab, r)) for r in recs]
    golds = [record_to_doc(nlp.vocab, r) for r in recs]
    assert uas(docs, golds) > 0.9
    for doc, rec in zip(docs, recs):
        starts = [i for i, s in enumerate(rec.sent_starts) if s or i == 0]
        assert [s.start for s in doc.sents] == starts
        assert all(t.dep_ for t in doc)
    scores = nlp.evaluate([Example(d, g) for d, g in zip(docs, golds)])
    assert scores["dep_uas"] > 0.9


def test_round_trips(trained, tmp_path):
    nlp, recs = trained
    expected = [[(t.head.i, t.dep_) for t in nlp(predicted_doc(nlp.vocab, r))] for r in recs]
    nlp.to_disk(tmp_path / "pipe")
    nlp2 = spacy.load(tmp_path / "pipe")
    assert nlp2.get_pipe("constrained_parser").cfg["train_constraint"] == "loose"
    nlp3 = spacy.blank("en")
    nlp3.add_pipe("constrained_parser").from_bytes(nlp.get_pipe("constrained_parser").to_bytes())
    for other in (nlp2, nlp3):
        got = [[(t.head.i, t.dep_) for t in other(predicted_doc(other.vocab, r))] for r in recs]
        assert got == expected


def test_pipeline_saved_under_the_former_name_loads(trained, tmp_path):
    """A pipeline whose config says ``factory = "sprawl_decoder"`` loads, as the same class, and
    parses as the component it was saved from."""
    from spacy_joint_sbd.pipeline.constrained_parser import ConstrainedParser

    nlp, recs = trained
    old = spacy.blank("en")
    old.add_pipe("sprawl_decoder", config=CFG)
    old.get_pipe("sprawl_decoder").from_bytes(nlp.get_pipe("constrained_parser").to_bytes())
    old.to_disk(tmp_path / "old")
    assert 'factory = "sprawl_decoder"' in (tmp_path / "old" / "config.cfg").read_text()
    loaded = spacy.load(tmp_path / "old")
    assert isinstance(loaded.get_pipe("sprawl_decoder"), ConstrainedParser)
    expected = [[(t.head.i, t.dep_) for t in nlp(predicted_doc(nlp.vocab, r))] for r in recs]
    got = [[(t.head.i, t.dep_) for t in loaded(predicted_doc(loaded.vocab, r))] for r in recs]
    assert got == expected


def test_bad_constraint():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="unknown constraint"):
        nlp.add_pipe("constrained_parser", config={"constraint": "sprawled"})


saved, test_bad_model_file, test_folder_without_cfg_or_model, test_bad_cfg_file, test_bad_bytes = \
    bad_model_tests("constrained_parser")
