"""The DMV's parameters, supervised estimates and Laplace-smoothed Viterbi EM with the
punctuation constraints of Spitkovsky et al. (2011, §3.1, §6).

Words are parsed with punctuation STRIPPED (§3): a mark (UPOS ``PUNCT``) only cuts the sentence
into inter-punctuation fragments (`graph.punct_fragments.word_fragments`), which the constraints
protect. Word classes are gold tags (UPOS or XPOS) and, in the lexicalized second stage (§6),
``TAG|word`` for words seen at least `lex_min_count` times.

`DMVCounts` holds the events of trees (root, stop/continue by side and adjacency, choose);
`DMVCounts.estimate` turns them into a `DMV` (relative frequencies plus add-``a`` smoothing).
`supervised` estimates from gold trees; `weighted_init` is §3.1's initializer; `viterbi_em` runs
hard EM with the paper's termination rule; `induce` adds the two-stage scaffolding (≤ 15 words,
then ≤ 45) and optional lexicalization.
"""
import math
import threading
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy

from ..graph.constraints import ALL_CONSTRAINTS, ConstraintMasks, build_masks, check_name
from ..graph.punct_fragments import Fragment, strip_punct, word_fragments
from .chart import Tables, viterbi_parse

LEFT_ADJ, LEFT_NON, RIGHT_ADJ, RIGHT_NON = range(4)
"""Columns of the stop/continue tables: side and adjacency (adjacent = no dependent yet)."""

TAG_ATTRS = ("upos", "xpos")

UNKNOWN = "<UNK>"
"""The class of tags unseen in training (every inventory has it; smoothing gives it mass)."""


@dataclass
class DMVSentence:
    """One sentence with punctuation stripped.

    words, tags: the non-punctuation tokens and their word classes.
    frags: inter-punctuation fragments in word positions (inclusive).
    heads: gold word heads (-1 = root) after `strip_punct`, or None for raw text.
    doc_id: the document, for paired significance tests.
    length: the length that scaffolding filters on, when it is not the number of words (the
        "punctuation as words" baseline does not count marks, §3.3 footnote 4).

    Thread safety: the class-id and mask caches are filled lazily by plain assignments; two
    threads may both compute an entry, but never see a half-built one.
    """

    words: List[str]
    tags: List[str]
    frags: List[Fragment]
    heads: Optional[List[int]] = None
    doc_id: str = ""
    length: Optional[int] = None
    _masks: Dict[str, ConstraintMasks] = field(default_factory=dict, repr=False)
    _cls: Optional[Tuple] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if len(self.words) != len(self.tags):
            raise ValueError(f"{len(self.words)} words but {len(self.tags)} tags")
        if self.heads is not None and len(self.heads) != len(self.words):
            raise ValueError(f"{len(self.words)} words but {len(self.heads)} heads")

    def __len__(self) -> int:
        return len(self.words)

    def class_ids(self, index: Dict[str, int], lexicon: frozenset) -> numpy.ndarray:
        """`class_ids` of the words, cached for the last class inventory asked for."""
        key = (id(index), id(lexicon))
        if self._cls is None or self._cls[0] != key:
            self._cls = (key, class_ids(index, lexicon, self.words, self.tags))
        return self._cls[1]

    def masks(self, constraint: str) -> Optional[ConstraintMasks]:
        """The constraint's masks over the words (cached: fragments never change)."""
        if constraint == "none":
            return None
        m = self._masks.get(constraint)
        if m is None:
            m = self._masks[constraint] = build_masks(len(self.words), self.frags, constraint)
        return m


def make_sentence(words: Sequence[str], tags: Sequence[str], is_punct: Sequence[bool],
                  heads: Optional[Sequence[int]] = None, doc_id: str = "") -> DMVSentence:
    """Strip punctuation from one tokenised sentence (heads: token heads, -1 = root)."""
    if not (len(words) == len(tags) == len(is_punct)) or (heads is not None and len(heads) != len(words)):
        raise ValueError("words, tags, is_punct (and heads) must have the same length")
    keep = [i for i, p in enumerate(is_punct) if not p]
    word_heads = strip_punct(list(heads), list(is_punct))[0] if heads is not None else None
    return DMVSentence([words[i] for i in keep], [tags[i] for i in keep],
                       word_fragments(list(is_punct)), word_heads, doc_id)


