"""The replication steps (bjorkelund2016 Tables 2-4, Figures 3-6) on a few real EWT / GUM documents.

The `replicate-small` workflow runs every step end to end with spaCy peers in CI; these tests pin
the pieces: the splits, sentence-level instances, the systems' tuning and saved models, re-parsing
inside given boundaries, the export to a spaCy pipeline, and the generated report."""
import re
from pathlib import Path

import pytest
import srsly

from spacy_joint_sbd.corpus import apply_variant, read_conllu
from spacy_joint_sbd.experiments.replicate.curves import curve_run
from spacy_joint_sbd.experiments.replicate.report import write_report
from spacy_joint_sbd.experiments.replicate.settings import SETTINGS, TUNE_EVERY, corpus_splits
from spacy_joint_sbd.experiments.replicate.systems import (reparse, sentence_records, train_system,
                                                           tuning_score)
from spacy_joint_sbd.transition import TransitionParser

from treebanks import DATA, EWT, GUM, need

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tagged():
    """A `tag`-step result for ewt-star, built from a few documents. The tags here are the
    treebank's (this tests the mechanics; the workflow always predicts them with a spaCy tagger)."""
    train = [apply_variant(r, "star") for r in read_conllu(need(EWT / "train.conllu"))[:12]]
    dev = [apply_variant(r, "star") for r in read_conllu(need(EWT / "dev.conllu"))[:6]]
    test = [apply_variant(r, "star") for r in read_conllu(need(EWT / "test.conllu"))[:6]]
    every_third = [[i % 3 == 0 for i in range(len(r))] for r in test]
    return {"records": {"train": train, "tune": dev, "test": test},
            "starts": {"senter": {"test": every_third}}}


def test_gum_tuning_split_is_held_out_of_train_and_never_dev():
    splits = corpus_splits(DATA, "en_gum")
    train_ids = {r.doc_id for r in splits["train"]}
    tune_ids = {r.doc_id for r in splits["tune"]}
    dev_ids = {r.doc_id for r in splits["dev"]}
    assert not train_ids & tune_ids and not (train_ids | tune_ids) & dev_ids
    all_ids = {r.doc_id for r in read_conllu(need(GUM / "train.conllu"))}
    n_kept = len(all_ids - dev_ids)  # the train file repeats a few dev documents: dropped
    assert len(tune_ids) == n_kept // TUNE_EVERY and len(train_ids) + len(tune_ids) == n_kept
    assert {r.doc_id for r in splits["dev-spoken"]} < dev_ids
    assert SETTINGS["gum-star"].tests == ("dev", "dev-spoken")


def test_sentence_records_split_documents_into_rooted_sentences(ewt_dev):
    docs = ewt_dev[:20]
    sents = sentence_records(docs)
    assert len(sents) == sum(len(d.sentences()) for d in docs)
    assert sum(len(s) for s in sents) == sum(len(d) for d in docs)
    for s in sents:
        assert s.sent_starts[0] and not any(s.sent_starts[1:])
        assert sum(h == -1 for h in s.heads) == 1
        assert all(-1 <= h < len(s) for h in s.heads)


def test_tuning_scores_follow_section_6():
    scores = {"sents_f": 0.8, "dep_las": 0.6}
    assert tuning_score("joint", scores) == pytest.approx(0.7)
    assert tuning_score("nosyntax", scores) == 0.8
    assert tuning_score("gold", scores) == 0.6


