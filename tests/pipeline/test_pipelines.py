"""Components in sequence: the joint parser's sentences feed the graph-based re-decoders."""
import pytest
import spacy

from spacy_joint_sbd.corpus.readers import create_document_corpus
from treebanks import SAMPLE

TEXT = "Hello there. I went to the store, and it was closed! Then I left; nobody saw me."


@pytest.mark.parametrize("second", ["sprawl_decoder", "fragment_parser"])
def test_joint_parser_then_graph_component_keeps_sentences(second):
    nlp = spacy.blank("en")
    examples = list(create_document_corpus(str(SAMPLE), limit=10)(nlp))
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2})
    nlp.add_pipe(second)
    nlp.initialize(lambda: examples)
    for _ in range(2):
        nlp.update(examples)
    with nlp.select_pipes(disable=[second]):
        joint_only = nlp(TEXT)
    doc = nlp(TEXT)
    assert [s.text for s in doc.sents] == [s.text for s in joint_only.sents]
    for sent in doc.sents:
        assert sum(t.head.i == t.i for t in sent) == 1
        assert all(sent.start <= t.head.i < sent.end for t in sent)


@pytest.mark.parametrize("name", ["constrained_parser", "fragment_parser"])
def test_graph_components_never_train_on_gold_tags(name, sample_examples):
    nlp, examples = sample_examples
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(name)
    eg = examples[0]
    assert eg.reference.has_annotation("TAG") and not eg.predicted.has_annotation("TAG")
    nlp.initialize(lambda: examples[:2])
    with pytest.warns(UserWarning, match="no tagger before this component"):
        pipe.update(examples[:2])
    tags, pos = pipe._training_tags(eg)
    assert tags == [t.tag_ for t in eg.predicted] and not any(tags)  # what prediction sees: no tags
