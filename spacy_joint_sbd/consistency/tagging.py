"""Inter-sentence consistency for POS tagging (rush2012 §4 end, §7 "POS Tagging Constraints").

Every word type unknown to the tagger (not in its training data) that occurs at least twice in the
corpus gets a consensus node T_c shared by all its occurrences; a type w and its morphological
neighbour w + "s" share one node (the variant the paper found most useful). Word labels are tags,
θ is §4's (δ1 same tag, δ2 close tags, δ3 NULL), there are no observed training nodes. The
sentence-level decoder is the trigram tagger's Viterbi with the multipliers subtracted from the
emission scores. Unannotated sentences that contain the unknown words (the paper imports them from
NANC) can simply be added to the corpus: they are decoded jointly and need not be scored.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy

from ..tagger.trigram import TrigramTagger, viterbi, word_features
from .dual import DDResult, Penalty, WordNode, dual_decompose
from .mrf import ConsensusMRF, make_theta


@dataclass
class TaggingMRF:
    words: List[WordNode]
    mrf: ConsensusMRF
    types: List[Tuple[str, ...]]
    """The word types of each consensus node."""


def _type_groups(sentences: Sequence[Sequence[str]], tagger: TrigramTagger,
                 suffix_s: bool) -> Dict[str, str]:
    """Unknown lower-cased type → its group's representative (w and w + "s" together)."""
    unknown = {w.lower() for ws in sentences for w in ws if not tagger.is_known(w)}
    rep = {w: w for w in unknown}
    if suffix_s:
        for w in unknown:
            if w.endswith("s") and w[:-1] in unknown:
                rep[w] = w[:-1]
    return rep


def build_tagging_mrf(sentences: Sequence[Sequence[str]], tagger: TrigramTagger,
                      delta: Tuple[float, float, float] = (1.0, 0.5, 0.0),
                      close: Optional[numpy.ndarray] = None, min_occurrences: int = 2,
                      suffix_s: bool = True) -> TaggingMRF:
    """Consensus nodes over the unknown word types of ``sentences`` (lists of words)."""
    if len(delta) != 3:
        raise ValueError(f"delta must be (delta1, delta2, delta3), got {delta!r}")
    if not isinstance(min_occurrences, int) or min_occurrences < 1:
        raise ValueError(f"min_occurrences must be a positive int, got {min_occurrences!r}")
    T = tagger.n_tags
    theta = make_theta(T, *map(float, delta), close=close)
    rep = _type_groups(sentences, tagger, suffix_s)
    occ: Dict[str, List[Tuple[int, int]]] = {}
    for s, ws in enumerate(sentences):
        for m, w in enumerate(ws):
            r = rep.get(w.lower())
            if r is not None:
                occ.setdefault(r, []).append((s, m))
    cands = numpy.arange(T, dtype=numpy.int64)
    words: List[WordNode] = []
    members: List[List[int]] = []
    types: List[Tuple[str, ...]] = []
    for r in sorted(occ):
        if len(occ[r]) < min_occurrences:
            continue
        members.append([])
        types.append(tuple(sorted({w for w, x in rep.items() if x == r})))
        for s, m in occ[r]:
            members[-1].append(len(words))
            words.append(WordNode(s, m, cands))
    return TaggingMRF(words, ConsensusMRF(theta, members, [cands] * len(words)), types)


def tag_close_matrix(labels: Sequence[str], coarse: Dict[str, str]) -> numpy.ndarray:
    """close[a, b]: different tags mapped to the same coarse class (e.g. NN and NNS → NOUN)."""
    return numpy.array([[a != b and coarse.get(a) is not None and coarse.get(a) == coarse.get(b)
                         for b in labels] for a in labels], dtype=bool)


@dataclass
class ConsistencyTagging:
    tags: List[List[str]]
    base_tags: List[List[str]]
    result: DDResult
    problem: TaggingMRF


def consistency_tag(tagger: TrigramTagger, sentences: Sequence[Sequence[str]],
                    delta: Tuple[float, float, float] = (1.0, 0.5, 0.0), K: int = 200,
                    rate: float = 1.0, lazy: bool = True, close: Optional[numpy.ndarray] = None,
                    suffix_s: bool = True, removal_rounds: int = 0) -> ConsistencyTagging:
    """Tag ``sentences`` jointly (Figure 2 with the trigram tagger as the sentence-level model)."""
    if not isinstance(tagger, TrigramTagger):
        raise ValueError(f"tagger must be a TrigramTagger, got {type(tagger).__name__}")
    problem = build_tagging_mrf(sentences, tagger, delta, close, suffix_s=suffix_s)
    Tr = tagger.transitions()
    E = [tagger.emissions(word_features(ws)) if ws else numpy.zeros((0, tagger.n_tags))
         for ws in sentences]
    base: Dict[int, List[int]] = {}

    def solve(s: int, pens: Sequence[Penalty]) -> Tuple[List[int], float]:
        e = E[s]
        if pens:
            e = e.copy()
            for m, cands, u in pens:
                e[m, cands] -= u
        out = viterbi(e, Tr)
        base.setdefault(s, out[0])
        return out

    res = dual_decompose(solve, len(sentences), problem.words, problem.mrf, K=K, rate=rate,
                         lazy=lazy, removal_rounds=removal_rounds)
    lab = tagger.labels
    return ConsistencyTagging([[lab[t] for t in ts] for ts in res.labels],
                              [[lab[t] for t in base[s]] for s in range(len(sentences))],
                              res, problem)


__all__ = ["ConsistencyTagging", "TaggingMRF", "build_tagging_mrf", "consistency_tag",
           "tag_close_matrix"]
