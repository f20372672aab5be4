"""Two-stage and three-stage parsing over split-punctuation fragments (Li, Che & Liu, §II.B-C).

Two-stage (§II.C, `TwoStageParser`):
  1. the FRG-parser (`MultiRootParser`) parses each fragment alone into a forest whose roots are
     the fragment's predicted sub-roots (trained on gold fragments with the sub-roots attached to
     the root, label ``ROOT``);
  2. the INTER-parser (`GraphParser`) parses the pseudo-sentence of predicted sub-roots and split
     punctuation into one tree (trained on the gold tree induced on the gold sub-roots and split
     punctuation, Figure 2-(e)).
Three-stage (§II.B, `ThreeStageParser`, after Mao et al. 2007):
  1. an averaged-perceptron IF/WF classifier (`WFClassifier`) labels each fragment;
  2. the WF-parser (single-rooted) parses each fragment classified WF; its root is the sub-root;
  3. the ALL-parser, trained on whole sentences (the one-stage parser), parses the pseudo-sentence
     of the IF fragments' tokens, the WFs' sub-roots and split punctuation.
  Settings: ``classifier``, ``gold`` (WF-gold: gold WF flags) and ``all`` (WF-all).

Both combine through `combine`: tokens resolved inside a fragment keep their first-stage head
and label, the pseudo-sentence's tree gives the rest theirs. The pseudo-sentence holds every
first-stage root, so the result is always one single-rooted tree (`split_punct.is_tree`).
Sentences are ``(words, tags, upos, heads, deps)`` tuples, heads sentence-relative (-1 = root),
from `parser.sentence_tuples`.
"""
import time
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

import srsly

from ..corpus.labels import SPACY_ROOT
from .forest import MultiRootParser
from .parser import GraphParser, sentence_tuples
from .split_punct import (DEFAULT_SPLIT, analyse, frg_structure, induced_heads, inter_nodes,
                          segment, split_positions)

ROOT_LABEL = SPACY_ROOT
"""Label of the first-stage arcs from the root (replaced by the second stage's labels): a marker
of the FRG-parser, spelt as spaCy's root label so that in the `fragment_parser` component, whose
labels are spaCy's, it is the Doc's own root label."""


def _take(seq: Sequence, idx: Sequence[int]) -> list:
    return [seq[i] for i in idx]


def fragment_examples(sent: tuple, chars: FrozenSet[str] = DEFAULT_SPLIT,
                      well_formed_only: bool = False) -> List[tuple]:
    """FRG-parser (or, with ``well_formed_only``, WF-parser) training structures of a sentence."""
    words, tags, upos, heads, deps = sent
    out = []
    for f in analyse(words, heads, chars):
        if well_formed_only and not f.well_formed:
            continue
        roots = set(f.sub_roots)
        s, e = f.start, f.end
        out.append((words[s:e], tags[s:e], upos[s:e], frg_structure(heads, f),
                    [ROOT_LABEL if i in roots else deps[i] for i in range(s, e)]))
    return out


def inter_example(sent: tuple, chars: FrozenSet[str] = DEFAULT_SPLIT) -> Optional[tuple]:
    """INTER-parser training structure: the gold tree induced on gold sub-roots and split
    punctuation (None if the sentence is no tree)."""
    words, tags, upos, heads, deps = sent
    roots = [r for f in analyse(words, heads, chars) for r in f.sub_roots]
    nodes = inter_nodes(words, roots, chars)
    sub = induced_heads(heads, nodes)
    if sub is None or not nodes:
        return None
    return (_take(words, nodes), _take(tags, nodes), _take(upos, nodes), sub, _take(deps, nodes))


def combine(n: int, inner_heads: Sequence[Optional[int]], inner_labels: Sequence[Optional[str]],
            nodes: Sequence[int], node_heads: Sequence[int],
            node_labels: Sequence[str]) -> Tuple[List[int], List[str]]:
    """The sentence's tree from first-stage arcs (``inner_heads[t]``, None for tokens in the
    pseudo-sentence) and the pseudo-sentence ``nodes``' tree (pseudo-sentence indices)."""
    heads: List[Optional[int]] = list(inner_heads)
    labels: List[Optional[str]] = list(inner_labels)
    for k, t in enumerate(nodes):
        h = node_heads[k]
        heads[t] = nodes[h] if h >= 0 else -1
        labels[t] = node_labels[k]
    if len(heads) != n or any(h is None for h in heads):
        raise AssertionError("a token is neither resolved in a fragment nor in the pseudo-sentence")
    return heads, labels  # type: ignore[return-value]


