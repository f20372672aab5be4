"""project.yml is valid for weasel (every command with help, deps and outputs; its scripts exist)
and the small run of the workflow (the same commands, smaller vars) writes every output."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from weasel.util import load_project_config

from treebanks import DATA, need

PROJECT = Path(__file__).resolve().parents[1]
REPO = PROJECT.parents[1]


def test_commands_declare_help_deps_outputs():
    config = load_project_config(PROJECT)
    assert [c["name"] for c in config["commands"]] == config["workflows"]["all"]
    for cmd in config["commands"]:
        assert cmd.get("help") and cmd.get("deps") and cmd.get("outputs"), cmd["name"]
        for line in cmd["script"]:
            script = line.split()[1]
            assert (PROJECT / script).is_file(), script
            assert script in cmd["deps"], (cmd["name"], script)
        assert all(o.startswith("results/full/") for o in cmd["outputs"]), cmd["outputs"]


def test_small_run(tmp_path):
    """The workflow's script with small vars: every output exists and the tables have rows."""
    ud = DATA  # the shared treebanks (SJS_DATA): a clean checkout has no assets/ud
    need(ud / "en_ewt" / "train.conllu")
    need(ud / "en_atis" / "train.conllu")
    out = tmp_path / "small"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    script = str(PROJECT / "scripts" / "consistency_experiment.py")
    common = ["--ud", str(ud), "--out", str(out), "--sizes", "50", "--test-words", "1200",
              "--K", "20", "--epochs", "1"]
    for cmd in (["parse", "--treebanks", "en_ewt:train:test", "--adaptation",
                 "en_ewt:train>en_atis:train", "--adaptation-train", "60"],
                ["parse", "--treebanks", "en_ewt:train:test", "--adaptation",
                 "en_ewt:train>en_atis:train", "--adaptation-train", "60", "--name",
                 "parsing_predicted", "--test-tags", "both", "--delta", "8,4,0",
                 "--self-training", "0"], ["tag"], ["report"]):
        subprocess.run([sys.executable, script, cmd[0], *common, *cmd[1:]], check=True, env=env,
                       cwd=PROJECT, capture_output=True, timeout=300)
    for name in ("parsing.json", "parsing_predicted.json", "tagging.json", "results.md", "work_per_iteration.png",
                 "error_reduction.png"):
        assert (out / name).is_file(), name
    text = (out / "results.md").read_text()
    assert "| en_ewt/50 |" in text and "| en_ewt->en_atis |" in text and "gold test tags" in text
    assert "| en_ewt/50 | predicted tags |" in text and "| en_ewt->en_atis | gold tags |" in text
