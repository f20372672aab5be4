"""`spacy project run baselines` end to end, with tiny training budgets: every step runs for real."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import spacy

from treebanks import DATA

ROOT = Path(__file__).resolve().parents[2]


def test_components_found_through_entry_points():
    # no import of spacy_joint_sbd here: spaCy must find our registrations by itself
    assert spacy.registry.readers.get("spacy_joint_sbd.DocumentCorpus.v1")
    assert spacy.registry.augmenters.get("spacy_joint_sbd.star_augmenter.v1")
    assert spacy.registry.augmenters.get("spacy_joint_sbd.nosyntax_augmenter.v1")


def test_baselines_workflow_smoke(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "project.yml", proj)
    for d in ("configs", "scripts"):
        shutil.copytree(ROOT / d, proj / d)
    cmd = [sys.executable, "-m", "spacy", "project", "run", "baselines", str(proj),
           "--vars.max_steps", "2", "--vars.shared_data", str(DATA)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=proj)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    metrics = sorted(p.name for p in (proj / "metrics" / "baselines").glob("*.json"))
    assert len(metrics) == 6
    table = (proj / "results" / "baselines.md").read_text()
    assert "sentencizer" in table and "tagger_parser" in table
    m = json.loads((proj / "metrics/baselines/ewt-plain-tagger_parser.json").read_text())
    assert m["dep_las"] is not None and m["documents"] == 316
    # a rerun skips what is done
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=proj)
    assert proc.returncode == 0 and "Skipping" in proc.stdout
