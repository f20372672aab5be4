"""Where the real treebanks are: ../shared/data/ud beside the checkout, or $SJS_DATA."""
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
