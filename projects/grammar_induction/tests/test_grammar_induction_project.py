"""project.yml is valid for weasel (every command with help, deps and outputs, its scripts
exist), and the small run of both commands writes tables that agree with their JSON."""
import json
import math
from pathlib import Path

import pytest
from weasel.util import load_project_config

PROJECT = Path(__file__).resolve().parents[1]
REPO = PROJECT.parents[1]
SAMPLE = REPO / "tests" / "fixtures" / "en_ewt-sample.conllu"


def test_commands_declare_help_deps_outputs():
    config = load_project_config(PROJECT)
    assert [c["name"] for c in config["commands"]] == config["workflows"]["all"]
    for cmd in config["commands"]:
        assert cmd.get("help") and cmd.get("deps") and cmd.get("outputs"), cmd["name"]
        for line in cmd["script"]:
            script = line.split()[1]
            assert (PROJECT / script).is_file(), script
            assert script in cmd["deps"], (cmd["name"], script)
        if cmd["name"] != "data":  # data writes the treebanks into the shared assets folder
            assert all(o.startswith("results/full/") for o in cmd["outputs"]), cmd["outputs"]


def test_table4_small_run(tmp_path):
    import table4

    table4.main(["--train", str(SAMPLE), "--test", str(SAMPLE), "--output", str(tmp_path), "--predicted-tags",
                 "--max-iter", "2", "--train-constraints", "none,loose,thread"])
    res = json.loads((tmp_path / "table4.json").read_text())
    md = (tmp_path / "table4.md").read_text()
    assert (tmp_path / "table4.png").stat().st_size > 1000
    assert "Gold tags" in md and res["tags"] == "gold upos"
    assert set(res["rows"]) == {"supervised", "none", "loose", "thread"}
    for row in res["rows"].values():
        base = row["decode"]["none"]
        for c, d in row["decode"].items():
            assert d["words"] == base["words"] > 0
            assert d["acc"] == pytest.approx(100 * d["correct"] / d["words"])
            assert d["words10"] <= d["words"]
            if c != "none":
                assert d["gain"] == pytest.approx(d["acc"] - base["acc"])
                assert f"{d['acc']:.1f} / {d['acc10']:.1f} ({d['gain']:+.1f}" in md
    pred = res["predicted"]
    assert 50 < pred["tagger_accuracy_words"] <= 100
    for tr, r in pred["rows"].items():
        assert r["none"]["words"] == res["rows"][tr]["decode"]["none"]["words"]
        assert r["gain"] == pytest.approx(r["sprawl"]["acc"] - r["none"]["acc"])
    assert "## Predicted test tags" in md
    pw = res["punct_as_words"]["decode"]["none"]
    assert pw["words"] == res["rows"]["none"]["decode"]["none"]["words"]  # marks are not scored
    assert f"| Punctuation as Words (forgiving scoring) | {pw['acc']:.1f} |" in md
    for kind, b in res["baselines"].items():  # chain trees, scored like the models
        assert b["words"] == res["rows"]["none"]["decode"]["none"]["words"]
        assert f"| Baseline: {b['what']}" in md and 0 <= b["p_standard_better"] <= 1
    # the supervised DMV on its own training data beats the unsupervised ones
    sup = res["rows"]["supervised"]["decode"]["none"]["acc"]
    assert all(sup > r["decode"]["none"]["acc"] for k, r in res["rows"].items() if k != "supervised")


