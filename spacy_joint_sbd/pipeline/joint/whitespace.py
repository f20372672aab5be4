"""Whitespace tokens in whole-document mode: left out of the engine, attached afterwards.

spaCy's tokenizer emits whitespace tokens ("\n", runs of spaces; `token.is_space`). The engine
never sees them: it parses the words only, so no whitespace token can head a word or take part in
a move, and `SpacePlan` puts them back into the parse by fixed rules. (The alternative, a per-token
space flag in the validity of SB / LEFTARC / RIGHTARC, would add dead-end states to the transition
system and change the features of the words around each space.) Whatever whitespace follows a
closing bracket or quote, the mark stays with the sentence it closes, and so does a numbered
citation after it, `… computer. [1] The latter …`; a list label at a line's start stays with its
item, `1. Preheat the oven.` (`forbid_closing_starts`).
"""
import re
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IS_SPACE, ORTH, SPACY
from spacy.strings import hash_string
from spacy.tokens import Doc

from ...transition import Parse

CLOSING_BRACKETS = frozenset({")", "]", "}"})
"""Marks that only ever close: never a predicted sentence start."""
CLOSING_QUOTES = frozenset({'"', "'", "''", "”", "’", "»"})
"""Marks that close when glued to the token before them and followed by whitespace (`over." `,
`students' `): a quote that opens is glued to the token after it instead."""


class SpacePlan:
    """How whitespace tokens (`token.is_space`: "\n", runs of spaces) of a Doc are handled in
    whole-document mode: the engine parses the other tokens only, and each whitespace token is
    attached afterwards, so that it never heads a word and starts a sentence only when forced.

    For each maximal run of whitespace tokens between words p (before) and j (after):
    - no token of the run is forced (is_sent_start True; token 0 counts as forced): the run
      belongs to p's sentence and every token of it attaches to p;
    - tokens before the run's first forced token attach to p; each forced token f starts a
      sentence that runs to the next forced token. The last one joins j's sentence (its tokens
      attach to j, the boundary moves from j to f, and j is forced in the engine) unless j is
      forced itself or there is no j: then, like the earlier ones, it is a sentence of whitespace
      only, rooted at f (the rest attach to f).
    Whitespace tokens get the label `dep` (`SPACE_LABEL`) and probability 1.0 / 0.0 of starting a
    sentence as they do / do not.
    """

    def __init__(self, presets: numpy.ndarray, space: numpy.ndarray):
        n = len(presets)
        self.n = n
        self.keep = numpy.flatnonzero(~space)
        self.space = space
        self.heads = numpy.full((n,), -1, dtype=numpy.int64)  # of whitespace tokens (doc index)
        self.starts = numpy.zeros((n,), dtype=bool)            # of whitespace tokens
        self.unstart = []                                      # words whose boundary moves left
        word_presets = presets.copy()
        i = 0
        while i < n:
            if not space[i]:
                i += 1
                continue
            a = i
            while i < n and space[i]:
                i += 1
            b = i
            p = a - 1 if a > 0 else None
            j = b if b < n else None
            forced = [k for k in range(a, b) if presets[k] == 1 or k == 0]
            first = forced[0] if forced else b
            self.heads[a:first] = p if p is not None else -1
            for x, f in enumerate(forced):
                end = forced[x + 1] if x + 1 < len(forced) else b
                self.starts[f] = True
                if x == len(forced) - 1 and j is not None and presets[j] != 1:
                    self.heads[f:end] = j
                    self.unstart.append(j)
                    word_presets[j] = 1
                else:
                    self.heads[f:end] = f
                    self.heads[f] = -1
        self.word_presets = word_presets[self.keep]
        if len(self.word_presets):
            self.word_presets[0] = 1

    def expand(self, parse: Parse) -> Parse:
        """A parse of the words only → a parse of the whole Doc (label -1 = `SPACE_LABEL`)."""
        n, keep = self.n, self.keep
        heads = numpy.full((n,), -1, dtype=numpy.int32)
        labels = numpy.full((n,), -1, dtype=numpy.int32)
        starts = numpy.zeros((n,), dtype=bool)
        probs = numpy.zeros((n,), dtype=numpy.float64)
        word_heads = numpy.asarray(parse.heads)
        heads[keep] = numpy.where(word_heads >= 0, keep[numpy.maximum(word_heads, 0)], -1) if len(keep) else []
        labels[keep] = parse.labels
        starts[keep] = parse.sent_starts
        if parse.sent_start_probs is not None:
            probs[keep] = parse.sent_start_probs
        sp = self.space
        heads[sp] = self.heads[sp]
        starts[sp] = self.starts[sp]
        probs[sp] = self.starts[sp].astype(numpy.float64)
        for j in self.unstart:
            starts[j] = False
            probs[j] = 0.0
        if n:
            starts[0] = True
            probs[0] = 1.0
        return Parse(heads, labels, starts, probs)


