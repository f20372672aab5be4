"""Sentences as users ask for them: a probability threshold and a longest sentence, trees kept whole.

The joint parser decides boundaries by its search; two prediction settings re-draw them from
`token._.sent_start_prob` afterwards:

- `threshold` P: a sentence starts exactly where the probability is >= P (forced boundaries have
  probability 1 and stay; forbidden ones and whitespace have 0 and never start one);
- `max_length` N (characters): a sentence longer than N is cut at its most probable boundaries —
  the cuts that minimise the summed -log p of the cut tokens subject to every piece fitting in N
  (a Viterbi over the tokens; a piece that cannot fit, one token longer than N, stays whole).

Trees stay one per sentence (`repair_trees`): in each new sentence the token that left it highest
in the old forest becomes its root, and every other token whose head fell outside the sentence
attaches to that root, keeping its label (a former root gets `parataxis`, UD's label for a clause
placed beside another; `dep` if the model has no such label).
"""
import math
from typing import List, Optional, Sequence, Tuple

import numpy

JOIN_LABELS = ("parataxis", "dep")


def threshold_starts(probs: Sequence[float], threshold: float) -> numpy.ndarray:
    """bool starts: token 0 and every token with probability >= `threshold`."""
    starts = numpy.asarray(probs, dtype=numpy.float64) >= threshold
    if len(starts):
        starts[0] = True
    return starts


def cut_long(starts: Sequence[bool], probs: Sequence[float], char_start: Sequence[int], char_end: Sequence[int],
             candidates: Sequence[bool], max_chars: int) -> numpy.ndarray:
    """`starts` with every sentence longer than `max_chars` (from its first to its last
    non-whitespace character, `char_start` / `char_end` of its `candidates`-or-not tokens) cut at its
    most probable boundaries; only `candidates` tokens may start a new piece."""
    out = numpy.array(starts, dtype=bool)
    n = len(out)
    if n == 0:
        return out
    out[0] = True
    bounds = list(numpy.flatnonzero(out)) + [n]
    for a, b in zip(bounds, bounds[1:]):
        if char_end[b - 1] - char_start[a] <= max_chars:
            continue
        for j in _viterbi_cuts(probs, char_start, char_end, candidates, a, b, max_chars):
            out[j] = True
    return out


def _viterbi_cuts(probs, char_start, char_end, candidates, a: int, b: int, max_chars: int) -> List[int]:
    """Tokens in (a, b) that start the pieces of the best cutting of sentence [a, b)."""
    points = [a] + [j for j in range(a + 1, b) if candidates[j]]  # where a piece may start
    m = len(points)
    # the end of the piece that starts at points[i] and runs up to (not incl.) points[k] (or b)
    ends = [points[k] for k in range(1, m)] + [b]
    cost = [math.inf] * (m + 1)  # cost[i]: best cost of cutting [points[i], b) when a piece starts at i
    nxt = [m] * (m + 1)
    cost[m] = 0.0
    for i in range(m - 1, -1, -1):
        start_char = char_start[points[i]]
        best, arg = math.inf, m
        for k in range(i + 1, m + 1):
            end_tok = ends[k - 1] - 1  # the piece [points[i], ends[k-1]) ends at this token
            if char_end[end_tok] - start_char > max_chars and k > i + 1:
                break
            c = cost[k] + (0.0 if k == m else -math.log(max(float(probs[points[k]]), 1e-12)))
            if c < best:
                best, arg = c, k
        cost[i], nxt[i] = best, arg
    cuts, i = [], 0
    while nxt[i] < m:
        i = nxt[i]
        cuts.append(points[i])
    return cuts


def repair_trees(heads: numpy.ndarray, labels: numpy.ndarray, starts: numpy.ndarray, root_label: int,
                 join_label: int) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(heads, labels) that are one tree per sentence of `starts`, from a forest whose trees may
    cross the new boundaries (heads absolute, -1 = root; label ids, -1 = whitespace)."""
    heads = numpy.array(heads, dtype=numpy.int32)
    labels = numpy.array(labels, dtype=numpy.int32)
    n = len(heads)
    depth = _depths(heads)
    bounds = list(numpy.flatnonzero(starts)) + [n]
    if not bounds or bounds[0] != 0:
        bounds = [0] + bounds
    for a, b in zip(bounds, bounds[1:]):
        exits = [i for i in range(a, b) if heads[i] < a or heads[i] >= b]  # -1 (a root) is < a
        if len(exits) == 1 and heads[exits[0]] == -1:
            continue
        words = [i for i in exits if labels[i] != -1] or exits
        main = min(words, key=lambda i: (depth[i], i))
        for i in exits:
            if i == main:
                continue
            if heads[i] == -1 and labels[i] != -1:
                labels[i] = join_label
            heads[i] = main
        heads[main] = -1
        labels[main] = root_label
    return heads, labels


def _depths(heads: numpy.ndarray) -> List[int]:
    """Distance of each token from the root of its tree (a forest, heads -1 at roots)."""
    n = len(heads)
    depth = [-1] * n
    for i in range(n):
        path, j = [], i
        while j != -1 and depth[j] < 0 and len(path) <= n:
            path.append(j)
            j = int(heads[j])
        d = -1 if j == -1 else depth[j]
        for k in reversed(path):
            d += 1
            depth[k] = d
    return depth


def check_limits(threshold, max_length, name: Optional[str], options: bool = False) -> None:
    """ValueError naming the setting unless `threshold` is None or a number in (0, 1] and
    `max_length` None or an int >= 1: as the component's setting (`[name] threshold ...`), or with
    `options` as the `segment` command's (`--threshold ...`)."""
    where = "" if name is None else f"[{name}] "
    first, second = ("--threshold", "--max-length") if options else ("threshold", "max_length")
    none = "" if options else "None or "
    if threshold is not None and (not isinstance(threshold, (int, float)) or isinstance(threshold, bool)
                                  or not 0 < threshold <= 1):
        raise ValueError(f"{where}{first} must be {none}a probability in (0, 1], got {threshold!r}")
    if max_length is not None and (not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1):
        raise ValueError(f"{where}{second} must be {none}a number of characters >= 1, got {max_length!r}")


def join_label_id(label_names: Sequence[str]) -> Optional[int]:
    for name in JOIN_LABELS:
        if name in label_names:
            return list(label_names).index(name)
    return None
