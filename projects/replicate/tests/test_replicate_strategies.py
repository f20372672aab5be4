"""Smoke test of the update-strategy curves (bjorkelund2016 Figures 3-4) on a few EWT documents.

Here the records keep their gold tags (the workflow predicts them with a spaCy tagger)."""
import pytest

from replication.curves import curve_run
from replication.report import plot_fig3, plot_fig4

pytestmark = pytest.mark.slow  # real EWT documents


def test_strategy_curves_and_plots(ewt_dev, tmp_path):
    tagged = {"records": {"train": ewt_dev[:4], "tune": ewt_dev[4:6]}}
    runs = {update: curve_run(tagged, True, update, 2, 2) for update in ("greedy", "early", "dlaso")}
    runs["sentence-early"] = curve_run(tagged, False, "early", 2, 2)
    for run in runs.values():
        assert [c["epoch"] for c in run["curve"]] == [1, 2]
        assert all(0 <= c["sents_f"] <= 1 and 0 <= c["used_pct"] <= 100 for c in run["curve"])
    assert runs["dlaso"]["curve"][-1]["used_pct"] == 100.0
    assert runs["early"]["curve"][-1]["used_pct"] < 50.0  # early update sees a prefix of each document
    plot_fig3(runs, tmp_path / "fig3.png", "ewt-plain")
    plot_fig4(runs, None, tmp_path / "fig4.png", "ewt-plain")
    assert (tmp_path / "fig3.png").stat().st_size > 1000 and (tmp_path / "fig4.png").stat().st_size > 1000
