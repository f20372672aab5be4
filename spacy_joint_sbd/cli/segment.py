"""`segment [MODEL] INPUT...`: raw text files, folders, globs or stdin → sentences (and trees).

Formats: `lines` (one sentence per line, inner line breaks shown as spaces, a blank line between
sources), `jsonl` (one record per sentence: source, start_char, end_char, text; with `--with-parse`
the tokens with heads and labels) and `conllu` (one `# newdoc` per source). Offsets index the
decoded input exactly. Texts up to `--window-chars` go through `nlp.pipe` in batches
(`--batch-size`, `--n-process`); longer files are streamed in windows (`spacy_joint_sbd.segment`).
"""
import glob
import io
import json
import re
import sys
from pathlib import Path
from typing import Iterator, List, Optional, TextIO, Tuple

import typer
from tqdm import tqdm

from ..corpus.record import ROOT, DocRecord
from ..corpus.writer import write_records
from ..pipeline.newline_boundaries import MODES as NEWLINE_MODES  # registers the factory
from ..segment import DEFAULT_WINDOW_CHARS, Sentence, SegmentStats, segment_stream, segment_texts
from . import app
from ._util import atomic_path

DEFAULT_MODEL = "en_joint_sbd"
"""The pipeline `segment` loads when no model is named (installed by README's main command)."""
FORMATS = ("lines", "jsonl", "conllu")
STDIN = "-"


def _say(kind: str, text: str) -> None:
    """Messages go to stderr, unwrapped: stdout may be the output itself."""
    typer.echo(f"{kind}: {text}", err=True)


def _fail(text: str) -> None:
    _say("error", text)
    raise typer.Exit(1)


class InputError(ValueError):
    """A named input that cannot be read: stops the run, names the input."""


def _is_model(name: str) -> bool:
    import spacy.util

    path = Path(name)
    if path.is_dir() and (path / "config.cfg").exists():
        return True
    return not path.exists() and spacy.util.is_package(name)


def split_model_and_inputs(items: List[str], model: Optional[str]) -> Tuple[str, List[str]]:
    """`[MODEL] INPUT...`: the first item is the model when it names a pipeline directory or an
    installed package (or `--model` names it); otherwise the default model is used."""
    if model is None and len(items) >= 2 and _is_model(items[0]):
        return items[0], items[1:]
    if model is None and len(items) == 1 and _is_model(items[0]):
        raise InputError(f"{items[0]} is a model: name the text to segment after it (or '-' for stdin)")
    return model or DEFAULT_MODEL, items


def expand_inputs(items: List[str], pattern: str) -> Tuple[List[str], List[str]]:
    """(inputs, problems): files as given, folders searched recursively for `pattern`, globs
    expanded, '-' for stdin. A named file that does not exist is an error; nothing matched by a
    folder or a glob is a problem reported as a warning."""
    out: List[str] = []
    problems: List[str] = []
    for item in items:
        if item == STDIN:
            out.append(STDIN)
        elif Path(item).is_dir():
            found = sorted(str(p) for p in Path(item).rglob(pattern) if p.is_file())
            if not found:
                problems.append(f"{item}: no files matching {pattern!r}")
            out.extend(found)
        elif any(ch in item for ch in "*?["):
            found = sorted(p for p in glob.glob(item, recursive=True) if Path(p).is_file())
            if not found:
                problems.append(f"{item}: the pattern matches no file")
            out.extend(found)
        elif Path(item).is_file():
            out.append(item)
        else:
            raise InputError(f"{item}: no such file or folder")
    return out, problems


def open_text(source: str, encoding: str) -> TextIO:
    if source == STDIN:
        return io.TextIOWrapper(sys.stdin.buffer, encoding=encoding, errors="strict")
    return open(source, encoding=encoding, errors="strict", newline="")


def read_small(source: str, encoding: str, window_chars: int) -> Optional[str]:
    """The whole text if it is at most `window_chars` characters, else None (stream it)."""
    if source != STDIN and Path(source).stat().st_size > 4 * window_chars:
        return None  # more than window_chars characters in any encoding of at most 4 bytes each
    with open_text(source, encoding) as f:
        text = f.read(window_chars + 1)
        if len(text) <= window_chars:
            return text
    return None


