"""Reading text as `segment` does: exact offsets (no newline translation, from files and stdin
alike), short texts read whole, long ones streamed, undecodable files found before any output.

Text is decoded here (`TextReader`), not by `io.TextIOWrapper`, so that every problem is named
at its place in the whole input: the byte of a sequence that does not decode (TextIOWrapper's
errors count from the chunk it was decoding) and the character of a lone surrogate (which some
codecs, utf-7 or unicode_escape, decode to, and which no writer can encode)."""
import codecs
import glob
import io
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import BinaryIO, List, Optional, Set, Tuple

STDIN = "-"
"""The source name of standard input."""
BYTE_ORDER_MARK = "\ufeff"
_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 1 << 16


class InputError(ValueError):
    """A named input that cannot be read: stops the run, names the input."""


@dataclass
class Inputs:
    """The sources to read, in order, and those of them that a folder or a glob found (rather
    than the command line naming them): only those may be skipped when they cannot be read."""
    sources: List[str] = field(default_factory=list)
    found: Set[str] = field(default_factory=set)


def is_stream(source: str) -> bool:
    """stdin, a named pipe, a process substitution (`/dev/fd/N`): read once, from the start, never
    checked or sized before."""
    if source == STDIN:
        return True
    try:
        return not stat.S_ISREG(Path(source).stat().st_mode)
    except OSError:
        return False


def check_pattern(pattern: str) -> None:
    """A ValueError unless `pattern` is a glob that stays inside the folder it searches: relative,
    not empty, no `..` part (`../*.txt` would reach the folder's parent)."""
    if not pattern.strip() or Path(pattern).is_absolute() or PurePath(pattern).anchor:
        raise ValueError(f"--pattern must be a relative glob such as '*.txt', got {pattern!r}")
    if ".." in re.split(r"[/\\]", pattern):
        raise ValueError(f"--pattern must stay inside its folder (no '..' part), got {pattern!r}")


def expand_inputs(items: List[str], pattern: str) -> Tuple[List[str], List[str]]:
    """(inputs, problems) as `find_inputs` finds them (the sources only)."""
    inputs, problems = find_inputs(items, pattern)
    return inputs.sources, problems


def find_inputs(items: List[str], pattern: str) -> Tuple[Inputs, List[str]]:
    """(inputs, problems): files and streams (named pipes, `/dev/fd/N`) as given, folders searched
    recursively for `pattern` (a ValueError unless it stays inside the folder), globs expanded,
    '-' for stdin. A named file that does not exist is an error; nothing matched by a folder or a
    glob is a problem reported as a warning."""
    check_pattern(pattern)
    out = Inputs()
    problems: List[str] = []
    if items.count(STDIN) > 1:
        raise InputError("'-' (stdin) can be read only once")
    for item in items:
        if item == STDIN:
            out.sources.append(STDIN)
        elif Path(item).is_dir():
            found = sorted(str(p) for p in Path(item).rglob(pattern) if p.is_file())
            if not found:
                problems.append(f"{item}: no files matching {pattern!r}")
            out.sources.extend(found)
            out.found.update(found)
        elif any(ch in item for ch in "*?[") and not Path(item).exists():
            found = sorted(p for p in glob.glob(item, recursive=True) if Path(p).is_file())
            if not found:
                problems.append(f"{item}: the pattern matches no file")
            out.sources.extend(found)
            out.found.update(found)
        elif Path(item).exists():
            out.sources.append(item)
        else:
            raise InputError(f"{item}: no such file or folder")
    return out, problems


def _decode(decoder: codecs.IncrementalDecoder, data: bytes, done: int) -> str:
    """`data` decoded (the end of the input when empty), a UnicodeDecodeError's offsets moved to
    the whole input: `done` bytes went into the decoder before, some of them still buffered."""
    buffered = len(decoder.getstate()[0])
    base = done - buffered
    try:
        return decoder.decode(data, final=not data)
    except UnicodeDecodeError as e:
        raise UnicodeDecodeError(e.encoding, e.object, base + e.start, base + e.end, e.reason) from None
    except UnicodeError as e:  # a codec's own check, e.g. utf-16's "stream does not start with BOM"
        raise UnicodeDecodeError("codec", data, base, base + 1, str(e)) from None


