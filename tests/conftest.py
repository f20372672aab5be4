import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from treebanks import EWT, SAMPLE, need  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--fuzz-examples", type=int, default=None,
                     help="Hypothesis examples per fuzz property (default 40; sets $SJS_FUZZ_EXAMPLES)")


def pytest_configure(config):
    n = config.getoption("--fuzz-examples")
    if n is not None:
        os.environ["SJS_FUZZ_EXAMPLES"] = str(n)


@pytest.fixture(scope="session")
def sample_path() -> Path:
    """The committed EWT sample (29 whole documents): the fast suite's data."""
    return SAMPLE


@pytest.fixture(scope="session")
def sample_docs(sample_path):
    from spacy_joint_sbd.corpus import read_conllu

    return read_conllu(sample_path)


@pytest.fixture(scope="session")
def ewt_dev_path() -> Path:
    return need(EWT / "dev.conllu")


@pytest.fixture(scope="session")
def ewt_dev(ewt_dev_path):
    from spacy_joint_sbd.corpus import read_conllu

    return read_conllu(ewt_dev_path)


@pytest.fixture(scope="session")
def sample_examples(sample_path):
    """(blank English nlp, gold Examples of the 29 sample documents)."""
    import spacy

    from spacy_joint_sbd.corpus.readers import create_document_corpus

    nlp = spacy.blank("en")
    return nlp, list(create_document_corpus(str(sample_path))(nlp))


@pytest.fixture(scope="session")
def trained_nlp(sample_examples):
    """A small joint_sbd_parser trained on 24 sample documents (no tagger: NORM/SHAPE/affixes)."""
    import spacy

    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4, "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX"]})
    train = examples[:24]
    nlp.initialize(lambda: train)
    for _ in range(3):
        for i in range(0, len(train), 8):
            nlp.update(train[i:i + 8])
    return nlp


@pytest.fixture(scope="session")
def trained_model_dir(trained_nlp, tmp_path_factory) -> Path:
    """`trained_nlp` saved to disk, as `spacy.load` and the CLI take it."""
    path = tmp_path_factory.mktemp("models") / "joint"
    trained_nlp.to_disk(path)
    return path
