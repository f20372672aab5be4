"""The `fragment_parser` component: trains with nlp.update, parses inside the sentences set
earlier in the pipeline, and loads from disk / bytes with identical output."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_joint_sbd.pipeline.fragment_parser  # noqa: F401 (registers the factory)
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.graph.split_punct import is_tree
from bad_model_checks import bad_model_tests

CFG = {"order": 2, "n_rows": 1 << 16, "label_rows": 1 << 14}


def predicted_doc(vocab, rec, sents=True):
    """What a tagger (+ a segmenter) would hand over: tokens, tags, sentences."""
    sent_starts = [bool(s) or i == 0 for i, s in enumerate(rec.sent_starts)] if sents else None
    return Doc(vocab, words=rec.words, spaces=rec.spaces, tags=[t or None for t in rec.xpos],
               pos=[p or None for p in rec.upos], sent_starts=sent_starts)


@pytest.fixture(scope="module")
def trained(ewt_dev):
    nlp = spacy.blank("en")
    nlp.add_pipe("fragment_parser", config=CFG)
    recs = ewt_dev[:4]
    examples = [Example(predicted_doc(nlp.vocab, r), record_to_doc(nlp.vocab, r)) for r in recs]
    nlp.initialize(lambda: examples)
    for _ in range(6):
        losses = nlp.update(examples)
    assert "fragment_parser" in losses
    return nlp, recs


def test_parses_inside_sentences(trained):
    nlp, recs = trained
    docs = [nlp(predicted_doc(nlp.vocab, r)) for r in recs]
    golds = [record_to_doc(nlp.vocab, r) for r in recs]
    for doc, rec in zip(docs, recs):
        starts = [i for i, s in enumerate(rec.sent_starts) if s or i == 0]
        assert [s.start for s in doc.sents] == starts
        for sent in doc.sents:
            assert is_tree([t.head.i - sent.start if t.head.i != t.i else -1 for t in sent])
        assert all(t.dep_ for t in doc)
    scores = nlp.evaluate([Example(d, g) for d, g in zip(docs, golds)])
    assert scores["dep_uas"] > 0.85


def test_respects_an_earlier_segmenter(trained):
    nlp, recs = trained
    pipe = spacy.blank("en")
    pipe.add_pipe("sentencizer")
    pipe.add_pipe("fragment_parser").from_bytes(nlp.get_pipe("fragment_parser").to_bytes())
    doc = pipe(predicted_doc(pipe.vocab, recs[0], sents=False))
    expected = [t.is_sent_start for t in spacy.blank("en").add_pipe("sentencizer")(
        predicted_doc(pipe.vocab, recs[0], sents=False))]
    assert [t.is_sent_start for t in doc] == expected
    assert sum(expected) > 1


def test_respects_an_earlier_parser(trained, ewt_dev):
    """Sentences from a parse already on the Doc (e.g. joint_sbd_parser) are kept."""
    nlp, _ = trained
    doc = record_to_doc(nlp.vocab, ewt_dev[20])  # not a training document
    starts = [s.start for s in doc.sents]
    heads = [t.head.i for t in doc]
    doc = nlp.get_pipe("fragment_parser")(doc)
    assert [s.start for s in doc.sents] == starts
    assert [t.head.i for t in doc] != heads  # re-parsed


def test_round_trips(trained, tmp_path):
    nlp, recs = trained
    expected = [[(t.head.i, t.dep_) for t in nlp(predicted_doc(nlp.vocab, r))] for r in recs]
    nlp.to_disk(tmp_path / "pipe")
    nlp2 = spacy.load(tmp_path / "pipe")
    assert nlp2.get_pipe("fragment_parser").cfg["order"] == 2
    nlp3 = spacy.blank("en")
    nlp3.add_pipe("fragment_parser").from_bytes(nlp.get_pipe("fragment_parser").to_bytes())
    for other in (nlp2, nlp3):
        got = [[(t.head.i, t.dep_) for t in other(predicted_doc(other.vocab, r))] for r in recs]
        assert got == expected


def test_config():
    nlp = spacy.blank("zh")
    pipe = nlp.add_pipe("fragment_parser", config={"order": 1, "ideographic_comma": True,
                                                   "split_punct": "，。"})
    assert pipe.parser.chars == frozenset("，。、")
    with pytest.raises(ValueError, match="order"):
        spacy.blank("en").add_pipe("fragment_parser", config={"order": 3})


saved, test_bad_model_file, test_folder_without_cfg_or_model, test_bad_cfg_file, test_bad_bytes = \
    bad_model_tests("fragment_parser")
