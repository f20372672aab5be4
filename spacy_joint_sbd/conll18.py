"""The CoNLL 2018 shared task's scores of parsing raw text: Tokens, Sentences, Words, UAS and LAS as
precision, recall and F1, by the definitions of its evaluator (`conll18_ud_eval.py`).

The system's text and the gold text must be the same characters once whitespace is removed (a
`ValueError` names the document and the first difference otherwise); every offset here counts
those characters only, so the two sides may lay the text out differently. A token or a sentence is
a span of them. A system token is correct if a gold token has the same span; a system sentence if
a gold sentence starts and ends at the same characters (each document's first sentence counts: one
misplaced boundary costs the two sentences beside it). Words are aligned by their spans. The words
of a multi-word token share its span; inside the smallest stretch of text that no multi-word token
of either side crosses, words are aligned by the longest common subsequence of their lower-cased
forms, as the evaluator does. Our pipeline writes no multi-word tokens; gold files have them
(`corpus.raw_text` keeps them). An aligned word is correct for UAS if its head is aligned to the
gold word's head (or both are roots), for LAS if its universal label (the part before `:`) is also
the gold one. Precision is over the system's words, recall over the gold words: a word the system
tokenized differently is an error on both sides.

Counts add over documents, and their sum is the evaluator's figure on files that concatenate the
documents. `scoring` counts boundaries per token and heads on gold tokens; this module is for raw
text, where the tokens are the system's own.
"""
from dataclasses import dataclass, field, fields
from itertools import accumulate
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .corpus.labels import from_spacy_dep
from .corpus.raw_text import RawDoc, raw_from_record
from .corpus.record import ROOT, DocRecord

Span = Tuple[int, int]


class Word(NamedTuple):
    start: int
    end: int
    """Its token's span over the document's non-space characters."""
    form: str
    head: Optional[int]
    """Index of its head in the document's words; -1 for a root; None for none that can be right."""
    label: str
    """The universal part of its label (before `:`)."""
    multiword: bool


@dataclass
class Analysis:
    """One document's tokens, words and sentences as spans over its non-space characters."""

    doc_id: str
    chars: str
    """The characters of its tokens without whitespace (of its text, for `sentences_only`)."""
    tokens: List[Span]
    words: List[Word]
    sentences: List[Span]
    has_parse: bool = True
    """False where heads and labels are missing: UAS and LAS are then not scored."""
    sentences_only: bool = False
    """True for a sentence splitter's output: only Sentences is scored."""


def _nonspace_offsets(text: str) -> List[int]:
    """For each offset of `text` (and its end), how many non-space characters precede it."""
    return [0, *accumulate(0 if c.isspace() else 1 for c in text)]


def analysis(doc_id: str, text: str, tokens: Sequence[Span], words: Sequence[Tuple[str, int, Optional[int], str]],
             sentences: Sequence[Span], has_parse: bool = True) -> Analysis:
    """An `Analysis` from character offsets into `text`: `tokens` as (start, end) spans, `words` as
    (form, token index, head word index or -1 or None, label), `sentences` as (start, end) spans.
    A token of whitespace alone is a `ValueError`; whitespace inside a token is left out."""
    pos = _nonspace_offsets(text)
    spans = [(pos[a], pos[b]) for a, b in tokens]
    for i, (a, b) in enumerate(spans):
        if a == b:
            raise ValueError(f"document {doc_id!r}: token {i} ({text[tokens[i][0]:tokens[i][1]]!r}) has no "
                             "character that is not whitespace")
    chars = "".join("".join(text[a:b].split()) for a, b in tokens)
    multi = [0] * len(spans)
    for _, t, _, _ in words:
        multi[t] += 1
    out = [Word(*spans[t], form, head, label.split(":", 1)[0], multi[t] > 1) for form, t, head, label in words]
    sents = [(pos[a], pos[b]) for a, b in sentences if pos[a] < pos[b]]
    return Analysis(doc_id, chars, spans, out, sents, has_parse)


def from_raw_doc(doc: RawDoc) -> Analysis:
    """A treebank document rebuilt by `corpus.raw_text`: the gold side (multi-word tokens kept)."""
    ends = doc.sent_words[1:] + [len(doc.words)]
    sentences = [(doc.tokens[doc.words[a].token][0], doc.tokens[doc.words[b - 1].token][1])
                 for a, b in zip(doc.sent_words, ends) if b > a]
    return analysis(doc.doc_id, doc.text, doc.tokens, doc.words, sentences)


def from_record(rec: DocRecord) -> Analysis:
    """A `DocRecord` (each word its own token: `corpus.conllu` keeps no multi-word tokens), as
    `corpus.raw_text.raw_from_record` writes it out."""
    return from_raw_doc(raw_from_record(rec))


