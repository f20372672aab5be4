"""`BoundaryModel`: P(token starts a sentence) from lexical and layout evidence, learnt from text.

A hashed logistic-regression model over the gap before every non-space token (`features.pyx`),
trained by averaged SGD on documents whose boundaries were derived from punctuation (millions of
words of running text: `corpus.running_text`) or given by a treebank, in any variant (plain,
lower-cased, unpunctuated, star). Positions are independent, so prediction is one linear pass
(no search) and the output is a probability per token that any later component (the joint
parser's SB score, `segment --threshold`) can read. Platt scaling on held-out text makes it
calibrated (`calibrate`).

Documents are encoded over their non-space tokens: a whitespace token (a line break, a blank
line) never starts a sentence here, it is *evidence* about the gap it stands in (`COL_GAP`).
"""
import math
import re
from typing import Dict, Iterable, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IDX, IS_SPACE, LOWER, ORTH, PREFIX, SENT_START, SHAPE, SPACY, SUFFIX
from spacy.pipeline.sentencizer import Sentencizer
from spacy.tokens import Doc

from ..learn import HashedWeights
from .features import N_ATTR_COLS, score_doc, train_doc

DEFAULT_N_ROWS = 1 << 21
DEFAULT_WINDOW = 40
"""Tokens either side over which the punctuation and case regimes of a gap are measured."""

FINAL_MARKS = frozenset(Sentencizer.default_punct_chars) | {"…"}
CLOSERS = frozenset({'"', "'", ")", "]", "}", "”", "’", "»", "''", "›", "」", "』"})
MARK_WORD, MARK_FINAL, MARK_PUNCT, MARK_CLOSER = 0, 1, 2, 3
_COLS = [ORTH, LOWER, SHAPE, SUFFIX, PREFIX, IS_SPACE]
_CACHE_MAX = 1_000_000


def mark_class(text: str, is_punct: bool) -> int:
    """MARK_FINAL for a token made only of sentence-final marks (`.`, `?!`, `...`, `。`), MARK_CLOSER
    for a closing quote or bracket, MARK_PUNCT for other punctuation, MARK_WORD otherwise."""
    if text and set(text) <= FINAL_MARKS:
        return MARK_FINAL
    if text in CLOSERS:
        return MARK_CLOSER
    return MARK_PUNCT if is_punct else MARK_WORD


def _density_bins(flags: numpy.ndarray, window: int, cuts: Sequence[float],
                  segments: Optional[Tuple[numpy.ndarray, numpy.ndarray]] = None) -> numpy.ndarray:
    """For each position, the share of `flags` in the window of ±`window` positions, binned:
    0 if none, else 1 + the number of `cuts` it reaches. `segments`: (start, end) per position,
    the [start, end) span the window may not leave (a paragraph); None: the whole sequence."""
    m = len(flags)
    if segments is None and m <= window + 1:
        # every window holds the whole sequence (a short text): one share for all, the same
        # float64 division as below, without a dozen array operations per call
        count = int(numpy.count_nonzero(flags))
        share = count / m if m else 0.0
        value = 0 if count == 0 else 1 + sum(share >= c for c in cuts)
        return numpy.full(m, value, dtype=numpy.uint64)
    cs = numpy.concatenate([[0], numpy.cumsum(flags, dtype=numpy.int64)])
    j = numpy.arange(m)
    lo = numpy.maximum(0 if segments is None else segments[0], j - window)
    hi = numpy.minimum(m if segments is None else segments[1], j + window + 1)
    count = cs[hi] - cs[lo]
    share = count / (hi - lo)
    out = numpy.where(count > 0, 1, 0).astype(numpy.uint64)
    for c in cuts:
        out += (share >= c).astype(numpy.uint64)
    return out


