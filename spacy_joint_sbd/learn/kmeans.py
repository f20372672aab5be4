"""Lloyd's k-means in numpy: the quantizer that turns dense token vectors into discrete features.

A linear model over hashed features cannot read a 96-d vector directly; cluster ids at a few
granularities can (the way Koo et al. 2008 add Brown-cluster prefixes to a parser). Deterministic
for a given seed, so a model trained twice gets the same columns.
"""
from typing import Optional

import numpy

CHUNK = 8192
"""Rows assigned at a time: bounds the (rows × k) distance block's memory."""


def nearest(x: numpy.ndarray, centroids: numpy.ndarray) -> numpy.ndarray:
    """Index of the nearest centroid (squared Euclidean distance) for each row of `x`.

    x: (n, d) float; centroids: (k, d) float. Rows with NaN or infinity get cluster 0."""
    x = numpy.asarray(x, dtype=numpy.float32)
    c = numpy.asarray(centroids, dtype=numpy.float32)
    if x.ndim != 2 or c.ndim != 2 or x.shape[1] != c.shape[1] or len(c) == 0:
        raise ValueError(f"nearest: need (n, d) vectors and (k >= 1, d) centroids, got {x.shape} and {c.shape}")
    out = numpy.zeros(len(x), dtype=numpy.int64)
    cn = (c * c).sum(1)
    for s in range(0, len(x), CHUNK):
        block = x[s:s + CHUNK]
        with numpy.errstate(invalid="ignore", over="ignore"):
            d = cn[None, :] - 2.0 * (block @ c.T)
        d[~numpy.isfinite(d)] = numpy.inf
        best = numpy.argmin(d, axis=1)
        best[~numpy.isfinite(block).all(axis=1)] = 0
        out[s:s + CHUNK] = best
    return out


def kmeans(x: numpy.ndarray, k: int, iters: int = 12, seed: int = 0,
           max_points: Optional[int] = 200_000) -> numpy.ndarray:
    """(k, d) float32 centroids of the rows of `x` after `iters` Lloyd iterations, started from k
    distinct rows drawn with `seed` (at most `max_points` rows, drawn with the same seed, are used).
    An empty cluster keeps its previous centroid."""
    x = numpy.asarray(x, dtype=numpy.float32)
    if x.ndim != 2 or x.shape[1] == 0:
        raise ValueError(f"kmeans: need an (n, d) array of vectors, got shape {x.shape}")
    if not numpy.isfinite(x).all():
        raise ValueError("kmeans: the vectors contain NaN or infinity")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"kmeans: k must be a positive int, got {k!r}")
    if not isinstance(iters, int) or iters < 0:
        raise ValueError(f"kmeans: iters must be an int >= 0, got {iters!r}")
    rng = numpy.random.RandomState(seed)
    if max_points is not None and len(x) > max_points:
        x = x[numpy.sort(rng.choice(len(x), max_points, replace=False))]
    seen, start = set(), []
    for i in rng.permutation(len(x)):  # k distinct rows in random order
        key = x[i].tobytes()
        if key not in seen:
            seen.add(key)
            start.append(i)
            if len(start) == k:
                break
    if len(start) < k:
        raise ValueError(f"kmeans: {len(start)} distinct vectors cannot make {k} clusters")
    c = x[start].copy()
    for _ in range(iters):
        a = nearest(x, c)
        order = numpy.argsort(a, kind="stable")
        counts = numpy.bincount(a, minlength=k)
        full = counts > 0
        starts = numpy.concatenate([[0], numpy.cumsum(counts)[:-1]])[full]
        sums = numpy.add.reduceat(x[order].astype(numpy.float64), starts, axis=0)
        c[full] = (sums / counts[full, None]).astype(numpy.float32)
    return c