class TextReader:
    """A binary stream read as text, `read(n)` as a text file's: no newline translation (CRLF and a
    lone CR stay, so offsets index the input the same way from a file and from stdin), a leading
    byte-order mark read as a space (no token carries it; offsets still count it), and every error
    an `InputError` naming the source and the byte or character of the whole input."""

    def __init__(self, source: str, raw: BinaryIO, encoding: str, close: bool = True):
        self.source, self.raw, self.encoding, self._close = source, raw, encoding, close
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
        self._pending = ""
        self._bytes = 0
        self._chars = 0
        """characters decoded so far (returned or pending)"""
        self._eof = False

    def read(self, n: int = -1) -> str:
        while not self._eof and (n < 0 or len(self._pending) < n):
            self._fill()
        if n < 0 or n >= len(self._pending):
            out, self._pending = self._pending, ""
        else:
            out, self._pending = self._pending[:n], self._pending[n:]
        return out

    def _fill(self) -> None:
        read = getattr(self.raw, "read1", self.raw.read)
        try:
            data = read(_CHUNK)
        except OSError as e:
            raise InputError(f"{self.name}: cannot read ({e.strerror or e})") from None
        try:
            text = _decode(self._decoder, data, self._bytes)
        except UnicodeDecodeError as e:
            raise decode_error(self.source, self.encoding, e) from None
        self._bytes += len(data)
        self._eof = not data
        if self._chars == 0 and text.startswith(BYTE_ORDER_MARK):
            text = " " + text[1:]
        bad = _SURROGATE.search(text)
        if bad is not None:
            raise InputError(f"{self.name}: not valid {self.encoding}: it decodes to a lone surrogate "
                             f"U+{ord(bad.group()):04X} at character {self._chars + bad.start()}, which is no "
                             f"text; give the right --encoding")
        self._chars += len(text)
        self._pending += text

    @property
    def name(self) -> str:
        return "stdin" if self.source == STDIN else self.source

    def close(self) -> None:
        if self._close:
            self.raw.close()

    def __enter__(self) -> "TextReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_text(source: str, encoding: str) -> TextReader:
    """`source` ('-': stdin) as a `TextReader`; an `InputError` if it cannot be opened."""
    if source == STDIN:
        return TextReader(STDIN, sys.stdin.buffer, encoding, close=False)
    try:
        return TextReader(source, open(source, "rb"), encoding)
    except OSError as e:
        raise InputError(f"{source}: cannot read ({e.strerror or e})") from None


def check_text_encoding(encoding: str) -> Optional[str]:
    """Why `encoding` cannot decode text (unknown, or a bytes-to-bytes codec such as base64 or
    rot13), or None when it can."""
    try:
        codecs.lookup(encoding)
    except LookupError:
        return f"{encoding!r} is not an encoding Python knows (e.g. utf-8, latin-1, cp1252)"
    try:
        io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    except LookupError:
        return f"{encoding!r} is not a text encoding (e.g. utf-8, latin-1, cp1252)"
    return None


def read_small(source: str, encoding: str, window_chars: int) -> Optional[str]:
    """The whole text of a file if it is at most `window_chars` characters, else None (stream it)."""
    if source != STDIN and Path(source).stat().st_size > 4 * window_chars:
        return None  # more than window_chars characters in any encoding of at most 4 bytes each
    with open_text(source, encoding) as f:
        text = f.read(window_chars + 1)
        if len(text) <= window_chars:
            return text
    return None


def check_text(source: str, encoding: str) -> None:
    """An `InputError` unless the file `source` decodes to text throughout (read to the end)."""
    with open_text(source, encoding) as f:
        while f.read(_CHUNK):
            pass


class PrefixedStream:
    """A text stream that returns `head` first, then reads on from `rest`: stdin, whose start was
    read to see whether it is short, streamed from its beginning."""

    def __init__(self, head: str, rest):
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
            _decode(decoder, data, done)
            if not data:
                return
            done += len(data)


def decode_error(source: str, encoding: str, e: UnicodeDecodeError) -> InputError:
    """The one-line error for an input that does not decode, with its byte offset in the input
    (`e`'s offsets must count from the input's start, as `TextReader`'s and `check_decodable`'s do)."""
    name = "stdin" if source == STDIN else source
    return InputError(f"{name}: not valid {encoding} at byte {e.start} ({e.reason}); give the right --encoding")
