"""`spacy train configs/joint_sbd.cfg` end to end on a few documents of the committed EWT sample, as a user runs it."""
import subprocess
import sys
from pathlib import Path

import spacy

from spacy_joint_sbd.corpus.readers import create_document_corpus
from treebanks import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


def make_tagger_pipeline(path: Path) -> None:
    """A small tok2vec + tagger pipeline to source from (the project uses the trained baseline's)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("tagger", config={"model": {"tok2vec": {"@architectures": "spacy.Tok2VecListener.v1",
                                                        "width": 96, "upstream": "*"}}})
    examples = list(create_document_corpus(str(SAMPLE), limit=6)(nlp))
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(2):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(path)


def test_spacy_train_joint_config(tmp_path):
    make_tagger_pipeline(tmp_path / "tagger")
    cmd = [sys.executable, "-m", "spacy", "train", str(ROOT / "configs" / "joint_sbd.cfg"),
           "--output", str(tmp_path / "out"), "--paths.train", str(SAMPLE),
           "--paths.dev", str(SAMPLE), "--paths.tagger_pipeline", str(tmp_path / "tagger"),
           "--corpora.train.limit", "6", "--corpora.dev.limit", "4", "--training.max_epochs", "2",
           "--training.eval_frequency", "5", "--components.joint_sbd_parser.beam_width", "4"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "SENTS_F" in proc.stdout and "DEP_LAS" in proc.stdout
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names == ["tok2vec", "tagger", "joint_sbd_parser"]
    doc = nlp("This is one sentence. Here is another one.")
    assert doc.has_annotation("DEP") and doc.has_annotation("TAG")
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "evaluate", str(tmp_path / "out" / "model-last"),
                           str(SAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0 and "sents_f" in proc.stdout
