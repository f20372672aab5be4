import os
from pathlib import Path

import pytest

DATA = Path(os.environ.get("SJS_DATA", Path(__file__).resolve().parents[2] / "shared" / "data" / "ud"))
EWT = DATA / "en_ewt"
GUM = DATA / "en_gum"
ZH = DATA / "zh_gsdsimp"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"treebank file missing: {path} (set SJS_DATA to the folder holding en_ewt/, en_gum/)")
    return path


@pytest.fixture(scope="session")
def ewt_dev_path() -> Path:
    return need(EWT / "dev.conllu")


@pytest.fixture(scope="session")
def ewt_dev(ewt_dev_path):
    from spacy_joint_sbd.corpus import read_conllu

    return read_conllu(ewt_dev_path)
