"""Reading text as `segment` does: exact offsets (no newline translation, from files and stdin
alike), short texts read whole, long ones streamed, undecodable files found before any output."""
import codecs
import glob
import io
import sys
from pathlib import Path
from typing import List, Optional, TextIO, Tuple

STDIN = "-"
"""The source name of standard input."""


class InputError(ValueError):
    """A named input that cannot be read: stops the run, names the input."""


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


class PrefixedStream:
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


def decode_error(source: str, encoding: str, e: UnicodeDecodeError) -> InputError:
    """The one-line error for an input that does not decode, with its byte offset (files only)."""
    if source == STDIN:  # decoded in chunks: no byte offset into the whole input
        return InputError(f"stdin: not valid {encoding} ({e.reason}); give the right --encoding")
    return InputError(f"{source}: not valid {encoding} at byte {e.start} ({e.reason}); "
                      f"give the right --encoding")