def check_decodable(path: str, encoding: str, chunk: int = 1 << 20) -> None:
    """Raise UnicodeDecodeError (with the file's byte offset) if `path` does not decode."""
    import codecs

    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    done = 0
    with open(path, "rb") as f:
        while True:
            data = f.read(chunk)
            try:
                decoder.decode(data, final=not data)
            except UnicodeDecodeError as e:
                raise UnicodeDecodeError(e.encoding, e.object, done + e.start, done + e.end, e.reason) from None
            if not data:
                return
            done += len(data)


def _decode_error(source: str, encoding: str, e: UnicodeDecodeError) -> InputError:
    return InputError(f"{source}: not valid {encoding} at byte {e.start} ({e.reason}); "
                      f"give the right --encoding")


class Writer:
    """Writes sentences in one format; sources arrive one at a time, in order."""

    def __init__(self, out: TextIO, fmt: str):
        self.out, self.fmt, self.n_sources = out, fmt, 0

    def write(self, source: str, sentences: Iterator[Sentence]) -> int:
        n = 0
        if self.fmt == "conllu":
            sentences = list(sentences)
            n = len(sentences)
            write_records([sentences_to_record(source, sentences)], self.out)
        else:
            if self.fmt == "lines" and self.n_sources:
                self.out.write("\n")
            for s in sentences:
                n += 1
                if self.fmt == "jsonl":
                    self.out.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
                else:
                    self.out.write(re.sub(r"\s*[\r\n]\s*", " ", s.text) + "\n")
        self.n_sources += 1
        return n


def sentences_to_record(source: str, sentences: List[Sentence]) -> DocRecord:
    """A CoNLL-U document of parsed sentences: whitespace-only tokens are dropped (a head on one
    is replaced by that token's own head)."""
    rec = DocRecord(doc_id=source, words=[], spaces=[], lemmas=[], upos=[], xpos=[], feats=[], heads=[], deps=[],
                    sent_starts=[])
    for s in sentences:
        toks = s.tokens or []
        keep = [i for i, t in enumerate(toks) if t["text"].strip()]
        new = {old: k for k, old in enumerate(keep)}
        base = len(rec.words)
        for k, i in enumerate(keep):
            t = toks[i]
            h, steps = t["head"], 0
            while h is not None and h >= 0 and h not in new and steps <= len(toks):
                h, steps = toks[h]["head"], steps + 1
            nxt = toks[keep[k + 1]]["start_char"] if k + 1 < len(keep) else None
            rec.words.append(t["text"])
            rec.spaces.append(nxt is None or nxt > t["end_char"])
            rec.lemmas.append("")
            rec.upos.append("")
            rec.xpos.append(t["tag"] or "")
            rec.feats.append("")
            rec.heads.append(ROOT if h is None or h < 0 or h not in new else base + new[h])
            rec.deps.append(t["dep"] or "dep")
            rec.sent_starts.append(k == 0)
    return rec


