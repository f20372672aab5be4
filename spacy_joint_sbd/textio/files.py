"""`segment_files`: many text files (and stdin) through one pipeline into one output, as the
`segment` command runs them: texts up to `window_chars` characters go through `nlp.pipe` in
batches, longer ones are streamed in windows. A file that does not decode is found before any of
its sentences is written (before anything is written, when it was named rather than found in a
folder); streams (stdin, named pipes) are read once, so they can only stop the run where they
fail."""
import sys
import warnings
from typing import Callable, Collection, List, Optional, Sequence, TextIO, Tuple

from spacy.language import Language
from tqdm import tqdm

from ..segment import DEFAULT_WINDOW_CHARS, SegmentStats, check_positive, segment_stream, segment_texts
from .reading import (STDIN, InputError, PrefixedStream, check_text, check_text_encoding, is_stream, open_text,
                      read_small)
from .writing import FORMATS, PARSED_FORMATS, Writer


MIN_WINDOW_CHARS = 100
"""The smallest window `segment_files` takes: a window must hold a few sentences (a long word
with them), or every sentence longer than a few windows would be cut, inside words at that."""


def _warn(text: str) -> None:
    warnings.warn(text, stacklevel=3)


def check_settings(fmt: str, with_parse: bool, encoding: str, batch_size: int, n_process: int, window_chars: int,
                   name: Callable[[str], str] = str) -> None:
    """A ValueError for the first setting `segment_files` cannot use, naming it as `name(setting)`
    does: the Python argument by default, the command's option (`--batch-size`) from the CLI, so
    that both say the same thing."""
    if fmt not in FORMATS:
        raise ValueError(f"{name('fmt')} must be one of {', '.join(FORMATS)}, got {fmt!r}")
    problem = check_text_encoding(encoding)
    if problem is not None:
        raise ValueError(f"{name('encoding')} {problem}")
    for setting, value in (("batch_size", batch_size), ("n_process", n_process), ("window_chars", window_chars)):
        check_positive(name(setting), value)
    if window_chars < MIN_WINDOW_CHARS:
        raise ValueError(f"{name('window_chars')} must be at least {MIN_WINDOW_CHARS} (a window holds a few "
                         f"sentences), got {window_chars}")
    if with_parse and fmt == "lines":
        raise ValueError(f"{name('with_parse')} needs {name('fmt')} jsonl or conllu (lines has no place for the trees)")


def segment_files(nlp: Language, sources: Sequence[str], out: TextIO, *, fmt: str = "lines",
                  with_parse: bool = False, encoding: str = "utf-8", batch_size: int = 64, n_process: int = 1,
                  window_chars: int = DEFAULT_WINDOW_CHARS, warn: Optional[Callable[[str], None]] = None,
                  progress: Optional[bool] = None, skippable: Optional[Collection[str]] = None,
                  note: Optional[Callable[[str], None]] = None) -> SegmentStats:
    """Segment `sources` (paths; '-' is stdin) into the open text stream `out`, in order.

    fmt: lines | jsonl | conllu | html (conllu and html always carry the parse; `with_parse` adds it
        to jsonl).
    warn: called with one line per input skipped (e.g. `warnings.warn`, the default).
    note: called with a line about the output (`html`: a large page), `warn` by default.
    skippable: the sources that an unreadable or undecodable file is skipped in (with a warning);
        any other raises `InputError`, and before anything is written when it is a file. None: every
        source when there are several (a single source always raises).
    progress: a progress bar on stderr (None: only when stderr is a terminal).
    RETURNS (SegmentStats): sentences, characters, windows, forced cuts; `extra["skipped"]`.
    RAISES: InputError (an input), OutputError (writing `out`).
    """
    check_settings(fmt, with_parse, encoding, batch_size, n_process, window_chars)
    sources = list(sources)
    if sources.count(STDIN) > 1:
        raise InputError("'-' (stdin) can be read only once")
    if skippable is None:
        skippable = set(sources) if len(sources) > 1 else set()
    checked = dict.fromkeys(s for s in sources if s not in skippable and not is_stream(s))
    for source in checked:  # a named file that cannot be read stops the run before it starts
        check_text(source, encoding)
    warn = warn or _warn
    writer = Writer(out, fmt, note=note or warn)
    parse = with_parse or fmt in PARSED_FORMATS
    stats = SegmentStats()
    stats.extra["skipped"] = 0
    small: List[Tuple[str, str]] = []
    budget = window_chars * n_process
    """Characters of short texts batched at most: a batch's memory follows its tokens, so a folder
    of texts just under `window_chars` is not taken `batch_size` at a time."""

    def flush() -> None:
        for source, sents in segment_texts(nlp, small, parse, batch_size, n_process):
            stats.sentences += writer.write(source, iter(sents))
        small.clear()

    bar = tqdm(sources, desc="segment", unit="file", file=sys.stderr, disable=None if progress is None else not progress)
    for source in bar:
        try:
            if is_stream(source):
                f = open_text(source, encoding)
                head = f.read(window_chars + 1)
                if len(head) <= window_chars:
                    small.append((source, head))
                    f.close()
                    continue
                # a long stream is streamed from its start; it cannot be checked for decodability
                # first: a decoding error stops the run after the sentences before it are written
                flush()
                with f:
                    writer.write(source, segment_stream(nlp, PrefixedStream(head, f), source, parse, window_chars,
                                                        stats=stats))
                continue
            text = read_small(source, encoding, window_chars)
            if text is not None:
                small.append((source, text))
                if len(small) >= batch_size * n_process or sum(len(t) for _, t in small) >= budget:
                    flush()
                continue
            flush()
            if source not in checked:
                check_text(source, encoding)  # before any of its sentences is written
            with open_text(source, encoding) as f:
                writer.write(source, segment_stream(nlp, f, source, parse, window_chars, stats=stats))
        except (InputError, OSError) as e:
            err = e if isinstance(e, InputError) else InputError(f"{source}: cannot read ({e.strerror or e})")
            if source not in skippable or is_stream(source):
                raise err from None
            warn(f"skipped {err}")
            stats.extra["skipped"] += 1
    flush()
    writer.close()
    return stats
