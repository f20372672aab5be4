"""Corpus segmentation throughput on a local Dask cluster with 1 and 2 workers.

Builds `--shards` JSON-lines shards of raw text from EWT train documents (SpaceAfter kept), then
segments the same shards in this process (no Dask), on a loopback cluster of 1 worker and on one of
2 workers (1 thread each). The model is loaded on every worker before the clock starts (a worker
loads it once, whatever the number of shards). Prints documents/s and words/s (whitespace words of
the input) per run, the 2-worker / 1-worker ratio (target >= 1.7), the peak RSS of a worker, the
time to import dask.distributed and to start a cluster, and checks that every run wrote the same
bytes.

    python bench/scale.py [--model DIR] [--docs 0] [--shards 20] [--json results/bench/scale.json] [--ray]

With `--ray` (needs `pip install ray`), the same shards also run on a local Ray instance with 1 and
2 actors, each loading the model once (`ray.util.ActorPool`, one shard per call), so that the two
engines are compared on the same documents in the same run.

Without `--model`, a joint_sbd_parser with the default config (beam 20) is trained for one epoch
on the first `--train-docs` EWT train documents: throughput depends on the model, not on its
accuracy.
"""
import argparse
import filecmp
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SJS_DATA", ROOT.parent / "shared" / "data" / "ud")) / "en_ewt"


def doc_text(rec) -> str:
    return "".join(w + (" " if sp else "") for w, sp in zip(rec.words, rec.spaces)).strip()


def make_shards(docs, folder: Path, n: int) -> None:
    """`n` shards of whole documents, contiguous, of about equal word counts."""
    folder.mkdir(parents=True)
    total = sum(len(r.words) for r in docs)
    k, done, f = 0, 0, None
    for i, rec in enumerate(docs):
        if f is None or (done >= total * (k + 1) / n and k < n - 1):
            if f is not None:
                f.close()
                k += 1
            f = open(folder / f"part{k:03d}.jsonl", "w", encoding="utf-8")
        f.write(json.dumps({"id": rec.doc_id or f"doc{i}", "text": doc_text(rec)}) + "\n")
        done += len(rec.words)
    f.close()