def _parse_fragment(parser: GraphParser, words, tags, upos, s: int, e: int,
                    inner: List[Optional[int]], inner_labels: List[Optional[str]],
                    roots: List[int]) -> None:
    """First stage on the fragment ``[s, e)``: its arcs go to ``inner`` / ``inner_labels``
    (sentence positions), its roots to ``roots``."""
    fh, fl = parser.parse(words[s:e], tags[s:e], upos[s:e])
    for i, (h, lab) in enumerate(zip(fh, fl)):
        if h < 0:
            roots.append(s + i)
        else:
            inner[s + i] = s + h
            inner_labels[s + i] = lab


def _parse_pseudo_sentence(parser: GraphParser, words, tags, upos, nodes: Sequence[int],
                           inner: Sequence[Optional[int]],
                           inner_labels: Sequence[Optional[str]]) -> Tuple[List[int], List[str]]:
    """Last stage: parse the pseudo-sentence ``nodes`` and `combine` with the first stage."""
    nh, nl = parser.parse(_take(words, nodes), _take(tags, nodes), _take(upos, nodes)) \
        if nodes else ([], [])
    return combine(len(words), inner, inner_labels, nodes, nh, nl)


def _train(parser: GraphParser, data: List[tuple], epochs: int, seed: int, verbose: bool) -> float:
    t0 = time.perf_counter()
    if data:
        parser.train_sentences(data, epochs=epochs, seed=seed, verbose=verbose)
    return time.perf_counter() - t0


def _pack(parser: GraphParser) -> bytes:
    return parser.to_bytes()


class TwoStageParser:
    """FRG-parser + INTER-parser (§II.C).

    order (int): 1 or 2, for both parsers.
    chars (FrozenSet[str]): Characters of split punctuation (`split_punct.split_chars`).
    """

    def __init__(self, order: int = 2, n_rows: int = 1 << 21, label_rows: int = 1 << 18,
                 chars: FrozenSet[str] = DEFAULT_SPLIT):
        self.order = order
        self.chars = frozenset(chars)
        self.frg = MultiRootParser(order, n_rows, label_rows)
        self.inter = GraphParser(order, n_rows, label_rows)

    # -- training -------------------------------------------------------------------------------

    def train(self, sentences: Sequence[tuple], epochs: int = 5, seed: int = 0,
              verbose: bool = False) -> Dict[str, float]:
        """Train both parsers on gold sentences; RETURNS the training seconds of each."""
        frg = [x for s in sentences for x in fragment_examples(s, self.chars)]
        inter = [x for x in (inter_example(s, self.chars) for s in sentences) if x is not None]
        return {"frg": _train(self.frg, frg, epochs, seed, verbose),
                "inter": _train(self.inter, inter, epochs, seed, verbose)}

    def add_label(self, label: str) -> None:
        self.frg.add_label(ROOT_LABEL)
        self.frg.add_label(label)
        self.inter.add_label(label)

    def update_sentence(self, words, tags, upos, heads, deps) -> int:
        """One perceptron step per gold fragment and one on the pseudo-sentence (for spaCy's
        training loop); RETURNS the number of correct heads of the two stages' decodings."""
        sent = (words, tags, upos, heads, deps)
        right = sum(self.frg.update_sentence(*x) for x in fragment_examples(sent, self.chars))
        x = inter_example(sent, self.chars)
        if x is not None:
            right += self.inter.update_sentence(*x)
        return right

    def averaged(self) -> "TwoStageParser":
        copy = TwoStageParser(self.order, self.frg.n_rows, self.frg.label_rows, self.chars)
        copy.frg = self.frg.averaged()
        copy.inter = self.inter.averaged()
        return copy

    # -- parsing --------------------------------------------------------------------------------

    def parse_detail(self, words, tags, upos) -> Dict[str, list]:
        """``heads``, ``labels`` and the predicted ``sub_roots`` of one sentence."""
        n = len(words)
        inner: List[Optional[int]] = [None] * n
        inner_labels: List[Optional[str]] = [None] * n
        sub_roots = []
        for s, e in segment(words, self.chars):
            _parse_fragment(self.frg, words, tags, upos, s, e, inner, inner_labels, sub_roots)
        nodes = inter_nodes(words, sub_roots, self.chars)
        heads, labels = _parse_pseudo_sentence(self.inter, words, tags, upos, nodes, inner, inner_labels)
        return {"heads": heads, "labels": labels, "sub_roots": sub_roots}

    def parse(self, words, tags, upos) -> Tuple[List[int], List[str]]:
        d = self.parse_detail(words, tags, upos)
        return d["heads"], d["labels"]

    # -- serialization --------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"order": self.order, "chars": "".join(sorted(self.chars)),
                                    "frg": _pack(self.frg), "inter": _pack(self.inter)})

    def from_bytes(self, data: bytes) -> "TwoStageParser":
        msg = srsly.msgpack_loads(data)
        self.order = msg["order"]
        self.chars = frozenset(msg["chars"])
        self.frg = MultiRootParser().from_bytes(msg["frg"])
        self.inter = GraphParser().from_bytes(msg["inter"])
        return self


