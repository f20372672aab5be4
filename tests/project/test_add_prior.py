"""scripts/add_prior.py: a boundary_prior added to a joint pipeline, its weight and SB biases chosen
on dev and saved in the pipeline's config, its sent_start_prob calibrated, blank lines boundaries."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

ROOT = Path(__file__).resolve().parents[2]
STORY = ("the boats came back late. nobody knew why. my brother said the storm had turned them. "
         "we waited at the harbour until dark.\n")


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def prior_and_text_dev(sample_path, tmp_path_factory):
    """(a small boundary_prior pipeline from train-prior, a running-text dev folder), made once."""
    base = tmp_path_factory.mktemp("add_prior")
    text_dev = base / "dev"
    text_dev.mkdir()
    (text_dev / "meeting.txt").write_text(STORY * 4, encoding="utf8")
    prior = base / "prior"
    proc = run("-m", "spacy_joint_sbd", "train-prior", sample_path, "--output", prior, "--epochs", "1",
               "--n-rows", "65536", "--variants", "plain,star", "--held-out-every", "5")
    assert proc.returncode == 0, proc.stderr
    return prior, text_dev


def test_add_prior(trained_model_dir, sample_path, prior_and_text_dev, tmp_path):
    prior, text_dev = prior_and_text_dev
    out, metrics = tmp_path / "with-prior", tmp_path / "prior.json"
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, "--dev", sample_path,
               "--text-dev", text_dev, "--out", out, "--metrics", metrics, "--curves", tmp_path / "curves")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(metrics.read_text())
    chosen = report["chosen"]
    assert set(report["calibration"]["sets"]) == {"EWT dev", "EWT dev*", "text dev*"}
    assert all(0 <= s["ece"] <= 1 and s["tokens"] > 0 for s in report["calibration"]["sets"].values())
    assert (tmp_path / "curves" / "calibration_reliability.png").stat().st_size > 5_000
    nlp = spacy.load(out)
    assert nlp.pipe_names.index("boundary_prior") == nlp.pipe_names.index("joint_sbd_parser") - 1
    parser = nlp.get_pipe("joint_sbd_parser")
    assert {k: parser.cfg[k] for k in chosen} == chosen
    assert nlp.config["components"]["joint_sbd_parser"]["prior_weight"] == chosen["prior_weight"]
    assert len(list(nlp("so we went home it was late").sents)) >= 1
    # calibrated: probabilities strictly between 0 and 1 on free tokens, saved with the parser
    saved = report["calibration"]["coefficients"]
    assert {k: pytest.approx(v) for k, v in saved.items()} == parser.cfg["calibration"]
    doc = nlp("so we went home it was late and then we slept")
    assert all(0 < t._.sent_start_prob < 1 for t in doc[1:])
    # a blank line is a boundary, whatever the model would say
    assert nlp.pipe_names[0] == "newline_boundaries"
    doc = nlp("we went to the\n\nharbour at night")
    assert doc[5].text == "harbour" and doc[5].is_sent_start
    # the saved vocab keeps the labels alone (persist.saved_strings), and the strings still resolve
    assert json.loads((out / "vocab" / "strings.json").read_text()) == list(parser.labels)
    assert {t.dep_ for t in nlp("so we went home it was late and then we slept")} <= set(parser.labels) | {"ROOT"}


def test_add_prior_with_senter(trained_model_dir, sample_path, sample_examples, prior_and_text_dev, tmp_path):
    """A senter_prior pipeline after a boundary_prior one: both before the parser in that order, the
    senter blended as asked and kept on numpy's BLAS ops when the result is loaded."""
    from spacy_joint_sbd.pipeline.senter_prior import SenterPrior  # noqa: F401  (registers the factory)

    _, examples = sample_examples
    senter = spacy.blank("en")
    senter.add_pipe("senter_prior", config={"model": {"tok2vec": {"embed": {"width": 16, "rows": [500, 100, 100, 100, 10]},
                                                                   "encode": {"width": 16, "depth": 1}}}})
    optimizer = senter.initialize(lambda: examples[:24])
    for i in range(0, 24, 4):
        senter.update(examples[i:i + 4], sgd=optimizer)
    senter.to_disk(tmp_path / "senter")
    prior, text_dev = prior_and_text_dev
    out = tmp_path / "with-both"
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, tmp_path / "senter", "--blend", "0.5",
               "--dev", sample_path, "--text-dev", text_dev, "--out", out, "--punct-shifts", "0,1")
    assert proc.returncode == 0, proc.stderr
    nlp = spacy.load(out)
    names = nlp.pipe_names
    assert names.index("boundary_prior") + 1 == names.index("senter_prior") == names.index("joint_sbd_parser") - 1
    assert nlp.get_pipe("senter_prior").blend == 0.5 == nlp.config["components"]["senter_prior"]["blend"]
    assert "senter_prior" in nlp.config["nlp"]["after_pipeline_creation"]["components"]
    assert nlp.get_pipe("senter_prior").model.ops.name == "numpy"
    doc = nlp("so we went home it was late and then we slept")
    assert doc._.boundary_probs.shape == (len(doc),) and len(list(doc.sents)) >= 1
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, prior, "--dev", sample_path,
               "--text-dev", text_dev, "--out", tmp_path / "twice")
    assert proc.returncode != 0 and "expected one prior component not yet added" in proc.stderr
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, "--blend", "1.5", "--dev", sample_path,
               "--text-dev", text_dev, "--out", tmp_path / "bad-blend")
    assert proc.returncode == 2 and "--blend must be a number in [0, 1], got 1.5" in proc.stderr


def test_add_prior_chooses_the_encoders_blend_on_punctuated_text(trained_model_dir, sample_path, prior_and_text_dev,
                                                                  tmp_path):
    """An encoder_boundaries pipeline after the boundary_prior: `--punct-blends` tries its blend on
    punctuated Docs beside its own blend, keeps the best on dev and saves it in the config;
    `--parser-features own` is saved there too."""
    for module in ("onnxruntime", "tokenizers", "onnx"):
        pytest.importorskip(module)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "encoder"))
    from tiny_bert import write_encoder_dir

    from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (the factory)

    enc = spacy.blank("en")
    enc.add_pipe("encoder_boundaries").initialize(model_dir=write_encoder_dir(tmp_path / "encoder_dir"))
    enc.to_disk(tmp_path / "encoder")
    prior, text_dev = prior_and_text_dev
    out, metrics = tmp_path / "with-encoder", tmp_path / "prior.json"
    proc = run(ROOT / "scripts/add_prior.py", trained_model_dir, prior, tmp_path / "encoder", "--blend", "0.7",
               "--punct-blends", "0", "--parser-features", "own", "--weights", "0.3", "--punct-shifts", "0,1", "--dev", sample_path,
               "--text-dev", text_dev, "--out", out, "--metrics", metrics)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("blend_punctuated ") >= 2  # None (the blend) and 0 were both tuned
    report = json.loads(metrics.read_text())
    assert report["blend_punctuated"] in (None, 0.0) and report["own_features"] is True
    nlp = spacy.load(out)
    pipe = nlp.get_pipe("encoder_boundaries")
    assert pipe.cfg["blend"] == 0.7 and pipe.cfg["blend_punctuated"] == report["blend_punctuated"]
    assert pipe.cfg["own_features"] is True and nlp.config["components"]["encoder_boundaries"]["own_features"]
    assert nlp.config["components"]["encoder_boundaries"]["blend_punctuated"] == report["blend_punctuated"]
    assert {k: nlp.get_pipe("joint_sbd_parser").cfg[k] for k in report["chosen"]} == report["chosen"]
