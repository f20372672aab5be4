"""Treebank documents as the raw text users bring: surface tokens joined by their SpaceAfter, a
blank line at each `# newpar`, one text per `# newdoc`, with the character offsets of the gold
sentence starts, and the gold tokens (character spans; a multi-word token once) and syntactic words
(form, token, head, label) that `conll18` scores raw-text parses against. What operating points are
chosen on (`cli.tune_bias.sweep_raw_scores`) and what `segment` is measured on (projects/accuracy
`raw_documents`, projects/speech `derive_check`): text as a user's file holds it, tokenized by the
pipeline, not the treebank's tokens.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple, Union

from .conllu import ConllUError, read_conllu
from .record import DocRecord


class RawWord(NamedTuple):
    """One syntactic word of a gold document."""

    form: str
    token: int
    """Index of its surface token in `RawDoc.tokens` (the words of a multi-word token share one)."""
    head: Optional[int]
    """Document-level index of its head word; -1 for a root, None where the file has no head."""
    dep: str


@dataclass
class RawDoc:
    doc_id: str
    text: str = ""
    gold: List[int] = field(default_factory=list)
    """Character offsets of the gold sentence starts (the first one included)."""
    tokens: List[Tuple[int, int]] = field(default_factory=list)
    """(start, end) character span in `text` of each surface token."""
    words: List[RawWord] = field(default_factory=list)
    sent_words: List[int] = field(default_factory=list)
    """Index in `words` of each gold sentence's first word."""


def raw_documents(path: Union[str, Path]) -> Iterator[RawDoc]:
    """The documents of a CoNLL-U file as raw text with gold sentence-start offsets, tokens and
    words; a malformed word line or head is a `ConllUError` naming the file and the line."""
    path = Path(path)
    doc = None
    parts: List[str] = []
    length = 0  # characters in `parts`
    newpar = False
    in_sentence = False
    mwt_last = 0  # the last word id of the current multi-word token (0: none)
    base = 0  # index in `doc.words` of the current sentence's first word
    pending_space = ""
    with path.open(encoding="utf8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# newdoc"):
                if doc is not None:
                    doc.text = "".join(parts)
                    yield doc
                m = re.match(r"# newdoc id = (.*)", line)
                doc = RawDoc(m.group(1).strip() if m else f"doc{len(parts)}")
                parts, length, pending_space = [], 0, ""
                continue
            if line == "# newpar" or line.startswith("# newpar id"):
                newpar = True
                continue
            if line.startswith("#"):
                continue
            if not line:
                in_sentence, mwt_last = False, 0
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise ConllUError(f"{path}:{lineno}: {len(cols)} tab-separated columns, CoNLL-U has 10")
            if "." in cols[0]:
                continue
            try:
                if "-" in cols[0]:
                    mwt_last, word_id = int(cols[0].split("-")[1]), None
                else:
                    word_id = int(cols[0])
            except (ValueError, IndexError):
                raise ConllUError(f"{path}:{lineno}: bad word id {cols[0]!r}") from None
            if doc is None:
                doc = RawDoc(path.stem)
            if not in_sentence:
                in_sentence = True
                if parts:
                    pending_space = "\n\n" if newpar else pending_space
                newpar = False
                doc.gold.append(length + len(pending_space))
                base = len(doc.words)
                doc.sent_words.append(base)
            if word_id is not None:
                doc.words.append(RawWord(cols[1], len(doc.tokens) - (word_id <= mwt_last),
                                         _head(cols[6], base, path, lineno), cols[7]))
                if word_id <= mwt_last:
                    continue  # a word of the multi-word token above: not in the text
                mwt_last = 0
            length += len(pending_space)
            doc.tokens.append((length, length + len(cols[1])))
            parts += (pending_space, cols[1])
            length += len(cols[1])
            pending_space = "" if "SpaceAfter=No" in cols[9].split("|") else " "
    if doc is not None:
        doc.text = "".join(parts)
        yield doc


def raw_from_record(rec: DocRecord) -> RawDoc:
    """A document record (e.g. a `corpus.variants` variant) as raw text: its words joined by their
    spaces, one line, each word its own token (records keep no multi-word tokens)."""
    doc = RawDoc(rec.doc_id)
    parts: List[str] = []
    at = 0
    for i, (w, sp) in enumerate(zip(rec.words, rec.spaces)):
        if i == 0 or rec.sent_starts[i]:
            doc.gold.append(at)
            doc.sent_words.append(i)
        doc.tokens.append((at, at + len(w)))
        doc.words.append(RawWord(w, i, rec.heads[i], rec.deps[i]))
        parts.append(w + (" " if sp else ""))
        at += len(w) + (1 if sp else 0)
    doc.text = "".join(parts)
    return doc


def variant_documents(path: Union[str, Path], variant: str = "plain") -> Iterator[RawDoc]:
    """`raw_documents` of a CoNLL-U file for `plain`; for another `corpus.variants` variant (e.g.
    `star`: lower-cased, no punctuation), each document of that variant as one line of raw text
    (`raw_from_record`)."""
    if variant == "plain":
        yield from raw_documents(path)
        return
    for rec in read_conllu(path, variant):
        if rec.words:
            yield raw_from_record(rec)


def _head(col: str, base: int, path: Path, lineno: int) -> Optional[int]:
    """A HEAD column as a document-level word index (-1 for 0, None for `_`)."""
    if col == "_":
        return None
    try:
        head = int(col)
    except ValueError:
        raise ConllUError(f"{path}:{lineno}: bad head {col!r}") from None
    if head < 0:
        raise ConllUError(f"{path}:{lineno}: negative head {col!r}")
    return base + head - 1 if head else -1


def span_starts(spans: Iterable[Tuple[int, int]], text: str) -> Set[int]:
    """The first non-space character of each (start, end) character span of `text` (a predicted
    sentence's start, as the gold offsets count it); spans of whitespace only give none."""
    out = set()
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        if a < b:
            out.add(a)
    return out
