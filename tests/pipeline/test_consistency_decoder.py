"""The `consistency_decoder` component on the EWT sample: trains with nlp.update, decodes a batch
jointly (certificate per Doc), equals the graph parser with zero potentials, round-trips through
bytes and disk, and rejects bad settings and foreign data."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_joint_sbd.pipeline.consistency_decoder  # noqa: F401 (registers the factory)
from bad_model_checks import bad_model_tests
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.graph.parser import make_sentence
from spacy_joint_sbd.pipeline.consistency_decoder import CERTIFIED, ITERATIONS

CFG = {"order": 2, "n_rows": 1 << 16, "label_rows": 1 << 14, "K": 50}


def predicted_doc(vocab, rec):
    sent_starts = [bool(s) or i == 0 for i, s in enumerate(rec.sent_starts)]
    return Doc(vocab, words=rec.words, spaces=rec.spaces, tags=[t or None for t in rec.xpos],
               pos=[p or None for p in rec.upos], sent_starts=sent_starts)


@pytest.fixture(scope="module")
def trained(sample_docs):
    nlp = spacy.blank("en")
    nlp.add_pipe("consistency_decoder", config=CFG)
    train, test = sample_docs[:20], sample_docs[20:]
    examples = [Example(predicted_doc(nlp.vocab, r), record_to_doc(nlp.vocab, r)) for r in train]
    nlp.initialize(lambda: examples)
    for _ in range(2):
        losses = nlp.update(examples)
    assert losses["consistency_decoder"] > 0
    return nlp, test


def _heads(docs):
    return [[t.head.i for t in d] for d in docs]


def test_joint_batch_sets_heads_and_certificates(trained):
    nlp, test = trained
    pipe = nlp.get_pipe("consistency_decoder")
    docs = list(nlp.pipe([predicted_doc(nlp.vocab, r) for r in test], batch_size=len(test)))
    res = pipe._last
    assert res is not None and res.problem.words  # constraints were built over the batch
    assert all(isinstance(d.user_data[CERTIFIED], bool) for d in docs)
    assert all(d.user_data[ITERATIONS] == res.result.iterations for d in docs)
    assert res.result.certified and not res.result.removed  # exact on the sample batch
    assert all(d.user_data[CERTIFIED] for d in docs)
    # heads inside each sentence, one root per sentence
    for d in docs:
        for sent in d.sents:
            assert sum(t.head.i == t.i for t in sent) == 1
            assert all(sent.start <= t.head.i < sent.end for t in sent)
    # zero potentials: the graph parser's own trees
    pipe.cfg["delta"] = [0.0, 0.0, 0.0]
    try:
        zero = list(nlp.pipe([predicted_doc(nlp.vocab, r) for r in test], batch_size=len(test)))
    finally:
        pipe.cfg["delta"] = CFG.get("delta", [8.0, 4.0, 0.0])
    model = pipe._model().parser
    for d in zero:
        for sent in d.sents:
            words, tags, pos = [t.text for t in sent], [t.tag_ for t in sent], [t.pos_ for t in sent]
            heads = model.decode(make_sentence(words, tags, pos), [p == "PUNCT" for p in pos])
            assert [t.head.i - sent.start if t.head.i != t.i else -1 for t in sent] == heads
        assert d.user_data[CERTIFIED] is True


@pytest.mark.parametrize("rounds", [0, 1])
def test_certificate_per_doc_when_constraints_are_removed(trained, rounds):
    """K = 1 ends without agreement. removal_rounds = 1 removes the constraints of the sentences
    still disagreeing and reaches agreement: exactly the Docs holding such a sentence lose their
    certificate. removal_rounds = 0 (no removal): no Doc of the batch is certified."""
    nlp, test = trained
    pipe = nlp.get_pipe("consistency_decoder")
    saved = dict(pipe.cfg)
    pipe.cfg.update({"K": 1, "removal_rounds": rounds})
    try:
        docs = list(nlp.pipe([predicted_doc(nlp.vocab, r) for r in test], batch_size=len(test)))
    finally:
        pipe.cfg.clear()
        pipe.cfg.update(saved)
    res = pipe._last.result
    flags = [d.user_data[CERTIFIED] for d in docs]
    if rounds == 0:
        assert not res.certified and not res.removed and not any(flags)
        return
    assert res.certified and res.removed
    first = 0  # the batch's sentences are numbered doc by doc
    for d, flag in zip(docs, flags):
        n = len(list(d.sents))
        assert flag == (not res.removed & set(range(first, first + n)))
        first += n
    assert any(flags) and not all(flags), flags


def test_round_trips(trained, tmp_path):
    nlp, test = trained
    docs = [predicted_doc(nlp.vocab, r) for r in test]
    before = _heads(nlp.pipe([Doc(nlp.vocab, words=[t.text for t in d], tags=[t.tag_ for t in d],
                                  pos=[t.pos_ for t in d], sent_starts=[t.is_sent_start for t in d])
                              for d in docs], batch_size=len(docs)))
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    after = _heads(loaded.pipe([predicted_doc(loaded.vocab, r) for r in test], batch_size=len(test)))
    assert after == before
    other = spacy.blank("en")
    other.add_pipe("consistency_decoder", config=CFG).from_bytes(nlp.get_pipe("consistency_decoder").to_bytes())
    again = _heads(other.pipe([predicted_doc(other.vocab, r) for r in test], batch_size=len(test)))
    assert again == before


saved, test_bad_model_file, _, _, test_bad_bytes = bad_model_tests("consistency_decoder")


@pytest.mark.parametrize("cfg,match", [({"K": 0}, "K must"), ({"rate": -1.0}, "rate must"),
                                       ({"delta": [0.1, 0.5, 0.0]}, "delta"),
                                       ({"templates": [[1, 2]]}, "template"),
                                       ({"removal_rounds": -1}, "removal_rounds must"),
                                       ({"removal_rounds": 1.5}, "removal_rounds")])
def test_bad_settings(cfg, match):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=match):
        nlp.add_pipe("consistency_decoder", config=cfg)


def test_uninitialized_predict_errors():
    nlp = spacy.blank("en")
    nlp.add_pipe("consistency_decoder", config=CFG)
    with pytest.raises(ValueError, match="initialize"):
        nlp(Doc(nlp.vocab, words=["a", "b"], tags=["DT", "NN"]))


@pytest.mark.parametrize("bad", [{"K": -3}, {"delta": [0, 5, 9]}, {"delta": "abc"}, {"order": 3}])
def test_loaded_settings_are_checked(bad):
    import srsly
    import spacy

    pipe = spacy.blank("en").add_pipe("consistency_decoder")
    msg = srsly.msgpack_loads(pipe.to_bytes())
    msg["cfg"] = {**msg["cfg"], **bad}
    with pytest.raises(ValueError, match="truncated or foreign settings"):
        pipe.from_bytes(srsly.msgpack_dumps(msg))