def from_doc(doc, doc_id: str = "") -> Analysis:
    """A spaCy Doc's tokens, parse and sentences (`doc.sents`). Whitespace tokens are no words; a
    word attached to one has a head that cannot be right. Without a parse only Tokens, Sentences
    and Words are scored; a Doc without sentence boundaries is a `ValueError`."""
    has_parse = doc.has_annotation("DEP")
    if len(doc) and not (has_parse or doc.has_annotation("SENT_START")):
        raise ValueError(f"document {doc_id!r}: the Doc has no sentence boundaries")
    solid = [t for t in doc if not t.is_space]
    index = {t.i: k for k, t in enumerate(solid)}
    words = [(t.text, k, (ROOT if t.head.i == t.i else index.get(t.head.i)) if has_parse else None,
              from_spacy_dep(t.dep_) if has_parse else "") for k, t in enumerate(solid)]
    sentences = [(s[0].idx, s[-1].idx + len(s[-1])) for s in doc.sents] if len(doc) else []
    return analysis(doc_id, doc.text, [(t.idx, t.idx + len(t)) for t in solid], words, sentences, has_parse)


def from_segments(text: str, sentences: Iterable, doc_id: str = "") -> Analysis:
    """`segment`'s `Sentence`s of `text` with their parse (`with_parse=True`): tokens with
    character offsets, heads within the sentence (-1 for the root) and labels. Their heads count
    from the sentence's first word, so a head on whitespace before it would read as a root: the
    joint parser attaches no word to whitespace; `from_doc` scores any other pipeline exactly."""
    tokens: List[Span] = []
    words = []
    spans: List[Span] = []
    has_parse = True
    for s in sentences:
        if s.tokens is None:
            raise ValueError(f"document {doc_id!r}: a sentence without tokens (segment with_parse=False)")
        spans.append((s.start_char, s.end_char))
        solid = [t for t in s.tokens if t["text"].strip()]
        index = {j: len(tokens) + k for k, j in enumerate(i for i, t in enumerate(s.tokens) if t["text"].strip())}
        for t in solid:
            head = t["head"]
            has_parse = has_parse and head is not None
            words.append((t["text"], len(tokens), ROOT if head == ROOT else index.get(head), t["dep"] or ""))
            tokens.append((t["start_char"], t["end_char"]))
    return analysis(doc_id, text, tokens, words, spans, has_parse)


def from_sentence_spans(text: str, spans: Iterable[Span], doc_id: str = "") -> Analysis:
    """A sentence splitter's (start, end) character spans of `text`: only Sentences is scored."""
    pos = _nonspace_offsets(text)
    sents = sorted((pos[a], pos[b]) for a, b in spans if pos[a] < pos[b])
    return Analysis(doc_id, "".join(text.split()), [], [], sents, has_parse=False, sentences_only=True)


@dataclass
class Score:
    """Gold, system and correct counts of one measure (`aligned`: the words aligned, for UAS/LAS)."""

    gold: int = 0
    system: int = 0
    correct: int = 0
    aligned: int = 0

    @property
    def precision(self) -> float:
        return self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        return 2 * self.correct / (self.gold + self.system) if self.gold + self.system else 0.0

    def add(self, other: "Score") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


MEASURES = ("tokens", "sentences", "words", "uas", "las")


@dataclass
class Counts:
    """The five measures' counts; `add` another document's, `scores()` for the ratios."""

    tokens: Score = field(default_factory=Score)
    sentences: Score = field(default_factory=Score)
    words: Score = field(default_factory=Score)
    uas: Score = field(default_factory=Score)
    las: Score = field(default_factory=Score)
    has_words: bool = True
    has_parse: bool = True

    def add(self, other: "Counts") -> None:
        for name in MEASURES:
            getattr(self, name).add(getattr(other, name))
        self.has_words = self.has_words and other.has_words
        self.has_parse = self.has_parse and other.has_parse

    def scores(self) -> Dict[str, Optional[Dict[str, float]]]:
        """Per measure `{"p", "r", "f"}` as fractions; None for what the system did not give."""
        given = {"tokens": self.has_words, "sentences": True, "words": self.has_words,
                 "uas": self.has_words and self.has_parse, "las": self.has_words and self.has_parse}
        return {name: {"p": s.precision, "r": s.recall, "f": s.f1} if given[name] else None
                for name, s in ((n, getattr(self, n)) for n in MEASURES)}


def spans_score(gold: Sequence[Span], system: Sequence[Span]) -> Score:
    """Spans of the system that a gold span has exactly (both sorted by start)."""
    correct = gi = si = 0
    while gi < len(gold) and si < len(system):
        if system[si][0] < gold[gi][0]:
            si += 1
        elif gold[gi][0] < system[si][0]:
            gi += 1
        else:
            correct += gold[gi][1] == system[si][1]
            gi, si = gi + 1, si + 1
    return Score(len(gold), len(system), correct)


def _beyond(words: Sequence[Word], i: int, end: int) -> bool:
    """Is word `i` past a multi-word stretch that ends at `end`?"""
    if i >= len(words):
        return True
    return words[i].start >= end if words[i].multiword else words[i].end > end


