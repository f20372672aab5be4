"""Training documents from punctuated running text, with their line layout.

A folder of UTF-8 `.txt` files (../shared/data/text or any user's) becomes whole documents with
`is_sent_start` derived from punctuation (`corpus.punct_boundaries`) and layout, tokenized by a
spaCy tokenizer so the tokens are what `nlp(text)` gives.

Layout, decided per file from its lines (`detect_layout`) and documented here because it is a
choice:
- Line and paragraph breaks are kept as spaCy whitespace tokens (`"\\n"`, `"\\n\\n"`; several blank
  lines become one `"\\n\\n"`), so a model sees them. A whitespace token never starts a sentence: it
  belongs to the sentence before it and the word after it carries the start, as in
  `pipeline.joint.whitespace`. `layout=False` joins the units with a space instead.
- A blank line (paragraph break) always starts a sentence.
- A single line break starts a sentence too (one paragraph, turn or speaker stream per line: AMI,
  CABNC, SGD, the State of the Union files) unless the file is hard-wrapped: when most single
  line breaks follow a line without a sentence-final mark, lines are wrapped prose (e-mail, verse
  set line by line) and only punctuation decides; the `"\\n"` tokens stay.
- Speaker turns: when at least half of a file's lines open with a label (`USER: `, `SYSTEM: `,
  CABNC's `MAR: `), every line is a turn that starts a sentence and the labels are dropped, as are
  SGD's `### dialogue_id=… services=…` header lines: they are layout, not text.
- A file-initial title block (an all-capitals title line followed by a whitespace-only line or a
  date line, as in the State of the Union speeches) is dropped with its date line.
- Paragraphs that are only an illustration mark (`[Illustration]`, `[Illustration: …]`) are dropped;
  other headings (`CHAPTER I`, `VOLUME I`) and notes are kept as sentences of their own.
- Transcripts (turn files, and files whose lines average over `STREAM_LINE_CHARS` characters: one
  speaker's whole stream per line, as AMI) trust the transcribers' `.`, `?`, `!` whatever case
  follows (so `Yeah. found easily.` is two sentences, as the AMI scoring of projects/speech counts them); in
  edited text a lower-case word after the mark continues the sentence.

Long files are cut into documents of at most `max_tokens` tokens at unit boundaries (paragraphs,
or lines where lines are units); a unit longer than that is cut at its sentence boundaries (a
sentence longer than that, at `max_tokens`). Documents are named `<relative path>#<k>`.
"""
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.attrs import IS_PUNCT, IS_SPACE, ORTH, SPACY
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import DOC_ID_KEY
from .punct_boundaries import is_final_mark, unit_sent_starts
from .record import ROOT, DocRecord
from .tokenizer_rules import add_citation_suffix
from .variants import PUNCT, apply_variant

SPACE = "SPACE"
VARIANT_KEY = "variant"
"""Key of the variant name (`plain`, `star`, ...) in `Doc.user_data`."""
DEFAULT_MAX_TOKENS = 2000
STREAM_LINE_CHARS = 2000
DEV_FOLDER = "dev"

SPEAKER_LABEL = re.compile(r"^([A-Z][A-Z0-9_]{0,19}):[ \t]+(?=\S)")
DIALOGUE_HEADER = re.compile(r"^###\s+\w+=")
ILLUSTRATION = re.compile(r"^\[Illustration[^\]]*\]$", re.IGNORECASE)
DATE_LINE = re.compile(r"^(?:January|February|March|April|May|June|July|August|September|October|November|December)"
                       r"\s+\d{1,2},?\s+\d{4}")


class TextInputError(ValueError):
    """A text file or folder that cannot be read as training text; the message names it."""


@dataclass(frozen=True)
class Layout:
    """How one file's lines are read (see the module docstring)."""

    turns: bool = False
    """Lines open with speaker labels (dropped); every line is a turn."""
    line_breaks: bool = True
    """A single line break starts a sentence (False: hard-wrapped lines, punctuation decides)."""
    transcript: bool = False
    """The transcribers' `.`, `?`, `!` end sentences whatever case follows."""


