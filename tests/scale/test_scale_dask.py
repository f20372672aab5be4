"""Shards on a real local Dask cluster (loopback, 2 worker processes, 1 thread each) started by
the test: a worker killed in the middle of the run loses no finished shard, no document is lost or
duplicated, and every output shard equals the single-process run byte for byte."""
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from spacy_joint_sbd.scale import Settings, pending, plan_shards, run_serial

distributed = pytest.importorskip("distributed")


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def doc_text(rec) -> str:
    return "".join(w + (" " if sp else "") for w, sp in zip(rec.words, rec.spaces)).strip()


@pytest.fixture
def jsonl_corpus(sample_docs, tmp_path):
    """10 shards of real treebank text, each the 29 sample documents in another rotation."""
    folder = tmp_path / "in"
    folder.mkdir()
    n = len(sample_docs)
    ids = []
    for k in range(10):
        with open(folder / f"part{k:02d}.jsonl", "w", encoding="utf-8") as f:
            for j in range(n):
                i = (j + 3 * k) % n
                ids.append(f"s{k}-d{i}")
                f.write(json.dumps({"id": ids[-1], "text": doc_text(sample_docs[i])}) + "\n")
    return folder, ids


def test_killed_worker_loses_nothing_and_output_equals_serial(trained_model_dir, jsonl_corpus, tmp_path):
    from dask.distributed import Client

    from spacy_joint_sbd.scale.dask_runner import local_cluster, run_on_client

    folder, ids = jsonl_corpus
    settings = Settings(model=str(trained_model_dir), input_format="jsonl", with_parse=True)
    serial = plan_shards(folder, tmp_path / "serial", "*.jsonl", "jsonl")
    run_serial(serial, settings)
    shards = plan_shards(folder, tmp_path / "dask", "*.jsonl", "jsonl")
    killed = {}

    with local_cluster(2) as cluster, Client(cluster) as client:
        def kill_one_busy_worker(result):
            if killed:
                return
            pids = client.run(os.getpid)
            processing = client.processing()
            busy = [addr for addr, keys in processing.items() if keys and addr in pids]
            assert busy, "no worker is busy: the kill would not interrupt anything"
            killed["pid"] = pids[busy[0]]
            killed["lost"] = processing[busy[0]]
            os.kill(killed["pid"], signal.SIGKILL)
            while os.path.exists(f"/proc/{killed['pid']}") and not _is_zombie(killed["pid"]):
                time.sleep(0.01)
            # outputs are written atomically, so what exists once the process is gone is all it finished
            killed["done_before"] = {p.name[:-len(".jsonl")] for p in (tmp_path / "dask").glob("*.jsonl.jsonl")}

        report = run_on_client(client, shards, settings, progress=False, on_result=kill_one_busy_worker)

    assert killed and report.failed == []
    assert sorted(r.name for r in report.results) == sorted(s.name for s in shards)  # each shard once
    # the killed worker reported only shards it had finished; its running shard was redone elsewhere
    assert all(r.name in killed["done_before"] for r in report.results if r.pid == killed["pid"])
    loads = Counter()
    for r in report.results:
        loads[r.pid] = max(loads[r.pid], r.model_loads)
    assert set(loads.values()) == {1}  # once per worker process, however many shards it ran
    # the shards the killed worker was running were redone by another (or the restarted) process;
    # which worker takes them is the scheduler's choice, so the test does not insist on two pids
    lost = {shards[int(str(key).rsplit("-", 1)[1])].name for key in killed["lost"]}
    assert lost
    by_name = {r.name: r.pid for r in report.results}
    assert all(by_name[name] != killed["pid"] or name in killed["done_before"] for name in lost)
    for a, b in zip(serial, shards):
        assert Path(b.output).read_bytes() == Path(a.output).read_bytes(), b.name
    sources = [json.loads(line)["source"] for s in shards for line in open(s.output, encoding="utf-8")]
    assert list(dict.fromkeys(sources)) == ids  # every document, once, in order
    assert pending(shards) == []


def test_cli_local_cluster_then_rerun_skips(trained_model_dir, sample_docs, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for i, rec in enumerate(sample_docs[:4]):
        (folder / f"doc{i}.txt").write_text(doc_text(rec), encoding="utf-8")

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment-corpus", str(trained_model_dir),
                               str(folder), str(tmp_path / "out"), *extra], capture_output=True, text=True)

    first = run("--scheduler", "local", "--workers", "2", "--format", "conllu")
    assert first.returncode == 0, first.stderr
    assert "4 to run" in first.stderr and "4 shards, 4 documents" in first.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == \
        [".segment-corpus.json"] + [f"doc{i}.txt.conllu" for i in range(4)]
    (tmp_path / "out" / "doc2.txt.conllu").unlink()
    again = run("--scheduler", "serial", "--format", "conllu")
    assert again.returncode == 0 and "3 done already, 1 to run" in again.stderr
    other = run("--scheduler", "serial", "--format", "lines")
    assert other.returncode == 1 and "other settings" in other.stderr
