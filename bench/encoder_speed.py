"""`segment` with and without the encoder: words/s on 1 MB of text, peak RSS, loading time.

    python bench/encoder_speed.py --pipeline en_joint_sbd_trf --peer en_joint_sbd \
        [--chars 1000000] [--json results/bench/encoder_speed.json]

Each pipeline in processes of its own, one after the other (the machine is shared): the CLI
`python -m spacy_joint_sbd segment FILE -m PIPELINE --format jsonl` on `--chars` characters of the
shared running text (AMI dev meetings lower-cased without punctuation, then Project Gutenberg books,
cut at whitespace), its wall time and peak RSS (`getrusage(RUSAGE_CHILDREN)` of a small process that
starts it), and `spacy.load` alone, timed in a fresh process. Words are whitespace-separated words
of the input (the same count for every pipeline). The environment is left as users have it.
Prints words/s, the ratio to the peer and the targets (≥ 3,000 words/s, ≤ 1 GB, loading ≤ 3 s);
writes JSON without machine paths.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict

ROOT = Path(__file__).resolve().parents[1]
TEXT = Path(os.environ.get("SJS_TEXT", ROOT.parent / "shared" / "data" / "text"))

CHILD = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": time.perf_counter() - t, "cpu_s": u.ru_utime + u.ru_stime, "maxrss_kb": u.ru_maxrss}))
"""
LOAD = r"""
import json, sys, time
t = time.perf_counter()
import spacy
nlp = spacy.load(sys.argv[1])
nlp("Warm up.")
print(json.dumps({"load_s": time.perf_counter() - t}))
"""
TARGETS = {"words_per_s": 3000, "peak_rss_mb": 1024, "load_s": 3.0}


def bench_text(chars: int) -> str:
    """Unpunctuated lower-cased meetings first (the text the encoder is for), then books."""
    parts, n = [], 0
    for folder, star in (("ami/dev", True), ("gutenberg", False)):
        for f in sorted((TEXT / folder).rglob("*.txt")):
            t = f.read_text(encoding="utf8")
            if star:
                t = re.sub(r"[^\w\s']", " ", t.lower())
            parts.append(t)
            n += len(t)
            if n >= chars:
                break
        if n >= chars:
            break
    text = "\n\n".join(parts)[:chars]
    return text[: text.rfind(" ")] if len(text) == chars else text


def run(pipeline: str, path: Path, words: int) -> Dict[str, Any]:
    cmd = [sys.executable, "-m", "spacy_joint_sbd", "segment", str(path), "-m", pipeline, "--format", "jsonl"]
    seg = json.loads(subprocess.run([sys.executable, "-c", CHILD, *cmd], check=True, capture_output=True,
                                    text=True).stdout.strip().splitlines()[-1])
    load = json.loads(subprocess.run([sys.executable, "-c", LOAD, pipeline], check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1])
    return {"words_per_s": round(words / seg["wall_s"]), "wall_s": round(seg["wall_s"], 2),
            "cpu_s": round(seg["cpu_s"], 2), "peak_rss_mb": round(seg["maxrss_kb"] / 1024, 1),
            "load_s": round(load["load_s"], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", required=True)
    ap.add_argument("--peer", default=None)
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    text = bench_text(args.chars)
    words = len(text.split())
    out: Dict[str, Any] = {"chars": len(text), "words": words,
                           "machine": {"processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                                       "python": platform.python_version()},
                           "pipelines": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.txt"
        path.write_text(text, encoding="utf8")
        for name in filter(None, (args.peer, args.pipeline)):
            out["pipelines"][name] = run(name, path, words)
            print(name, json.dumps(out["pipelines"][name]), flush=True)
    mine = out["pipelines"][args.pipeline]
    if args.peer:
        out["ratio_to_peer"] = round(mine["words_per_s"] / out["pipelines"][args.peer]["words_per_s"], 3)
        print(f"{args.pipeline} runs at {out['ratio_to_peer']:.2f}x the words/s of {args.peer}")
    out["targets"] = {k: {"target": v, "measured": mine[k],
                          "met": mine[k] >= v if k == "words_per_s" else mine[k] <= v} for k, v in TARGETS.items()}
    for k, t in out["targets"].items():
        print(f"{k}: {t['measured']} (target {'>=' if k == 'words_per_s' else '<='} {t['target']}): "
              f"{'met' if t['met'] else 'MISSED'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
