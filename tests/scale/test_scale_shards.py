"""The shard plan without Dask: one output per shard, atomic, resumable, exactly `segment`'s bytes,
clear errors naming the file; and Dask is never imported by the library itself."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_joint_sbd.scale import (Settings, ShardError, check_settings, pending, plan_shards, process_shard,
                                   remove_stale_partials, run_serial)


def doc_text(rec) -> str:
    """A treebank document as raw text (SpaceAfter kept)."""
    return "".join(w + (" " if sp else "") for w, sp in zip(rec.words, rec.spaces)).strip()


def write_text_shards(folder: Path, docs) -> None:
    (folder / "sub").mkdir(parents=True)
    for i, rec in enumerate(docs):
        (folder / ("sub" if i % 3 == 0 else "") / f"doc{i:02d}.txt").write_text(doc_text(rec), encoding="utf-8")


def test_text_shards_are_written_once_and_a_rerun_skips_them(trained_model_dir, sample_docs, tmp_path):
    write_text_shards(tmp_path / "in", sample_docs[:6])
    shards = plan_shards(tmp_path / "in", tmp_path / "out", "*.txt", "jsonl")
    assert [s.name for s in shards][:2] == ["doc01.txt", "doc02.txt"] and "sub/doc00.txt" in [s.name for s in shards]
    settings = Settings(model=str(trained_model_dir))
    check_settings(tmp_path / "out", settings, overwrite=False)
    results = run_serial(pending(shards), settings)
    assert len(results) == 6 and all(not r.skipped and r.sentences > 0 and r.docs == 1 for r in results)
    assert max(r.model_loads for r in results) == 1  # the model is loaded once in this process
    for s in shards:
        lines = Path(s.output).read_text(encoding="utf-8").splitlines()
        assert {json.loads(line)["source"] for line in lines} == {s.name}
    assert pending(shards) == []
    assert all(r.skipped for r in run_serial(shards, settings))
    (tmp_path / "out" / "doc01.txt.jsonl.123-abcd.partial").write_text("half", encoding="utf-8")
    assert remove_stale_partials(tmp_path / "out") == 1
    with pytest.raises(ShardError, match="other settings.*fmt"):
        check_settings(tmp_path / "out", Settings(model=str(trained_model_dir), fmt="lines"), overwrite=False)


def test_a_shard_is_byte_for_byte_what_segment_writes(trained_model_dir, sample_docs, tmp_path):
    write_text_shards(tmp_path / "in", sample_docs[:3])
    for fmt in ("jsonl", "conllu"):
        shards = plan_shards(tmp_path / "in", tmp_path / fmt, "*.txt", fmt)
        run_serial(shards, Settings(model=str(trained_model_dir), fmt=fmt))
        shard = next(s for s in shards if s.name == "sub/doc00.txt")
        subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", str(trained_model_dir), shard.name,
                        "-f", fmt, "-o", str(tmp_path / f"one.{fmt}")], cwd=tmp_path / "in", check=True,
                       capture_output=True)
        assert Path(shard.output).read_bytes() == (tmp_path / f"one.{fmt}").read_bytes()


def test_jsonl_shards_and_errors_name_the_file(trained_model_dir, sample_docs, tmp_path):
    (tmp_path / "in").mkdir()
    good = tmp_path / "in" / "a.jsonl"
    good.write_text("".join(json.dumps({"id": f"d{i}", "text": doc_text(r)}) + "\n"
                            for i, r in enumerate(sample_docs[:4])) + json.dumps({"text": "no id here ok"}) + "\n",
                    encoding="utf-8")
    settings = Settings(model=str(trained_model_dir), input_format="jsonl")
    [res] = run_serial(plan_shards(tmp_path / "in", tmp_path / "out", "*.jsonl", "jsonl"), settings)
    assert res.docs == 5 and res.words == sum(len(doc_text(r).split()) for r in sample_docs[:4]) + 4
    sources = [json.loads(line)["source"] for line in (tmp_path / "out" / "a.jsonl.jsonl").open(encoding="utf-8")]
    assert list(dict.fromkeys(sources)) == ["d0", "d1", "d2", "d3", "a.jsonl:5"]
    (tmp_path / "in" / "b.jsonl").write_text('{"text": "fine"}\n{"text": 3}\n', encoding="utf-8")
    [bad] = pending(plan_shards(tmp_path / "in", tmp_path / "out", "*.jsonl", "jsonl"))
    with pytest.raises(ShardError, match=r"b\.jsonl:2: expected an object with a string 'text'"):
        process_shard(bad, settings)
    assert not Path(bad.output).exists() and not list((tmp_path / "out").glob("*.partial"))
    (tmp_path / "in" / "c.txt").write_bytes(b"caf\xe9 au lait")
    [latin] = pending(plan_shards(tmp_path / "in", tmp_path / "out", "c.txt", "jsonl"))
    with pytest.raises(ShardError, match=r"c\.txt: not valid utf-8 at byte 3"):
        process_shard(latin, Settings(model=str(trained_model_dir)))
    with pytest.raises(ShardError, match="no such folder"):
        plan_shards(tmp_path / "nope", tmp_path / "out", "*.txt", "jsonl")


def test_the_library_never_imports_dask():
    code = ("import sys, spacy_joint_sbd.cli, spacy_joint_sbd.scale, spacy_joint_sbd.scale.dask_runner; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cli_names_a_bad_model_or_an_empty_folder(trained_model_dir, tmp_path):
    (tmp_path / "in").mkdir()

    def run(model, *extra):
        return subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment-corpus", str(model),
                               str(tmp_path / "in"), str(tmp_path / "out"), "--scheduler", "serial", *extra],
                              capture_output=True, text=True)

    bad = run(tmp_path / "no-model")
    assert bad.returncode == 1 and "no-model: not a pipeline directory" in bad.stderr
    empty = run(trained_model_dir)
    assert empty.returncode == 1 and "no files matching '*.txt'" in empty.stderr
    fmt = run(trained_model_dir, "--format", "xml")
    assert fmt.returncode == 1 and "format must be one of lines, jsonl, conllu" in fmt.stderr


def test_a_pattern_cannot_reach_outside_the_input_folder(trained_model_dir, tmp_path):
    """`../*.txt` would take the input folder's neighbours and write their outputs outside the
    output folder: refused before any shard runs."""
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "a.txt").write_text("Inside.", encoding="utf-8")
    (tmp_path / "neighbour.txt").write_text("Outside the input folder.", encoding="utf-8")
    with pytest.raises(ShardError, match="inside its folder"):
        plan_shards(tmp_path / "in", tmp_path / "out", "../*.txt", "jsonl")
    before = sorted(tmp_path.rglob("*"))
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment-corpus", str(trained_model_dir),
                           str(tmp_path / "in"), str(tmp_path / "out"), "--scheduler", "serial",
                           "--pattern", "sub/../../*.txt"], capture_output=True, text=True)
    assert proc.returncode == 1 and "inside its folder" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(tmp_path.rglob("*")) == before
