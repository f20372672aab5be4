"""The API reference (mkdocs.yml, docs/reference/) builds with `mkdocs build --strict` and no warning,
and every name its pages list has a docstring to show.

mkdocs and mkdocstrings are in the test extra; without them the test skips and says so, except
where the browser tests are required too (CI: `CI=true` or `$SJS_REQUIRE_DATA`), where it fails."""
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from browser import required

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "reference"
_BLOCK = re.compile(r"^::: ([\w.]+)\n((?:[ \t]+.*\n|\n(?=[ \t]))*)", re.M)


def need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        msg = f"{module} is not installed (pip install -e '.[test]')"
        if required():
            pytest.fail(msg)
        pytest.skip(msg)


def listed() -> List[Tuple[str, Dict]]:
    """(identifier, options) for each `::: identifier` block of the reference pages."""
    import yaml

    out = []
    for page in sorted(PAGES.glob("*.md")):
        for m in _BLOCK.finditer(page.read_text(encoding="utf-8")):
            opts = yaml.safe_load(m.group(2)) if m.group(2).strip() else None
            out.append((m.group(1), (opts or {}).get("options", {})))
    return out


def test_the_reference_builds_strict_without_warnings(tmp_path):
    need("mkdocs")
    need("mkdocstrings_handlers.python")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)
    built = (tmp_path / "site" / "segment" / "index.html").read_text(encoding="utf-8")
    assert "segment_files" in built and "HtmlWriter" in built


def test_every_listed_name_has_a_docstring():
    need("griffe")
    import griffe

    package = griffe.load("spacy_joint_sbd", search_paths=[str(ROOT)], allow_inspection=False)
    blocks = listed()
    assert blocks, f"no ::: blocks in {PAGES}"
    missing = []
    for ident, options in blocks:
        obj = package[ident.split(".", 1)[1]]
        if not (obj.docstring and obj.docstring.value.strip()):
            missing.append(ident)
        for member in options.get("members") or []:
            if not (obj[member].docstring and obj[member].docstring.value.strip()):
                missing.append(f"{ident}.{member}")
    assert not missing, f"no docstring: {missing}"
