"""`nlp.pipe(..., n_process=N)` scaling for N = 1 and 2, ours beside the peer.

Times, each in a fresh process and by wall clock (what a user waits for; worker start-up and
the model load of each worker included), `en_joint_sbd` and `en_core_web_sm`'s tok2vec + tagger +
parser over the inputs of `bench/pipeline_speed.py`: GUM dev as raw text (long documents) and
1,000 EWT sentences of 10–40 words (short texts), through `nlp.pipe` with 1 and 2 processes.
Prints words/s and the 2-process / 1-process speed-up of each pipeline; writes JSON (no machine
paths). The outputs of 1 and 2 processes are checked to be the same sentences.

    python bench/pipe_processes.py [--json results/bench/pipe_processes.json] [--quick]
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pipeline_speed import (OURS, PEER, ROOT, UD, load, long_documents, machine, peak_rss_mb,  # noqa: E402
                            run_worker, short_texts)

RUNS = ("ours", "peer_core")
PROCESSES = (1, 2)
BATCH = {"long": 2, "short": 50}
"""Texts per batch handed to a worker: small enough that both processes get work (spaCy's default
of 1,000 texts would send all 1,000 short texts to one worker)."""


def worker(run: str, n_process: int, inputs: Dict[str, Any]) -> Dict[str, Any]:
    nlp = load(run)
    list(nlp.pipe([t["text"] for t in inputs["short"][:20]]))  # warm-up of this process, not counted
    out: Dict[str, Any] = {}
    for shape in ("long", "short"):
        texts = [t["text"] for t in inputs[shape]]
        t0 = time.perf_counter()
        docs = list(nlp.pipe(texts, n_process=n_process, batch_size=BATCH[shape]))
        wall = time.perf_counter() - t0
        words = sum(t["words"] for t in inputs[shape])
        out[shape] = {"texts": len(texts), "words": words, "wall_s": round(wall, 3),
                      "words_per_s": round(words / wall),
                      "sentences": [[s.start_char for s in doc.sents] for doc in docs]}
    out["peak_rss_mb_main_process"] = round(peak_rss_mb(), 1)
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke run: 4 long documents, 100 short texts")
    ap.add_argument("--long", type=Path, default=UD / "en_gum" / "dev.conllu")
    ap.add_argument("--short", type=Path, nargs="+",
                    default=[UD / "en_ewt" / "test.conllu", UD / "en_ewt" / "dev.conllu"])
    ap.add_argument("--json", type=Path, help="default results/bench/pipe_processes.json (none with --quick)")
    ap.add_argument("--worker", choices=RUNS, help=argparse.SUPPRESS)
    ap.add_argument("--n-process", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        inputs = json.loads(args.inputs.read_text(encoding="utf-8"))
        print(json.dumps(worker(args.worker, args.n_process, inputs)))
        return
    from wasabi import msg

    if not args.quick:
        args.json = args.json or ROOT / "results" / "bench" / "pipe_processes.json"
    long_docs = long_documents(args.long, 4 if args.quick else None)
    short, taken = short_texts(args.short, 100 if args.quick else 1000)
    results: Dict[str, Dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        inputs_path = Path(tmp) / "inputs.json"
        inputs_path.write_text(json.dumps({"long": long_docs, "short": short}), encoding="utf-8")
        for run in RUNS:
            for n in PROCESSES:
                print(f"running {run} with {n} process(es) …", file=sys.stderr, flush=True)
                results.setdefault(run, {})[str(n)] = run_worker(run, inputs_path, Path(__file__).resolve(),
                                                                 ("--n-process", str(n)))
    rows: List[tuple] = []
    summary: Dict[str, Any] = {}
    for run, by_n in results.items():
        for shape in ("long", "short"):
            one, two = by_n["1"][shape], by_n["2"][shape]
            same = one.pop("sentences") == two.pop("sentences")
            speedup = round(two["words_per_s"] / one["words_per_s"], 2)
            summary[f"{run}_{shape}"] = {"words_per_s_1": one["words_per_s"], "words_per_s_2": two["words_per_s"],
                                         "speedup": speedup, "same_sentences": same}
            rows.append((run, shape, f"{one['words_per_s']:,}", f"{two['words_per_s']:,}", f"{speedup:.2f}×",
                         "yes" if same else "NO"))
    msg.table(rows, header=("run", "texts", "1 process w/s", "2 processes w/s", "speed-up", "same sentences"),
              divider=True)
    out = {"quick": args.quick, "machine": machine(), "batch_size": BATCH,
           "inputs": {"long": {"source": f"{args.long.parent.name}/{args.long.name}", "texts": len(long_docs),
                               "words": sum(d["words"] for d in long_docs)},
                      "short": {"sources": taken, "texts": len(short), "words": sum(t["words"] for t in short)}},
           "pipelines": {"ours": OURS, "peer_core": f"{PEER} (tok2vec, tagger, parser)"},
           "summary": summary, "runs": results}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if not all(s["same_sentences"] for s in summary.values()):
        raise SystemExit("1 and 2 processes gave different sentences")


if __name__ == "__main__":
    main()
