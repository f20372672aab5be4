"""`segment [MODEL] INPUT...`: raw text files, folders, globs or stdin → sentences (and trees).

Formats: `lines` (one sentence per line, inner line breaks shown as spaces, a blank line between
sources), `jsonl` (one record per sentence: source, start_char, end_char, text; with `--with-parse`
the tokens with heads and labels) and `conllu` (one `# newdoc` per source). Offsets index the
decoded input exactly, from files and stdin alike (both read without newline translation). Texts up
to `--window-chars` go through `nlp.pipe` in batches (`--batch-size`, `--n-process`); longer texts
are streamed in windows (`spacy_joint_sbd.segment`). Every bad option value, unreadable input and
unloadable model is a one-line `error: ...` on stderr (exit 1; 2 for a malformed command line).
"""
import codecs
import glob
import io
import json
import re
import sys
from pathlib import Path
from typing import Iterator, List, NoReturn, Optional, TextIO, Tuple

import typer
from tqdm import tqdm
from typer.core import TyperCommand

from ..corpus.record import ROOT, DocRecord
from ..corpus.writer import write_records
from ..pipeline.newline_boundaries import MODES as NEWLINE_MODES  # registers the factory
from ..segment import (DEFAULT_WINDOW_CHARS, Sentence, SegmentStats, check_positive, segment_stream,
                       segment_texts)
from . import app
from ._util import atomic_path, terminate_as_exit

DEFAULT_MODEL = "en_joint_sbd"
"""The pipeline `segment` loads when no model is named (installed by README's main command)."""
FORMATS = ("lines", "jsonl", "conllu")
STDIN = "-"
STDIN_ID = "stdin"
"""The document id of stdin in CoNLL-U (`# newdoc id = stdin`, `# sent_id = stdin-0001`)."""


def _say(kind: str, text: str) -> None:
    """Messages go to stderr, unwrapped: stdout may be the output itself."""
    typer.echo(f"{kind}: {text}", err=True)


def _fail(text: str) -> NoReturn:
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
    if items.count(STDIN) > 1:
        raise InputError("'-' (stdin) can be read only once")
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
    """`source` ('-': stdin) as text, without newline translation (CRLF and a lone CR stay as they
    are), so that offsets index the input the same way from a file and from stdin."""
    if source == STDIN:
        return io.TextIOWrapper(sys.stdin.buffer, encoding=encoding, errors="strict", newline="")
    return open(source, encoding=encoding, errors="strict", newline="")


def read_small(source: str, encoding: str, window_chars: int) -> Optional[str]:
    """The whole text of a file if it is at most `window_chars` characters, else None (stream it)."""
    if source != STDIN and Path(source).stat().st_size > 4 * window_chars:
        return None  # more than window_chars characters in any encoding of at most 4 bytes each
    with open_text(source, encoding) as f:
        text = f.read(window_chars + 1)
        if len(text) <= window_chars:
            return text
    return None


class _Prefixed:
    """A text stream that returns `head` first, then reads on from `rest`: stdin, whose start was
    read to see whether it is short, streamed from its beginning."""

    def __init__(self, head: str, rest: TextIO):
        self.head, self.rest = head, rest

    def read(self, n: int = -1) -> str:
        if self.head:
            out = self.head if n < 0 else self.head[:n]
            self.head = self.head[len(out):]
            return out
        return self.rest.read(n)


def check_decodable(path: str, encoding: str, chunk: int = 1 << 20) -> None:
    """Raise UnicodeDecodeError (with the file's byte offset) if `path` does not decode."""
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
    if source == STDIN:  # decoded in chunks: no byte offset into the whole input
        return InputError(f"stdin: not valid {encoding} ({e.reason}); give the right --encoding")
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
            write_records([sentences_to_record(STDIN_ID if source == STDIN else source, sentences)], self.out)
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


