"""scripts/package_meta.py: the model card of a packaged pipeline is generated from its metrics."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "package_meta.py"


def _metrics(path: Path, variant: str, sents_f: float) -> Path:
    path.write_text(json.dumps({"variant": variant, "sents_p": 0.7, "sents_r": 0.5, "sents_f": sents_f,
                                "dep_uas": 0.8, "dep_las": 0.75, "words_per_second": 4000.0}))
    return path


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_star_card_named_and_scored_from_its_metrics(tmp_path):
    gold = _metrics(tmp_path / "star.json", "star", 0.6123)
    out = tmp_path / "meta.json"
    proc = _run(str(gold), str(tmp_path / "no-raw.json"), str(out), "0.2.0", "--variant", "star")
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(out.read_text())
    assert meta["name"] == "joint_sbd_ewt_star" and meta["version"] == "0.2.0"
    assert meta["performance"]["sents_f"] == 0.6123 and meta["performance"]["variant"] == "star"
    assert meta["performance"]["raw_sentences_f"] is None  # not measured: null, never invented
    assert "lower-cased" in meta["description"] and meta["license"] == "CC BY-SA 4.0"


def test_plain_card_reads_raw_metrics(tmp_path):
    gold = _metrics(tmp_path / "plain.json", "plain", 0.88)
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps({"sentences_f": 0.74, "las_f": 0.77, "tokens_f": 0.97}))
    out = tmp_path / "meta.json"
    assert _run(str(gold), str(raw), str(out)).returncode == 0
    meta = json.loads(out.read_text())
    assert meta["name"] == "joint_sbd_ewt" and meta["performance"]["raw_sentences_f"] == 0.74


def test_metrics_of_the_other_variant_are_refused(tmp_path):
    gold = _metrics(tmp_path / "plain.json", "plain", 0.88)
    out = tmp_path / "meta.json"
    proc = _run(str(gold), str(tmp_path / "raw.json"), str(out), "--variant", "star")
    assert proc.returncode == 2 and "scores the 'plain' variant" in proc.stderr
    assert not out.exists()