class WFClassifier:
    """Averaged binary perceptron: is a fragment well-formed (one sub-root)? (§II.B stage 1)."""

    def __init__(self):
        self.weights: Dict[str, float] = {}
        self._totals: Dict[str, float] = {}
        self._stamps: Dict[str, int] = {}
        self._clock = 0

    @staticmethod
    def features(words, tags, upos, frags: Sequence[Tuple[int, int]], k: int) -> List[str]:
        s, e = frags[k]
        n = len(words)
        left = words[s - 1] if s > 0 else "<S>"
        right = words[e] if e < n else "</S>"
        pos = "only" if len(frags) == 1 else "first" if k == 0 else "last" if k == len(frags) - 1 \
            else "mid"
        n_verbs = sum(u in ("VERB", "AUX") for u in upos[s:e])
        f = ["bias", f"len={min(e - s, 12)}", f"pos={pos}", f"lp={left}", f"rp={right}",
             f"lp_rp={left}_{right}", f"t0={tags[s]}", f"tN={tags[e - 1]}",
             f"w0={words[s].lower()}", f"wN={words[e - 1].lower()}", f"u0={upos[s]}",
             f"uN={upos[e - 1]}", f"verbs={min(n_verbs, 3)}", f"pos_verbs={pos}_{min(n_verbs, 3)}",
             f"t01={tags[s]}_{tags[s + 1] if e - s > 1 else '-'}",
             f"tN1={tags[e - 2] if e - s > 1 else '-'}_{tags[e - 1]}",
             f"prev={tags[frags[k - 1][1] - 1] if k > 0 else '<S>'}",
             f"next={tags[frags[k + 1][0]] if k + 1 < len(frags) else '</S>'}"]
        f.extend(sorted({f"has={u}" for u in upos[s:e]}))
        return f

    def score(self, feats: Iterable[str]) -> float:
        w = self.weights
        return sum(w.get(x, 0.0) for x in feats)

    def update(self, feats: Sequence[str], y: int) -> None:
        t = self._clock
        for x in feats:
            w = self.weights.get(x, 0.0)
            self._totals[x] = self._totals.get(x, 0.0) + (t - self._stamps.get(x, 0)) * w
            self._stamps[x] = t
            self.weights[x] = w + y

    def train(self, sentences: Sequence[tuple], chars: FrozenSet[str] = DEFAULT_SPLIT,
              epochs: int = 5, seed: int = 0) -> None:
        import random

        data = []
        for words, tags, upos, heads, _ in sentences:
            gold = analyse(words, heads, chars)
            frags = [(f.start, f.end) for f in gold]
            for k, f in enumerate(gold):
                data.append((self.features(words, tags, upos, frags, k), 1 if f.well_formed else -1))
        rng = random.Random(seed)
        for _ in range(epochs):
            rng.shuffle(data)
            for feats, y in data:
                self._clock += 1
                if y * self.score(feats) <= 0:
                    self.update(feats, y)
        t = self._clock
        for x, w in self.weights.items():
            total = self._totals.get(x, 0.0) + (t - self._stamps.get(x, 0)) * w
            self.weights[x] = total / max(t, 1)
        self._totals, self._stamps = {}, {}

    def predict(self, words, tags, upos, frags: Sequence[Tuple[int, int]]) -> List[bool]:
        return [self.score(self.features(words, tags, upos, frags, k)) > 0 for k in range(len(frags))]