def sentences_from_records(records: Iterable, tag_attr: str = "upos") -> List[DMVSentence]:
    """`DMVSentence`s (gold trees, punctuation stripped) of `corpus.DocRecord`s; sentences of
    punctuation only are dropped."""
    if tag_attr not in TAG_ATTRS:
        raise ValueError(f"tag_attr must be one of {TAG_ATTRS}, got {tag_attr!r}")
    out = []
    for rec in records:
        for sent in rec.iter_sentence_slices():
            is_punct = [u == "PUNCT" for u in sent.upos]
            if all(is_punct):
                continue
            out.append(make_sentence(sent.words, getattr(sent, tag_attr), is_punct, sent.heads,
                                     rec.doc_id))
    return out


_INVENTORIES: Dict[Tuple, Tuple[Dict[str, int], frozenset]] = {}
_INVENTORIES_LOCK = threading.Lock()


def _inventory(classes: Tuple[str, ...], lexicon: frozenset) -> Tuple[Dict[str, int], frozenset]:
    """One shared (index, lexicon) pair per class inventory, so that sentences can cache their
    class ids by identity (the pairs live as long as the process: ids are never reused).
    Thread-safe: a lock makes every thread get the same pair for an inventory."""
    key = (classes, lexicon)
    with _INVENTORIES_LOCK:
        inv = _INVENTORIES.get(key)
        if inv is None:
            index = {c: i for i, c in enumerate(classes)}
            if len(index) != len(classes):
                raise ValueError("class names must be unique")
            inv = _INVENTORIES[key] = (index, lexicon)
    return inv


class DMV:
    """A DMV over named word classes: `classes` (tags, and ``TAG|word`` for `lexicon` words)
    and log-probability `tables` (`chart.Tables`)."""

    def __init__(self, classes: Sequence[str], tables: Tables, lexicon: Iterable[str] = ()):
        if isinstance(classes, str) or not all(isinstance(c, str) for c in classes):
            raise ValueError("classes must be a sequence of strings (class names)")
        lexicon = frozenset(lexicon)
        if not all(isinstance(w, str) for w in lexicon):
            raise ValueError("lexicon must hold strings (words)")
        if not isinstance(tables, Tables):
            raise ValueError(f"tables must be a dmv.chart.Tables, got {type(tables).__name__}")
        if len(classes) != tables.C:
            raise ValueError(f"{len(classes)} class names for {tables.C} classes")
        self.classes = list(classes)
        self.index, self.lexicon = _inventory(tuple(self.classes), lexicon)
        self.tables = tables

    def class_ids(self, words: Sequence[str], tags: Sequence[str]) -> numpy.ndarray:
        """Class ids of a sentence's words; a lexicalized word whose ``TAG|word`` class is unknown
        falls back to its tag, an unknown tag to `UNKNOWN` (ValueError if the model has none)."""
        return class_ids(self.index, self.lexicon, words, tags)

    def parse(self, sent: DMVSentence, constraint: str = "none") -> Tuple[List[int], float, bool]:
        """Viterbi tree of a sentence under a constraint: (word heads, log-probability, whether
        no tree satisfied the constraint and the tree is unconstrained; strict has no tree in most
        punctuated sentences, §2.2)."""
        check_name(constraint)
        cls = sent.class_ids(self.index, self.lexicon)
        heads, score = viterbi_parse(cls, self.tables, sent.masks(constraint))
        if heads is None and constraint != "none":
            heads, score = viterbi_parse(cls, self.tables, None)
            return heads, score, True
        if heads is None:
            raise ValueError("no tree has non-zero probability (an unsmoothed model with an unseen event)")
        return heads, score, False

    def to_dict(self) -> Dict:
        t = self.tables
        return {"classes": self.classes, "lexicon": sorted(self.lexicon),
                "root": t.root.tolist(), "stop": t.stop.tolist(), "cont": t.cont.tolist(),
                "choose": t.choose.tolist()}

    @classmethod
    def from_dict(cls, data: Dict) -> "DMV":
        try:
            tables = Tables(data["root"], data["stop"], data["cont"], data["choose"])
            return cls(data["classes"], tables, data.get("lexicon", ()))
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a serialised DMV: {e!r}") from e


