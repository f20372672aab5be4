"""spaCy's tokenizer in time linear in the length of a run of characters without whitespace.

spaCy's `Tokenizer` strips affixes from a whitespace-free span one at a time, and each step runs
the suffix regex (several hundred `$`-anchored alternatives) over the whole rest of the span: a
span of n characters that splits into n tokens costs O(n²) regex work. Ordinary words are short,
but a run of one mark is not rare in real files (a ruler of `=` or `*`, a line of quotes or
brackets in pasted code): 10,000 `=` took 36 s in spaCy 3.8's English tokenizer, `"` 19 s, and
time grows fourfold per doubling, so a 100 kB ruler stalls a whole document for an hour.

`BoundedTokenizer` is spaCy's `Tokenizer` with two bounds, and the same tokens otherwise:

- `find_suffix` runs the suffix regex over the last `SUFFIX_WINDOW` characters of a long span
  only, and falls back to the whole span when the match found there begins within
  `SUFFIX_MARGIN` characters of the window's start (a suffix alternative that repeats, such as a
  run of dots, might reach further left; a lookbehind at the window's edge sees nothing before
  it). Suffixes are a few characters long, so the window's match is the span's.
- `__call__` cuts a whitespace-free run longer than `MAX_RUN` characters into pieces of
  `MAX_RUN` and tokenizes them one by one (`Doc.from_docs`, the text kept character for
  character), so the slicing and hashing each step does over the rest of a span stay bounded.
  No word of ordinary text is that long (the longest whitespace-free run in the treebanks and
  the running text of ../shared/data has 534 characters); a longer run is split at every
  `MAX_RUN` characters, and the first token of each later piece gets `is_sent_start = False`:
  a cut is where the bound fell, not a boundary (a 100 kB ruler stays one sentence; the joint
  parser honours a forbidden start).

A text with a lone surrogate (a `str` made with `errors="surrogateescape"`, or cut inside a
surrogate pair) cannot be hashed as UTF-8: spaCy's tokenizer stops with a `UnicodeEncodeError`
that gives the position in the span it was reading; ours gives the position in the text.

`bound_tokenizer(nlp)` gives `nlp` a `BoundedTokenizer` with its tokenizer's rules. The default
pipeline's tokenizer callback (`corpus.tokenizer_rules`, `[nlp.after_creation]`) calls it, so a
saved pipeline gets it whenever it is built from its config, the already saved ones included
(`Tokenizer.from_disk` then loads the saved rules into it).
"""
import re
from typing import List

import numpy

from spacy.attrs import NORM, ORTH, SENT_START, SPACY
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc

MAX_RUN = 1000
"""Characters of a whitespace-free run tokenized at once; longer runs go in pieces of this size."""
SUFFIX_WINDOW = 256
"""Characters at a span's end that `find_suffix` searches when the span is longer."""
SUFFIX_MARGIN = 64
"""A window's match that begins this close to the window's start is checked on the whole span."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def cut_long_runs(text: str, max_run: int = MAX_RUN) -> List[str]:
    """`text` in pieces that join to `text`, cut only inside whitespace-free runs longer than
    `max_run`, at every `max_run` characters of such a run. ValueError if `max_run` < 1."""
    if max_run < 1:
        raise ValueError(f"cut_long_runs: max_run must be at least 1, not {max_run}")
    pieces: List[str] = []
    start = 0
    for match in re.finditer(r"\S{%d,}" % (max_run + 1), text):
        for cut in range(match.start() + max_run, match.end(), max_run):
            pieces.append(text[start:cut])
            start = cut
    pieces.append(text[start:])
    return pieces


class BoundedTokenizer(Tokenizer):
    """spaCy's `Tokenizer`, linear in the length of a whitespace-free run (module doc)."""

    def __call__(self, string: str) -> Doc:
        if not isinstance(string, str):
            raise TypeError(f"the tokenizer reads a str, not {type(string).__name__}")
        try:
            pieces = cut_long_runs(string)
            if len(pieces) == 1:
                return Tokenizer.__call__(self, string)
            docs = [Tokenizer.__call__(self, piece) for piece in pieces]
        except UnicodeEncodeError:
            found = _SURROGATE.search(string)
            if found is None:
                raise
            i = found.start()
            raise UnicodeEncodeError("utf-8", string, i, i + 1, f"a lone surrogate (U+{ord(string[i]):04X}) at "
                                     f"character {i} of the text is not Unicode text") from None
        return join_pieces(self.vocab, docs)

    def find_suffix(self, string: str) -> int:
        if self.suffix_search is None or len(string) <= SUFFIX_WINDOW:
            return Tokenizer.find_suffix(self, string)
        match = self.suffix_search(string[-SUFFIX_WINDOW:])
        if match is None:
            return 0
        if match.start() < SUFFIX_MARGIN:  # it may reach further left: ask the whole span
            return Tokenizer.find_suffix(self, string)
        return match.end() - match.start()


def join_pieces(vocab, docs: List[Doc]) -> Doc:
    """The Doc of the pieces' tokens in order, with their texts, whitespace and norms (what a
    tokenizer sets), and `is_sent_start = False` on each later piece's first token. Built from
    their arrays at once: `Doc.from_docs` makes a Token object per token three times over, which
    took 8.6 s for 400,000 one-character tokens (0.24 s from the arrays), growing faster than the
    text."""
    arrays = [d.to_array([ORTH, NORM, SPACY]) for d in docs if len(d)]
    if not arrays:
        return Doc(vocab)
    rows = numpy.concatenate(arrays)
    strings = vocab.strings
    doc = Doc(vocab, words=[strings[o] for o in rows[:, 0].tolist()], spaces=rows[:, 2].astype(bool).tolist())
    starts = numpy.zeros((len(rows), 1), dtype=numpy.uint64)  # 0: not set
    cuts = numpy.cumsum([len(a) for a in arrays[:-1]])
    starts[cuts, 0] = numpy.uint64(-1 & 0xFFFFFFFFFFFFFFFF)  # -1: no sentence starts here
    return doc.from_array([NORM, SENT_START], numpy.concatenate([rows[:, 1:2], starts], axis=1))


def bound_tokenizer(nlp: Language) -> Language:
    """Replace `nlp.tokenizer`, if it is spaCy's own `Tokenizer`, by a `BoundedTokenizer` with the
    same rules and vocab; any other tokenizer (a `BoundedTokenizer` already, a user's own) is kept."""
    old = nlp.tokenizer
    if type(old) is not Tokenizer:
        return nlp
    nlp.tokenizer = BoundedTokenizer(
        old.vocab, rules=old.rules, prefix_search=old.prefix_search, suffix_search=old.suffix_search,
        infix_finditer=old.infix_finditer, token_match=old.token_match, url_match=old.url_match,
        faster_heuristics=old.faster_heuristics)
    return nlp