class ThreeStageParser:
    """IF/WF classifier → WF-parser → ALL-parser (§II.B).

    all_parser (GraphParser): The ALL-parser, trained on whole sentences: pass the trained
        one-stage parser to share it (its training time then belongs to the one-stage method).
    """

    MODES = ("classifier", "gold", "all")

    def __init__(self, order: int = 2, n_rows: int = 1 << 21, label_rows: int = 1 << 18,
                 chars: FrozenSet[str] = DEFAULT_SPLIT, all_parser: Optional[GraphParser] = None):
        self.order = order
        self.chars = frozenset(chars)
        self.classifier = WFClassifier()
        self.wf = GraphParser(order, n_rows, label_rows)
        self.all = all_parser if all_parser is not None else GraphParser(order, n_rows, label_rows)

    def train(self, sentences: Sequence[tuple], epochs: int = 5, seed: int = 0,
              train_all: bool = True, verbose: bool = False) -> Dict[str, float]:
        """RETURNS the training seconds of the classifier, the WF-parser and the ALL-parser."""
        t0 = time.perf_counter()
        self.classifier.train(sentences, self.chars, epochs, seed)
        times = {"classifier": time.perf_counter() - t0}
        wf = [x for s in sentences for x in fragment_examples(s, self.chars, well_formed_only=True)]
        times["wf"] = _train(self.wf, wf, epochs, seed, verbose)
        times["all"] = _train(self.all, list(sentences), epochs, seed, verbose) if train_all else 0.0
        return times

    def wf_flags(self, words, tags, upos, frags, mode: str = "classifier",
                 gold_heads: Optional[Sequence[int]] = None) -> List[bool]:
        if mode == "all":
            return [True] * len(frags)
        if mode == "gold":
            if gold_heads is None:
                raise ValueError("the WF-gold setting needs the gold heads")
            return [f.well_formed for f in analyse(words, gold_heads, self.chars)]
        if mode == "classifier":
            return self.classifier.predict(words, tags, upos, frags)
        raise ValueError(f"unknown mode {mode!r}: one of {self.MODES}")

    def parse(self, words, tags, upos, mode: str = "classifier",
              gold_heads: Optional[Sequence[int]] = None,
              flags: Optional[Sequence[bool]] = None) -> Tuple[List[int], List[str]]:
        """Heads and labels of one sentence; ``flags`` (one per `segment` fragment) overrides
        ``mode``, e.g. to time the parsers without the classifier as the paper does."""
        n = len(words)
        frags = segment(words, self.chars)
        if flags is None:
            flags = self.wf_flags(words, tags, upos, frags, mode, gold_heads)
        elif len(flags) != len(frags):
            raise ValueError(f"{len(flags)} WF flags for {len(frags)} fragments")
        inner: List[Optional[int]] = [None] * n
        inner_labels: List[Optional[str]] = [None] * n
        pseudo = list(split_positions(words, self.chars))
        for (s, e), wf in zip(frags, flags):
            if not wf:
                pseudo.extend(range(s, e))
                continue
            _parse_fragment(self.wf, words, tags, upos, s, e, inner, inner_labels, pseudo)
        return _parse_pseudo_sentence(self.all, words, tags, upos, sorted(pseudo), inner, inner_labels)


def sub_root_counts(pred: Iterable[int], gold_types: Dict[int, int]) -> Dict[str, int]:
    """Table IV counts for one sentence: gold / system / correct sub-roots, and by gold type."""
    pred = set(pred)
    return {
        "gold": len(gold_types), "system": len(pred),
        "correct": sum(t in pred for t in gold_types),
        "gold1": sum(v == 1 for v in gold_types.values()),
        "correct1": sum(v == 1 and t in pred for t, v in gold_types.items()),
        "gold2": sum(v == 2 for v in gold_types.values()),
        "correct2": sum(v == 2 and t in pred for t, v in gold_types.items()),
    }


__all__ = [
    "ROOT_LABEL", "ThreeStageParser", "TwoStageParser", "WFClassifier", "combine",
    "fragment_examples", "inter_example", "sentence_tuples", "sub_root_counts",
]