def class_ids(index: Dict[str, int], lexicon: frozenset, words: Sequence[str],
              tags: Sequence[str]) -> numpy.ndarray:
    if len(words) != len(tags):
        raise ValueError(f"{len(words)} words but {len(tags)} tags")
    out = numpy.empty(len(words), dtype=numpy.int64)
    for i, (w, t) in enumerate(zip(words, tags)):
        c = index.get(f"{t}|{w}") if w in lexicon else None
        if c is None:
            c = index.get(t)
            if c is None:
                c = index.get(UNKNOWN)
            if c is None:
                raise ValueError(f"unknown word class {t!r} (the model knows {len(index)} classes)")
        out[i] = c
    return out


class DMVCounts:
    """Event counts of a DMV: ``root[C]``, ``stop[C, 4]``, ``cont[C, 4]``, ``choose[C, 2, C]``
    (columns as `LEFT_ADJ`...; ``choose[h, 0, d]``: d is a left dependent of h)."""

    def __init__(self, C: int):
        self.C = C
        self.root = numpy.zeros(C)
        self.stop = numpy.zeros((C, 4))
        self.cont = numpy.zeros((C, 4))
        self.choose = numpy.zeros((C, 2, C))

    def add_tree(self, cls: Sequence[int], heads: Sequence[int]) -> None:
        """Add the events of one tree (word heads, -1 = root; need not be projective)."""
        self.add_trees([cls], [heads])

    def add_trees(self, cls_list: Sequence[Sequence[int]], heads_list: Sequence[Sequence[int]]) -> None:
        """Add the events of many trees at once (vectorised over the batch)."""
        if len(cls_list) != len(heads_list):
            raise ValueError(f"{len(cls_list)} class sequences but {len(heads_list)} head sequences")
        if not len(cls_list):
            return
        C = self.C
        cls_arrs, head_arrs = [], []
        off = 0
        for k, (c, h) in enumerate(zip(cls_list, heads_list)):
            c = numpy.asarray(c)
            h = numpy.asarray(h)
            if c.ndim != 1 or h.ndim != 1 or c.shape != h.shape:
                raise ValueError(f"tree {k}: classes (shape {c.shape}) and heads (shape {h.shape}) "
                                 "must be vectors of the same length")
            if c.size and (not numpy.issubdtype(c.dtype, numpy.integer)
                           or c.min() < 0 or c.max() >= C):
                raise ValueError(f"tree {k}: classes must be integers in [0, {C})")
            if h.size and (not numpy.issubdtype(h.dtype, numpy.integer)
                           or h.min() < -1 or h.max() >= h.size):
                raise ValueError(f"tree {k}: heads must be integers in [-1, {h.size})")
            c = c.astype(numpy.int64)
            h = h.astype(numpy.int64)
            cls_arrs.append(c)
            head_arrs.append(numpy.where(h >= 0, h + off, -1))
            off += h.size
        cls = numpy.concatenate(cls_arrs)
        heads = numpy.concatenate(head_arrs)
        N = cls.shape[0]
        self.root += numpy.bincount(cls[heads < 0], minlength=C)
        dep = numpy.nonzero(heads >= 0)[0]
        hd = heads[dep]
        side = (hd < dep).astype(numpy.int64)  # 1: d is a right dependent
        self.choose += numpy.bincount((cls[hd] * 2 + side) * C + cls[dep],
                                      minlength=2 * C * C).reshape(C, 2, C)
        nleft = numpy.bincount(hd[side == 0], minlength=N).astype(float)
        nright = numpy.bincount(hd[side == 1], minlength=N).astype(float)
        self._valence(cls, nleft, LEFT_ADJ, LEFT_NON)
        self._valence(cls, nright, RIGHT_ADJ, RIGHT_NON)

    def _valence(self, cls: numpy.ndarray, k: numpy.ndarray, adj: int, non: int) -> None:
        """Stop/continue events of ``k[i]`` dependents of word ``i`` (class ``cls[i]``) on one
        side; ``k`` may be fractional (the initializer's expected numbers): integer ``k`` gives a
        tree's exact events: continue (adjacent) once if ``k > 0``, continue (non-adjacent)
        ``k - 1`` times, then stop (adjacent if ``k == 0``)."""
        C = self.C
        first = numpy.minimum(k, 1.0)
        self.cont[:, adj] += numpy.bincount(cls, weights=first, minlength=C)
        self.stop[:, adj] += numpy.bincount(cls, weights=1.0 - first, minlength=C)
        self.cont[:, non] += numpy.bincount(cls, weights=numpy.maximum(k - 1.0, 0.0), minlength=C)
        self.stop[:, non] += numpy.bincount(cls, weights=first, minlength=C)

    def estimate(self, classes: Sequence[str], smoothing: float = 1.0,
                 lexicon: Iterable[str] = ()) -> DMV:
        """Relative frequencies with add-``smoothing`` (Laplace: 1); a distribution with no
        events and no smoothing is uniform."""
        if smoothing < 0 or not math.isfinite(smoothing):
            raise ValueError(f"smoothing must be a finite number >= 0, got {smoothing}")
        a = smoothing

        def norm(x: numpy.ndarray, axis: int) -> numpy.ndarray:
            x = x + a
            tot = x.sum(axis=axis, keepdims=True)
            k = x.shape[axis]
            with numpy.errstate(divide="ignore", invalid="ignore"):
                p = numpy.where(tot > 0, x / numpy.where(tot > 0, tot, 1.0), 1.0 / k)
                return numpy.log(p)

        both = numpy.stack([self.stop, self.cont], axis=-1)  # [C, 4, 2]
        logs = norm(both, axis=-1)
        tables = Tables(norm(self.root, 0), logs[..., 0], logs[..., 1], norm(self.choose, 2))
        return DMV(classes, tables, lexicon)


