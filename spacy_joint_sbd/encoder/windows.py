"""Overlapping windows over a document's words, and each word's most central window.

An encoder reads at most a few hundred WordPieces at once, a document may hold millions. The words
are cut into windows of at most `max_words` words and `max_pieces` pieces, each starting `stride`
of a window after the one before (half, by default), so every word lies in one or two windows; a word's score is taken
from the window where it has the most context on its poorer side (`central_windows`), which is how
the encoder was trained to see words: mid-window, with text on both sides.
"""
from typing import List, Tuple

import numpy


def plan_windows(piece_counts: numpy.ndarray, max_words: int, max_pieces: int,
                 stride: float = 0.5) -> List[Tuple[int, int]]:
    """[(start, end)) word spans covering every word: each holds at most `max_words` words and
    `max_pieces` pieces (a single word longer than that gets a window of its own; the caller caps
    a word's pieces), and the next starts `stride` of a window after its start (0.5: every word
    is read twice, with at least a quarter window of context on each side; 0.75: 1.33 times,
    an eighth)."""
    if max_words < 1 or max_pieces < 1:
        raise ValueError(f"windows need max_words >= 1 and max_pieces >= 1, got {max_words}, {max_pieces}")
    if not 0 < stride <= 1:
        raise ValueError(f"stride must be in (0, 1], got {stride!r}")
    counts = numpy.asarray(piece_counts, dtype=numpy.int64)
    n = len(counts)
    if n == 0:
        return []
    ends_at = numpy.concatenate([[0], numpy.cumsum(counts)])
    spans = []
    start = 0
    while True:
        # The furthest end with at most max_words words and max_pieces pieces (at least one word).
        by_pieces = int(numpy.searchsorted(ends_at, ends_at[start] + max_pieces, side="right")) - 1
        end = max(start + 1, min(n, start + max_words, by_pieces))
        spans.append((start, end))
        if end >= n:
            return spans
        start += max(1, int((end - start) * stride))


def central_windows(spans: List[Tuple[int, int]], n: int) -> numpy.ndarray:
    """(n,) int: for each word, the index of the span in `spans` where min(words before it, words
    after it) is largest (the first such span on ties); -1 for a word no span covers."""
    best = numpy.full(n, -1, dtype=numpy.int64)
    depth = numpy.full(n, -1, dtype=numpy.int64)
    for k, (s, e) in enumerate(spans):
        i = numpy.arange(s, e)
        d = numpy.minimum(i - s, e - 1 - i)
        better = d > depth[s:e]
        depth[s:e][better] = d[better]
        best[s:e][better] = k
    return best
