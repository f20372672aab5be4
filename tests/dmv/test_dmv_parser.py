"""The `dmv_parser` component: fit on tagged raw text (no trees), parse under a constraint,
re-attach punctuation, serialise, and refuse bad input."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_joint_sbd.pipeline.dmv_parser  # noqa: F401 - registers the factory
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.dmv.model import make_sentence
from spacy_joint_sbd.dmv.punct import reattach_punct
from spacy_joint_sbd.graph.constraints import violations


@pytest.fixture(scope="module")
def gold_docs(sample_docs):
    nlp = spacy.blank("en")
    return nlp, [record_to_doc(nlp.vocab, rec) for rec in sample_docs]


def raw_tagged(nlp, doc: Doc) -> Doc:
    """Tokens, POS and sentence starts only: what a tagger and a segmenter leave."""
    return Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               pos=[t.pos_ for t in doc], sent_starts=[bool(t.is_sent_start) for t in doc])


@pytest.fixture(scope="module")
def fitted(gold_docs):
    nlp, docs = gold_docs
    pipe = nlp.add_pipe("dmv_parser", config={"max_iter": 3, "constraint": "loose"})
    raw = [raw_tagged(nlp, d) for d in docs]
    assert not any(d.has_annotation("DEP") for d in raw)
    pipe.fit(raw)
    return nlp, pipe, raw


def test_parses_are_trees_under_the_constraint(fitted):
    nlp, pipe, raw = fitted
    doc = pipe(raw_tagged(nlp, raw[0]))
    n_sents = 0
    for sent in doc.sents:
        n_sents += 1
        roots = [t for t in sent if t.head.i == t.i]
        assert len(roots) == 1 and roots[0].dep_ == "ROOT"
        assert all(sent.start <= t.head.i < sent.end for t in sent)
        assert all(t.dep_ == "punct" for t in sent if t.pos_ == "PUNCT")
        # the words' tree is the model's constrained parse and satisfies loose
        is_punct = [t.pos_ == "PUNCT" for t in sent]
        s = make_sentence([t.text for t in sent], [t.pos_ for t in sent], is_punct)
        heads, _, fell = pipe.model.parse(s, "loose")
        assert not fell and violations(heads, s.frags, "loose") == []
        assert reattach_punct(heads, is_punct) == [t.head.i - sent.start if t.head.i != t.i else -1 for t in sent]
    assert n_sents > 1


def test_reattach_punct_by_hand():
    # "Yes , sir ." words Yes <- sir (root): "," between them -> LCA sir; "." at the end -> root
    assert reattach_punct([1, -1], [False, True, False, True]) == [2, 2, -1, 2]
    assert reattach_punct([], [True, True]) == [-1, 0]
    with pytest.raises(ValueError, match="word heads"):
        reattach_punct([-1], [False, False])


@pytest.mark.parametrize("heads,match", [
    ([-1, 2, 1], "cycle"),  # used to loop forever
    ([1, 0], "one root"), ([-1, 5], r"\[-1, 2\)"), ([0, 0], r"\[-1, 2\)|one root|cycle"),
    ([-1, -2], r"\[-1, 2\)"), ([-1, 0.0], "integer"), ([-1, -1], "one root")])
def test_reattach_punct_rejects_non_trees(heads, match):
    is_punct = [False] * len(heads) + [True]
    is_punct[1], is_punct[-1] = is_punct[-1], is_punct[1]  # a mark inside the sentence
    with pytest.raises(ValueError, match=match):
        reattach_punct(heads, is_punct)


def test_serialisation_round_trips(fitted, tmp_path):
    nlp, pipe, raw = fitted
    before = [[t.head.i for t in pipe(raw_tagged(nlp, d))] for d in raw[:3]]
    nlp2 = spacy.blank("en")
    p2 = nlp2.add_pipe("dmv_parser").from_bytes(pipe.to_bytes())
    assert p2.cfg == pipe.cfg
    assert [[t.head.i for t in p2(raw_tagged(nlp2, d))] for d in raw[:3]] == before
    pipe.to_disk(tmp_path / "dmv")
    p3 = spacy.blank("en").add_pipe("dmv_parser").from_disk(tmp_path / "dmv")
    assert [[t.head.i for t in p3(raw_tagged(nlp, d))] for d in raw[:3]] == before
    with pytest.raises(ValueError, match="truncated or foreign"):
        p3.from_bytes(b"\x00not msgpack")
    with pytest.raises(ValueError, match="truncated or foreign"):
        p3.from_bytes(pipe.to_bytes()[:-20])
    import srsly
    with pytest.raises(ValueError, match="truncated or foreign"):
        p3.from_bytes(srsly.msgpack_dumps({"cfg": {}, "model": {"classes": ["X"], "root": [0.0]}}))
    with pytest.raises(ValueError, match="truncated or foreign"):
        p3.from_bytes(srsly.msgpack_dumps({"cfg": {"constraint": "tight"}, "model": None}))
    with pytest.raises(ValueError, match="truncated or foreign"):
        p3.from_disk(tmp_path / "missing")


def test_supervised_initialize(gold_docs):
    nlp0, docs = gold_docs
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("dmv_parser", config={"supervised": True, "constraint": "sprawl"})
    examples = [Example(raw_tagged(nlp, d), d) for d in docs]
    nlp.initialize(lambda: examples)
    assert pipe.model is not None
    scores = nlp.evaluate(examples)
    assert 0.3 < scores["dep_uas"] < 1.0
    assert pipe.update(examples) == {"dmv_parser": 0.0}


def test_bad_use(gold_docs):
    nlp0, docs = gold_docs
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="unknown constraint"):
        nlp.add_pipe("dmv_parser", name="a", config={"constraint": "tight"})
    with pytest.raises(ValueError, match="tag_attr"):
        nlp.add_pipe("dmv_parser", name="b", config={"tag_attr": "lemma"})
    pipe = nlp.add_pipe("dmv_parser", name="c")
    with pytest.raises(ValueError, match="not initialized"):
        pipe(raw_tagged(nlp, docs[0]))
    with pytest.raises(ValueError, match="no words"):
        pipe.fit([])
