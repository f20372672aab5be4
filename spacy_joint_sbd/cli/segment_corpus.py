"""`segment-corpus MODEL INPUT_DIR OUTPUT_DIR`: a folder of shards → one output file per shard.

Each input file is a shard (`--input-format text`: one document per file; `jsonl`: one
`{"text", "id"}` object per line) and gives `OUTPUT_DIR/<relative path>.<txt|jsonl|conllu>` in
the format `segment` writes, moved into place atomically. Finished shards are skipped on a rerun,
so a run that was stopped or lost workers is resumed by running the same command again.
`--scheduler local` starts a loopback cluster of `--workers` processes (Dask distributed, the
`scale` extra); an address uses a running cluster; `serial` runs in this process without Dask.
"""
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from ..scale.shards import (Settings, ShardError, ShardResult, check_settings, pending, plan_shards,
                            remove_stale_partials, run_serial)
from ..segment import DEFAULT_WINDOW_CHARS
from .segment import _is_model
from ._app import app


def _say(kind: str, text: str) -> None:
    typer.echo(f"{kind}: {text}", err=True)


def _fail(text: str) -> None:
    _say("error", text)
    raise typer.Exit(1)


@app.command("segment-corpus")
def segment_corpus_cli(
    model: str = typer.Argument(..., help="pipeline: directory or package, loaded once per worker"),
    input_dir: Path = typer.Argument(..., help="folder of input shards (searched recursively)"),
    output_dir: Path = typer.Argument(..., help="folder of output shards (created)"),
    scheduler: str = typer.Option("local", "--scheduler", help="local | serial | a scheduler address"),
    workers: int = typer.Option(2, "--workers", help="worker processes of a local cluster"),
    fmt: str = typer.Option("jsonl", "--format", "-f", help="lines | jsonl | conllu"),
    input_format: str = typer.Option("text", "--input-format", help="text (a file per document) | jsonl"),
    pattern: Optional[str] = typer.Option(None, "--pattern", help="input files (default *.txt or *.jsonl)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="redo shards whose output exists"),
    with_parse: bool = typer.Option(False, "--with-parse", help="jsonl: add tokens, heads and labels"),
    encoding: str = typer.Option("utf-8", "--encoding", help="encoding of the input files"),
    batch_size: int = typer.Option(64, "--batch-size", help="texts per nlp.pipe batch"),
    window_chars: int = typer.Option(DEFAULT_WINDOW_CHARS, "--window-chars",
                                     help="longer texts are streamed in windows of this size"),
    newlines: str = typer.Option("ignore", "--newlines", help="ignore | line | paragraph"),
) -> None:
    """Segment a corpus shard by shard on a Dask cluster; a rerun resumes where a run stopped."""
    if not _is_model(model):
        _fail(f"{model}: not a pipeline directory (with config.cfg) or an installed pipeline package")
    if Path(model).is_dir():
        model = str(Path(model).resolve())  # workers may run in another working directory
    settings = Settings(model=model, fmt=fmt, input_format=input_format, with_parse=with_parse, encoding=encoding,
                        newlines=newlines, window_chars=window_chars, batch_size=batch_size)
    try:
        settings.check()
    except ValueError as e:
        _fail(str(e))
    if workers < 1:
        _fail("--workers must be positive")
    pattern = pattern or ("*.jsonl" if input_format == "jsonl" else "*.txt")
    try:
        shards = plan_shards(input_dir, output_dir, pattern, fmt)
        if not shards:
            _fail(f"{input_dir}: no files matching {pattern!r}")
        check_settings(output_dir, settings, overwrite)
    except ShardError as e:
        _fail(str(e))
    remove_stale_partials(output_dir)
    if overwrite:
        for s in shards:
            Path(s.output).unlink(missing_ok=True)
    todo = pending(shards)
    _say("plan", f"{len(shards)} shards, {len(shards) - len(todo)} done already, {len(todo)} to run "
         f"({scheduler}{f', {workers} workers' if scheduler == 'local' else ''})")
    start = time.perf_counter()
    failed: List = []
    if not todo:
        results: List[ShardResult] = []
    elif scheduler == "serial":
        results = []
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="segment-corpus", unit="shard", disable=None, file=sys.stderr)
        for shard in todo:
            try:
                results.extend(run_serial([shard], settings))
            except (ShardError, OSError) as e:
                failed.append((shard.name, str(e)))
            bar.update(1)
        bar.close()
    else:
        try:
            import dask.distributed  # noqa: F401

            from ..scale.dask_runner import run_dask
        except ImportError:
            _fail('--scheduler local or an address needs Dask: pip install "spacy-joint-sbd[scale]" '
                  '(or use --scheduler serial)')
        report = run_dask(todo, settings, scheduler, workers)
        results, failed = report.results, report.failed
    seconds = time.perf_counter() - start
    for name, err in failed:
        _say("error", f"shard {name}: {err}")
    docs = sum(r.docs for r in results)
    _say("done", f"{len(results)} shards, {docs} documents, {sum(r.sentences for r in results)} sentences "
         f"in {seconds:.1f} s ({docs / max(seconds, 1e-9):.1f} documents/s)"
         + (f"; {len(failed)} shards failed (rerun to retry them)" if failed else ""))
    if failed:
        raise typer.Exit(1)
