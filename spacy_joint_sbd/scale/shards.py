"""The shard plan and the work on one shard, with no distributed engine in sight.

A corpus is a folder of input files; each file is a **shard** and gives exactly one output file
(`OUTPUT_DIR/<relative path>.<ext>`), written to a unique temporary sibling and moved into place
with `os.replace`. An output file therefore exists only when it is complete: a rerun skips shards
whose output exists, and a worker killed mid-shard leaves at most a stale `*.partial` file, which
the next run removes. Shards are independent, so any engine that maps a function over them (the
Dask runner in `dask_runner`, or `run_serial` here) gives the same bytes.

Input shards are raw text (`text`: the file is one document, its source name the path relative to
the input folder, so a shard's output is what `segment` writes for that file when run from the
input folder) or JSON lines (`jsonl`: one document per line, `{"text": ..., "id": ...}`, the id
defaulting to `<relative path>:<line number>`).
"""
import json
import os
import resource
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from ..segment import DEFAULT_WINDOW_CHARS
from ..textio.reading import check_pattern

PARTIAL = ".partial"
SETTINGS_FILE = ".segment-corpus.json"
EXTENSIONS = {"lines": "txt", "jsonl": "jsonl", "conllu": "conllu"}
INPUT_FORMATS = ("text", "jsonl")


class ShardError(ValueError):
    """A shard that cannot be processed (undecodable, malformed JSON lines): names the file."""


@dataclass(frozen=True)
class Settings:
    """Everything that determines a shard's output bytes (and nothing that does not)."""

    model: str
    fmt: str = "jsonl"
    input_format: str = "text"
    with_parse: bool = False
    encoding: str = "utf-8"
    newlines: str = "ignore"
    window_chars: int = DEFAULT_WINDOW_CHARS
    batch_size: int = 64

    def check(self) -> None:
        if self.fmt not in EXTENSIONS:
            raise ValueError(f"format must be one of {', '.join(EXTENSIONS)}, got {self.fmt!r}")
        if self.input_format not in INPUT_FORMATS:
            raise ValueError(f"input format must be one of {', '.join(INPUT_FORMATS)}, got {self.input_format!r}")
        if self.window_chars < 1 or self.batch_size < 1:
            raise ValueError("window_chars and batch_size must be positive")


@dataclass(frozen=True)
class Shard:
    path: str
    """The input file."""
    name: str
    """Its path relative to the input folder (POSIX): the source name in the output."""
    output: str
    """The output file."""


@dataclass
class ShardResult:
    name: str
    docs: int = 0
    sentences: int = 0
    words: int = 0
    """Whitespace-separated words of the input (a tokenizer-independent size)."""
    characters: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the worker process on this shard: throughput on a core of one's own."""
    skipped: bool = False
    """The output already existed: nothing was done."""
    pid: int = 0
    model_loads: int = 0
    """Times the worker process has loaded this model so far (1 = loaded once per worker)."""
    peak_rss_mb: float = 0.0
    """Peak resident memory of the worker process so far."""
    extra: Dict[str, int] = field(default_factory=dict)


def plan_shards(input_dir: Path, output_dir: Path, pattern: str, fmt: str) -> List[Shard]:
    """One shard per file under `input_dir` matching `pattern` (recursive), in a stable order.
    Paths are absolute: workers may run in another working directory. A pattern that would leave
    `input_dir` (absolute, or with a `..` part) is a ShardError: no output may land outside `output_dir`."""
    try:
        check_pattern(pattern)
    except ValueError as e:
        raise ShardError(str(e)) from None
    input_dir, output_dir = Path(input_dir).resolve(), Path(output_dir).resolve()
    if not input_dir.is_dir():
        raise ShardError(f"{input_dir}: no such folder")
    out = []
    for p in sorted(input_dir.rglob(pattern)):
        if not p.is_file() or p.name.endswith(PARTIAL):
            continue
        rel = p.relative_to(input_dir).as_posix()
        out.append(Shard(str(p), rel, str(output_dir / f"{rel}.{EXTENSIONS[fmt]}")))
    return out


def pending(shards: Iterable[Shard]) -> List[Shard]:
    """Shards whose output does not exist yet (an existing output is complete: atomic writes)."""
    return [s for s in shards if not Path(s.output).exists()]


def remove_stale_partials(output_dir: Path) -> int:
    """Delete temporary files left by killed workers; call before a run, never during one."""
    n = 0
    for p in Path(output_dir).rglob(f"*{PARTIAL}"):
        if p.is_file():
            p.unlink()
            n += 1
    return n


def check_settings(output_dir: Path, settings: Settings, overwrite: bool) -> None:
    """Record the settings in the output folder; refuse to mix shards made with other settings."""
    output_dir = Path(output_dir)
    path = output_dir / SETTINGS_FILE
    mine = asdict(settings)
    if path.exists() and not overwrite:
        theirs = json.loads(path.read_text(encoding="utf-8"))
        if theirs != mine:
            diff = ", ".join(f"{k}: {theirs.get(k)!r} → {v!r}" for k, v in mine.items() if theirs.get(k) != v)
            raise ShardError(f"{output_dir} holds shards made with other settings ({diff}): "
                             f"give --overwrite to redo them, or another output folder")
    output_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(mine, indent=2, sort_keys=True) + "\n", encoding="utf-8")


