"""The joint parser trained with an encoder's probabilities as features (`train_default.py --prior`,
the `train-trf` step of projects/encoder), on the committed sample and the tiny random BERT."""
import subprocess
import sys
from pathlib import Path

import spacy

from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (the factory)

ROOT = Path(__file__).resolve().parents[2]


def test_parser_trained_on_encoder_probabilities_keeps_the_encoder_before_it(tiny_encoder_dir, sample_path, tmp_path):
    prior = spacy.blank("en")
    prior.add_pipe("encoder_boundaries").initialize(model_dir=tiny_encoder_dir)
    prior.to_disk(tmp_path / "encoder")
    cmd = [sys.executable, str(ROOT / "scripts/train_default.py"), str(sample_path), "--dev", str(sample_path),
           "--out", str(tmp_path / "model"), "--epochs", "1", "--beam", "2", "--folds", "2", "--tagger-epochs", "1",
           "--limit", "6", "--context-clusters", "", "--eval-from", "1", "--n-rows", "4096",
           "--prior", str(tmp_path / "encoder")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    nlp = spacy.load(tmp_path / "model")
    names = nlp.pipe_names
    assert names.index("encoder_boundaries") == names.index("joint_sbd_parser") - 1
    assert nlp.get_pipe("joint_sbd_parser").cfg["prior_features"] is True
    assert "encoder_boundaries's probabilities as features" in nlp.meta["description"]
    doc = nlp("so i went to the store they had no milk left i asked the clerk about it")
    assert doc._.boundary_probs is not None and len(doc._.boundary_probs) == len(doc)
    assert all(t._.sent_start_prob is not None for t in doc)


def _encoder_pipeline(encoder_dir, out):
    nlp = spacy.blank("en")
    nlp.add_pipe("encoder_boundaries").initialize(model_dir=encoder_dir)
    nlp.to_disk(out)
    return out


def test_parser_reading_head_candidates_from_fold_encoders(sample_path, tmp_path):
    """`--heads` with `--fold-encoders`: the training documents are annotated by their fold's
    encoder, the saved pipeline keeps the full one before a parser that reads the candidates;
    without fold encoders `--heads` is refused."""
    from tiny_bert import write_encoder_dir

    full = _encoder_pipeline(write_encoder_dir(tmp_path / "e", syntax=True), tmp_path / "full")
    folds = [_encoder_pipeline(write_encoder_dir(tmp_path / f"e{f}", seed=f + 1, syntax=True), tmp_path / f"fold{f}")
             for f in range(2)]
    base = [sys.executable, str(ROOT / "scripts/train_default.py"), str(sample_path), "--dev", str(sample_path),
            "--out", str(tmp_path / "model"), "--epochs", "1", "--beam", "2", "--folds", "2", "--tagger-epochs", "1",
            "--limit", "6", "--context-clusters", "", "--eval-from", "1", "--n-rows", "4096", "--no-tune-bias",
            "--prior", str(full), "--heads", "3"]
    refused = subprocess.run(base, capture_output=True, text=True)
    assert refused.returncode == 2 and "--fold-encoders" in refused.stderr
    proc = subprocess.run(base + ["--fold-encoders", ",".join(map(str, folds))], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "by 2 fold encoders" in proc.stdout
    nlp = spacy.load(tmp_path / "model")
    assert nlp.get_pipe("joint_sbd_parser").cfg["head_candidates"] == 3
    assert "head candidates" in nlp.meta["description"]
    doc = nlp("so i went to the store they had no milk left i asked the clerk about it")
    assert doc._.head_candidates is not None and doc._.head_candidates.shape == (len(doc), 3)
