"""`spacy train configs/perceptron_tagger.cfg`, then `configs/joint_sbd.cfg` sourcing it, end to end on
a few documents of the committed EWT sample, as a user runs them (the project's `train-tagger` and
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
    stdout = spacy_train("joint_sbd.cfg", tmp_path / "out", "--paths.tagger_pipeline", str(tmp_path / "tagger" / "model-last"),
                         "--training.max_epochs", "2", "--training.eval_frequency", "5",
                         "--components.joint_sbd_parser.beam_width", "4",
                         "--components.joint_sbd_parser.context_clusters", "[4, 8]")
    assert "SENTS_F" in stdout and "DEP_LAS" in stdout
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names == ["tok2vec", "perceptron_tagger", "joint_sbd_parser"]
    assert nlp.get_pipe("joint_sbd_parser").clusters.ks == [4, 8]
    doc = nlp("This is one sentence. Here is another one.")
    assert doc.has_annotation("DEP") and doc.has_annotation("TAG")
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "evaluate", str(tmp_path / "out" / "model-last"),
                           str(SAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0 and "sents_f" in proc.stdout
