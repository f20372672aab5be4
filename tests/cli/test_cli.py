"""The command line, run as a user runs it: `python -m spacy_joint_sbd ...`."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from treebanks import EWT, SAMPLE, need


def run(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", *map(str, args)], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_convert_sample(sample_path, tmp_path):
    out = tmp_path / "sample.spacy"
    proc = run("convert", sample_path, out)
    assert "29 documents, 180 sentences, 1942 tokens" in " ".join(proc.stdout.split())
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    assert len(docs) == 29 and docs[0].has_annotation("DEP") and docs[0].has_annotation("TAG")


@pytest.mark.slow
def test_convert_ewt_dev(ewt_dev_path, tmp_path):
    out = tmp_path / "dev.spacy"
    proc = run("convert", ewt_dev_path, out)
    assert "318 documents, 2001 sentences, 25147 tokens" in " ".join(proc.stdout.split())
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    assert len(docs) == 318 and sum(len(d) for d in docs) == 25147
    assert docs[0].user_data["doc_id"].startswith("weblog-blogspot.com_nominations")
    assert docs[0].has_annotation("DEP") and docs[0].has_annotation("TAG")


def test_convert_star_variant(sample_path, tmp_path):
    out = tmp_path / "sample-star.spacy"
    run("convert", sample_path, out, "--variant", "star")
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    assert not any(t.pos_ == "PUNCT" or t.text != t.text.lower() for d in docs for t in d)


def test_failed_convert_leaves_nothing_behind(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n2\tB\tb\tX\tX\t_\t7\tdep\t_\t_\n\n")
    out = tmp_path / "out.spacy"
    proc = run("convert", bad, out, check=False)
    assert proc.returncode == 1
    assert f"{bad}:2: head 7 out of range" in " ".join((proc.stdout + proc.stderr).split())
    assert list(tmp_path.iterdir()) == [bad]
    proc = run("convert", bad, out, "--repair")
    assert "repaired" in proc.stdout + proc.stderr and out.exists()


def test_evaluate_sentencizer_on_sample(sample_path, tmp_path):
    metrics = tmp_path / "m.json"
    pred = tmp_path / "pred.conllu"
    proc = run("evaluate", "sentencizer", sample_path, "--metrics", metrics, "--output", pred)
    assert "sents_f" in proc.stdout
    m = json.loads(metrics.read_text())
    assert m["documents"] == 29 and m["dep_uas"] is None
    assert m["sents_p"] > m["sents_r"] > 0
    assert pred.read_text().count("# newdoc id") == 29


@pytest.mark.slow
def test_evaluate_sentencizer_on_ewt_test(tmp_path):
    metrics = tmp_path / "m.json"
    pred = tmp_path / "pred.conllu"
    proc = run("evaluate", "sentencizer", need(EWT / "test.conllu"), "--metrics", metrics, "--output", pred)
    assert "sents_f" in proc.stdout
    m = json.loads(metrics.read_text())
    assert m["documents"] == 316
    assert 0.6 < m["sents_f"] < 0.9  # punctuation rules on web text: high precision, low recall
    assert m["sents_p"] > m["sents_r"]
    assert m["dep_uas"] is None
    assert pred.read_text().count("# newdoc id") == 316


def test_evaluate_sentencizer_on_star_finds_nothing(sample_path, tmp_path):
    metrics = tmp_path / "m.json"
    run("evaluate", "sentencizer", sample_path, "--variant", "star", "--metrics", metrics)
    assert json.loads(metrics.read_text())["sents_r"] == 0.0


def test_evaluate_unknown_model_is_a_clear_error(tmp_path):
    proc = run("evaluate", tmp_path / "no-model", SAMPLE, check=False)
    assert proc.returncode == 1 and "cannot load pipeline" in proc.stdout + proc.stderr


ROOT = Path(__file__).resolve().parents[2]


def test_main_job_writes_only_where_git_does_not_track(tmp_path):
    """README's main command (`spacy project run default`) leaves a fresh checkout clean: every
    output of its commands is ignored by git; the committed results change only through
    `publish-default`."""
    from spacy.cli.project.run import load_project_config

    if shutil.which("git") is None or subprocess.run(["git", "-C", str(ROOT), "rev-parse"],
                                                    capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    project = load_project_config(ROOT)
    commands = {c["name"]: c for c in project["commands"]}
    outputs = [o for name in project["workflows"]["default"] for o in commands[name].get("outputs", [])]
    assert outputs and "publish-default" not in project["workflows"]["default"]
    tracked = [o for o in outputs
               if subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", o]).returncode != 0]
    assert not tracked, f"the main job writes where git tracks: {tracked}"
    published = commands["publish-default"]["outputs"]
    assert {"metrics/default", "results/default_model.md", "results/default"} <= set(published)


def test_publish_default_copies_a_report_to_the_committed_places(tmp_path):
    script = ROOT / "scripts" / "default_scores.py"
    report = tmp_path / "training" / "report"
    (report / "metrics").mkdir(parents=True)
    (report / "curves").mkdir()
    (report / "metrics" / "train.json").write_text('{"minutes": 11.1}')
    (report / "curves" / "boundary_pr.json").write_text("{}")
    proc = subprocess.run([sys.executable, str(script), "--publish", str(report)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "default_model.md" in proc.stderr and not (tmp_path / "metrics").exists()
    (report / "default_model.md").write_text("# table\n")
    proc = subprocess.run([sys.executable, str(script), "--publish", str(report)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "metrics/default/train.json").read_text() == '{"minutes": 11.1}'
    assert (tmp_path / "results/default/boundary_pr.json").exists()
    assert (tmp_path / "results/default_model.md").read_text() == "# table\n"
