import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from treebanks import EWT, need  # noqa: E402


@pytest.fixture(scope="session")
def ewt_dev_path() -> Path:
    return need(EWT / "dev.conllu")


@pytest.fixture(scope="session")
def ewt_dev(ewt_dev_path):
    from spacy_joint_sbd.corpus import read_conllu

    return read_conllu(ewt_dev_path)
