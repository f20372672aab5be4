import pytest
import spacy

from spacy_joint_sbd.corpus.readers import create_document_corpus
from treebanks import EWT


@pytest.fixture(scope="session")
def ewt_dev_examples():
    nlp = spacy.blank("en")
    return nlp, list(create_document_corpus(str(EWT / "dev.conllu"), limit=24)(nlp))


@pytest.fixture(scope="session")
def trained_nlp(ewt_dev_examples):
    """A small joint_sbd_parser trained on 24 EWT dev documents (no tagger: NORM/SHAPE/affixes)."""
    nlp, examples = ewt_dev_examples
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4, "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"]})
    nlp.initialize(lambda: examples)
    for _ in range(3):
        for i in range(0, len(examples), 8):
            nlp.update(examples[i:i + 8])
    return nlp