LINE_NEIGHBOURS = 10
"""Lines either side (blank lines skipped) whose lengths set a line's common width (`line_codes`)."""
FULL_SHARE = 0.8
"""A line is full when it reaches this share of the longest line among its neighbours."""
REGULAR_SHARE = 0.6
"""The neighbourhood is regular (hard-wrapped) when this share of its lines is full."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_breaks(text: str) -> int:
    """Line breaks in `text` in every newline convention: `\n`, `\r\n` and a lone `\r` (old Mac
    files) count one each (`_LINE_BREAK`'s matches): the layout gap reads them so, and
    `newline_boundaries` too."""
    return text.count("\n") + text.replace("\r\n", "").count("\r")


def doc_text(doc: Doc, orth: numpy.ndarray) -> str:
    """`doc.text` from the tokens' ORTH ids (`orth`, one per token): the same string, without
    making a Token object per token (which `Doc.text` does)."""
    if len(orth) != len(doc):
        raise ValueError(f"orth has {len(orth)} ids for a Doc of {len(doc)} tokens")
    strings = doc.vocab.strings
    spacy_ = doc.to_array(SPACY).reshape((len(doc),)).tolist()
    return "".join([strings[o] + " " if w else strings[o] for o, w in zip(orth.tolist(), spacy_)])


def paragraph_spans(gap: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(start, end) per token: the [start, end) positions of its paragraph, a paragraph starting at
    position 0 and at every token after a blank line (`gap` == 2: the line breaks before it)."""
    m = len(gap)
    first = gap == 2
    if m:
        first[0] = True
    starts = numpy.flatnonzero(first)
    which = numpy.cumsum(first) - 1
    return starts[which], numpy.append(starts[1:], m)[which]


def line_codes(text: str, offsets: numpy.ndarray) -> numpy.ndarray:
    """For a token starting at each of `offsets` (char offsets into `text`, right after exactly one
    line break), the code of the line that break ends: 1 + full + 2 · regular, where `full` says
    whether that line reaches `FULL_SHARE` of the longest non-blank line among its
    `LINE_NEIGHBOURS` neighbours on either side, and `regular` whether `REGULAR_SHARE` of those
    neighbours are full too (a paragraph's last line left out of that share). Hard-wrapped prose is
    regular, and a full line there ends where the
    next word would not fit (code 4, whatever the sentence does); transcripts, verse, lists and
    headings are not (codes 1-2). Trailing spaces do not count."""
    offsets = numpy.asarray(offsets, dtype=numpy.int64)
    if not len(offsets):
        return numpy.zeros((0,), dtype=numpy.uint64)
    breaks = [m.span() for m in _LINE_BREAK.finditer(text)]
    starts = [0] + [b for _, b in breaks]
    ends = [a for a, _ in breaks] + [len(text)]
    lengths = numpy.asarray([len(text[a:b].rstrip()) for a, b in zip(starts, ends)], dtype=numpy.float64)
    filled = numpy.flatnonzero(lengths > 0)  # blank lines are paragraph gaps, not lines of the text
    ended = numpy.searchsorted(numpy.asarray(starts), offsets, side="right") - 2  # the line before the token's
    ended = numpy.clip(ended, 0, len(lengths) - 1)
    rank = numpy.clip(numpy.searchsorted(filled, ended), 0, max(0, len(filled) - 1))
    out = numpy.ones((len(offsets),), dtype=numpy.uint64)
    if not len(filled):
        return out
    fl = lengths[filled]
    # a paragraph's last line (before a blank line or the end) is short in any layout: it sets the
    # width but does not count against regularity
    last = numpy.ones((len(filled),), dtype=bool)
    last[:-1] = filled[1:] != filled[:-1] + 1
    for j, (r, line) in enumerate(zip(rank.tolist(), ended.tolist())):
        lo, hi = max(0, r - LINE_NEIGHBOURS), r + LINE_NEIGHBOURS + 1
        width = fl[lo:hi].max()
        if width <= 0:
            continue
        inner = fl[lo:hi][~last[lo:hi]]
        full = lengths[line] >= FULL_SHARE * width
        regular = len(inner) > 0 and (inner >= FULL_SHARE * width).mean() >= REGULAR_SHARE
        out[j] = 1 + int(full) + 2 * int(regular)
    return out


CASED_BACK_MAX = 3
"""`cased_gap_codes` bins the words since the last sentence-final mark as 1, 2, then 3 (or none)."""


def cased_gap_codes(marks: numpy.ndarray, gap: numpy.ndarray, first_upper: numpy.ndarray) -> numpy.ndarray:
    """(m,) uint64 cased-gap codes (`COL_LINE` where no line break precedes) of m non-space tokens,
    from their mark classes, layout gaps and whether each starts with an upper-case letter. For a
    capitalised word after a word with no mark and no line break: the words since the last
    sentence-final mark (counting the word before; 1: it directly follows the mark, as a one-word
    heading does), at most 3 (also where no mark came before), plus 3 in a document with any line
    break: where the text kept its layout, a heading has a line break of its own and such a gap is
    seldom a boundary; where it lost it (a web page pasted flat, a database field), a heading runs
    into the text. 0 elsewhere."""
    m = len(marks)
    out = numpy.zeros((m,), dtype=numpy.uint64)
    if m < 2:
        return out
    idx = numpy.arange(m)
    prev_final = numpy.maximum.accumulate(numpy.where(marks == MARK_FINAL, idx, -1))[:-1]
    back = numpy.where(prev_final >= 0, idx[:-1] - prev_final, CASED_BACK_MAX)  # for tokens 1 .. m − 1
    hit = (marks[:-1] == MARK_WORD) & (gap[1:] == 0) & first_upper[1:].astype(bool)
    laid_out = CASED_BACK_MAX if (gap[1:] > 0).any() else 0
    out[1:][hit] = (numpy.clip(back[hit], 1, CASED_BACK_MAX) + laid_out).astype(numpy.uint64)
    return out


class BoundaryModel:
    """Hashed logistic regression for sentence starts (one weight per hashed feature).

    n_rows: hash buckets (4 bytes each to predict, 8 to train). window: tokens either side for
    the regime columns. lines: read how full the line before a single line break is
    (`line_codes`; False for models saved before it, which never learnt those features).
    paragraphs: the regime windows stop at blank lines (`paragraph_spans`), so that a paragraph
    without punctuation or case inside a punctuated document (a transcript quoted in an e-mail)
    reads as what it is; a setting, not saved with the weights. cased_gaps: a capitalised word
    straight after an unmarked word gets templates of its own (`cased_gap_codes`; saved with the
    weights, False for models saved before it). Scores are log-odds; `platt` = (a, b) maps them to
    calibrated probabilities σ(a·s + b)."""

    def __init__(self, n_rows: int = DEFAULT_N_ROWS, window: int = DEFAULT_WINDOW, lines: bool = True,
                 paragraphs: bool = False, cased_gaps: bool = False):
        if not isinstance(n_rows, int) or n_rows < 1:
            raise ValueError(f"n_rows must be a positive int, got {n_rows!r}")
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ValueError(f"window must be a positive int, got {window!r}")
        if not isinstance(lines, bool):
            raise ValueError(f"lines must be a bool, got {lines!r}")
        if not isinstance(paragraphs, bool):
            raise ValueError(f"paragraphs must be a bool, got {paragraphs!r}")
        if not isinstance(cased_gaps, bool):
            raise ValueError(f"cased_gaps must be a bool, got {cased_gaps!r}")
        self.window = window
        self.cased_gaps = cased_gaps
        self.lines = lines
        self.paragraphs = paragraphs
        self.weights = HashedWeights(n_rows, 1)
        self.platt: Tuple[float, float] = (1.0, 0.0)
        self._lex: Dict[int, Tuple[int, int, int]] = {}

    # ------------------------------------------------------------------ encoding
    def _lexeme(self, doc: Doc, orth: int) -> Tuple[int, int, int]:
        """(mark class, has an upper-case letter, starts with one) of a token text, cached by its id."""
        got = self._lex.get(orth)
        if got is None:
            text = doc.vocab.strings[orth]
            lex = doc.vocab[text]
            got = (mark_class(text, lex.is_punct), int(any(ch.isupper() for ch in text)), int(text[:1].isupper()))
            if len(self._lex) < _CACHE_MAX:
                self._lex[orth] = got
        return got

    def encode(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(attrs, positions): the (m, N_COLS) uint64 attributes of the m non-space tokens of
        `doc` and their indices in it."""
        n = len(doc)
        if n == 0:
            return numpy.zeros((0, N_ATTR_COLS), dtype=numpy.uint64), numpy.zeros((0,), dtype=numpy.int64)
        arr = doc.to_array(_COLS).reshape((n, len(_COLS))).astype(numpy.uint64)
        space = arr[:, 5].astype(bool)
        pos = numpy.flatnonzero(~space)
        m = len(pos)
        out = numpy.zeros((m, N_ATTR_COLS), dtype=numpy.uint64)
        if m == 0:
            return out, pos
        out[:, 0] = arr[pos, 1]
        out[:, 1] = arr[pos, 2]
        out[:, 2] = arr[pos, 3]
        out[:, 3] = arr[pos, 4]
        if space.any():  # layout: the most line breaks in the run of whitespace before each token
            gap = numpy.zeros((n + 1,), dtype=numpy.uint64)
            for k in numpy.flatnonzero(space):
                gap[k + 1] = max(min(2, line_breaks(doc[int(k)].text)), int(gap[k]))
            out[:, 4] = gap[pos]
            if self.lines:
                single = numpy.flatnonzero(out[:, 4] == 1)
                if len(single):
                    idx = doc.to_array([IDX]).reshape((n,)).astype(numpy.int64)
                    out[single, 8] = line_codes(doc_text(doc, arr[:, 0]), idx[pos[single]])
        cached = self._lex.get
        lex = numpy.array([cached(o) or self._lexeme(doc, o) for o in arr[pos, 0].tolist()], dtype=numpy.uint64)
        marks, upper = lex[:, 0], lex[:, 1]
        out[:, 5] = marks
        spans = paragraph_spans(out[:, 4]) if self.paragraphs and (out[1:, 4] == 2).any() else None
        out[:, 6] = _density_bins(marks == MARK_FINAL, self.window, (0.02, 0.05), spans)
        out[:, 7] = _density_bins(upper.astype(bool), self.window, (0.04,), spans)
        if self.cased_gaps:  # at gaps without a line break: never where a line code is
            codes = cased_gap_codes(marks, out[:, 4], lex[:, 2])
            hit = codes > 0
            out[hit, 8] = codes[hit]
        return out, pos

    @staticmethod
    def gold(doc: Doc, pos: numpy.ndarray, starts: Optional[Sequence[Optional[bool]]] = None) -> numpy.ndarray:
        """(m,) uint8: whether each non-space token starts a sentence, from `starts` (one value
        per token of `doc`; default its `is_sent_start`); a start marked on a whitespace token
        moves to the next word."""
        n = len(doc)
        if starts is None:
            start = doc.to_array(SENT_START).reshape((n,)) == 1
        else:
            if len(starts) != n:
                raise ValueError(f"starts has {len(starts)} values for a Doc of {n} tokens")
            start = numpy.fromiter((bool(x) for x in starts), dtype=bool, count=n)
        if n:
            start[0] = False  # the document's first token is no boundary
        space = doc.to_array(IS_SPACE).reshape((n,)).astype(bool)
        # a word starts a sentence if it is marked, or a whitespace token in the run just before it is
        carried = numpy.cumsum(start & space)
        words = numpy.flatnonzero(~space)
        before = numpy.zeros((len(words),), dtype=carried.dtype)  # carried count at the previous word
        if len(words):
            before[1:] = carried[words[:-1]]
        out = numpy.zeros((n,), dtype=numpy.uint8)
        out[words] = start[words] | (carried[words] > before)
        return out[pos]

    # ------------------------------------------------------------------ training
    def update(self, doc: Doc, gold: Optional[numpy.ndarray] = None, lr: float = 0.1,
               pos_weight: float = 1.0) -> float:
        """One SGD pass over `doc` (gold: its sentence starts by default). → summed log loss."""
        attrs, pos = self.encode(doc)
        g = self.gold(doc, pos) if gold is None else gold
        return train_doc(self.weights, attrs, g, lr, pos_weight)

    # ------------------------------------------------------------------ prediction
    def logits(self, doc: Doc, table: Optional[numpy.ndarray] = None) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(log-odds of the non-space tokens, their positions), uncalibrated; the first one's is 0."""
        attrs, pos = self.encode(doc)
        return score_doc(self.table() if table is None else table, attrs), pos

    def table(self) -> numpy.ndarray:
        """The averaged weight table (cached until the weights change)."""
        return self.weights.average_table() if self.weights.time > 0 else self.weights.get_params()["W"]

    def probs(self, doc: Doc) -> numpy.ndarray:
        """(len(doc),) float32 calibrated P(token starts a sentence): 1.0 for the document's first
        token, 0.0 for whitespace tokens."""
        if not len(doc):
            return numpy.zeros((0,), dtype=numpy.float32)
        s, pos = self.logits(doc)
        a, b = self.platt
        return self.place(len(doc), 1.0 / (1.0 + numpy.exp(-(a * s.astype(numpy.float64) + b))), pos)

    @staticmethod
    def place(n: int, p: numpy.ndarray, pos: numpy.ndarray) -> numpy.ndarray:
        """(n,) float32 probabilities of a Doc of n tokens from those `p` of its non-space tokens
        at `pos`: 1.0 for the first token, 0.0 for whitespace and for the first word after
        leading whitespace (it continues the document's first sentence)."""
        out = numpy.zeros((n,), dtype=numpy.float32)
        if not n:
            return out
        out[pos] = p
        out[0] = 1.0
        if len(pos) and pos[0] > 0:
            out[pos[0]] = 0.0
        return out

    def calibrate(self, docs: Iterable[Doc], iters: int = 50) -> Tuple[float, float]:
        """Fit Platt's (a, b) on held-out `docs` (their sentence starts as gold) by Newton's
        method on the log loss; sets and returns them. Documents the model trained on would make
        it over-confident: use held-out ones."""
        pairs = []
        for doc in docs:
            attrs, pos = self.encode(doc)
            if len(pos) > 1:
                pairs.append((attrs, self.gold(doc, pos)))
        return self.calibrate_encoded(pairs, iters)

    def calibrate_encoded(self, pairs: Sequence[Tuple[numpy.ndarray, numpy.ndarray]], iters: int = 50) -> Tuple[float, float]:
        """`calibrate` on documents already encoded as (attrs, gold) pairs."""
        pairs = [(a, g) for a, g in pairs if len(g) > 1]
        if not pairs:
            raise ValueError("calibrate: no document with two or more words")
        table = self.table()
        xs = numpy.concatenate([score_doc(table, a)[1:] for a, _ in pairs]).astype(numpy.float64)
        ys = numpy.concatenate([g[1:] for _, g in pairs]).astype(numpy.float64)
        self.platt = platt_fit(xs, ys, iters)
        return self.platt

    # ------------------------------------------------------------------ serialization
    def get_state(self) -> Dict:
        """What `set_state` needs: the averaged table, the window and Platt's parameters."""
        return {"W": numpy.ascontiguousarray(self.table(), dtype=numpy.float32), "window": self.window,
                "platt": [float(self.platt[0]), float(self.platt[1])], "lines": self.lines,
                "cased_gaps": self.cased_gaps}

    def set_state(self, state: Dict, copy: bool = True) -> None:
        W = numpy.asarray(state["W"], dtype=numpy.float32)
        if W.ndim != 2 or W.shape[1] != 1 or W.shape[0] != self.weights.n_rows:
            raise ValueError(f"boundary weights of shape {W.shape} do not fit ({self.weights.n_rows}, 1)")
        platt = state.get("platt", [1.0, 0.0])
        if len(platt) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in platt):
            raise ValueError(f"platt must be two finite numbers, got {platt!r}")
        window = state.get("window", DEFAULT_WINDOW)
        if not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a positive int, got {window!r}")
        lines = state.get("lines", False)  # saved before line codes: never learnt them
        if not isinstance(lines, bool):
            raise ValueError(f"lines must be a bool, got {lines!r}")
        cased_gaps = state.get("cased_gaps", False)  # saved before cased gaps: never learnt them
        if not isinstance(cased_gaps, bool):
            raise ValueError(f"cased_gaps must be a bool, got {cased_gaps!r}")
        self.weights.set_params({"W": W}, copy=copy)  # copy=False: may share the caller's table
        self.window = window
        self.lines = lines
        self.cased_gaps = cased_gaps
        self.platt = (float(platt[0]), float(platt[1]))


def platt_fit(x: numpy.ndarray, y: numpy.ndarray, iters: int = 50) -> Tuple[float, float]:
    """(a, b) minimising the log loss of σ(a·x + b) against 0/1 labels y (Newton's method, with
    Platt's 1999 target smoothing against over-confidence on separable data)."""
    if len(x) != len(y) or not len(x):
        raise ValueError("platt_fit: need as many labels as scores, at least one")
    n_pos, n_neg = float(y.sum()), float(len(y) - y.sum())
    t = numpy.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    a, b = 1.0, 0.0
    for _ in range(iters):
        z = numpy.clip(a * x + b, -60, 60)
        p = 1.0 / (1.0 + numpy.exp(-z))
        g = p - t
        w = numpy.maximum(p * (1 - p), 1e-12)
        ga, gb = float((g * x).sum()), float(g.sum())
        haa, hab, hbb = float((w * x * x).sum()) + 1e-9, float((w * x).sum()), float(w.sum()) + 1e-9
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) < 1e-9 and abs(db) < 1e-9:
            break
    return float(a), float(b)