# one pipeline per worker process, whatever the number of tasks it runs
_MODELS: Dict[Tuple[str, str], object] = {}
_LOADS: Dict[Tuple[str, str], int] = {}


def load_model(name: str, newlines: str = "ignore"):
    """The pipeline `name` (a directory or a package), loaded once per process and kept."""
    key = (name, newlines)
    if key not in _MODELS:
        import spacy

        from ..pipeline.newline_boundaries import MODES  # registers the factory

        if newlines not in MODES:
            raise ValueError(f"newlines must be one of {', '.join(MODES)}, got {newlines!r}")
        nlp = spacy.load(name)
        if newlines != "ignore":
            nlp.add_pipe("newline_boundaries", first=True, config={"mode": newlines})
        _MODELS[key] = nlp
        _LOADS[key] = _LOADS.get(key, 0) + 1
    return _MODELS[key]


def peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM (Linux), else ru_maxrss (which survives exec,
    so a spawned worker would report its parent's peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1e3
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def preload(name: str, newlines: str = "ignore") -> int:
    """Load the model into this process's cache ahead of the shards (`client.run(preload, name)`
    on every worker); returns the process id."""
    load_model(name, newlines)
    return os.getpid()


def _read_jsonl(shard: Shard, encoding: str) -> List[Tuple[str, str]]:
    docs = []
    with open(shard.path, encoding=encoding, errors="strict", newline="") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ShardError(f"{shard.path}:{i}: not a JSON object ({e.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise ShardError(f"{shard.path}:{i}: expected an object with a string 'text'")
            docs.append((str(obj.get("id", f"{shard.name}:{i}")), obj["text"]))
    return docs


def write_shard(nlp, shard: Shard, settings: Settings, out) -> ShardResult:
    """Segment one shard into the open text file `out`, exactly as `segment` formats it."""
    from ..segment import SegmentStats, segment_stream, segment_texts
    from ..textio import InputError, Writer, check_decodable, open_text, read_small

    writer = Writer(out, settings.fmt)
    parse = settings.with_parse or settings.fmt == "conllu"
    res = ShardResult(shard.name)
    try:
        if settings.input_format == "jsonl":
            docs: Optional[List[Tuple[str, str]]] = _read_jsonl(shard, settings.encoding)
        else:
            text = read_small(shard.path, settings.encoding, settings.window_chars)
            docs = None if text is None else [(shard.name, text)]
        if docs is None:  # a long text: streamed in windows, never held whole (words not counted)
            check_decodable(shard.path, settings.encoding)  # before any sentence is written
            stats = SegmentStats()
            with open_text(shard.path, settings.encoding) as f:
                res.sentences += writer.write(shard.name, segment_stream(
                    nlp, f, shard.name, parse, settings.window_chars, stats=stats))
            res.docs, res.characters = 1, stats.characters
            res.extra["forced_cuts"] = stats.forced_cuts
        else:
            for source, sents in segment_texts(nlp, docs, parse, settings.batch_size):
                res.sentences += writer.write(source, iter(sents))
            res.docs = len(docs)
            res.words = sum(len(t.split()) for _, t in docs)
            res.characters = sum(len(t) for _, t in docs)
    except UnicodeDecodeError as e:
        try:  # the byte offset in the file, not in the decoder's last chunk
            check_decodable(shard.path, settings.encoding)
        except UnicodeDecodeError as exact:
            e = exact
        raise ShardError(f"{shard.path}: not valid {settings.encoding} at byte {e.start} ({e.reason}); "
                         f"give the right --encoding") from None
    except InputError as e:  # textio's reader names the place in the whole file itself
        raise ShardError(str(e)) from None
    except OSError as e:
        raise ShardError(f"{shard.path}: cannot read ({e.strerror or e})") from None
    return res


def process_shard(shard: Shard, settings: Settings) -> ShardResult:
    """The unit of work: segment `shard` and move its output into place atomically.

    Runs in any process (a Dask worker, or the caller): the model comes from the per-process
    cache. An output that exists already is left alone (the shard counts as skipped)."""
    out_path = Path(shard.output)
    if out_path.exists():
        return ShardResult(shard.name, skipped=True, pid=os.getpid())
    start, cpu = time.perf_counter(), time.process_time()
    nlp = load_model(settings.model, settings.newlines)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f"{out_path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}{PARTIAL}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            res = write_shard(nlp, shard, settings, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, out_path)
    finally:
        if tmp.exists():
            tmp.unlink()
    res.seconds, res.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    res.pid = os.getpid()
    res.model_loads = _LOADS[(settings.model, settings.newlines)]
    res.peak_rss_mb = peak_rss_mb()
    return res


def run_serial(shards: List[Shard], settings: Settings,
               on_result: Optional[Callable[[ShardResult], None]] = None) -> List[ShardResult]:
    """Every shard in this process, in order: the reference the distributed run must equal."""
    results = []
    for shard in shards:
        results.append(process_shard(shard, settings))
        if on_result is not None:
            on_result(results[-1])
    return results
