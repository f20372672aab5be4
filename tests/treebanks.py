"""Where the test data is.

- `SAMPLE`: a small committed CoNLL-U fixture (tests/fixtures/README.md) for the fast suite.
- `EWT`, `GUM`, `ZH`: the real treebanks, ../shared/data/ud beside the checkout or $SJS_DATA. Tests
  that read them are marked `slow` and skip with the reason when the files are absent, unless
  $SJS_REQUIRE_DATA is set (CI sets it), in which case a missing file fails the test.
"""
import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLE = FIXTURES / "en_ewt-sample.conllu"
DATA = Path(os.environ.get("SJS_DATA", Path(__file__).resolve().parents[2] / "shared" / "data" / "ud"))
EWT = DATA / "en_ewt"
GUM = DATA / "en_gum"
ZH = DATA / "zh_gsdsimp"


def need(path: Path) -> Path:
    """`path` if it exists; otherwise skip (or fail under $SJS_REQUIRE_DATA) naming the file."""
    if not path.exists():
        msg = f"treebank file missing: {path} (set SJS_DATA to the folder holding en_ewt/, en_gum/)"
        if os.environ.get("SJS_REQUIRE_DATA"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path