def class_inventory(sentences: Sequence[DMVSentence], lex_min_count: int = 0) -> Tuple[List[str], frozenset]:
    """Class names of a corpus: its tags, plus ``TAG|word`` for every word seen at least
    `lex_min_count` times (§6; 0: unlexicalized)."""
    tags = sorted({t for s in sentences for t in s.tags} | {UNKNOWN})
    lexicon: frozenset = frozenset()
    lex: List[str] = []
    if lex_min_count > 0:
        freq: Dict[str, int] = {}
        for s in sentences:
            for w in s.words:
                freq[w] = freq.get(w, 0) + 1
        lexicon = frozenset(w for w, c in freq.items() if c >= lex_min_count)
        lex = sorted({f"{t}|{w}" for s in sentences for w, t in zip(s.words, s.tags) if w in lexicon})
    return tags + lex, lexicon


def supervised(sentences: Sequence[DMVSentence], smoothing: float = 1.0,
               classes: Optional[Sequence[str]] = None) -> DMV:
    """The supervised DMV (Table 4): relative-frequency estimates from gold trees."""
    if classes is None:
        classes, _ = class_inventory(sentences)
    index = {c: i for i, c in enumerate(classes)}
    counts = DMVCounts(len(classes))
    if any(s.heads is None for s in sentences):
        raise ValueError("supervised estimates need gold heads")
    counts.add_trees([class_ids(index, frozenset(), s.words, s.tags) for s in sentences],
                     [s.heads for s in sentences])
    return counts.estimate(classes, smoothing)


def weight(d: int) -> float:
    """§3.1's weighting of a distance ``d >= 1`` between two tokens: ``1 + 1/lg(1 + d)``."""
    return 1.0 + 1.0 / math.log2(1.0 + d)


