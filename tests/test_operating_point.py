"""The operating point: SB-bias sweeps on gold tokens and raw text, the choice, the prior's weight,
and a saved pipeline tuned in place or to a new directory (`spacy_joint_sbd.operating_point`)."""
import shutil
from pathlib import Path

import pytest
import spacy

from spacy.language import Language

from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.evaluation import predict
from spacy_joint_sbd.operating_point import Staged, best_bias, set_sb_bias, staged_gold, sweep_sb_bias, tune_bias


def test_best_bias_ties_go_to_zero():
    assert best_bias({-0.2: 0.5, 0.0: 0.7, 0.1: 0.7}) == 0.0
    assert best_bias({-0.1: 0.8, 0.1: 0.8, 0.3: 0.2}) == -0.1  # equal distance: the first in grid order
    assert best_bias({0.2: 0.9, 0.0: 0.1}) == 0.2


def test_sweep_moves_the_operating_point_and_restores_cfg(trained_nlp, sample_path):
    docs = load_gold_docs(sample_path, trained_nlp.vocab, "star")[24:]
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before = dict(pipe.cfg)
    f1 = sweep_sb_bias(trained_nlp, docs, [-3.0, 0.0, 3.0], "sb_bias_unpunctuated")
    assert list(f1) == [-3.0, 0.0, 3.0]
    assert pipe.cfg == before
    # a large negative bias forbids SB, a large positive one splits everywhere: different F1
    assert len(set(round(v, 6) for v in f1.values())) > 1
    assert f1[-3.0] < max(f1.values())


def test_staged_runs_give_what_whole_runs_give(trained_nlp, sample_path):
    """The Docs staged before the parser, copied through it at each sweep point, get the parses a
    whole run gives; a run leaves the staged Docs as they were (every point starts alike)."""
    docs = load_gold_docs(sample_path, trained_nlp.vocab, "star")[20:]
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    staged = staged_gold(trained_nlp, docs)
    before = [d.to_array(["SENT_START", "HEAD"]).tolist() for d in staged.docs]
    for bias in (-3.0, 0.0, 3.0):
        pipe.cfg["sb_bias_unpunctuated"] = bias
        whole, _ = predict(trained_nlp, docs)
        assert [(r.heads, r.sent_starts) for r in whole] == \
            [(r.heads, r.sent_starts) for r in (doc_to_record(d) for d in staged.run())]
    pipe.cfg["sb_bias_unpunctuated"] = None
    assert [d.to_array(["SENT_START", "HEAD"]).tolist() for d in staged.docs] == before
    raw = [d.text for d in docs]
    by_text = Staged(trained_nlp, "joint_sbd_parser", raw)
    assert [d.to_array(["SENT_START", "HEAD"]).tolist() for d in by_text.run()] == \
        [d.to_array(["SENT_START", "HEAD"]).tolist() for d in trained_nlp.pipe(raw)]


@pytest.mark.parametrize("bad", [[], [float("nan")], [0.0, float("inf")], [1e31], ["0.1"], [True]])
def test_sweep_rejects_bad_grids(trained_nlp, sample_path, bad):
    docs = load_gold_docs(sample_path, trained_nlp.vocab)[24:]
    with pytest.raises(ValueError, match="grid"):
        sweep_sb_bias(trained_nlp, docs, bad)


def test_sweep_rejects_other_components_and_keys(trained_nlp, sample_path):
    docs = load_gold_docs(sample_path, trained_nlp.vocab)[24:]
    with pytest.raises(ValueError, match="no component"):
        sweep_sb_bias(trained_nlp, docs, [0.0], component="parser")
    with pytest.raises(ValueError, match="key"):
        sweep_sb_bias(trained_nlp, docs, [0.0], key="beam_width")
    with pytest.raises(ValueError, match="no non-empty dev documents"):
        sweep_sb_bias(trained_nlp, [], [0.0])
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    with pytest.raises(ValueError, match="not a joint_sbd_parser"):
        sweep_sb_bias(nlp, docs, [0.0], component="sentencizer")


@pytest.mark.parametrize("value", [float("nan"), 1e31, None, "0.2"])
def test_set_sb_bias_rejects_what_would_not_load(trained_nlp, value):
    with pytest.raises(ValueError, match="finite"):
        set_sb_bias(trained_nlp, "sb_bias", value)


def test_default_key_follows_the_punctuation_of_the_variant(trained_model_dir, sample_path, tmp_path):
    for variant, key in (("plain", "sb_bias"), ("lower", "sb_bias"), ("star", "sb_bias_unpunctuated"),
                         ("nopunct", "sb_bias_unpunctuated")):
        got, _, _ = tune_bias(str(trained_model_dir), sample_path, variant, grid=[0.0], output=tmp_path / variant)
        assert got == key
    with pytest.raises(ValueError, match="unknown corpus variant"):
        tune_bias(str(trained_model_dir), sample_path, "loud", grid=[0.0], output=tmp_path / "x")


def test_output_to_a_new_directory_keeps_the_model(trained_model_dir, sample_path, tmp_path):
    before = (trained_model_dir / "config.cfg").read_text()
    out = tmp_path / "new" / "tuned"
    key, chosen, _ = tune_bias(str(trained_model_dir), sample_path, "plain", grid=[0.0, 2.0], output=out)
    assert spacy.load(out).get_pipe("joint_sbd_parser").cfg[key] == chosen
    assert (trained_model_dir / "config.cfg").read_text() == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["tuned"]  # no temporary directory left


