"""`train-prior`: a boundary_prior trained on a folder of running text, saved as a pipeline."""
import subprocess
import sys

import numpy
import spacy
import srsly

from spacy_joint_sbd.boundary import DOC_PROBS

STORY = ("The rain had stopped by noon. We walked to the harbour and looked at the boats. "
         "Nobody was there. The fish market had closed early that day! Did anyone know why? "
         "My brother said the boats would come back at six. They never did.\n\n")


def run(*args):
    return subprocess.run([sys.executable, "-m", "spacy_joint_sbd", *map(str, args)], capture_output=True, text=True)


def test_train_prior_on_text(tmp_path):
    src = tmp_path / "text" / "stories"
    src.mkdir(parents=True)
    for i in range(12):
        (src / f"s{i:02d}.txt").write_text(STORY * (3 + i % 4), encoding="utf8")
    out = tmp_path / "prior"
    proc = run("train-prior", src, "--output", out, "--epochs", "2", "--n-rows", "65536", "--held-out-every", "4")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    stats = srsly.read_json(out / "prior_training.json")
    assert stats["train_tokens"] > 0 and stats["held_out_tokens"] > 0 and len(stats["epochs"]) == 2
    share = tmp_path / "share"
    proc = run("train-prior", src, "--output", share, "--epochs", "1", "--n-rows", "65536", "--every-file", "3")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    counted = srsly.read_json(share / "prior_training.json")
    assert 0 < counted["train_tokens"] + counted["held_out_tokens"] < stats["train_tokens"] + stats["held_out_tokens"]
    nlp = spacy.load(out)
    doc = nlp("We walked to the harbour. Nobody was there")
    probs = doc._.get(DOC_PROBS)
    nobody = [t.i for t in doc if t.text == "Nobody"][0]
    assert probs[nobody] > 0.5 > probs[nobody - 2]


def test_train_prior_on_a_treebank(sample_path, tmp_path):
    out = tmp_path / "prior"
    proc = run("train-prior", sample_path, "--output", out, "--epochs", "1", "--n-rows", "65536",
               "--variants", "plain,star", "--held-out-every", "5")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    stats = srsly.read_json(out / "prior_training.json")
    assert stats["train_tokens"] > 2000  # both variants of the 1,942-token sample, less the held-out documents
    assert spacy.load(out)("a test. another one")._.get(DOC_PROBS).shape == (5,)


def test_train_prior_bad_input(tmp_path):
    proc = run("train-prior", tmp_path / "missing", "--output", tmp_path / "out")
    assert proc.returncode == 1
    assert "missing" in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
