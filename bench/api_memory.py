"""Peak memory of the Python API: `nlp(text)` on one Doc of several sizes up to `nlp.max_length`,
and `nlp.pipe` over texts of 200–6,000 characters at several batch sizes.

Each measurement runs in a fresh process (spawned), which loads the pipeline, reads its resident
memory (the baseline), processes the text(s) once and reports its peak resident memory
(`getrusage`'s ru_maxrss): the figure of interest is the peak above the loaded pipeline. The text
is the committed EWT sample (tests/fixtures) repeated, cut at a space; `--text FILE` takes another.

    python bench/api_memory.py -m en_joint_sbd [--chars 10000,100000,1000000] [--batches default,7,64]
        [--json results/bench/api_memory.json]
"""
import argparse
import json
import multiprocessing
import os
import platform
import random
import resource
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "fixtures" / "en_ewt-sample.conllu"
PIPE_TEXTS = 120
PIPE_CHARS = (200, 6000)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def base_text(path: Optional[str]) -> str:
    if path:
        return Path(path).read_text(encoding="utf8")
    from spacy.vocab import Vocab

    from spacy_joint_sbd.corpus import read_conllu
    from spacy_joint_sbd.corpus.docs import record_to_doc

    vocab = Vocab()
    return "\n\n".join(record_to_doc(vocab, r).text for r in read_conllu(SAMPLE))


def text_of(base: str, chars: int, start: int = 0) -> str:
    """`chars` characters of `base` repeated from `start`, cut back to a space."""
    reps = (start + chars) // max(1, len(base)) + 2
    text = ((base + "\n\n") * reps)[start:start + chars]
    cut = text.rfind(" ")
    return text[:cut] if cut > chars // 2 else text


def measure(job: Dict) -> Dict:
    """One measurement in this (fresh) process."""
    import spacy

    nlp = spacy.load(job["model"])
    base = base_text(job.get("text"))
    if job["kind"] == "doc":
        texts = [text_of(base, job["chars"])]
    else:
        rng = random.Random(0)
        texts = [text_of(base, rng.randint(*PIPE_CHARS), rng.randrange(len(base))) for _ in range(PIPE_TEXTS)]
    loaded, start = rss_mb(), time.perf_counter()
    if job["kind"] == "doc":
        nlp.max_length = max(nlp.max_length, len(texts[0]))
        tokens = len(nlp(texts[0]))
    else:
        batch = job["batch"] if job["batch"] != "default" else nlp.batch_size
        tokens = sum(len(d) for d in nlp.pipe(texts, batch_size=batch))
    peak = peak_mb()
    return {**{k: v for k, v in job.items() if k not in ("model", "text")}, "texts": len(texts),
            "chars": sum(len(t) for t in texts), "tokens": tokens, "loaded_mb": round(loaded, 1),
            "peak_mb": round(peak, 1), "above_loaded_mb": round(peak - loaded, 1),
            "kb_per_token": round(1024 * (peak - loaded) / max(1, tokens), 2),
            "seconds": round(time.perf_counter() - start, 2)}


def model_name(model: str) -> str:
    """The pipeline's name and version from its meta, never its path."""
    meta = Path(model) / "meta.json"
    if meta.is_file():
        data = json.loads(meta.read_text())
        return f"{data.get('lang', '')}_{data.get('name', '')}-{data.get('version', '')}"
    return model


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", required=True, help="an installed pipeline or a pipeline folder")
    ap.add_argument("--chars", default="10000,100000,500000,1000000",
                    help="Doc sizes in characters (comma-separated); at most nlp.max_length is the API's range")
    ap.add_argument("--batches", default="default,7,64,1000", help="nlp.pipe batch sizes ('default': the pipeline's)")
    ap.add_argument("--text", default=None, help="text file to repeat instead of the EWT sample")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    jobs = [{"kind": "doc", "chars": int(c)} for c in args.chars.split(",") if c]
    jobs += [{"kind": "pipe", "batch": b if b == "default" else int(b)} for b in args.batches.split(",") if b]
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for job in jobs:
        with ctx.Pool(1) as pool:
            row = pool.apply(measure, ({**job, "model": args.model, "text": args.text},))
        rows.append(row)
        what = f"doc {row['chars']:>9,} chars" if row["kind"] == "doc" else f"pipe batch {row['batch']!s:>7}"
        print(f"{what}: {row['tokens']:>8,} tokens, peak {row['peak_mb']:7.1f} MB, "
              f"{row['above_loaded_mb']:7.1f} MB above the loaded pipeline ({row['kb_per_token']:.2f} KB/token), "
              f"{row['seconds']:.1f} s", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"model": model_name(args.model), "machine": platform.machine(),
                                         "cpus": os.cpu_count(), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