@dataclass
class Unit:
    """One unit of layout (paragraph, line, turn; or a piece of a long one), tokenized.

    `sep` is the layout before it (`"\\n"`, `"\\n\\n"`; None for the continuation of a cut unit)."""

    sep: Optional[str]
    words: List[str]
    spaces: List[bool]
    is_space: List[bool]
    is_punct: List[bool]
    starts: List[bool]


@dataclass
class TextFile:
    """A file to read: its path, its document id stem and the folder it is counted under."""

    path: Path
    name: str
    folder: str


@dataclass
class _Chunk:
    units: List[Unit] = field(default_factory=list)
    n: int = 0


# --- files -----------------------------------------------------------------------------------


def iter_text_files(paths: Sequence[Union[str, Path]], *, root: Optional[Union[str, Path]] = None,
                    allow_dev: bool = False) -> Iterator[TextFile]:
    """The `.txt` files under `paths` (files or folders), each folder's in sorted order.

    Names are relative to `root` (default: each path's parent). A path with a `dev` folder in it is
    refused unless `allow_dev` (dev sets are for choosing settings, never for training); inside a
    folder, `dev` subfolders are skipped unless `allow_dev`."""
    root_path = Path(root) if root is not None else None
    for p in paths:
        p = Path(p)
        base = root_path if root_path is not None else p.parent
        rel_parts = _relative(p, base).parts
        if DEV_FOLDER in rel_parts and not allow_dev:
            raise TextInputError(f"{p}: a '{DEV_FOLDER}' folder is not training text (allow_dev / --allow-dev)")
        if p.is_file():
            yield _text_file(p, base)
        elif p.is_dir():
            for f in _walk(p, allow_dev):
                yield _text_file(f, base)
        else:
            raise TextInputError(f"{p}: no such file or folder")


def _relative(p: Path, base: Path) -> Path:
    try:
        return p.relative_to(base)
    except ValueError:
        return Path(p.name)


def _text_file(path: Path, base: Path) -> TextFile:
    rel = _relative(path, base)
    name = rel.with_suffix("").as_posix()
    folder = rel.parent.as_posix() if rel.parent.as_posix() != "." else ""
    return TextFile(path, name, folder)


def _walk(folder: Path, allow_dev: bool) -> List[Path]:
    def fail(err: OSError) -> None:
        raise TextInputError(f"{err.filename}: cannot read folder ({err.strerror})")

    found: List[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder, onerror=fail):
        dirnames[:] = sorted(d for d in dirnames if allow_dev or d != DEV_FOLDER)
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(".txt"))
    return sorted(found, key=lambda f: f.relative_to(folder).as_posix())


