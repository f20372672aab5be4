"""The `dmv_parser` component: fit on tagged raw text (no trees), parse under a constraint,
re-attach punctuation, serialise, and refuse bad input."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_joint_sbd.pipeline.dmv_parser  # noqa: F401 - registers the factory
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.dmv.model import make_sentence
from spacy_joint_sbd.graph.punct_attach import reattach_punct
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
    # the loaded settings get the constructor's checks (tag_attr "zzz", max_iter -5 were accepted)
    good = srsly.msgpack_loads(pipe.to_bytes())
    for key, value in [("tag_attr", "zzz"), ("max_iter", -5), ("patience", "3"),
                       ("lex_min_count", None), ("constraint", ["loose"]), ("bogus", 1)]:
        msg = {"cfg": {**good["cfg"], key: value}, "model": good["model"]}
        with pytest.raises(ValueError, match="truncated or foreign"):
            p3.from_bytes(srsly.msgpack_dumps(msg))
    assert p3.cfg == pipe.cfg  # a refused load changes nothing


def test_supervised_initialize(gold_docs):
    nlp0, docs = gold_docs
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("dmv_parser", config={"supervised": True, "constraint": "sprawl"})
    examples = [Example(raw_tagged(nlp, d), d) for d in docs]
    nlp.initialize(lambda: examples)
    assert pipe.model is not None
    scores = nlp.evaluate(examples)
    # baseline: right-branching chains (head = next token, last token = root) in each sentence,
    # scored by the same scorer
    baseline = []
    for d in docs:
        rb = raw_tagged(nlp, d)
        heads = [t.i + 1 if t.i + 1 < sent.end else t.i for sent in rb.sents for t in sent]
        deps = ["dep" if h != i else "ROOT" for i, h in enumerate(heads)]
        rb = Doc(nlp.vocab, words=[t.text for t in rb], spaces=[bool(t.whitespace_) for t in rb],
                 pos=[t.pos_ for t in rb], heads=heads, deps=deps)
        baseline.append(Example(rb, d))
    base_uas = pipe.scorer(baseline)["dep_uas"]
    assert scores["dep_uas"] > base_uas + 0.1
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


def test_unsupervised_initialize(gold_docs):
    """Unsupervised `initialize` fits on the predicted docs only when they are tagged."""
    nlp0, docs = gold_docs
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("dmv_parser", config={"max_iter": 2, "patience": 1})
    tagged = [Example(raw_tagged(nlp, d), d) for d in docs[:6]]
    nlp.initialize(lambda: tagged)
    assert pipe.model is not None and "NOUN" in pipe.model.classes
    # what spaCy's readers give during nlp.initialize: tokens only -> a one-class DMV before
    untagged = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs[:6]]
    pipe2 = spacy.blank("en").add_pipe("dmv_parser", config={"max_iter": 2, "patience": 1})
    with pytest.raises(ValueError, match="initialize: the predicted document .* has no POS.*fit\\(docs\\)"):
        pipe2.initialize(lambda: untagged)
    assert pipe2.model is None


def test_untagged_docs_are_refused(fitted):
    nlp, pipe, raw = fitted
    untagged = Doc(nlp.vocab, words=["Hello", "world", "."])
    with pytest.raises(ValueError, match="'Hello world . ' \\(3 tokens\\) has no POS"):
        pipe(untagged)
    with pytest.raises(ValueError, match="has no POS"):
        pipe.fit([raw[0], untagged])
    assert len(pipe(Doc(nlp.vocab, words=[]))) == 0  # an empty Doc is fine


def test_overlong_sentences_are_refused(fitted):
    from spacy_joint_sbd.dmv.chart import MAX_WORDS
    nlp, pipe, raw = fitted
    n = MAX_WORDS + 1
    unsegmented = Doc(nlp.vocab, words=["w"] * n, pos=["NOUN"] * n)
    with pytest.raises(ValueError, match=f"no sentence boundaries.*{n} words.*{MAX_WORDS}"):
        pipe(unsegmented)
    starts = [i in (0, 5) for i in range(n + 5)]
    segmented = Doc(nlp.vocab, words=["w"] * (n + 5), pos=["NOUN"] * (n + 5), sent_starts=starts)
    with pytest.raises(ValueError, match=f"a {n}-word sentence \\(tokens 5\\.\\.{n + 4}\\)"):
        pipe(segmented)