def test_an_existing_directory_that_is_not_a_pipeline_is_never_replaced(trained_model_dir, sample_path, tmp_path):
    keep = tmp_path / "run"
    keep.mkdir()
    (keep / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not a pipeline directory or an empty one"):
        tune_bias(str(trained_model_dir), sample_path, "plain", grid=[0.0], output=keep)
    assert (keep / "notes.txt").read_text() == "keep me"
    with pytest.raises(ValueError, match="not a pipeline directory"):
        tune_bias(str(keep), sample_path, "plain", grid=[0.0])


def test_a_failed_write_leaves_the_model_as_it_was(trained_model_dir, sample_path, tmp_path, monkeypatch):
    model = tmp_path / "model"
    shutil.copytree(trained_model_dir, model)
    before = {p.relative_to(model): p.read_bytes() for p in model.rglob("*") if p.is_file()}

    def broken_to_disk(self, path, **kwargs):
        Path(path, "half-written").write_text("x")
        raise OSError("disk full")

    monkeypatch.setattr(Language, "to_disk", broken_to_disk)
    with pytest.raises(OSError, match="disk full"):
        tune_bias(str(model), sample_path, "plain", grid=[0.0, 1.0])
    after = {p.relative_to(model): p.read_bytes() for p in model.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_raw_sweep_scores_the_pipelines_own_tokens_and_restores_cfg(trained_nlp, sample_path):
    """`sweep_raw_scores` on the sample's last documents rebuilt as raw text: the bias moves the
    operating point (more SB: recall up, precision down), the cfg is left as it was, and
    `tune_prior` chooses `sb_bias` on the mean F1 of gold tokens and raw text."""
    from spacy_joint_sbd.operating_point import sweep_raw_scores, tune_prior
    from spacy_joint_sbd.corpus.raw_text import raw_documents

    raw = list(raw_documents(sample_path))[24:]
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    before = dict(pipe.cfg)
    scores = sweep_raw_scores(trained_nlp, raw, [-5.0, 0.0, 5.0])
    assert pipe.cfg == before and list(scores) == [-5.0, 0.0, 5.0]
    assert scores[5.0]["sents_r"] > scores[-5.0]["sents_r"] and scores[5.0]["sents_p"] < scores[0.0]["sents_p"]
    assert all(0.0 <= s[m] <= 1.0 for s in scores.values() for m in s)
    assert pipe.cfg == before


def test_tune_prior_chooses_sb_bias_on_the_mean_of_gold_and_raw_f1(trained_nlp, monkeypatch):
    """Gold tokens prefer one bias, raw text another: the mean F1 decides (the sweeps are
    replaced by fixed tables, so the choice itself is what is tested)."""
    from spacy_joint_sbd import operating_point

    gold = {0.0: 0.90, 1.0: 0.80, 2.0: 0.70}
    raw = {0.0: 0.70, 1.0: 0.85, 2.0: 0.90}  # mean: 0.80, 0.825, 0.80

    def table(f1):
        return lambda nlp, docs, grid, key, component, staged=None: {b: {"sents_f": f1.get(b, 0.5)} for b in grid}

    monkeypatch.setattr(operating_point, "sweep_sb_bias_scores", table(gold))
    monkeypatch.setattr(operating_point, "sweep_raw_scores", table(raw))
    pipe = trained_nlp.get_pipe("joint_sbd_parser")
    assert pipe.cfg["sb_bias"] == 0.0
    kw = dict(weights=(1.0,), punct_shifts=(0.0, 1.0, 2.0), unpunct_shifts=(0.0,))
    chosen, rows = operating_point.tune_prior(trained_nlp, ["gold"], [["star"]], punct_raw=["raw"], **kw)
    assert chosen["sb_bias"] == 1.0 and rows[1]["sb_bias_raw"]["2.0"] == {"sents_f": 0.90}
    chosen, rows = operating_point.tune_prior(trained_nlp, ["gold"], [["star"]], **kw)  # gold tokens alone
    assert chosen["sb_bias"] == 0.0 and "sb_bias_raw" not in rows[1]


def test_raw_sweep_refuses_an_empty_set(trained_nlp):
    from spacy_joint_sbd.operating_point import sweep_raw_scores

    with pytest.raises(ValueError, match="no non-empty raw dev documents"):
        sweep_raw_scores(trained_nlp, [], [0.0])


def test_char_boundary_scores_exclude_each_documents_first_start():
    from spacy_joint_sbd.scoring import char_boundary_scores

    s = char_boundary_scores([[0, 10, 20], [5, 9]], [{0, 10, 15}, {2, 5, 9}])
    # doc 1: gold {10, 20}, predicted {10, 15}; doc 2: gold {9}, predicted {9} (2 and 5 not after 5)
    assert (s["sents_p"], s["sents_r"]) == (2 / 3, 2 / 3)
    assert char_boundary_scores([[0]], [{0}])["sents_f"] == 0.0
    with pytest.raises(ValueError, match="1 predicted documents but 2 gold"):
        char_boundary_scores([[0], [0]], [{0}])
