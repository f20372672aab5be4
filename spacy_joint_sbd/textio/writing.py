r"""The output formats of `segment`: `lines` (one sentence per line, inner line breaks shown as
spaces, a blank line between sources), `jsonl` (one `Sentence.to_dict()` per line), `conllu`
(one `# newdoc` per source, whitespace-only tokens left out) and `html` (a page to look at the
sentences, their start probabilities and trees: `textio.html`). Every format is written a
sentence at a time, so memory does not grow with the length of a source; a failed write is an
`OutputError`, never taken for a problem of the input being read.

One record a line holds for every reader: `str.splitlines` (and many editors) also break lines at
`\v`, `\f` (pdftotext's page break), `\x1c`-`\x1e`, NEL (U+0085), U+2028 and U+2029, so `lines`
shows each of them as a space too, and `jsonl` writes them as `\u` escapes (JSON allows them raw,
`json.dumps(ensure_ascii=False)` leaves them so)."""
import json
import re
from typing import Callable, Iterator, List, Optional, TextIO

from ..corpus.record import ROOT, DocRecord
from ..corpus.writer import sentence_lines
from ..segment import Sentence
from .reading import STDIN
from .tokens import solid_tokens  # noqa: F401  (also imported from here)

FORMATS = ("lines", "jsonl", "conllu", "html")
"""The output formats `Writer` (and `segment --format`) take."""
PARSED_FORMATS = ("conllu", "html")
"""The formats that always carry the parse (`html`: the page of `textio.html`)."""
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines` breaks a line at."""
_INNER_BREAK = re.compile(r"\s*[%s]\s*" % re.escape(LINE_BREAKS))
_JSON_ESCAPES = str.maketrans({c: f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"})
STDIN_ID = "stdin"
"""The document id of stdin in CoNLL-U (`# newdoc id = stdin`, `# sent_id = stdin-0001`)."""


class OutputError(Exception):
    """Writing the output failed (`os_error` says why: a closed pipe, a full disk)."""

    def __init__(self, os_error: OSError):
        super().__init__(os_error.strerror or str(os_error))
        self.os_error = os_error


class Writer:
    """Writes sentences in one format; sources arrive one at a time, in order."""

    def __init__(self, out: TextIO, fmt: str, note: Optional[Callable[[str], None]] = None):
        """note: called with a line for the reader of the run (`html`: when the page is large)."""
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        self.out, self.fmt, self.n_sources = out, fmt, 0
        self.page = None
        if fmt == "html":
            from .html import HtmlWriter

            self.page = HtmlWriter(out, note=note)

    def write(self, source: str, sentences: Iterator[Sentence]) -> int:
        """Write the sentences of one source; returns how many."""
        if self.page is not None:
            try:
                n = self.page.write(source, sentences)
            except OSError as e:
                raise OutputError(e) from e
            self.n_sources += 1
            return n
        n = numbered = 0
        doc_id = STDIN_ID if source == STDIN else source
        if self.fmt == "conllu":
            self._put(f"# newdoc id = {doc_id}\n")
        elif self.fmt == "lines" and self.n_sources:
            self._put("\n")
        for s in sentences:
            n += 1
            if self.fmt == "jsonl":
                self._put(json.dumps(s.to_dict(), ensure_ascii=False).translate(_JSON_ESCAPES) + "\n")
            elif self.fmt == "lines":
                self._put(_INNER_BREAK.sub(" ", s.text) + "\n")
            else:
                rec = sentences_to_record(doc_id, [s])
                if rec.words:  # not whitespace alone
                    numbered += 1
                    self._put("\n".join(sentence_lines(rec, 0, len(rec.words), numbered)) + "\n\n")
        self.n_sources += 1
        return n

    def close(self) -> None:
        """End the output after the last source (the page's script and end tags; nothing for the others)."""
        if self.page is not None:
            try:
                self.page.close()
            except OSError as e:
                raise OutputError(e) from e

    def _put(self, text: str) -> None:
        try:
            self.out.write(text)
        except OSError as e:
            raise OutputError(e) from e


def sentences_to_record(source: str, sentences: List[Sentence]) -> DocRecord:
    """A CoNLL-U document of parsed sentences: whitespace-only tokens are dropped (a head on one
    is replaced by that token's own head)."""
    rec = DocRecord(doc_id=source, words=[], spaces=[], lemmas=[], upos=[], xpos=[], feats=[], heads=[], deps=[],
                    sent_starts=[])
    for s in sentences:
        toks = s.tokens or []
        kept = solid_tokens(toks)
        base = len(rec.words)
        for k, (i, h) in enumerate(kept):
            t = toks[i]
            nxt = toks[kept[k + 1][0]]["start_char"] if k + 1 < len(kept) else None
            rec.words.append(t["text"])
            rec.spaces.append(nxt is None or nxt > t["end_char"])
            rec.lemmas.append("")
            rec.upos.append("")
            rec.xpos.append(t["tag"] or "")
            rec.feats.append("")
            rec.heads.append(ROOT if h < 0 else base + h)
            rec.deps.append(t["dep"] or "dep")
            rec.sent_starts.append(k == 0)
    return rec