@app.command("segment")
def segment_cli(
    items: List[str] = typer.Argument(..., help="[MODEL] then files, folders, globs, or - for stdin"),
    model: Optional[str] = typer.Option(None, "--model", "-m", help=f"pipeline (default {DEFAULT_MODEL})"),
    fmt: str = typer.Option("lines", "--format", "-f", help="lines | jsonl | conllu"),
    output: str = typer.Option(STDIN, "--output", "-o", help="file to write (default stdout)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing output file"),
    with_parse: bool = typer.Option(False, "--with-parse", help="jsonl: add tokens, heads and labels"),
    encoding: str = typer.Option("utf-8", "--encoding", help="encoding of the input files"),
    pattern: str = typer.Option("*.txt", "--pattern", help="files to take from a folder (recursive)"),
    batch_size: int = typer.Option(64, "--batch-size", help="texts per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", help="processes for nlp.pipe"),
    window_chars: int = typer.Option(DEFAULT_WINDOW_CHARS, "--window-chars",
                                     help="longer texts are streamed in windows of this size"),
    newlines: str = typer.Option("ignore", "--newlines",
                                 help="ignore | line | paragraph: line or paragraph breaks as forced boundaries"),
) -> None:
    """Split raw text into sentences (and parse it) with a joint_sbd_parser pipeline."""
    import spacy

    if newlines not in NEWLINE_MODES:
        _fail(f"--newlines must be one of {', '.join(NEWLINE_MODES)}, got {newlines!r}")
    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if batch_size < 1 or n_process < 1 or window_chars < 1:
        _fail("--batch-size, --n-process and --window-chars must be positive")
    try:
        name, inputs = split_model_and_inputs(items, model)
        sources, problems = expand_inputs(inputs, pattern)
    except InputError as e:
        _fail(str(e))
    for p in problems:
        _say("warning", p)
    if not sources:
        _fail("no input: nothing to segment")
    if output != STDIN and Path(output).exists() and not overwrite:
        _fail(f"{output} exists: give --overwrite to replace it")
    try:
        nlp = spacy.load(name)
    except OSError as e:
        hint = ""
        if name == DEFAULT_MODEL:
            hint = (f" — the default pipeline {DEFAULT_MODEL} is installed by README's main command "
                    f"(`python -m spacy project run default`) or `python -m spacy_joint_sbd download {DEFAULT_MODEL}`")
        _fail(f"cannot load pipeline {name!r}: {e}{hint}")
    if newlines != "ignore":
        nlp.add_pipe("newline_boundaries", first=True, config={"mode": newlines})
    parse = with_parse or fmt == "conllu"
    try:
        if output == STDIN:
            stats = _run(nlp, sources, Writer(sys.stdout, fmt), encoding, parse, batch_size, n_process,
                         window_chars)
        else:
            with atomic_path(Path(output)) as tmp, open(tmp, "w", encoding="utf-8", newline="") as out:
                stats = _run(nlp, sources, Writer(out, fmt), encoding, parse, batch_size, n_process, window_chars)
    except InputError as e:
        _fail(str(e))
    skipped = stats.extra.get("skipped", 0)
    if output != STDIN or sys.stderr.isatty():
        _say("done", f"{stats.sentences} sentences from {len(sources) - skipped} inputs"
             + (f"; {skipped} skipped" if skipped else "")
             + (f"; {stats.forced_cuts} windows cut inside a sentence" if stats.forced_cuts else ""))
    if stats.sentences == 0:
        _say("warning", "empty input: no sentence found")


def _run(nlp, sources: List[str], writer: Writer, encoding: str, parse: bool, batch_size: int, n_process: int,
         window_chars: int) -> SegmentStats:
    stats = SegmentStats()
    stats.extra["skipped"] = 0
    small: List[Tuple[str, str]] = []

    def flush() -> None:
        for source, sents in segment_texts(nlp, small, parse, batch_size, n_process):
            stats.sentences += writer.write(source, iter(sents))
        small.clear()

    for source in tqdm(sources, desc="segment", unit="file", disable=None, file=sys.stderr):
        try:
            text = read_small(source, encoding, window_chars)
            if text is not None:
                small.append((source, text))
                if len(small) >= batch_size * n_process:
                    flush()
                continue
            flush()
            check_decodable(source, encoding)  # before any of its sentences is written
            with open_text(source, encoding) as f:
                writer.write(source, segment_stream(nlp, f, source, parse, window_chars, stats=stats))
        except UnicodeDecodeError as e:
            err = _decode_error(source, encoding, e)
            if len(sources) == 1:
                raise err
            _say("warning", f"skipped {err}")
            stats.extra["skipped"] += 1
        except OSError as e:
            if len(sources) == 1:
                raise InputError(f"{source}: cannot read ({e.strerror or e})")
            _say("warning", f"skipped {source}: cannot read ({e.strerror or e})")
            stats.extra["skipped"] += 1
    flush()
    return stats
