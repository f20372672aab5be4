"""`segment [MODEL] INPUT...`: raw text files, folders, globs or stdin → sentences (and trees).

Formats: `lines` (one sentence per line, inner line breaks shown as spaces, a blank line between
sources), `jsonl` (one record per sentence: source, start_char, end_char, text; with `--with-parse`
the tokens with heads and labels), `conllu` (one `# newdoc` per source) and `html` (a page to look
at: `textio.html`). Offsets index the
decoded input exactly, from files and stdin alike (both read without newline translation). Texts up
to `--window-chars` go through `nlp.pipe` in batches (`--batch-size`, `--n-process`); longer texts
are streamed in windows (`spacy_joint_sbd.segment`). Every bad option value, unreadable input and
unloadable model is a one-line `error: ...` on stderr; `EXIT_CODES` (the help's epilog) gives the
exit codes. Signals, worker processes and partial output are the runner's (`textio.runner`).
"""
import sys
from pathlib import Path
from typing import List, NoReturn, Optional, Tuple

import typer
from typer.core import TyperCommand

from ..pipeline.newline_boundaries import MODES as NEWLINE_MODES  # registers the factory
from ..pipeline.joint.sentence_limits import check_limits
from ..pipeline.joint.settings import is_finite_number
from ..segment import DEFAULT_WINDOW_CHARS
from ..textio import STDIN, InputError, OutputError, check_pattern, check_settings, find_inputs, segment_files
from ..textio.runner import BROKEN_PIPE_EXIT, guarded, is_special, open_output, quiet_stdout
from ._app import app

USAGE_EXIT = 2
"""The exit code of a malformed command line or a bad option value (click's, for usage errors)."""

DEFAULT_MODEL = "en_joint_sbd"
"""The pipeline `segment` loads when no model is named (installed by README's main command)."""


def _say(kind: str, text: str) -> None:
    """Messages go to stderr, unwrapped: stdout may be the output itself."""
    typer.echo(f"{kind}: {text}", err=True)


def _fail(text: str, code: int = 1) -> NoReturn:
    _say("error", text)
    raise typer.Exit(code)


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
            raise SystemExit(USAGE_EXIT) from None


EXIT_CODES = ("Exit codes: 0 done; 1 an input, the pipeline or the output failed (one error: line naming it; "
              "a file given with -o is not written), or a file found in a folder or by a glob was skipped (a warning "
              "each, the rest written, a done: line counting them); 2 a malformed command line or a bad option "
              "value; 128+N a signal N ended the run (130 Ctrl-C, 143 SIGTERM; no partial output is left); 141 "
              "the reader of stdout went away (segment ... | head), quietly. A named file that does not decode "
              "stops the run before anything is written.")
"""`segment --help`'s epilog: the convention every exit of the command follows."""


@app.command("segment", cls=_SegmentCommand, epilog=EXIT_CODES)
def segment_cli(
    items: List[str] = typer.Argument(..., metavar="[MODEL] INPUT...",
                                      help="a pipeline (directory or package; default en_joint_sbd), then text "
                                           "files, folders, globs, or - for stdin"),
    model: Optional[str] = typer.Option(None, "--model", "-m", metavar="MODEL",
                                        help=f"pipeline (default {DEFAULT_MODEL})"),
    fmt: str = typer.Option("lines", "--format", "-f", metavar="FORMAT", help="lines | jsonl | conllu | html"),
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
                                      "boundaries, and list items: a bullet (•, *) opening a line, labels (1., a)) "
                                      "opening adjacent lines (model: as the pipeline does; en_joint_sbd: "
                                      "paragraph; ignore: none of these)"),
    threshold: Optional[float] = typer.Option(None, "--threshold", metavar="P",
                                              help="split exactly where token._.sent_start_prob >= P, in (0, 1]: "
                                                   "keeps boundaries at least P likely to be right, so 0.5 keeps "
                                                   "fewer than the parser's own on unpunctuated text, where many "
                                                   "of them are less sure (default: the parser's own decisions)"),
    max_length: Optional[int] = typer.Option(None, "--max-length", metavar="N",
                                             help="cut sentences longer than N characters at their most probable "
                                                  "boundaries"),
    sb_bias_unmarked: Optional[float] = typer.Option(None, "--sb-bias-unmarked", metavar="B",
                                                     help="edited text: added to the score of a boundary that no . ! ? "
                                                          "or line break precedes (< 0 splits there less; "
                                                          "en_joint_sbd: 0; edited prose: -0.5)"),
) -> None:
    """Split raw text into sentences (and parse it) with a joint_sbd_parser pipeline.

    Output formats (--format). lines: one sentence per line (its line breaks shown as spaces), a
    blank line between inputs. jsonl: one JSON object per sentence with source, start_char,
    end_char and text, where text is the decoded input from start_char to end_char (Python string
    offsets; a CRLF line break counts as two characters, from files and stdin alike). conllu: one
    # newdoc per input (stdin: id stdin), sentence ids DOC-0001, DOC-0002 ..., whitespace left out.
    html: one self-contained page that shades each sentence by its start probability, re-draws the
    sentences with a threshold slider (as --threshold does) and shows each one's tree on a click.

    With --with-parse, each jsonl record also has tokens: text, start_char, end_char, head (the
    index of the head token within the sentence, 0-based; -1 for the root), dep (UD label), tag.
    """
    with guarded():  # from the start: Ctrl-C while the pipeline loads is a quiet exit too
        _segment(items, model, fmt, output, overwrite, with_parse, encoding, pattern, batch_size, n_process,
                 window_chars, newlines, threshold, max_length, sb_bias_unmarked)


