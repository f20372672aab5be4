"""Brute force over all projective single-rooted trees of tiny sentences (test helper)."""
from functools import lru_cache
from typing import List, Tuple

import numpy


@lru_cache(maxsize=None)
def _subtrees(i: int, j: int) -> Tuple[Tuple[int, Tuple[Tuple[int, int], ...]], ...]:
    """All projective trees over [i, j]: (root, ((dep, head), ...))."""
    out = []
    for h in range(i, j + 1):
        for left in _sequences(i, h - 1):
            for right in _sequences(h + 1, j):
                arcs = []
                for r, sub in left + right:
                    arcs.append((r, h))
                    arcs.extend(sub)
                out.append((h, tuple(arcs)))
    return tuple(out)


@lru_cache(maxsize=None)
def _sequences(i: int, j: int):
    """All ways to cover [i, j] with consecutive subtrees: tuples of (root, arcs)."""
    if i > j:
        return ((),)
    out = []
    for k in range(i, j + 1):
        for first in _subtrees(i, k):
            for rest in _sequences(k + 1, j):
                out.append((first,) + rest)
    return tuple(out)


@lru_cache(maxsize=None)
def projective_trees(n: int) -> numpy.ndarray:
    """int array (n_trees, n): token heads, -1 for the single root."""
    trees = []
    for root, arcs in _subtrees(0, n - 1):
        heads = [-1] * n
        for d, h in arcs:
            heads[d] = h
        trees.append(heads)
    return numpy.array(trees, dtype=numpy.int64).reshape(len(trees), n)


def first_order_scores(trees: numpy.ndarray, arc: numpy.ndarray) -> numpy.ndarray:
    n = trees.shape[1]
    return arc[trees + 1, numpy.arange(1, n + 1)].sum(axis=1)


def second_order_score(heads: List[int], arc: numpy.ndarray, sib: numpy.ndarray) -> float:
    """Arc scores plus adjacent-sibling scores sib[h, s, m] (s == h: m is the closest child)."""
    n = len(heads)
    total = 0.0
    for d in range(n):
        total += arc[heads[d] + 1, d + 1]
    for hp in range(n + 1):
        kids = [d + 1 for d in range(n) if heads[d] + 1 == hp]
        right = [m for m in kids if m > hp]
        left = sorted((m for m in kids if m < hp), reverse=True)
        for side in (right, left):
            prev = hp
            for m in side:
                total += sib[hp, prev, m]
                prev = m
    return total
