"""`tune-bias`: the SB bias chosen on dev by boundary F1, saved in the pipeline's cfg and config;
bad input is a one-line error that leaves the model as it was."""
import json
import shutil
import subprocess
import sys

import spacy


def test_cli_saves_the_chosen_bias_in_place(trained_model_dir, sample_path, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(trained_model_dir, model)
    metrics = tmp_path / "bias.json"
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "tune-bias", str(model), str(sample_path),
                           "--variant", "star", "--grid=-3,0,0.5", "--metrics", str(metrics)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(metrics.read_text())
    assert result["key"] == "sb_bias_unpunctuated" and set(result["dev_f1"]) == {"-3.0", "0.0", "0.5"}
    chosen = result["chosen"]
    assert result["dev_f1"][str(chosen)] == max(result["dev_f1"].values())
    nlp = spacy.load(model)
    assert nlp.get_pipe("joint_sbd_parser").cfg["sb_bias_unpunctuated"] == chosen
    assert nlp.config["components"]["joint_sbd_parser"]["sb_bias_unpunctuated"] == chosen
    assert not (tmp_path / "model.partial").exists() and not (tmp_path / "model.old").exists()


def test_cli_errors_are_clear_and_leave_the_model(trained_model_dir, sample_path, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(trained_model_dir, model)
    before = sorted(p.name for p in model.iterdir())
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "tune-bias", str(model), str(sample_path),
                           "--grid", "a,b"], capture_output=True, text=True)
    assert proc.returncode == 1 and "--grid must be numbers" in proc.stdout + proc.stderr
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "tune-bias", str(model),
                           str(tmp_path / "missing.conllu")], capture_output=True, text=True)
    assert proc.returncode == 1 and "missing.conllu" in proc.stdout + proc.stderr
    (tmp_path / "afile").write_text("keep me")
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "tune-bias", str(model), str(sample_path),
                           "--grid", "0", "--output", str(tmp_path / "afile")], capture_output=True, text=True)
    assert proc.returncode == 1 and "is not a pipeline directory" in " ".join((proc.stdout + proc.stderr).split())
    assert (tmp_path / "afile").read_text() == "keep me"
    assert sorted(p.name for p in model.iterdir()) == before
    assert spacy.load(model).get_pipe("joint_sbd_parser").cfg["sb_bias"] == 0.0
