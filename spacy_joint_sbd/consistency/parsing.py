"""Inter-sentence consistency for the graph parser (rush2012 §4, §7): corpus-level decoding.

`build_parsing_mrf` turns test sentences (their POS tags, predicted or gold) and a fitted
`ContextModel` into word nodes (one per word with a predictive context; labels = chart heads
0..n except itself) and consensus nodes (one per context type), with θ from δ1..δ3 and the
training counts O_c as the consensus nodes' bias. `ParserSolver` is the sentence-level side: the
existing Eisner chart loops (`graph.eisner`, `graph.eisner2`, through `adjusted_eisner`) on the
parser's arc scores minus the Lagrange multipliers (``arc[h, m+1] -= u(m, h)``): the multipliers
enter as an additive arc-score adjustment, so the decoders are unchanged. Arc scores are
computed once per sentence; sibling scores (second order) are kept for the sentences with
constrained words (the only ones lazy re-decoding touches) within a memory budget (1 GB by
default: a 25k-word corpus of long sentences needs ~300 MB), recomputed beyond it.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy

from ..graph.parser import GraphParser, make_sentence
from .adjusted_eisner import AdjustedEisner
from .contexts import ROOT_TAG, ContextKey, ContextModel
from .dual import DDResult, Penalty, WordNode, dual_decompose
from .mrf import ConsensusMRF, make_theta

TaggedSentence = Tuple[Sequence[str], Sequence[str], Sequence[str]]
"""(words, fine tags, UPOS): what the parser reads; the fine tags define the contexts."""


@dataclass
class ParsingMRF:
    words: List[WordNode]
    mrf: ConsensusMRF
    contexts: List[ContextKey]
    """The context of each consensus node."""
    tags: List[str]
    """The POS inventory: consensus label ids (NULL = len(tags))."""


def _fine(tags: Sequence[str], upos: Sequence[str]) -> List[str]:
    return [t if t and t != "_" else u for t, u in zip(tags, upos)]


def build_parsing_mrf(sentences: Sequence[TaggedSentence], model: ContextModel,
                      delta: Tuple[float, float, float] = (1.0, 0.5, 0.0),
                      train_weight: float = 1.0) -> ParsingMRF:
    """The MRF of §4 over test ``sentences``: δ = (δ1, δ2, δ3); ``train_weight`` scales the
    observed training nodes O_c (1.0: the paper, every training instance counts once)."""
    if len(delta) != 3:
        raise ValueError(f"delta must be (delta1, delta2, delta3), got {delta!r}")
    if not (numpy.isfinite(train_weight) and train_weight >= 0):
        raise ValueError(f"train_weight must be >= 0, got {train_weight!r}")
    if not model.stats:
        raise ValueError("the ContextModel has no training counts: call fit() first")
    fine = [_fine(t, u) for _, t, u in sentences]
    inventory = sorted({t for tags in fine for t in tags} | {ROOT_TAG}
                       | {h for st in model.stats.values() for h in st.head_tags})
    tid = {t: i for i, t in enumerate(inventory)}
    T = len(inventory)
    close = numpy.array([[model.close(a, b) for b in inventory] for a in inventory], dtype=bool)
    theta = make_theta(T, *map(float, delta), close=close)
    node_id: Dict[ContextKey, int] = {}
    members: List[List[int]] = []
    words: List[WordNode] = []
    tag_of: List[numpy.ndarray] = []
    for s, tags in enumerate(fine):
        n = len(tags)
        if n < 2:
            continue
        chart_tags = numpy.array([tid[ROOT_TAG]] + [tid[t] for t in tags], dtype=numpy.int64)
        for m in range(n):
            key = model.select(tags, m)
            if key is None:
                continue
            c = node_id.setdefault(key, len(members))
            if c == len(members):
                members.append([])
            cands = numpy.array([h for h in range(n + 1) if h != m + 1], dtype=numpy.int64)
            members[c].append(len(words))
            words.append(WordNode(s, m, cands))
            tag_of.append(chart_tags[cands])
    contexts = sorted(node_id, key=node_id.get)
    bias = numpy.zeros((len(contexts), T + 1))
    for c, key in enumerate(contexts):
        for htag, cnt in model.stats[key].head_tags.items():
            bias[c] += train_weight * cnt * theta[tid[htag]]
    return ParsingMRF(words, ConsensusMRF(theta, members, tag_of, bias), contexts, inventory)


class ParserSolver:
    """Sentence-level decoding with Lagrange adjustments: ``solve(s, penalties)`` for
    `dual_decompose`. Word m's label is its chart head (0 = root, token t at t + 1)."""

    def __init__(self, parser: GraphParser, sentences: Sequence[TaggedSentence],
                 cache_mb: float = 1024.0):
        if not isinstance(parser, GraphParser):
            raise ValueError(f"parser must be a GraphParser, got {type(parser).__name__}")
        if not cache_mb >= 0:
            raise ValueError(f"cache_mb must be >= 0, got {cache_mb!r}")
        for (w, t, u) in sentences:
            if not (len(w) == len(t) == len(u)):
                raise ValueError(f"words, tags and upos differ in length: {len(w)}, {len(t)}, {len(u)}")
        self.parser = parser
        self.sents = [make_sentence(w, t, u) for w, t, u in sentences]
        self._arc: List[Optional[numpy.ndarray]] = [None] * len(self.sents)
        self._dec: Dict[int, AdjustedEisner] = {}
        self._budget = cache_mb * 2 ** 20
        self.calls = 0

    def _decoder(self, s: int, constrained: bool) -> AdjustedEisner:
        """Sentence s's scores, checked once: arc scores are kept; sibling scores are kept for
        ``constrained`` sentences (only those are ever re-decoded by `dual_decompose`) while the
        cache budget lasts, else recomputed on each re-decoding."""
        dec = self._dec.get(s)
        if dec is not None:
            return dec
        sent = self.sents[s]
        arc = self._arc[s]
        if arc is None:
            arc, sib = self.parser.arc_scores(sent)
            self._arc[s] = arc
        else:
            sib = sent.sib_scores(self.parser.weights) if self.parser.order == 2 and \
                sent.n <= self.parser.max_sib_length else None
        dec = AdjustedEisner(arc, sib)
        if sib is None:
            self._dec[s] = dec
        elif constrained and sib.size * 8 <= self._budget:
            self._budget -= sib.size * 8
            self._dec[s] = dec
        return dec

    def solve(self, s: int, penalties: Sequence[Penalty]) -> Tuple[List[int], float]:
        """Chart heads of sentence s's words and the tree's score under arc − penalties
        (``penalties``: `Penalties` from `dual_decompose`, or ``(m, candidates, u)`` tuples)."""
        if isinstance(s, bool) or not isinstance(s, (int, numpy.integer)) or not 0 <= s < len(self.sents):
            raise ValueError(f"sentence {s!r} not in [0, {len(self.sents)})")
        self.calls += 1
        if self.sents[s].n == 0:
            return [], 0.0
        return self._decoder(int(s), bool(penalties)).decode(penalties)


