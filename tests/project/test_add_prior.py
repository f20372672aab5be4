"""scripts/add_prior.py: a boundary_prior added to a joint pipeline, its weight and SB biases chosen
on dev and saved in the pipeline's config."""
import json
import subprocess
import sys
from pathlib import Path

import spacy

ROOT = Path(__file__).resolve().parents[2]
STORY = ("the boats came back late. nobody knew why. my brother said the storm had turned them. "
         "we waited at the harbour until dark.\n")


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True)


def test_add_prior(trained_model_dir, sample_path, tmp_path):
    text_dev = tmp_path / "dev"
    text_dev.mkdir()
    (text_dev / "meeting.txt").write_text(STORY * 4, encoding="utf8")
    prior = tmp_path / "prior"
    proc = run("-m", "spacy_joint_sbd", "train-prior", sample_path, "--output", prior, "--epochs", "1",
               "--n-rows", "65536", "--variants", "plain,star", "--held-out-every", "5")
    assert proc.returncode == 0, proc.stderr
    out, metrics = tmp_path / "with-prior", tmp_path / "prior.json"
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, "--dev", sample_path,
               "--text-dev", text_dev, "--out", out, "--metrics", metrics)
    assert proc.returncode == 0, proc.stderr
    chosen = json.loads(metrics.read_text())["chosen"]
    nlp = spacy.load(out)
    assert nlp.pipe_names.index("boundary_prior") == nlp.pipe_names.index("joint_sbd_parser") - 1
    parser = nlp.get_pipe("joint_sbd_parser")
    assert {k: parser.cfg[k] for k in chosen} == chosen
    assert nlp.config["components"]["joint_sbd_parser"]["prior_weight"] == chosen["prior_weight"]
    assert len(list(nlp("so we went home it was late").sents)) >= 1
