"""The fragments experiment runner end to end on a tiny Chinese run (gold tags: no tagger)."""
import json

from fragments_experiment import METHODS, main
from treebanks import DATA, ZH, need


def test_quick_run_writes_metrics_table_and_plot(tmp_path):
    need(ZH / "dev.conllu")
    out = tmp_path / "frag"
    assert main(["run", "--quick", "--quick-train", "60", "--quick-test", "25", "--order", "1",
                 "--epochs", "1", "--datasets", "zh", "--data", str(DATA), "--out", str(out),
                 "--n-rows", "65536", "--label-rows", "4096"]) == 0
    m = json.loads((out / "metrics" / "zh.json").read_text())
    assert m["test_tags"] == "gold tags" and m["quick"]
    for k in METHODS:
        r = m["methods"][k]
        assert 0 < r["uas"] <= 1 and len(r["per_sentence"]) == 25
        assert sum(d["tokens"] for d in r["per_doc"]) == r["tokens"]
    table = (out / "results.md").read_text()
    assert "Two-stage" in table and "trained on dev" in table and "gold tags" in table
    assert (out / "parse_time.png").stat().st_size > 1000