class _SegmentCommand(TyperCommand):
    """`segment`'s command line as a CLI's: the usage line reads `segment [OPTIONS] [MODEL]
    INPUT...` and the help shows metavars, not Python type tags (recent typer versions print
    `{items}...` and `<list[str]>`); a malformed command line (an option value of the wrong type,
    an unknown option) is one `error:` line, not a framed usage box."""

    def collect_usage_pieces(self, ctx) -> List[str]:
        return [self.options_metavar or "[OPTIONS]", "[MODEL] INPUT..."]

    def get_params(self, ctx) -> list:
        params = super().get_params(ctx)
        for p in params:
            if getattr(p, "is_flag", False) and p.metavar is None:
                p.metavar = ""  # a flag takes no value: no <bool> tag
            elif p.param_type_name == "argument" and hasattr(p, "display_type_rich"):
                p.display_type_rich = lambda ctx: None  # the metavar says it all
        return params

    def parse_args(self, ctx, args: List[str]) -> List[str]:
        try:
            return super().parse_args(ctx, args)
        except Exception as e:  # noqa: BLE001 - click's UsageError (exit code 2), vendored or not
            if getattr(e, "exit_code", None) != 2 or not hasattr(e, "format_message"):
                raise
            _say("error", f"{e.format_message()} (see --help)")
            raise SystemExit(2) from None


@app.command("segment", cls=_SegmentCommand)
def segment_cli(
    items: List[str] = typer.Argument(..., metavar="[MODEL] INPUT...",
                                      help="a pipeline (directory or package; default en_joint_sbd), then text "
                                           "files, folders, globs, or - for stdin"),
    model: Optional[str] = typer.Option(None, "--model", "-m", metavar="MODEL",
                                        help=f"pipeline (default {DEFAULT_MODEL})"),
    fmt: str = typer.Option("lines", "--format", "-f", metavar="FORMAT", help="lines | jsonl | conllu"),
    output: str = typer.Option(STDIN, "--output", "-o", metavar="FILE", help="file to write (default - : stdout)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing output file"),
    with_parse: bool = typer.Option(False, "--with-parse",
                                    help="jsonl: add the tokens with heads and labels (conllu always has them)"),
    encoding: str = typer.Option("utf-8", "--encoding", metavar="CODEC", help="encoding of the input"),
    pattern: str = typer.Option("*.txt", "--pattern", metavar="GLOB", help="files to take from a folder (recursive)"),
    batch_size: int = typer.Option(64, "--batch-size", metavar="N", help="texts per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", metavar="N", help="processes for nlp.pipe"),
    window_chars: int = typer.Option(DEFAULT_WINDOW_CHARS, "--window-chars", metavar="N",
                                     help="longer texts are streamed in windows of this size"),
    newlines: str = typer.Option("model", "--newlines", metavar="MODE",
                                 help="model | ignore | line | paragraph: line or paragraph breaks as forced "
                                      "boundaries (model: as the pipeline does; en_joint_sbd: paragraph)"),
    threshold: Optional[float] = typer.Option(None, "--threshold", metavar="P",
                                              help="split exactly where token._.sent_start_prob >= P, in (0, 1] "
                                                   "(default: the parser's own decisions)"),
    max_length: Optional[int] = typer.Option(None, "--max-length", metavar="N",
                                             help="cut sentences longer than N characters at their most probable "
                                                  "boundaries"),
) -> None:
    """Split raw text into sentences (and parse it) with a joint_sbd_parser pipeline.

    Output formats (--format). lines: one sentence per line (its line breaks shown as spaces), a
    blank line between inputs. jsonl: one JSON object per sentence with source, start_char,
    end_char and text, where text is the decoded input from start_char to end_char (Python string
    offsets; a CRLF line break counts as two characters, from files and stdin alike). conllu: one
    # newdoc per input (stdin: id stdin), sentence ids DOC-0001, DOC-0002 ..., whitespace left out.

    With --with-parse, each jsonl record also has tokens: text, start_char, end_char, head (the
    index of the head token within the sentence, 0-based; -1 for the root), dep (UD label), tag.
    """
    import spacy

    try:
        _check_options(fmt, newlines, encoding, pattern, batch_size, n_process, window_chars, with_parse, output,
                       overwrite)
        _check_limits(threshold, max_length)
        name, inputs = split_model_and_inputs(items, model)
        sources, problems = expand_inputs(inputs, pattern)
    except (InputError, ValueError) as e:
        _fail(str(e))
    for p in problems:
        _say("warning", p)
    if not sources:
        _fail("no input: nothing to segment")
    try:
        nlp = spacy.load(name)
    except Exception as e:  # noqa: BLE001 - spaCy, confection, srsly and components raise many types
        _fail(_load_error(name, e))
    set_newlines(nlp, newlines)
    if threshold is not None or max_length is not None:
        from ..pipeline.joint_sbd_parser import JointSBDParser

        joint = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, JointSBDParser)]
        if not joint:
            _fail(f"--threshold and --max-length need a pipeline with a joint_sbd_parser; {name} has none")
        for pipe in joint:
            pipe.cfg["threshold"] = None if threshold is None else float(threshold)
            pipe.cfg["max_length"] = max_length
    parse = with_parse or fmt == "conllu"
    try:
        with terminate_as_exit():
            if output == STDIN:
                stats = _run(nlp, sources, Writer(sys.stdout, fmt), encoding, parse, batch_size, n_process,
                             window_chars)
            else:
                with atomic_path(Path(output)) as tmp, open(tmp, "w", encoding="utf-8", newline="") as out:
                    stats = _run(nlp, sources, Writer(out, fmt), encoding, parse, batch_size, n_process,
                                 window_chars)
    except InputError as e:
        _fail(str(e))
    except OSError as e:  # writing the output (reading errors are InputErrors)
        _fail(f"{output}: cannot write ({e.strerror or e})")
    skipped = stats.extra.get("skipped", 0)
    if output != STDIN or sys.stderr.isatty():
        _say("done", f"{stats.sentences} sentences from {len(sources) - skipped} inputs"
             + (f"; {skipped} skipped" if skipped else "")
             + (f"; {stats.forced_cuts} windows cut inside a sentence" if stats.forced_cuts else ""))
    if stats.sentences == 0:
        _say("warning", "empty input: no sentence found")


