"""Read CoNLL-U into one `DocRecord` per document, validating every sentence.

`# newdoc` starts a document; a file without document marks is cut into documents of
`sents_per_doc` consecutive sentences. Multiword-token ranges and empty nodes are skipped (the
syntactic words are the tokens); a range's `SpaceAfter=No` applies to its last word.

We parse the lines ourselves rather than through `conllu`/`spacy convert` because every error must
name the file and line, and because `--repair` needs to see (and report) the raw problem. Errors are
collected per file: a malformed file raises one `ConllUError` listing all its problems.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Tuple, Union

from .record import ROOT, DocRecord

DEFAULT_SENTS_PER_DOC = 10
MAX_ERRORS_SHOWN = 20


class ConllUError(ValueError):
    """Malformed CoNLL-U: the message names the file and line of every problem found."""


@dataclass
class _Word:
    line: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: Optional[int]
    deprel: str
    space: bool


@dataclass
class _Sentence:
    line: int
    sent_id: str = ""
    text: Optional[str] = None
    words: List[_Word] = field(default_factory=list)


def _none(value: str) -> str:
    return "" if value == "_" else value


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


class _Reader:
    """Line-level state machine over one file; `problems` collects (line, message, repaired)."""

    def __init__(self, path: Path, repair: bool):
        self.path = path
        self.repair = repair
        self.problems: List[Tuple[int, str]] = []
        self.repairs: List[Tuple[int, str]] = []

    def problem(self, line: int, msg: str, repairable: bool, how: str = "") -> bool:
        """Record a problem; return True if it was repaired (and so reading may go on)."""
        if self.repair and repairable:
            self.repairs.append((line, f"{msg} -> {how}"))
            return True
        self.problems.append((line, msg))
        return False

    def lines(self) -> Iterator[Tuple[int, str]]:
        data = self.path.read_bytes()
        for i, raw in enumerate(data.split(b"\n"), start=1):
            try:
                text = raw.decode("utf8")
            except UnicodeDecodeError as e:
                if not self.problem(i, f"invalid UTF-8 ({e.reason} at byte {e.start})", True,
                                    "undecodable bytes replaced by U+FFFD"):
                    continue
                text = raw.decode("utf8", errors="replace")
            yield i, text.rstrip("\r")

    def read(self) -> Iterator[Tuple[Optional[Tuple[int, str]], _Sentence]]:
        """Yield (newdoc mark or None, sentence) for each sentence of the file."""
        sent: Optional[_Sentence] = None
        newdoc: Optional[Tuple[int, str]] = None
        pending_doc: Optional[Tuple[int, str]] = None
        mwt_end, mwt_space = -1, True
        expected_id = 1
        skip_sentence = False
        for lineno, line in self.lines():
            if not line.strip():
                if sent is not None:
                    if not skip_sentence and sent.words:
                        yield pending_doc, sent
                        pending_doc = None
                    sent, skip_sentence, expected_id, mwt_end = None, False, 1, -1
                continue
            if line.startswith("#"):
                key, _, value = line[1:].partition("=")
                key = key.strip()
                if sent is not None and sent.words:
                    self.problem(lineno, "comment line inside a sentence", True, "ignored")
                    continue
                if key in ("newdoc", "newdoc id"):
                    if pending_doc is not None:
                        self.problem(pending_doc[0], "empty document (no sentences before the next # newdoc)",
                                     True, "dropped")
                    pending_doc = (lineno, value.strip())
                    continue
                if sent is None:
                    sent = _Sentence(line=lineno)
                if key == "sent_id":
                    sent.sent_id = value.strip()
                elif key == "text":
                    sent.text = value.strip()
                continue
            if sent is None:
                sent = _Sentence(line=lineno)
            if skip_sentence:
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                if not self.problem(lineno, f"expected 10 tab-separated columns, found {len(cols)}", True,
                                    "sentence dropped"):
                    skip_sentence = True
                    continue
                skip_sentence = True
                continue
            tid = cols[0]
            if "-" in tid:
                try:
                    a, b = (int(x) for x in tid.split("-"))
                except ValueError:
                    self.problem(lineno, f"malformed multiword-token range {tid!r}", False)
                    skip_sentence = True
                    continue
                mwt_end, mwt_space = b, _space_after(cols[9])
                continue
            if "." in tid:
                continue  # empty node of the enhanced graph: not a syntactic word
            try:
                n = int(tid)
            except ValueError:
                self.problem(lineno, f"non-integer word ID {tid!r}", False)
                skip_sentence = True
                continue
            if n != expected_id:
                self.problem(lineno, f"word ID {n} out of sequence (expected {expected_id})", False)
                skip_sentence = True
                continue
            expected_id += 1
            try:
                head: Optional[int] = int(cols[6])
            except ValueError:
                head = None
                if not self.problem(lineno, f"non-integer head {cols[6]!r}", True, "re-attached (see below)"):
                    skip_sentence = True
                    continue
            space = _space_after(cols[9])
            if n < mwt_end:
                space = False
            elif n == mwt_end:
                space = mwt_space
            sent.words.append(_Word(lineno, cols[1], _none(cols[2]), _none(cols[3]), _none(cols[4]),
                                    _none(cols[5]), head, cols[7], space))
        if sent is not None and sent.words and not skip_sentence:
            yield pending_doc, sent
            pending_doc = None
        if pending_doc is not None:
            self.problem(pending_doc[0], "empty document (no sentences after # newdoc)", True, "dropped")

    def check_tree(self, sent: _Sentence) -> bool:
        """Validate heads: integer, in range, exactly one root, no cycle. Repair if allowed."""
        words = sent.words
        n = len(words)
        ok = True
        for idx, w in enumerate(words):
            if w.head is not None and not (0 <= w.head <= n):
                ok &= self.problem(w.line, f"head {w.head} out of range 0..{n}", True, "re-attached (see below)")
                w.head = None
            if w.head is not None and w.head == idx + 1:
                ok &= self.problem(w.line, "word is its own head", True, "re-attached (see below)")
                w.head = None
            if not w.deprel or w.deprel == "_":
                ok &= self.problem(w.line, "missing DEPREL", True, "label 'dep'")
                w.deprel = "dep"
        if not ok:
            return False
        roots = [i for i, w in enumerate(words) if w.head == 0]
        if len(roots) == 0 and all(w.head is not None for w in words):
            if not self.problem(sent.line, "sentence has no root (head 0)", True, "first word of a cycle made root"):
                return False
        elif len(roots) > 1:
            lines = ", ".join(str(words[i].line) for i in roots)
            if not self.problem(words[roots[1]].line, f"sentence has {len(roots)} roots (lines {lines})", True,
                                f"extra roots attached to the root at line {words[roots[0]].line}"):
                return False
            for i in roots[1:]:
                words[i].head = roots[0] + 1
        root = next((i for i, w in enumerate(words) if w.head == 0), None)
        # Words with unusable heads attach to the root (or become it).
        for i, w in enumerate(words):
            if w.head is None:
                if root is None:
                    w.head, w.deprel, root = 0, "root", i
                else:
                    w.head = root + 1
        # Cycles: follow heads from every word; a walk longer than n revisits a word.
        for i in range(n):
            seen = []
            j = i
            while j != -1 and j not in seen and len(seen) <= n:
                seen.append(j)
                j = words[j].head - 1
            if j != -1:
                cyc_start = seen.index(j)
                cycle = seen[cyc_start:]
                lines = ", ".join(str(words[k].line) for k in cycle)
                if not self.problem(words[cycle[0]].line, f"cycle in the dependency tree (lines {lines})", True,
                                    "cycle broken at its first word"):
                    return False
                k = min(cycle)
                if root is None:
                    words[k].head, words[k].deprel, root = 0, "root", k
                else:
                    words[k].head = root + 1
        return True


def _add_sentence(rec: DocRecord, sent: _Sentence) -> None:
    offset = len(rec.words)
    rec.sent_lines.append(sent.line)
    rec.sent_ids.append(sent.sent_id)
    rec.texts.append(sent.text)
    for i, w in enumerate(sent.words):
        rec.words.append(w.form)
        rec.spaces.append(w.space)
        rec.lemmas.append(w.lemma)
        rec.upos.append(w.upos)
        rec.xpos.append(w.xpos)
        rec.feats.append(w.feats)
        rec.heads.append(ROOT if w.head == 0 else offset + w.head - 1)
        rec.deps.append(w.deprel)
        rec.sent_starts.append(i == 0)


def _new_record(doc_id: str, source: str) -> DocRecord:
    return DocRecord(doc_id, [], [], [], [], [], [], [], [], [], source=source)


def iter_conllu(
    path: Union[str, Path],
    *,
    sents_per_doc: int = DEFAULT_SENTS_PER_DOC,
    repair: bool = False,
    report=None,
) -> Iterator[DocRecord]:
    """Read documents lazily. Raises `ConllUError` (file:line for each problem) at the first bad
    sentence unless `repair`, in which case each repair is passed to `report(msg)` (default: stderr).
    """
    path = Path(path)
    if not path.exists():
        raise ConllUError(f"{path}: no such file")
    reader = _Reader(path, repair)
    rec: Optional[DocRecord] = None
    n_docs = 0

    def fail() -> None:
        shown = reader.problems[:MAX_ERRORS_SHOWN]
        more = len(reader.problems) - len(shown)
        msg = "\n".join(f"{path}:{line}: {m}" for line, m in shown)
        if more > 0:
            msg += f"\n... and {more} more problems"
        msg += "\n(use --repair / repair=True to fix what can be fixed, with a report of each repair)"
        raise ConllUError(msg)

    def flush_repairs() -> None:
        for line, m in reader.repairs:
            msg = f"{path}:{line}: repaired: {m}"
            if report is not None:
                report(msg)
            else:
                import sys

                print(msg, file=sys.stderr)
        reader.repairs.clear()

    marked = False
    n_in_doc = 0
    for newdoc, sent in reader.read():
        if reader.problems:
            fail()
        if not reader.check_tree(sent):
            fail()
        flush_repairs()
        if newdoc is not None or rec is None or (not marked and n_in_doc >= sents_per_doc):
            if rec is not None and rec.words:
                n_docs += 1
                yield rec
            marked = newdoc is not None
            doc_id = newdoc[1] if marked and newdoc[1] else f"{path.stem}-doc{n_docs + 1:04d}"
            rec = _new_record(doc_id, str(path))
            n_in_doc = 0
        _add_sentence(rec, sent)
        n_in_doc += 1
    if reader.problems:
        fail()
    flush_repairs()
    if rec is not None and rec.words:
        n_docs += 1
        yield rec
    if n_docs == 0:
        raise ConllUError(f"{path}:1: no sentences in file")


def read_conllu(
    path: Union[str, Path],
    variant: str = "plain",
    *,
    genres: Optional[Iterable[str]] = None,
    sents_per_doc: int = DEFAULT_SENTS_PER_DOC,
    repair: bool = False,
    report=None,
) -> List[DocRecord]:
    """Read a whole file into documents, apply the genre filter and the variant.

    variant: "plain", "star" (lower-cased, no punctuation) or "nosyntax" (trivial chains).
    genres: GUM genres to keep (e.g. ["spoken"] or ["interview", "vlog"]); None keeps all.
    """
    from .variants import apply_variant, genre_filter

    records = list(iter_conllu(path, sents_per_doc=sents_per_doc, repair=repair, report=report))
    if genres:
        records = genre_filter(records, genres)
    return [r for r in (apply_variant(rec, variant) for rec in records) if r.words]
