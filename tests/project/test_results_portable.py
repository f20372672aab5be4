"""Committed results name no machine: no JSON value under results/, metrics/ or a project's
results/ is an absolute path (a user's clone lives elsewhere; scripts record paths relative to
where they ran, `persist.paths.portable_path`)."""
import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABSOLUTE = re.compile(r"^(/[^/\s]+){2,}/?$|^[A-Za-z]:\\")


def tracked_json():
    out = subprocess.run(["git", "ls-files", "*.json"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / p for p in out.split() if p.startswith(("results/", "metrics/")) or "/results/" in p]


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def test_no_committed_result_names_an_absolute_path():
    files = tracked_json()
    assert files, "no committed results found"
    bad = [f"{p.relative_to(ROOT)}: {s}" for p in files for s in strings(json.loads(p.read_text(encoding="utf8")))
           if ABSOLUTE.match(s)]
    assert not bad, bad[:10]


def test_the_pattern_catches_paths_and_spares_values():
    assert ABSOLUTE.match("/work/main/x.json") and ABSOLUTE.match("/home/u/data/") and ABSOLUTE.match("C:\\data")
    assert not any(ABSOLUTE.match(s) for s in ("en_ewt/train.conllu", "1/2", "/", "https://x.org/a", "a b /c/d"))