def set_newlines(nlp, mode: str) -> None:
    """Line / paragraph breaks as forced boundaries (`mode` as `newline_boundaries` takes it), or
    "model": the pipeline as it is. A pipeline's own `newline_boundaries` is set to `mode`; one
    without gets it first in the pipeline (unless `mode` is ignore)."""
    if mode == "model":
        return
    from ..pipeline.newline_boundaries import NewlineBoundaries

    own = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, NewlineBoundaries)]
    for pipe in own:
        pipe.mode = mode
    if not own and mode != "ignore":
        nlp.add_pipe("newline_boundaries", first=True, config={"mode": mode})


def _check_limits(threshold: Optional[float], max_length: Optional[int]) -> None:
    """A ValueError naming --threshold / --max-length for a value the parser cannot use."""
    if threshold is not None and not 0 < threshold <= 1:
        raise ValueError(f"--threshold must be a probability in (0, 1], got {threshold!r}")
    if max_length is not None and max_length < 1:
        raise ValueError(f"--max-length must be a number of characters >= 1, got {max_length!r}")


def _check_options(fmt: str, newlines: str, encoding: str, pattern: str, batch_size: int, n_process: int,
                   window_chars: int, with_parse: bool, output: str, overwrite: bool) -> None:
    """A ValueError naming the option and its value for the first bad option value."""
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if newlines != "model" and newlines not in NEWLINE_MODES:
        raise ValueError(f"--newlines must be one of model, {', '.join(NEWLINE_MODES)}, got {newlines!r}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"--encoding {encoding!r} is not an encoding Python knows (e.g. utf-8, latin-1, cp1252)") \
            from None
    if not pattern.strip() or Path(pattern).is_absolute():
        raise ValueError(f"--pattern must be a relative glob such as '*.txt', got {pattern!r}")
    for option, value in (("--batch-size", batch_size), ("--n-process", n_process), ("--window-chars", window_chars)):
        check_positive(option, value)
    if with_parse and fmt == "lines":
        raise ValueError("--with-parse needs --format jsonl or conllu (lines has no place for the trees)")
    if output != STDIN:
        path = Path(output)
        if path.is_dir():
            raise ValueError(f"--output {output} is a folder: name a file")
        if not path.parent.is_dir():
            raise ValueError(f"--output {output}: the folder {path.parent} does not exist")
        if path.exists() and not overwrite:
            raise ValueError(f"{output} exists: give --overwrite to replace it")


def _path_in_traceback(e: BaseException, root: Path) -> Optional[Path]:
    """The innermost file or folder under `root` that a frame of `e`'s traceback was reading (a
    `path` or `p` argument, as spaCy's `from_disk` methods and deserializers take), or None: which
    part of a pipeline directory is damaged when the error itself does not say."""
    found, tb = None, e.__traceback__
    root = root.resolve()
    while tb is not None:
        for key in ("path", "p"):  # spaCy's from_disk methods and its deserializer lambdas
            value = tb.tb_frame.f_locals.get(key)
            if isinstance(value, Path) and value.resolve().is_relative_to(root):
                found = value
        tb = tb.tb_next
    return found if found is not None and found.resolve() != root else None


def _load_error(name: str, e: Exception) -> str:
    """One line saying why the pipeline `name` did not load, naming the broken file where it can
    be found (config.cfg, meta.json), with a hint for the default pipeline."""
    from thinc.api import Config

    reason = " ".join(line.strip() for line in str(e).splitlines()
                      if line.strip() and not line.strip().startswith("{") and "file: '<string>'" not in line)
    reason = reason.replace("Config validation error ", "")
    if len(reason) > 300:
        reason = reason[:297] + "..."
    where = repr(name)
    path = Path(name)
    if path.is_dir():
        import srsly

        for fname, read in (("config.cfg", lambda p: Config().from_disk(p)),
                            ("meta.json", srsly.read_json)):
            try:
                if (path / fname).exists():
                    read(path / fname)
            except Exception:  # noqa: BLE001 - this is the broken file
                where = f"{name!r} ({path / fname})"
                break
        else:
            damaged = _path_in_traceback(e, path)
            if damaged is not None:
                where = f"{name!r} ({damaged})"
    hint = ""
    if name == DEFAULT_MODEL and isinstance(e, OSError):
        hint = (f" — the default pipeline {DEFAULT_MODEL} is installed by README's main command "
                f"(`python -m spacy project run default`) or `python -m spacy_joint_sbd download {DEFAULT_MODEL}`")
    return f"cannot load pipeline {where}: {type(e).__name__}: {reason}{hint}"


def _run(nlp, sources: List[str], writer: Writer, encoding: str, parse: bool, batch_size: int, n_process: int,
         window_chars: int) -> SegmentStats:
    stats = SegmentStats()
    stats.extra["skipped"] = 0
    small: List[Tuple[str, str]] = []
    budget = window_chars * n_process
    """Characters of short texts batched at most: a batch's memory follows its tokens, so a folder
    of texts just under `--window-chars` is not taken `--batch-size` at a time."""

    def flush() -> None:
        for source, sents in segment_texts(nlp, small, parse, batch_size, n_process):
            stats.sentences += writer.write(source, iter(sents))
        small.clear()

    for source in tqdm(sources, desc="segment", unit="file", disable=None, file=sys.stderr):
        try:
            if source == STDIN:
                _run_stdin(nlp, writer, encoding, parse, window_chars, small, flush, stats)
                continue
            text = read_small(source, encoding, window_chars)
            if text is not None:
                small.append((source, text))
                if len(small) >= batch_size * n_process or sum(len(t) for _, t in small) >= budget:
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


def _run_stdin(nlp, writer: Writer, encoding: str, parse: bool, window_chars: int, small: List[Tuple[str, str]],
               flush, stats: SegmentStats) -> None:
    """stdin (read once): a short text joins the batch of small texts, a long one is streamed from
    its start (stdin cannot be checked for decodability first: a decoding error stops the run
    after the sentences before it are written)."""
    f = open_text(STDIN, encoding)
    head = f.read(window_chars + 1)
    if len(head) <= window_chars:
        small.append((STDIN, head))
        return
    flush()
    writer.write(STDIN, segment_stream(nlp, _Prefixed(head, f), STDIN, parse, window_chars, stats=stats))