def train_model(path: Path, n_docs: int) -> None:
    import spacy

    from spacy_joint_sbd.corpus.readers import create_document_corpus

    nlp = spacy.blank("en")
    examples = list(create_document_corpus(str(DATA / "train.conllu"), limit=n_docs)(nlp))
    nlp.add_pipe("joint_sbd_parser")
    nlp.initialize(lambda: examples)
    for i in range(0, len(examples), 16):
        nlp.update(examples[i:i + 16])
    nlp.to_disk(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--train-docs", type=int, default=60)
    ap.add_argument("--docs", type=int, default=0, help="EWT train documents to segment (0 = all)")
    ap.add_argument("--shards", type=int, default=20)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (model, shards, outputs)")
    ap.add_argument("--ray", action="store_true",
                    help="also run the same shards on Ray with 1 and 2 actors (each loads the model "
                         "once; `pip install ray`, not a dependency): the measurement behind "
                         "choosing Dask (docs/scale.md)")
    args = ap.parse_args()

    from spacy_joint_sbd.corpus import read_conllu
    from spacy_joint_sbd.scale import Settings, plan_shards, run_serial
    from spacy_joint_sbd.scale.shards import peak_rss_mb, preload

    tmp = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    model = args.model
    if model is None:
        model = tmp / "model"
        start = time.perf_counter()
        train_model(model, args.train_docs)
        print(f"trained a beam-20 model on {args.train_docs} documents in {time.perf_counter() - start:.1f} s")
    docs = read_conllu(DATA / "train.conllu")
    docs = docs[:args.docs] if args.docs else docs
    make_shards(docs, tmp / "in", args.shards)
    size = sum(p.stat().st_size for p in (tmp / "in").iterdir())
    print(f"{len(docs)} documents, {sum(len(r.words) for r in docs)} words, {args.shards} shards, "
          f"{size / 1e6:.2f} MB of JSON lines; machine: {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, {platform.machine()}, "
          f"load average {os.getloadavg()[0]:.1f} before the runs")
    load_before = os.getloadavg()
    settings = Settings(model=str(model), input_format="jsonl")
    rows = {}

    def record(name, results, seconds, extra=None):
        n_docs = sum(r.docs for r in results)
        words = sum(r.words for r in results)
        cpu = sum(r.cpu_seconds for r in results)
        peak = {}
        for r in results:
            peak[r.pid] = max(peak.get(r.pid, 0.0), r.peak_rss_mb)
        rows[name] = {"seconds": seconds, "docs": n_docs, "words": words, "docs_per_s": n_docs / seconds,
                      "words_per_s": words / seconds, "cpu_seconds": cpu, "docs_per_cpu_s": n_docs / cpu,
                      "words_per_cpu_s": words / cpu, "load_average": os.getloadavg(), "worker_peak_rss_mb": sorted(peak.values()),
                      "shards_per_worker": sorted(sum(r.pid == p for r in results) for p in peak), **(extra or {})}
        print(f"{name:>9}: {seconds:6.1f} s, {n_docs / seconds:7.1f} docs/s, {words / seconds:8.0f} words/s, "
              f"CPU {cpu:.1f} s ({words / cpu:.0f} words/CPU-s), load {os.getloadavg()[0]:.1f}, "
              f"peak RSS per worker {', '.join(f'{v:.0f}' for v in sorted(peak.values()))} MB"
              + "".join(f", {k} {v:.2f}" for k, v in (extra or {}).items()), flush=True)

    preload(str(model))
    start = time.perf_counter()
    results = run_serial(plan_shards(tmp / "in", tmp / "serial", "*.jsonl", "jsonl"), settings)
    record("serial", results, time.perf_counter() - start)

    start = time.perf_counter()
    from dask.distributed import Client

    from spacy_joint_sbd.scale.dask_runner import local_cluster, run_on_client

    import_s = time.perf_counter() - start
    for n in (1, 2):
        start = time.perf_counter()
        with local_cluster(n) as cluster, Client(cluster) as client:
            client.wait_for_workers(n)
            cluster_s = time.perf_counter() - start
            idle_mb = max(client.run(peak_rss_mb).values())
            start = time.perf_counter()
            client.run(preload, str(model))
            load_s = time.perf_counter() - start
            start = time.perf_counter()
            report = run_on_client(client, plan_shards(tmp / "in", tmp / f"w{n}", "*.jsonl", "jsonl"), settings)
            seconds = time.perf_counter() - start
        assert not report.failed, report.failed
        record(f"{n} worker" + "s" * (n > 1), report.results, seconds,
               {"cluster_start_s": cluster_s, "model_load_s": load_s, "idle_worker_rss_mb": idle_mb})
    outs = ["w1", "w2"]
    ray_info = {}
    if args.ray:
        start = time.perf_counter()
        import ray
        from ray.util import ActorPool

        from spacy_joint_sbd.scale.shards import process_shard

        ray_info["import_ray_s"] = time.perf_counter() - start
        ray_info["ray_version"] = ray.__version__

        @ray.remote(num_cpus=1)
        class Segmenter:
            """One worker process: the model loaded once, then one shard per call."""

            def preload(self, name):
                return preload(name)

            def peak_rss_mb(self):
                return peak_rss_mb()

            def run(self, shard, settings):
                return process_shard(shard, settings)

        for n in (1, 2):
            start = time.perf_counter()
            ray.init(num_cpus=n, include_dashboard=False, object_store_memory=100 * 2**20,
                     log_to_driver=False)
            try:
                actors = [Segmenter.remote() for _ in range(n)]
                idle_mb = max(ray.get([a.peak_rss_mb.remote() for a in actors]))
                cluster_s = time.perf_counter() - start
                start = time.perf_counter()
                ray.get([a.preload.remote(str(model)) for a in actors])
                load_s = time.perf_counter() - start
                shards = plan_shards(tmp / "in", tmp / f"ray{n}", "*.jsonl", "jsonl")
                start = time.perf_counter()
                results = list(ActorPool(actors).map_unordered(lambda a, sh: a.run.remote(sh, settings), shards))
                seconds = time.perf_counter() - start
            finally:
                ray.shutdown()
            record(f"ray {n}", results, seconds,
                   {"cluster_start_s": cluster_s, "model_load_s": load_s, "idle_worker_rss_mb": idle_mb})
            outs.append(f"ray{n}")
        ray_info["ratio_2_over_1"] = rows["ray 2"]["docs_per_s"] / rows["ray 1"]["docs_per_s"]
        print(f"Ray: 2 actors / 1 actor {ray_info['ratio_2_over_1']:.2f}x; Ray 2 / Dask 2 "
              f"{rows['ray 2']['docs_per_s'] / rows['2 workers']['docs_per_s']:.2f}x; import ray "
              f"{ray_info['import_ray_s']:.2f} s", flush=True)
    ratio = rows["2 workers"]["docs_per_s"] / rows["1 worker"]["docs_per_s"]
    same = all(not filecmp.dircmp(tmp / "serial", tmp / d).diff_files and
               sorted(os.listdir(tmp / "serial")) == sorted(os.listdir(tmp / d)) for d in outs)
    print(f"2 workers / 1 worker: {ratio:.2f}x (target >= 1.7); 1 worker / serial: "
          f"{rows['1 worker']['docs_per_s'] / rows['serial']['docs_per_s']:.2f}; import dask.distributed "
          f"{import_s:.2f} s; driver peak RSS {peak_rss_mb():.0f} MB; "
          f"outputs identical: {same}")
    out_mb = sum(p.stat().st_size for p in (tmp / "w2").iterdir()) / 1e6
    model_mb = sum(p.stat().st_size for p in Path(model).rglob("*") if p.is_file()) / 1e6
    print(f"output {out_mb:.2f} MB (jsonl, no parse); model on disk {model_mb:.1f} MB")
    if not args.keep:
        shutil.rmtree(tmp)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"cpus": os.cpu_count(), "docs": len(docs), "shards": args.shards,
                                         "input_mb": size / 1e6, "output_mb": out_mb,
                                         "model_mb": model_mb, "load_average_before": load_before, "runs": rows, "ratio_2_over_1": ratio,
                                         "import_dask_distributed_s": import_s, "outputs_identical": same,
                                         "ray": ray_info},
                                        indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
