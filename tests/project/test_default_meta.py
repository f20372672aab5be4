"""scripts/default_meta.py: en_joint_sbd's model card is generated from the main job's report."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "default_meta.py"
SETS = ("ewt-test-plain", "ewt-test-star", "gum-dev-plain", "gum-dev-star", "atis-dev-stream")


def _report(tmp_path: Path, skip: str = "", chosen: bool = True) -> Path:
    metrics = tmp_path / "report" / "metrics"
    metrics.mkdir(parents=True)
    for k, name in enumerate(SETS):
        if name != skip:
            (metrics / f"{name}.json").write_text(json.dumps({
                "sents_p": 0.9 - k / 100, "sents_r": 0.8, "sents_f": 0.85 - k / 100, "dep_uas": 0.83,
                "dep_las": 0.8 - k / 100, "words_per_second": 1000.0}))
    prior = {"chosen": {"prior_weight": 0.3, "sb_bias": 0.8500000000000001, "sb_bias_unpunctuated": 0.74}} if chosen else {}
    (metrics / "prior.json").write_text(json.dumps(prior))
    return tmp_path / "report"


def _model(tmp_path: Path) -> Path:
    model = tmp_path / "model"
    model.mkdir()
    (model / "meta.json").write_text(json.dumps({"description": "tok2vec + joint_sbd_parser; beam 4",
                                                  "sources": [{"name": "corpus/en_ewt/train.spacy"}]}))
    return model


def _run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_card_carries_the_report_scores_and_the_dev_choice(tmp_path):
    out = tmp_path / "meta.json"
    proc = _run(_model(tmp_path), _report(tmp_path), out)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(out.read_text())
    perf = meta["performance"]
    assert perf["sents_f"] == 0.85 and perf["dep_las"] == 0.8  # EWT test plain, as read
    assert list(perf["sets"]) == list(SETS) and perf["sets"]["atis-dev-stream"]["sents_f"] == pytest.approx(0.81)
    assert "boundary_prior" in meta["description"] and meta["description"].startswith("tok2vec + joint_sbd_parser")
    assert "| gum-dev-star | 87.00 | 80.00 | 82.00 | 77.00 |" in meta["notes"]
    assert "sb_bias 0.85," in meta["notes"]  # rounded, not 0.8500000000000001
    assert meta["sources"][0]["name"] == "UD English-EWT train" and meta["sources"][0]["license"] == "CC BY-SA 4.0"
    assert any("AMI" in s["name"] and s["license"] == "CC BY 4.0" for s in meta["sources"])


def test_a_missing_set_is_refused_in_one_line_before_writing(tmp_path):
    out = tmp_path / "meta.json"
    proc = _run(_model(tmp_path), _report(tmp_path, skip="gum-dev-star"), out)
    assert proc.returncode != 0 and not out.exists()
    assert "gum-dev-star.json is missing" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_set_without_a_score_is_refused_in_one_line(tmp_path):
    report = _report(tmp_path)
    path = report / "metrics" / "ewt-test-star.json"
    path.write_text(json.dumps({"sents_p": 0.5, "sents_r": 0.5, "sents_f": None, "dep_uas": 0.7}))
    proc = _run(_model(tmp_path), report, tmp_path / "meta.json")
    assert proc.returncode != 0 and not (tmp_path / "meta.json").exists()
    assert "ewt-test-star.json has no number for sents_f, dep_las" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_pipeline_without_a_description_still_gets_one(tmp_path):
    model = _model(tmp_path)
    (model / "meta.json").write_text(json.dumps({"description": None}))
    out = tmp_path / "meta.json"
    assert _run(model, _report(tmp_path), out).returncode == 0
    meta = json.loads(out.read_text())
    assert meta["description"].startswith("Sentence boundaries and dependency trees")
    assert [s["name"] for s in meta["sources"]][0].startswith("Project Gutenberg")


def test_a_report_without_the_dev_choice_is_refused(tmp_path):
    out = tmp_path / "meta.json"
    proc = _run(_model(tmp_path), _report(tmp_path, chosen=False), out)
    assert proc.returncode != 0 and not out.exists() and "no dev choice" in proc.stderr


def test_an_earlier_package_and_its_stale_card_are_removed(tmp_path):
    old = tmp_path / "packages" / "en_joint_sbd-0.1.0"
    old.mkdir(parents=True)
    (old / "README.md").write_text("the card of an earlier run")
    proc = _run(_model(tmp_path), _report(tmp_path), tmp_path / "meta.json", "--package", old)
    assert proc.returncode == 0, proc.stderr
    assert not old.exists() and (tmp_path / "packages").is_dir()