def test_table6_small_run(tmp_path):
    import table6

    data = tmp_path / "ud"
    for name in ("en_a", "en_b"):
        (data / name).mkdir(parents=True)
        (data / name / "dev.conllu").symlink_to(SAMPLE)
        (data / name / "test.conllu").symlink_to(SAMPLE)
    (data / "no_split").mkdir()  # skipped: nothing to train or test on
    out = tmp_path / "out"
    table6.main(["--data-dir", str(data), "--output", str(out), "--max-iter", "2",
                 "--lex-min-count", "20", "--predicted-tags"])
    res = json.loads((out / "table6.json").read_text())
    md = (out / "table6.md").read_text()
    assert (out / "table6.png").stat().st_size > 1000
    assert set(res["treebanks"]) == {"en_a", "en_b"}
    for r in res["treebanks"].values():
        st = r["stages"]
        assert r["net_gain"] == pytest.approx(st["punct"]["sprawl"]["acc"] - st["stage2"]["none"]["acc"])
        assert r["lexicalized_classes"] > 0
        assert r["net_gain"] == pytest.approx(r["training_gain_unlex"] + r["lexicalization_gain"] + st["punct"]["gain"])
        for s in st.values():
            assert s["gain"] == pytest.approx(s["sprawl"]["acc"] - s["none"]["acc"])
            assert 0 <= s["none"]["acc"] <= 100
        assert r["net_p_greater"] is None or 0 <= r["net_p_greater"] <= 1
        pr = r["predicted"]
        assert pr["net_gain"] == pytest.approx(pr["punct"]["sprawl"]["acc"] - pr["stage2"]["none"]["acc"])
        assert pr["stage2"]["none"]["words"] == st["stage2"]["none"]["words"]
    # both treebanks are the same data: identical rows
    a, b = res["treebanks"].values()
    assert math.isclose(a["net_gain"], b["net_gain"])
    assert "## Predicted tags" in md
    assert "## Across treebanks" in md and "| inference at stage 3 |" in md
    assert "| en_a |" in md and "| Average |" in md and "Gold tags" in md.replace("gold tags", "Gold tags")
    # the paper's rows appear beside treebanks of its languages; --report-only rewrites from the JSON
    res["treebanks"] = {"en_ewt": a, "it_isdt": b}
    (out / "table6.json").write_text(json.dumps(res))
    table6.main(["--report-only", "--output", str(out)])
    md = (out / "table6.md").read_text()
    assert "| it_isdt | Italian '7 |" in md and "| en_ewt | English '7 |" in md and "of 2 |" in md


def test_words_only_small_run(tmp_path):
    import words_only

    words_only.main(["--train", str(SAMPLE), "--test", str(SAMPLE), "--output", str(tmp_path),
                     "--epochs", "1", "--n-rows", str(1 << 16)])
    res = json.loads((tmp_path / "words_only.json").read_text())
    md = (tmp_path / "words_only.md").read_text()
    r = res["results"]
    # decoding the words only never attaches a word to a mark
    assert all(r["words_only"][c]["words_attached_to_punct"] == 0 for c in r["words_only"])
    for mode in r.values():
        for d in mode.values():
            assert 0 < d["uas_p"] <= d["forgiving_uas_p"] <= 100
    assert f"| sprawl | {r['punct_in_tree']['sprawl']['uas_p']:.2f}" in md
    words_only.main(["--train", str(SAMPLE), "--test", str(SAMPLE), "--output", str(tmp_path),
                     "--epochs", "1", "--n-rows", str(1 << 16), "--order", "2", "--name", "second"])
    res2 = json.loads((tmp_path / "second.json").read_text())
    assert res2["order"] == 2 and "Second-order" in (tmp_path / "second.md").read_text()
    assert all(d["words_attached_to_punct"] == 0 for d in res2["results"]["words_only"].values())


def test_chain_baselines():
    from common import score_baseline
    from spacy_joint_sbd.dmv.model import DMVSentence

    left_chain = DMVSentence(["a", "b", "c"], ["X", "Y", "Z"], [], heads=[-1, 0, 1], doc_id="d")
    right_chain = DMVSentence(["a", "b"], ["X", "Y"], [], heads=[1, -1], doc_id="e")
    left = score_baseline([left_chain, right_chain], "left")
    right = score_baseline([left_chain, right_chain], "right")
    assert (left["correct"], right["correct"], left["words"]) == (3, 2, 5)
    assert left["per_doc"] == {"d": [3, 3], "e": [0, 2]} and right["per_doc"] == {"d": [0, 3], "e": [2, 2]}
    with pytest.raises(ValueError, match="baseline"):
        score_baseline([left_chain], "up")