def weighted_init(sentences: Sequence[DMVSentence], classes: Sequence[str],
                  smoothing: float = 1.0) -> DMV:
    """§3.1's initializer: the attachment probability of two classes is the average, over all
    sentences, of their normalized aggregate weighted distances.

    Our reading: in each sentence, every word d spreads one unit of attachment over the other
    words h in proportion to ``w(|h - d|)`` (normalized per dependent); these fractional arcs are
    summed by (head class, side, dependent class). The root is uniform over a sentence's words.
    Stop/continue events are those of a tree with the expected number of dependents on each side
    (`DMVCounts._valence`). The counts are then estimated like a tree's.
    """
    index = {c: i for i, c in enumerate(classes)}
    counts = DMVCounts(len(classes))
    for s in sentences:
        n = len(s)
        if n == 0:
            continue
        cls = class_ids(index, frozenset(), s.words, s.tags)
        numpy.add.at(counts.root, cls, 1.0 / n)
        if n == 1:
            counts._valence(cls, numpy.zeros(1), LEFT_ADJ, LEFT_NON)
            counts._valence(cls, numpy.zeros(1), RIGHT_ADJ, RIGHT_NON)
            continue
        pos = numpy.arange(n)
        dist = numpy.abs(pos[:, None] - pos[None, :]).astype(float)  # [h, d]
        with numpy.errstate(divide="ignore"):
            w = 1.0 + 1.0 / numpy.log2(1.0 + dist)
        numpy.fill_diagonal(w, 0.0)
        w /= w.sum(axis=0, keepdims=True)  # each dependent's unit of attachment
        left = numpy.tril(w, -1)  # h > d: d is a left dependent of h
        right = numpy.triu(w, 1)
        for side, mass in ((0, left), (1, right)):
            numpy.add.at(counts.choose, (cls[:, None], side, cls[None, :]), mass)
        counts._valence(cls, left.sum(axis=1), LEFT_ADJ, LEFT_NON)
        counts._valence(cls, right.sum(axis=1), RIGHT_ADJ, RIGHT_NON)
    return counts.estimate(classes, smoothing)


@dataclass
class EMTrace:
    """Per iteration: the Viterbi log-probability of the training data under the model that
    parsed it, its per-token cross-entropy in bits, and the number of strict fallbacks."""

    logprob: List[float] = field(default_factory=list)
    xent: List[float] = field(default_factory=list)
    fallbacks: List[int] = field(default_factory=list)
    best_iteration: int = -1


def e_step(model: DMV, sentences: Sequence[DMVSentence], constraint: str,
           classes: Optional[Sequence[str]] = None, lexicon: Optional[frozenset] = None
           ) -> Tuple[DMVCounts, float, int]:
    """Viterbi E-step: parse every sentence under `constraint` with `model` and count the trees'
    events over `classes` (default: the model's). RETURNS (counts, total log-probability,
    number of sentences parsed unconstrained because no tree satisfied the constraint)."""
    if classes is None:
        index, lexicon = model.index, model.lexicon
        classes = model.classes
    else:
        index, lexicon = _inventory(tuple(classes), frozenset(lexicon or ()))
    counts = DMVCounts(len(classes))
    total = 0.0
    fallbacks = 0
    cls_list, heads_list = [], []
    for s in sentences:
        heads, score, fell = model.parse(s, constraint)
        total += score
        fallbacks += fell
        cls_list.append(s.class_ids(index, lexicon))
        heads_list.append(heads)
    counts.add_trees(cls_list, heads_list)
    return counts, total, fallbacks


def viterbi_em(model: DMV, sentences: Sequence[DMVSentence], constraint: str = "none",
               smoothing: float = 1.0, max_iter: int = 40, patience: int = 10,
               tol_bits: float = 2.0 ** -20) -> Tuple[DMV, EMTrace]:
    """Viterbi EM from `model` (§3.1): parse, re-estimate with add-`smoothing`, repeat.

    Termination (§3.1): stop when successive per-token cross-entropies (of the best parses)
    differ by less than `tol_bits`, or after `patience` iterations without a new lowest
    cross-entropy, or after `max_iter` iterations; return the lowest cross-entropy model seen
    (the model that parsed the data, not the one estimated from it). Constrained training
    (`constraint`) replaces the Viterbi trees by constrained ones.
    """
    check_name(constraint)
    if max_iter < 1 or patience < 1:
        raise ValueError("max_iter and patience must be >= 1")
    n_tokens = sum(len(s) for s in sentences)
    if n_tokens == 0:
        raise ValueError("no words to train on")
    trace = EMTrace()
    best, best_xent, since_best = model, math.inf, 0
    for it in range(max_iter):
        counts, logprob, fell = e_step(model, sentences, constraint)
        xent = -logprob / (n_tokens * math.log(2))
        trace.logprob.append(logprob)
        trace.xent.append(xent)
        trace.fallbacks.append(fell)
        if xent < best_xent:
            best, best_xent, since_best = model, xent, 0
            trace.best_iteration = it
        else:
            since_best += 1
        if since_best >= patience or (it and abs(trace.xent[-2] - xent) < tol_bits):
            break
        model = counts.estimate(model.classes, smoothing, model.lexicon)
    return best, trace


