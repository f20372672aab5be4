"""`spacy project run baselines` end to end, with tiny training budgets: every step runs for real."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
import srsly

from treebanks import DATA, need

ROOT = Path(__file__).resolve().parents[2]


def test_components_found_through_entry_points():
    # no import of spacy_joint_sbd here: spaCy must find our registrations by itself
    assert spacy.registry.readers.get("spacy_joint_sbd.DocumentCorpus.v1")
    assert spacy.registry.augmenters.get("spacy_joint_sbd.star_augmenter.v1")
    assert spacy.registry.augmenters.get("spacy_joint_sbd.nosyntax_augmenter.v1")


@pytest.mark.slow
def test_baselines_workflow_smoke(tmp_path):
    need(DATA / "en_ewt" / "train.conllu")
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "project.yml", proj)
    for d in ("configs", "scripts"):
        shutil.copytree(ROOT / d, proj / d)

    def run(variant: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "spacy", "project", "run", "baselines", str(proj), "--vars.max_steps", "2",
               "--vars.shared_data", str(DATA), "--vars.variant", variant]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=proj)

    # one variant (star: the variable reaches every command); plain is the same workflow with its default
    proc = run("star")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    metrics = sorted(p.name for p in (proj / "metrics" / "baselines").glob("*.json"))
    assert metrics == sorted(f"ewt-star-{s}.json" for s in ("senter", "sentencizer", "tagger_parser")), metrics
    table = (proj / "results" / "baselines.md").read_text()
    assert "sentencizer" in table and "tagger_parser" in table and "star" in table
    m = json.loads((proj / "metrics/baselines/ewt-star-tagger_parser.json").read_text())
    assert m["dep_las"] is not None and m["documents"] == 316
    # a rerun skips what is done
    proc = run("star")
    assert proc.returncode == 0 and "Skipping" in proc.stdout


def test_project_file_is_parametrised_and_complete():
    """One command per job, parametrised by `${vars.*}`: no command repeats a line of another's
    script (a copy for another variant or a smaller run would)."""
    text = (ROOT / "project.yml").read_text()
    project = srsly.read_yaml(ROOT / "project.yml")
    names = [c["name"] for c in project["commands"]]
    assert len(names) == len(set(names))
    lines = [line for c in project["commands"] for line in c.get("script", [])]
    assert len(lines) == len(set(lines)), sorted({x for x in lines if lines.count(x) > 1})
    assert not [n for n in names if n.endswith(("-plain", "-star")) or n.startswith("small-")]
    for command in project["commands"]:
        assert command.get("help") and command.get("deps") and command.get("outputs"), command["name"]
    for workflow in project["workflows"].values():
        assert set(workflow) <= set(names)
    assert "${vars.variant}" in text


@pytest.mark.parametrize("project", [ROOT, *sorted(p.parent for p in (ROOT / "projects").glob("*/project.yml"))],
                         ids=lambda p: p.name)
def test_every_dependency_and_output_resolves_to_one_path(project):
    """Weasel's own loader: a list item that is only `${vars.X}` followed by another item comes back
    joined with it ("weights, ../../corpus/..."), and the run stops on a missing dependency."""
    from weasel.util import load_project_config

    config = load_project_config(project)
    names = {c["name"] for c in config["commands"]}
    for command in config["commands"]:
        for key in ("deps", "outputs", "outputs_no_cache"):
            for path in command.get(key, []):
                assert ", " not in path and "${" not in path, (command["name"], key, path)
    for workflow in config.get("workflows", {}).values():
        assert set(workflow) <= names