@pytest.fixture(scope="module")
def trained(tagged, tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    return {name: train_system(tagged, "ewt-star", name, 3, 4, out / name) for name in ("joint", "nosyntax", "gold")}, out


def test_systems_keep_their_best_epoch_and_save_it(trained, tagged):
    results, out = trained
    for name, res in results.items():
        assert len(res["curve"]) == 3 and res["tags"] == "predicted"
        best = max(res["curve"], key=lambda p: p["tuning"])
        assert res["best_epoch"] == best["epoch"]
        test = res["tests"]["test"]
        assert len(test["starts"]) == len(tagged["records"]["test"]) and len(test["per_doc"]) == 6
    assert results["nosyntax"]["tests"]["test"]["dep_las"] is None  # trivial trees are not a parse
    assert results["gold"]["tests"]["test"]["sents_f"] == 1.0  # gold boundaries, by construction
    # the saved model is the tuned one: re-parsing with gold boundaries reproduces the GOLD row
    gold = TransitionParser.from_disk(out / "gold")
    golds = tagged["records"]["test"]
    again = reparse(gold, golds, [r.sent_starts for r in golds], 4)
    assert again["dep_las"] == pytest.approx(results["gold"]["tests"]["test"]["dep_las"])
    # and predicted boundaries keep the parser inside them
    senter = reparse(gold, golds, tagged["starts"]["senter"]["test"], 4)
    assert senter["sents_f"] < 1.0


def test_curves_record_used_share_per_epoch(tagged):
    doc = curve_run(tagged, "joint", "early", 4, 2)
    sent = curve_run(tagged, "sentence", "early", 4, 2)
    for run in (doc, sent):
        assert [p["epoch"] for p in run["curve"]] == [1, 2]
        assert all(0 <= p["used_pct"] <= 100 for p in run["curve"])
    # Figure 3: early updates see far more of a sentence than of a whole document
    assert sent["curve"][-1]["used_pct"] > doc["curve"][-1]["used_pct"]


def test_exported_pipeline_parses_like_the_engine(trained, tagged, tmp_path):
    import spacy
    from spacy.tokens import Doc

    _, out = trained
    parser = TransitionParser.from_disk(out / "joint")
    nlp = spacy.blank("en")
    nlp.add_pipe("joint_sbd_parser", config={"feature_encoding": "plain"}).use_parser(parser)
    nlp.to_disk(tmp_path / "pipe")
    nlp2 = spacy.load(tmp_path / "pipe")
    rec = tagged["records"]["test"][0]
    doc = Doc(nlp2.vocab, words=rec.words, spaces=rec.spaces, tags=rec.xpos)
    doc = nlp2.get_pipe("joint_sbd_parser")(doc)
    expected = parser.parse(parser.encode([rec]), beam_width=nlp2.get_pipe("joint_sbd_parser").cfg["beam_width"])[0]
    assert [t.is_sent_start or t.i == 0 for t in doc] == [bool(s) for s in expected.sent_starts]
    assert [t.head.i if t.head.i != t.i else -1 for t in doc] == [int(h) for h in expected.heads]


def test_report_tables_marks_and_figures(trained, tagged, tmp_path):
    results, out = trained
    metrics = tmp_path / "metrics" / "ewt-star"
    metrics.mkdir(parents=True)
    for name, res in results.items():
        srsly.write_json(metrics / f"{name}.json", res)
    golds = tagged["records"]["test"]
    gold = TransitionParser.from_disk(out / "gold")
    from spacy_joint_sbd.experiments.replicate.data import boundary_scores

    senter = boundary_scores(golds, tagged["starts"]["senter"]["test"])
    srsly.write_json(metrics / "senter.json", {"test": senter, "tune": senter})
    rows = {"gold": results["gold"]["tests"]["test"],
            "senter": reparse(gold, golds, tagged["starts"]["senter"]["test"], 4),
            "nosyntax": reparse(gold, golds, results["nosyntax"]["tests"]["test"]["starts"], 4),
            "joint": results["joint"]["tests"]["test"],
            "joint-reparsed": reparse(gold, golds, results["joint"]["tests"]["test"]["starts"], 4)}
    srsly.write_json(metrics / "pipelines.json", {"tests": {"test": rows}})
    write_report(tmp_path / "metrics", tmp_path / "RESULTS.md", tmp_path / "plots")
    text = (tmp_path / "RESULTS.md").read_text()
    for title in ("Table 2", "Table 3", "Table 4", "Direction", "Training"):
        assert title in text
    assert "65.34" in text and "88.71" in text  # the paper's WSJ* numbers beside ours
    line = next(l for l in text.splitlines() if l.startswith("| JOINT-REPARSED"))
    ours = re.findall(r"\| (\d+\.\d\d)", line)[0]
    assert float(ours) == pytest.approx(100 * rows["joint-reparsed"]["dep_las"], abs=0.005)
    assert (tmp_path / "plots" / "fig6_syntax.png").stat().st_size > 1000


def test_replicate_small_covers_every_step_of_replicate():
    project = srsly.read_yaml(ROOT / "project.yml")
    full, small = project["workflows"]["replicate"], project["workflows"]["replicate-small"]
    steps = {"prepare", "tag", "train", "pipelines", "report", "export"}
    commands = {c["name"]: c for c in project["commands"]}
    for workflow in (full, small):
        used = " ".join(" ".join(commands[name]["script"]) for name in workflow)
        for step in steps | {"curves"}:
            assert f"experiments.replicate {step} " in used, (step, workflow)
        for name in workflow:
            assert commands[name].get("outputs"), f"{name} declares no outputs: a rerun could not skip it"
    readme = (ROOT / "README.md").read_text()
    main_job = re.search(r"<!-- ci-main -->\s*```bash\s*(.+?)\s*```", readme, re.S).group(1)
    assert main_job.endswith("python -m spacy project run replicate-small")