def _segment(items: List[str], model: Optional[str], fmt: str, output: str, overwrite: bool, with_parse: bool,
             encoding: str, pattern: str, batch_size: int, n_process: int, window_chars: int, newlines: str,
             threshold: Optional[float], max_length: Optional[int], sb_bias_unmarked: Optional[float]) -> None:
    import spacy

    try:
        _check_options(fmt, newlines, encoding, pattern, batch_size, n_process, window_chars, with_parse)
        check_limits(threshold, max_length, None, options=True)
        if sb_bias_unmarked is not None and not is_finite_number(sb_bias_unmarked):
            raise ValueError(f"--sb-bias-unmarked must be a finite number, got {sb_bias_unmarked!r}")
    except ValueError as e:
        _fail(str(e), USAGE_EXIT)
    try:
        _check_output(output, overwrite)
        name, inputs = split_model_and_inputs(items, model)
        found, problems = find_inputs(inputs, pattern)
    except (InputError, ValueError) as e:
        _fail(str(e))
    for p in problems:
        _say("warning", p)
    sources = found.sources
    if not sources:
        _fail("no input: nothing to segment")
    try:
        nlp = spacy.load(name)
    except Exception as e:  # noqa: BLE001 - spaCy, confection, srsly and components raise many types
        _fail(_load_error(name, e))
    set_newlines(nlp, newlines)
    if threshold is not None or max_length is not None or sb_bias_unmarked is not None:
        from ..pipeline.joint_sbd_parser import JointSBDParser

        joint = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, JointSBDParser)]
        if not joint:
            _fail(f"--threshold, --max-length and --sb-bias-unmarked need a pipeline with a joint_sbd_parser; "
                  f"{name} has none")
        for pipe in joint:
            if threshold is not None or max_length is not None:
                pipe.cfg["threshold"] = None if threshold is None else float(threshold)
                pipe.cfg["max_length"] = max_length
            if sb_bias_unmarked is not None:
                pipe.sb_bias_unmarked = float(sb_bias_unmarked)
    if not sets_sentences(nlp):
        _fail(f"pipeline {name!r} sets no sentence boundaries (its components: "
              f"{', '.join(nlp.pipe_names) or 'none'}): add a parser, senter or sentencizer")
    try:
        with open_output(output) as out:
            stats = segment_files(nlp, sources, out, fmt=fmt, with_parse=with_parse, encoding=encoding,
                                  batch_size=batch_size, n_process=n_process, window_chars=window_chars,
                                  warn=lambda text: _say("warning", text), skippable=found.found,
                                  note=lambda text: _say("note", text))
    except InputError as e:
        _fail(str(e))
    except (OutputError, OSError) as e:  # writing the output, or its last flush
        error = e.os_error if isinstance(e, OutputError) else e
        if output == STDIN and isinstance(error, BrokenPipeError):
            quiet_stdout()  # the reader has gone, as `| head` does: no message, no more output
            raise typer.Exit(BROKEN_PIPE_EXIT)
        _fail(f"{'stdout' if output == STDIN else output}: cannot write ({error.strerror or error})")
    skipped = stats.extra.get("skipped", 0)
    if output != STDIN or skipped or sys.stderr.isatty():
        _say("done", f"{stats.sentences} sentences from {len(sources) - skipped} inputs"
             + (f"; {skipped} skipped" if skipped else "")
             + (f"; {stats.forced_cuts} window cuts inside sentences longer than a window (joined again)"
                if stats.forced_cuts else ""))
    if stats.sentences == 0:
        _say("warning", "empty input: no sentence found")
    if skipped:
        raise typer.Exit(1)


def sets_sentences(nlp) -> bool:
    """Whether the pipeline marks sentence boundaries (a blank one does not: `Doc.sents` would fail
    on every text)."""
    return nlp("This is one sentence. This is another one.").has_annotation("SENT_START")


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


_OPTION_NAMES = {"fmt": "--format", "with_parse": "--with-parse", "encoding": "--encoding",
                 "batch_size": "--batch-size", "n_process": "--n-process", "window_chars": "--window-chars"}
"""`segment_files`' settings → the command's options."""


def _check_options(fmt: str, newlines: str, encoding: str, pattern: str, batch_size: int, n_process: int,
                   window_chars: int, with_parse: bool) -> None:
    """A ValueError naming the option and its value for the first bad option value (the settings
    `segment_files` takes are checked by its own `check_settings`, under their option names)."""
    check_settings(fmt, with_parse, encoding, batch_size, n_process, window_chars, name=_OPTION_NAMES.get)
    if newlines != "model" and newlines not in NEWLINE_MODES:
        raise ValueError(f"--newlines must be one of model, {', '.join(NEWLINE_MODES)}, got {newlines!r}")
    check_pattern(pattern)


def _check_output(output: str, overwrite: bool) -> None:
    """A ValueError if `output` cannot be written: a folder, in a missing folder, or a file that
    exists without --overwrite (a device or a pipe, such as /dev/null, is written as it is)."""
    if output != STDIN:
        path = Path(output)
        if path.is_dir():
            raise ValueError(f"--output {output} is a folder: name a file")
        if not path.parent.is_dir():
            raise ValueError(f"--output {output}: the folder {path.parent} does not exist")
        if path.exists() and not overwrite and not is_special(path):
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
