"""Puts this project's scripts/ (the `replication` package) and the repository's tests/ (for
`treebanks`: where the UD data is, skipping when it is absent) on sys.path."""
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
REPO = PROJECT.parents[1]
for path in (PROJECT / "scripts", REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from treebanks import EWT, need  # noqa: E402


@pytest.fixture(scope="session")
def ewt_dev():
    from spacy_joint_sbd.corpus import read_conllu

    return read_conllu(need(EWT / "dev.conllu"))