SPACE_LABEL = "dep"
"""The label of every whitespace token's arc (as spaCy's parser gives to attached whitespace)."""


def mark_columns(doc: Doc) -> numpy.ndarray:
    """(len(doc), 3) ORTH, SPACY, IS_SPACE: what `closing_marks` and `citation_marks` read."""
    return doc.to_array([ORTH, SPACY, IS_SPACE]).reshape((len(doc), 3))


def closing_marks(doc: Doc, arr: Optional[numpy.ndarray] = None,
                  cites: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """Which tokens of `doc` close what came before them: a closing bracket, or a quote glued to
    the word before it and followed by whitespace (a space, a whitespace token, or the end) or by
    a citation (`left."[3] She`, `citation_marks`). `arr`: the Doc's `mark_columns`, `cites`:
    its `citation_marks`, if found already."""
    n = len(doc)
    out = numpy.zeros((n,), dtype=bool)
    arr = mark_columns(doc) if arr is None else arr
    # the few tokens whose ORTH may be a closing mark (a 12-bit filter: two array operations, where
    # comparing with each of the nine ids took most of a short text's bookkeeping), then each in turn
    for i in numpy.flatnonzero(_CLOSING_FILTER[arr[:, 0] & _FILTER_MASK]).tolist():
        orth = int(arr[i, 0])
        if orth in _BRACKET_SET:
            out[i] = True
        elif orth in _QUOTE_SET and i > 0 and arr[i - 1, 1] == 0 and arr[i - 1, 2] == 0:  # glued to a word
            if cites is None:
                cites = citation_marks(doc, arr)
            # spaced: a space, a whitespace token or a citation after it, or the end
            out[i] = i == n - 1 or arr[i, 1] == 1 or arr[i + 1, 2] == 1 or bool(cites[i + 1])
    return out


def citation_marks(doc: Doc, arr: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """Which tokens of `doc` belong to a numbered citation that closes the text before it: `[`, a
    number, `]` (`… on your computer. [1] The latter …`, wikiHow's and Wikipedia's references),
    except where a line break comes right before the `[` (a reference list's `[1] Smith, J.`).
    The `[` and the number are marked; the `]` is a closing bracket already (`closing_marks`).
    `arr`: the Doc's `mark_columns`, if read already."""
    n = len(doc)
    out = numpy.zeros((n,), dtype=bool)
    if n < 4:
        return out
    orth = (mark_columns(doc) if arr is None else arr)[:, 0]
    opens = numpy.flatnonzero(orth[1:-2] == _OPEN_BRACKET_ID) + 1
    for i in opens.tolist():
        if orth[i + 2] != _CLOSE_BRACKET_ID or not doc[i + 1].is_digit:
            continue
        before = doc[i - 1]
        if before.is_space and ("\n" in before.text or "\r" in before.text):
            continue
        out[i:i + 2] = True
    return out


_LABEL = re.compile(r"^(?:[0-9]{1,3}|[A-Za-z]|[ivxlc]{2,5}|[IVXLC]{2,5})$")
"""What a list label's number may be: `1`, `12`, `a`, `B`, `iv`, `XII` (a single `i` / `I` is a letter)."""
_LABEL_MARKS = frozenset({".", ")"})
BULLETS = frozenset("•*·◦▪▫‣●○■□►▸➢➤✓✔◆◇♦")
"""Marks that open a bulleted list item (`• Budget review`): a label too (`newline_boundaries`
makes the bullet a sentence start)."""
_OPENING = frozenset({'"', "'", "“", "‘", "«", "(", "[", "{", "``"})
"""Marks that may open an item after its label, glued to its first word."""


def list_items(doc: Doc, arr: Optional[numpy.ndarray] = None) -> List[Tuple[int, int, int]]:
    """The list items of `doc`, as (label, mark, word) token indices: at a line's start (the
    document's, or after whitespace holding a line break) a number, letter or roman numeral glued
    to `.` or `)` (`1. Preheat the oven.`, `2) Target …`, `IV. Results`; `a.`, `B.` are one token
    to spaCy: then mark = label) or a bullet (`• Budget review`, `BULLETS`; mark = label), then a
    space and the item's first word (after any opening quotes or brackets glued to it).
    `arr`: the Doc's `mark_columns`, if read already."""
    n = len(doc)
    if n < 2:
        return []
    arr = mark_columns(doc) if arr is None else arr
    out = []
    for i in line_starts(doc, arr).tolist():
        text = doc[i].text
        if text in BULLETS or (len(text) > 1 and text[-1] in _LABEL_MARKS and _LABEL.match(text[:-1])):
            mark = i
        elif i + 1 < n and not arr[i, 1] and doc[i + 1].text in _LABEL_MARKS and _LABEL.match(text):
            mark = i + 1  # the label glued to its mark
        else:
            continue
        if mark + 1 < n and arr[mark, 1] and not arr[mark + 1, 2]:  # a space, then a word
            j = mark + 1
            while j + 1 < n and doc[j].text in _OPENING and not arr[j, 1] and not arr[j + 1, 2]:
                j += 1  # `10. "We believe …`: past the opening quote
            out.append((i, mark, j))
    return out


def list_labels(doc: Doc, arr: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """Which tokens of `doc` a predicted sentence start must not fall on inside a list item
    (`list_items`): a label's mark when it is a token of its own, any openers, and the item's
    first word. The label and its item are one sentence (UD English EWT and GUM train never make
    such a label a sentence of its own: 0 of 96). `arr`: the Doc's `mark_columns`, if read
    already."""
    out = numpy.zeros((len(doc),), dtype=bool)
    for label, mark, word in list_items(doc, arr):
        out[label + 1:word + 1] = True
    return out


def line_starts(doc: Doc, arr: numpy.ndarray) -> numpy.ndarray:
    """The document's first non-space token and every non-space token right after whitespace
    that holds a line break."""
    is_space = arr[:, 2] == 1
    if not is_space.any():  # no whitespace token (most short texts): the first token alone
        return numpy.zeros((min(len(arr), 1),), dtype=numpy.int64)
    words = numpy.flatnonzero(~is_space)
    if not len(words):
        return words
    space = numpy.flatnonzero(is_space[:-1])
    after = [int(k) + 1 for k in space.tolist()
             if not arr[k + 1, 2] and ("\n" in doc[int(k)].text or "\r" in doc[int(k)].text)]
    return numpy.asarray(sorted({int(words[0]), *after}), dtype=numpy.int64)


def forbid_closing_starts(doc: Doc, presets: numpy.ndarray, arr: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """`presets` (the engine's int8: 1 forced, 0 forbidden, -1 predicted) with the predicted ones
    set to forbidden at `closing_marks` and `citation_marks` (the mark stays with the sentence it
    closes) and at `list_labels` (the label stays with its item). Forced boundaries stay forced.

    Why: spaCy's tokenizer counts only " " as a token's trailing space, so a closing `"`
    followed by a line break or a tab looks like an opening quote glued to the next word to
    the frozen tok2vec (it reads SPACY), and the tagger and parser, which learnt from documents
    without whitespace tokens, put the boundary before the quote instead of after it.
    `arr`: the Doc's `mark_columns`, if read already. `presets` itself is returned when no
    predicted token is forbidden, else a copy."""
    if len(doc) < 2:
        return presets
    arr = mark_columns(doc) if arr is None else arr
    if _CLOSING_FILTER[arr[:, 0] & _FILTER_MASK].any():
        cites = citation_marks(doc, arr)
        forbid = closing_marks(doc, arr, cites) | cites | list_labels(doc, arr)
    else:  # no closing mark, so no citation either (its `]` is one): most texts
        forbid = list_labels(doc, arr)
    if not forbid.any():
        return presets
    out = presets.copy()
    out[forbid & (out == -1)] = 0
    return out


def closing_quote_tags(doc: Doc, attrs: numpy.ndarray, names: Sequence[str],
                       arr: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """The engine's feature rows `attrs` (columns `names`) with the TAG of each closing quote
    (`closing_marks`) that a tagger gave the opening-quote tag (PTB "``", for the reason in
    `forbid_closing_starts`) read as the closing-quote tag "''": with the opening tag the parser
    sees no boundary after the quote at all. `token.tag_` itself stays as the tagger set it.
    `arr`: the Doc's `mark_columns`, if read already."""
    if "TAG" not in names or len(doc) < 2:
        return attrs
    col = list(names).index("TAG")
    opening = attrs[:, col] == _OPENING_TAG
    if not opening.any():
        return attrs
    wrong = closing_marks(doc, arr) & opening
    if not wrong.any():
        return attrs
    out = attrs.copy()
    out[wrong, col] = _CLOSING_TAG
    return out


_BRACKET_SET = frozenset(hash_string(m) for m in CLOSING_BRACKETS)
_QUOTE_SET = frozenset(hash_string(m) for m in CLOSING_QUOTES)
_FILTER_MASK = 0xFFF
_CLOSING_FILTER = numpy.zeros((_FILTER_MASK + 1,), dtype=bool)
"""True at the low 12 bits of each closing mark's ORTH: a token elsewhere is no closing mark."""
_CLOSING_FILTER[[h & _FILTER_MASK for h in _BRACKET_SET | _QUOTE_SET]] = True
_OPEN_BRACKET_ID, _CLOSE_BRACKET_ID = numpy.uint64(hash_string("[")), numpy.uint64(hash_string("]"))
_OPENING_TAG, _CLOSING_TAG = numpy.uint64(hash_string("``")), numpy.uint64(hash_string("''"))
