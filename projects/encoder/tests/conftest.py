"""Puts the project's `scripts/` and the repository's tests/encoder (the tiny BERT) on sys.path."""
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
REPO = PROJECT.parents[1]
for path in (PROJECT / "scripts", REPO / "tests" / "encoder"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