@dataclass
class ConsistencyParse:
    heads: List[List[int]]
    """Token heads (-1 = root) of every sentence."""
    base_heads: List[List[int]]
    """The sentence-level parser's heads (the first iteration, u = 0)."""
    result: DDResult
    problem: ParsingMRF
    base_seconds: float
    """Time of the first iteration's sentence-level decoding (scores + Eisner)."""


def consistency_parse(parser: GraphParser, sentences: Sequence[TaggedSentence], model: ContextModel,
                      delta: Tuple[float, float, float] = (1.0, 0.5, 0.0), K: int = 200,
                      rate: float = 1.0, lazy: bool = True, train_weight: float = 1.0,
                      removal_rounds: int = 0) -> ConsistencyParse:
    """Decode ``sentences`` jointly (Figure 2) with the parser and the consensus MRF."""
    import time

    problem = build_parsing_mrf(sentences, model, delta, train_weight)
    solver = ParserSolver(parser, sentences)
    base: Dict[int, List[int]] = {}
    base_time = [0.0]

    def solve(s: int, pens: Sequence[Penalty]) -> Tuple[List[int], float]:
        t0 = time.perf_counter()
        out = solver.solve(s, pens)
        if s not in base:
            base[s] = out[0]
            base_time[0] += time.perf_counter() - t0
        return out

    res = dual_decompose(solve, len(sentences), problem.words, problem.mrf, K=K, rate=rate,
                         lazy=lazy, removal_rounds=removal_rounds)
    to_tok = lambda chart: [h - 1 for h in chart]  # noqa: E731
    return ConsistencyParse([to_tok(l) for l in res.labels],
                            [to_tok(base[s]) for s in range(len(sentences))],
                            res, problem, base_time[0])


__all__ = ["ConsistencyParse", "ParserSolver", "ParsingMRF", "TaggedSentence",
           "build_parsing_mrf", "consistency_parse"]