def by_length(sentences: Sequence[DMVSentence], max_len: int) -> List[DMVSentence]:
    """The sentences of 1..max_len words (`DMVSentence.length` when set)."""
    return [s for s in sentences if len(s) and (len(s) if s.length is None else s.length) <= max_len]


@dataclass
class Induced:
    """The models of `induce` at each stage and their EM traces."""

    init: DMV
    stage1: DMV
    stage2: DMV
    traces: Dict[str, EMTrace]


def induce(sentences: Sequence[DMVSentence], constraint: str = "none", stage1_len: int = 15,
           stage2_len: int = 45, lex_min_count: int = 0, smoothing: float = 1.0,
           max_iter: int = 40, patience: int = 10) -> Induced:
    """Unsupervised DMV with two-stage scaffolding (§3.1): the weighted initializer and Viterbi
    EM on sentences of at most `stage1_len` words, then Viterbi EM on those of at most
    `stage2_len` words. With ``lex_min_count > 0`` the second stage is lexicalized (§6): its
    first E-step parses with the stage-one model and counts over ``TAG|word`` classes, EM runs
    unsmoothed, and the final model alone is smoothed (from the best model's parses)."""
    check_name(constraint)
    s1 = by_length(sentences, stage1_len)
    s2 = by_length(sentences, stage2_len)
    if not s1:
        raise ValueError(f"no training sentence has 1..{stage1_len} words")
    tags, _ = class_inventory(sentences)
    init = weighted_init(s1, tags, smoothing)
    stage1, t1 = viterbi_em(init, s1, constraint, smoothing, max_iter, patience)
    if lex_min_count <= 0:
        stage2, t2 = viterbi_em(stage1, s2, constraint, smoothing, max_iter, patience)
        return Induced(init, stage1, stage2, {"stage1": t1, "stage2": t2})
    classes, lexicon = class_inventory(s2, lex_min_count)
    counts, _, _ = e_step(stage1, s2, constraint, classes, lexicon)
    start = counts.estimate(classes, 0.0, lexicon)
    best, t2 = viterbi_em(start, s2, constraint, 0.0, max_iter, patience)
    counts, _, _ = e_step(best, s2, constraint)
    final = counts.estimate(classes, smoothing, lexicon)
    return Induced(init, stage1, final, {"stage1": t1, "stage2": t2})


def directed_accuracy(model: DMV, sentences: Sequence[DMVSentence], constraint: str = "none"
                      ) -> Tuple[int, int, List[List[int]]]:
    """(correct heads, words, predicted heads per sentence): directed accuracy counts, the root
    included (§3.2), against the sentences' gold heads."""
    correct = total = 0
    preds = []
    for s in sentences:
        if s.heads is None:
            raise ValueError("scoring needs gold heads")
        heads, _, _ = model.parse(s, constraint)
        preds.append(heads)
        correct += sum(p == g for p, g in zip(heads, s.heads))
        total += len(heads)
    return correct, total, preds


__all__ = ["ALL_CONSTRAINTS", "DMV", "by_length", "DMVCounts", "DMVSentence", "EMTrace", "Induced",
           "class_inventory", "directed_accuracy", "e_step", "induce", "make_sentence",
           "sentences_from_records", "supervised", "viterbi_em", "weight", "weighted_init"]