def read_text(path: Path) -> str:
    """The file's text (UTF-8, BOM dropped, newlines normalised to `\\n`); errors name the file."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise TextInputError(f"{path}: cannot read ({e.strerror})") from e
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise TextInputError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from e
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- layout ----------------------------------------------------------------------------------


def _ends_sentence(line: str) -> bool:
    s = line.rstrip()
    while s and s[-1] in "\"'”’»)]}":
        s = s[:-1]
    return bool(s) and (is_final_mark(s[-1]) or s.endswith("…"))


def detect_layout(lines: Sequence[str]) -> Layout:
    """The layout of a file from its (header-free) lines."""
    nonblank = [ln for ln in lines if ln]
    if not nonblank:
        return Layout()
    labelled = sum(1 for ln in nonblank if SPEAKER_LABEL.match(ln) or DIALOGUE_HEADER.match(ln))
    turns = labelled * 2 >= len(nonblank)
    single = [lines[i] for i in range(len(lines) - 1) if lines[i] and lines[i + 1]]
    wrapped = not turns and len(single) >= 5 and sum(not _ends_sentence(ln) for ln in single) * 2 > len(single)
    transcript = turns or sum(len(ln) for ln in nonblank) / len(nonblank) > STREAM_LINE_CHARS
    return Layout(turns=turns, line_breaks=not wrapped, transcript=transcript)


def _drop_title_block(lines: List[str]) -> List[str]:
    """Drop a file-initial all-capitals title with its date line (the speeches' header)."""
    if not lines or not lines[0] or not any(c.isalpha() for c in lines[0]) or any(c.islower() for c in lines[0]):
        return lines
    j, marked = 1, False
    while j < len(lines) and not lines[j].strip():
        marked = marked or (lines[j] != "")
        j += 1
    if j < len(lines) and DATE_LINE.match(lines[j]):
        marked = True
        j += 1
    if not marked:
        return lines
    return lines[j:]


def text_units(text: str, *, layout: Optional[Layout] = None) -> Tuple[Layout, List[Tuple[str, str]]]:
    """The file's layout and its units as (separator before, text): headers, labels and
    illustration marks dropped, blank lines folded into `"\\n\\n"` separators."""
    raw = [ln.rstrip() for ln in text.split("\n")]
    lines = [ln if ln.strip() else ("" if ln == "" else " ") for ln in raw]
    lines = _drop_title_block(lines)
    lines = ["" if not ln.strip() or DIALOGUE_HEADER.match(ln) or ILLUSTRATION.match(ln.strip()) else ln
             for ln in lines]
    if layout is None:
        layout = detect_layout(lines)
    units: List[Tuple[str, str]] = []
    sep = ""
    para: List[str] = []

    def flush() -> None:
        nonlocal sep
        if para:
            units.append((sep, "\n".join(para)))
            para.clear()
            sep = "\n"

    for ln in lines:
        if not ln:
            flush()
            if units:
                sep = "\n\n"
            continue
        if layout.turns:
            ln = SPEAKER_LABEL.sub("", ln, count=1)
        ln = ln.strip()
        if not ln:
            continue
        para.append(ln)
        if layout.line_breaks:
            flush()
    flush()
    return layout, units


# --- tokens and boundaries ------------------------------------------------------------------


def as_tokenizer(nlp_vocab_or_tokenizer: Union[Language, Vocab, Tokenizer, None]) -> Tokenizer:
    """A tokenizer from a pipeline (its own), a tokenizer, or a vocab / None (blank English with the
    default pipeline's citation rule, `corpus.tokenizer_rules`: the tokens `en_joint_sbd` makes)."""
    if isinstance(nlp_vocab_or_tokenizer, Language):
        return nlp_vocab_or_tokenizer.tokenizer
    if isinstance(nlp_vocab_or_tokenizer, Tokenizer):
        return nlp_vocab_or_tokenizer
    import spacy

    if nlp_vocab_or_tokenizer is None:
        return add_citation_suffix(spacy.blank("en").tokenizer)
    if isinstance(nlp_vocab_or_tokenizer, Vocab):
        return add_citation_suffix(spacy.blank("en", vocab=nlp_vocab_or_tokenizer).tokenizer)
    raise TypeError(f"expected a Language, Vocab or Tokenizer, got {type(nlp_vocab_or_tokenizer).__name__}")


def tokenize_unit(tokenizer: Tokenizer, sep: str, text: str, *, transcript: bool) -> Unit:
    doc = tokenizer(text)
    strings = tokenizer.vocab.strings
    rows = doc.to_array([ORTH, SPACY, IS_SPACE, IS_PUNCT]).tolist()  # one C pass, no Token objects
    words = [strings[r[0]] for r in rows]
    spaces = [bool(r[1]) for r in rows]
    is_space = [bool(r[2]) for r in rows]
    is_punct = [bool(r[3]) for r in rows]
    starts = unit_sent_starts(words, spaces, is_space, transcript=transcript)
    return Unit(sep, words, spaces, is_space, is_punct, starts)


def _cut(unit: Unit, max_tokens: int) -> List[Unit]:
    """A unit longer than `max_tokens` as pieces cut at its sentence starts (or every `max_tokens`
    tokens inside a longer sentence)."""
    n = len(unit.words)
    if max_tokens <= 0 or n <= max_tokens:
        return [unit]
    cuts = [0]
    last_start = 0
    for i in range(1, n):
        if unit.starts[i]:
            last_start = i
        if i - cuts[-1] >= max_tokens:
            cuts.append(last_start if last_start > cuts[-1] else i)
    cuts.append(n)
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        pieces.append(Unit(unit.sep if a == 0 else None, unit.words[a:b], unit.spaces[a:b], unit.is_space[a:b],
                           unit.is_punct[a:b], unit.starts[a:b]))
    return pieces


def _chunks(units: Iterable[Unit], max_tokens: int) -> Iterator[List[Unit]]:
    cur = _Chunk()
    for unit in units:
        for piece in _cut(unit, max_tokens):
            if cur.units and max_tokens > 0 and cur.n + len(piece.words) + 1 > max_tokens:
                yield cur.units
                cur = _Chunk()
            cur.units.append(piece)
            cur.n += len(piece.words) + 1
    if cur.units:
        yield cur.units


def chunk_record(units: Sequence[Unit], doc_id: str, *, layout: bool = True, source: str = "") -> DocRecord:
    """One document from consecutive units: layout separators become whitespace tokens (or a space
    when `layout` is False); the first word of each unit after a separator starts a sentence."""
    words: List[str] = []
    spaces: List[bool] = []
    upos: List[str] = []
    starts: List[bool] = []
    for k, u in enumerate(units):
        if k and u.sep is not None:
            if layout and u.sep.strip() == "" and u.sep:
                spaces[-1] = False
                words.append(u.sep)
                spaces.append(False)
                upos.append(SPACE)
                starts.append(False)
            else:
                spaces[-1] = True
        for w, sp, isp, ipu, st in zip(u.words, u.spaces, u.is_space, u.is_punct, u.starts):
            words.append(w)
            spaces.append(sp)
            upos.append(SPACE if isp else PUNCT if ipu else "")
            starts.append(st)
    if spaces:
        spaces[-1] = False
    if starts:
        starts[0] = True
    n = len(words)
    return DocRecord(doc_id, words, spaces, [""] * n, upos, [""] * n, [""] * n, [ROOT] * n, [""] * n, starts,
                     source=source)


def tidy_layout(rec: DocRecord) -> DocRecord:
    """Keep the whitespace conventions after a variant removed tokens: no leading whitespace token,
    no two whitespace tokens in a row (the one with more line breaks stays), no sentence starting on
    a whitespace token (the start moves to the next word)."""
    keep: List[int] = []
    for i, w in enumerate(rec.words):
        if rec.upos[i] == SPACE:
            if not keep:
                continue
            if rec.upos[keep[-1]] == SPACE:
                if w.count("\n") > rec.words[keep[-1]].count("\n"):
                    keep[-1] = i
                continue
        keep.append(i)
    kept = set(keep)
    starts: List[bool] = []
    carry = False
    for i, st in enumerate(rec.sent_starts):
        carry = carry or st
        if i in kept:
            if rec.upos[i] == SPACE:
                starts.append(False)
            else:
                starts.append(carry)
                carry = False
    if starts:
        starts[0] = True

    def pick(values: list) -> list:
        return [values[i] for i in keep]

    spaces = pick(rec.spaces)
    for k, i in enumerate(keep):
        if rec.upos[i] == SPACE and k:
            spaces[k - 1] = False
    if spaces:
        spaces[-1] = False
    n = len(keep)
    return DocRecord(rec.doc_id, pick(rec.words), spaces, pick(rec.lemmas), pick(rec.upos), pick(rec.xpos),
                     pick(rec.feats), [ROOT] * n, pick(rec.deps), starts, source=rec.source)


def text_records(text: str, tokenizer: Tokenizer, name: str, *, max_tokens: int = DEFAULT_MAX_TOKENS,
                 layout: bool = True, file_layout: Optional[Layout] = None, source: str = "") -> Iterator[DocRecord]:
    """The documents of one text (a file's contents) as plain records, `name#k` each."""
    found, units = text_units(text, layout=file_layout)
    tokenized = (tokenize_unit(tokenizer, sep, t, transcript=found.transcript) for sep, t in units)
    for k, chunk in enumerate(_chunks(tokenized, max_tokens)):
        yield chunk_record(chunk, f"{name}#{k}", layout=layout, source=source)


DROPS_PUNCT = frozenset({"star", "nopunct"})

WRAPPED = "wrapped"
"""A layout variant: the plain text hard-wrapped (`wrap_record`), for models that must learn that a
single line break in wrapped prose (e-mail, plain-text books) rarely ends a sentence."""
WRAP_WIDTH = 72


def _has_single_line_breaks(rec: DocRecord) -> bool:
    """Whether the record holds lines (turns, verse, a wrapped file), not only paragraphs."""
    return any(u == SPACE and w.count("\n") == 1 for u, w in zip(rec.upos, rec.words))


def wrap_record(rec: DocRecord, width: int = WRAP_WIDTH) -> DocRecord:
    """The plain record hard-wrapped at `width` columns: where a word would pass the column, the
    space before it becomes a line-break token (upos SPACE, never a sentence start; a start on the
    word after it stays there), as `fmt`/e-mail clients wrap. Only prose is wrapped: a record that
    already holds single line breaks (a transcript's turns, a wrapped file) is returned as it is,
    since there each line means something. Trees are dropped (layout only: heads ROOT, no labels)."""
    n = len(rec.words)
    if _has_single_line_breaks(rec):
        return rec
    words, spaces, upos, starts = [], [], [], []
    col = 0
    for i in range(n):
        w, u = rec.words[i], rec.upos[i]
        if u == SPACE:
            col = 0
        elif words and spaces[-1] and upos[-1] != SPACE and col + len(w) > width:
            spaces[-1] = False
            words.append("\n")
            spaces.append(False)
            upos.append(SPACE)
            starts.append(False)
            col = 0
        words.append(w)
        spaces.append(rec.spaces[i])
        upos.append(u)
        starts.append(rec.sent_starts[i])
        if u != SPACE:
            col += len(w) + (1 if rec.spaces[i] else 0)
    k = len(words)
    return DocRecord(rec.doc_id, words, spaces, [""] * k, upos, [""] * k, [""] * k, [ROOT] * k, [""] * k, starts,
                     source=rec.source)


FLAT = "flat"
"""A layout variant: the plain text with every line break a single space (`flat_record`), for
models that must find headings, list items and paragraph ends where the text lost its layout
(copied from a web page or a PDF, a field of a database)."""
LAYOUTS = (WRAPPED, FLAT)
"""The variants that change only the layout (`variant_record`), beside `corpus.variants`."""


def flat_record(rec: DocRecord) -> DocRecord:
    """The plain record with its whitespace tokens (blank lines, line breaks) removed: the word
    before each is followed by a space, a sentence start on one moves to the next word; trees are
    dropped (layout only). Only prose is flattened, as `wrap_record` wraps only prose: a record
    holding single line breaks (a transcript's turns, verse, a wrapped file) or none at all is
    returned as it is, since a transcript without its turns is the star variants' business."""
    if SPACE not in rec.upos or _has_single_line_breaks(rec):
        return rec
    words: List[str] = []
    spaces: List[bool] = []
    upos: List[str] = []
    starts: List[bool] = []
    carry = False
    for w, sp, u, st in zip(rec.words, rec.spaces, rec.upos, rec.sent_starts):
        if u == SPACE:
            carry = carry or bool(st)
            if spaces:
                spaces[-1] = True
            continue
        words.append(w)
        spaces.append(sp)
        upos.append(u)
        starts.append(bool(st) or carry)
        carry = False
    if spaces and rec.upos[-1] == SPACE:
        spaces[-1] = False  # no trailing space where the text ended in a line break
    k = len(words)
    return DocRecord(rec.doc_id, words, spaces, [""] * k, upos, [""] * k, [""] * k, [ROOT] * k, [""] * k, starts,
                     source=rec.source)


def variant_record(rec: DocRecord, variant: str) -> DocRecord:
    """`rec` in `variant` (`corpus.variants`, or a layout: `wrapped`: `wrap_record`, `flat`:
    `flat_record`), whitespace conventions kept. Where a variant drops a mark glued between two
    words (spaCy splits `twenty-one`), the words are written apart (`twenty one`), so the text
    tokenizes back into the same tokens."""
    if variant == "plain":
        return rec
    if variant == WRAPPED:
        return wrap_record(rec)
    if variant == FLAT:
        return flat_record(rec)
    if variant in DROPS_PUNCT:
        rec = _space_infix_marks(rec)
    return tidy_layout(apply_variant(rec, variant))


def _space_infix_marks(rec: DocRecord) -> DocRecord:
    spaces = list(rec.spaces)
    n = len(rec.words)
    i = 0
    while i < n:
        if rec.upos[i] != PUNCT:
            i += 1
            continue
        a = i
        while i < n and rec.upos[i] == PUNCT:
            i += 1
        if a > 0 and i < n and rec.upos[a - 1] == "" and rec.upos[i] == "" and not any(spaces[a - 1:i]):
            spaces[i - 1] = True
    return DocRecord(rec.doc_id, rec.words, spaces, rec.lemmas, rec.upos, rec.xpos, rec.feats, rec.heads, rec.deps,
                     rec.sent_starts, source=rec.source)


def record_doc(vocab: Vocab, rec: DocRecord, variant: str = "plain") -> Doc:
    """A Doc of the record's tokens with `is_sent_start` True on starts and False elsewhere."""
    doc = Doc(vocab, words=rec.words, spaces=rec.spaces, sent_starts=[bool(s) for s in rec.sent_starts])
    doc.user_data[DOC_ID_KEY] = rec.doc_id
    doc.user_data[VARIANT_KEY] = variant
    return doc


def iter_file_records(files: Iterable[TextFile], tokenizer: Tokenizer, *, max_tokens: int = DEFAULT_MAX_TOKENS,
                      layout: bool = True) -> Iterator[Tuple[TextFile, DocRecord]]:
    """(file, plain record) for each document chunk of each file, in order."""
    for tf in files:
        text = read_text(tf.path)
        for rec in text_records(text, tokenizer, tf.name, max_tokens=max_tokens, layout=layout, source=str(tf.path)):
            if rec.words:
                yield tf, rec


def iter_text_docs(paths: Sequence[Union[str, Path]], nlp_vocab_or_tokenizer: Union[Language, Vocab, Tokenizer, None],
                   *, variants: Sequence[str] = ("plain",), max_tokens: int = DEFAULT_MAX_TOKENS, layout: bool = True,
                   root: Optional[Union[str, Path]] = None, allow_dev: bool = False) -> Iterator[Doc]:
    """Whole-document training Docs from the `.txt` files under `paths`, streamed in bounded memory.

    One Doc per (document chunk, variant), variants in the order given, with `is_sent_start` set
    (True on starts, False elsewhere), `user_data["doc_id"]` (`<relative path>#<k>`) and
    `user_data["variant"]`. Deterministic: files in sorted order, no randomness."""
    tokenizer = as_tokenizer(nlp_vocab_or_tokenizer)
    for v in variants:
        if v not in LAYOUTS:
            apply_variant(DocRecord("", [], [], [], [], [], [], [], [], []), v)  # unknown names fail early
    files = iter_text_files(paths, root=root, allow_dev=allow_dev)
    for _, rec in iter_file_records(files, tokenizer, max_tokens=max_tokens, layout=layout):
        for v in variants:
            vrec = variant_record(rec, v)
            if vrec.words:
                yield record_doc(tokenizer.vocab, vrec, v)
