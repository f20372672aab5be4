"""Smoke test of the update-strategy experiment (Figures 3-4) on a few EWT documents.

Here the records keep their gold tags (the real experiment predicts them with a spaCy tagger)."""
from spacy_joint_sbd.experiments.strategies import plot, run, table


def test_strategy_curves_table_and_plot(ewt_dev, tmp_path):
    curves = run(ewt_dev[:4], ewt_dev[4:6], ["greedy", "early", "dlaso"], epochs=2, beam_width=2)
    assert set(curves) == {"greedy", "early", "dlaso"}
    for curve in curves.values():
        assert [c["epoch"] for c in curve] == [1, 2]
        assert all(0 <= c["sents_f"] <= 1 and 0 <= c["used_pct"] <= 100 for c in curve)
    assert curves["dlaso"][-1]["used_pct"] == 100.0
    assert curves["early"][-1]["used_pct"] < 50.0  # early update sees a prefix of each document
    assert "| dlaso (best)" in table(curves)
    plot(curves, tmp_path / "c.png", "test")
    assert (tmp_path / "c.png").stat().st_size > 1000