def _multiword_stretch(gold: Sequence[Word], system: Sequence[Word], gi: int, si: int) -> Tuple[int, int, int, int]:
    """The smallest stretch from word `gi` / `si` (one of them in a multi-word token) that no
    multi-word token crosses: (gold start, system start, gold end, system end) word indices."""
    if gold[gi].multiword:
        end = gold[gi].end
        if not system[si].multiword and system[si].start < gold[gi].start:
            si += 1
    else:
        end = system[si].end
        if not gold[gi].multiword and gold[gi].start < system[si].start:
            gi += 1
    gs, ss = gi, si
    while not _beyond(gold, gi, end) or not _beyond(system, si, end):
        if gi < len(gold) and (si >= len(system) or gold[gi].start <= system[si].start):
            word, gi = gold[gi], gi + 1
        else:
            word, si = system[si], si + 1
        if word.multiword and word.end > end:
            end = word.end
    return gs, ss, gi, si


def _lcs_pairs(gold: Sequence[str], system: Sequence[str]) -> List[Tuple[int, int]]:
    """Pairs of indices of a longest common subsequence of two lists of lower-cased forms, the
    evaluator's choice among equally long ones (an equal pair is taken as soon as it is met)."""
    n, m = len(gold), len(system)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for g in reversed(range(n)):
        for s in reversed(range(m)):
            lcs[g][s] = max(lcs[g + 1][s + 1] + 1 if gold[g] == system[s] else 0, lcs[g + 1][s], lcs[g][s + 1])
    pairs, g, s = [], 0, 0
    while g < n and s < m:
        if gold[g] == system[s]:
            pairs.append((g, s))
            g, s = g + 1, s + 1
        elif lcs[g][s] == lcs[g + 1][s]:
            g += 1
        else:
            s += 1
    return pairs


def align_words(gold: Sequence[Word], system: Sequence[Word]) -> Dict[int, int]:
    """System word index → gold word index of each aligned pair."""
    aligned: Dict[int, int] = {}
    gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].multiword or system[si].multiword:
            gs, ss, gi, si = _multiword_stretch(gold, system, gi, si)
            forms_g = [w.form.lower() for w in gold[gs:gi]]
            forms_s = [w.form.lower() for w in system[ss:si]]
            aligned.update((ss + s, gs + g) for g, s in _lcs_pairs(forms_g, forms_s))
        elif (gold[gi].start, gold[gi].end) == (system[si].start, system[si].end):
            aligned[si] = gi
            gi, si = gi + 1, si + 1
        elif gold[gi].start <= system[si].start:
            gi += 1
        else:
            si += 1
    return aligned


def _first_difference(gold: str, system: str) -> int:
    """The first offset at which two strings differ (their common length if one extends the other)."""
    lo, hi = 0, min(len(gold), len(system))
    while lo < hi:  # binary search on equal prefixes: texts of a megabyte compare in C
        mid = (lo + hi + 1) // 2
        if gold[:mid] == system[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def score_doc(gold: Analysis, system: Analysis) -> Counts:
    """The counts of one system document against its gold document."""
    if gold.chars != system.chars:
        at = _first_difference(gold.chars, system.chars)
        raise ValueError(f"document {gold.doc_id!r}: the system's text differs from the gold text at non-space "
                         f"character {at}: gold {gold.chars[at:at + 20]!r}, system {system.chars[at:at + 20]!r}")
    c = Counts(sentences=spans_score(gold.sentences, sorted(system.sentences)),
               has_words=not system.sentences_only, has_parse=system.has_parse and not system.sentences_only)
    if system.sentences_only:
        return c
    c.tokens = spans_score(gold.tokens, system.tokens)
    to_gold = align_words(gold.words, system.words)
    c.words = Score(len(gold.words), len(system.words), len(to_gold))
    uas = las = 0
    for s, g in to_gold.items():
        gw, sw = gold.words[g], system.words[s]
        if gw.head is None or sw.head is None:
            continue
        head_ok = gw.head == sw.head == ROOT or (gw.head != ROOT and sw.head != ROOT and to_gold.get(sw.head) == gw.head)
        uas += head_ok
        las += head_ok and gw.label == sw.label
    c.uas = Score(len(gold.words), len(system.words), uas, len(to_gold))
    c.las = Score(len(gold.words), len(system.words), las, len(to_gold))
    return c


def score_analyses(golds: Iterable[Analysis], systems: Iterable[Analysis]) -> Counts:
    """Counts summed over aligned lists of gold and system documents."""
    golds, systems = list(golds), list(systems)
    if len(golds) != len(systems):
        raise ValueError(f"{len(systems)} system documents but {len(golds)} gold documents")
    total = Counts()
    for g, s in zip(golds, systems):
        total.add(score_doc(g, s))
    return total
