"""Lloyd's k-means in numpy: the quantizer that turns dense token vectors into discrete features.

A linear model over hashed features cannot read a 96-d vector directly; cluster ids at a few
granularities can (the way Koo et al. 2008 add Brown-cluster prefixes to a parser). Deterministic
for a given seed, so a model trained twice gets the same columns.
"""
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy

from . import shortlist
from .blas import single_threaded_blas

BLOCK = 1 << 22
"""Distances computed at a time (rows × centroids, float32: 16 MiB): bounds the memory of the
assignment whatever k is (at k = 4,096 a fixed 8,192-row block took 128 MiB, and as much again for
each temporary)."""

SINGLE_THREAD_ROWS = 1024
"""Blocks of fewer rows than this are multiplied with BLAS limited to one thread
(`single_threaded_blas`). A Doc's assignment against the default pipeline's 5,456 centroids is such
a block (at most BLOCK // 5,456 = 768 rows): with OpenBLAS's default threads, handing a product of
10–40 rows to a second thread cost 5–10× its single-threaded CPU time (2-core VM: 20 rows 4.1 against
0.8 CPU ms; the tagger spent 3.6 of 4.0 CPU s of 300 short texts here), and up to 768 rows one
thread was no slower in wall time either. Fitting k-means with k ≤ 1,024 (blocks of ≥ 4,096 rows)
keeps the user's threads, as before."""

SHORTLIST = True
"""Assign by `context.shortlist` (int8 distances, then the double-precision distances of a proven
shortlist) where the CPU has AVX-512 VNNI or AVX2: the float64 nearest centroids (the float product's but
at float32 ties) at about 37% (VNNI, Xeon) or 70% (AVX2, AMD EPYC) of the product's time. False (`float_product`, tests): the float
product."""


@contextmanager
def float_product() -> Iterator[None]:
    """Inside the block every assignment is by the float product (`SHORTLIST` off: a process-wide
    switch, for single-threaded scripts). The default pipeline's training scripts run in it, so a
    model is trained on the clusters every model before the shortlist was trained on, bit for bit:
    the recipe is chaotic, and the shortlist's 3 flipped ties among 5.9 million training
    assignments (float32 ties 1e-6 apart) gave another draw of it (docs/benchmarks.md)."""
    global SHORTLIST
    before = SHORTLIST
    SHORTLIST = False
    try:
        yield
    finally:
        SHORTLIST = before


def nearest(x: numpy.ndarray, centroids: numpy.ndarray, product: bool = False) -> numpy.ndarray:
    """Index of the nearest centroid (squared Euclidean distance) for each row of `x`.

    x: (n, d) float; centroids: (k, d) float. Rows with NaN or infinity get cluster 0.
    product=True: always by the float product (`nearest_in_sets`)."""
    c = numpy.asarray(centroids, dtype=numpy.float32)
    if c.ndim != 2 or len(c) == 0:
        raise ValueError(f"nearest: need (n, d) vectors and (k >= 1, d) centroids, got "
                         f"{numpy.shape(x)} and {c.shape}")
    return nearest_in_sets(x, CentroidTable([c]), product=product)[:, 0]


class CentroidTable:
    """Several centroid sets stacked for assignment: one (d, Σk) float32 matrix and the squared
    norms of its columns, computed once (no per-call norm recomputation), and each set as a
    matrix of its own (`parts`), so that a block of vectors is compared with every centroid of a
    set in one matrix product.

    Each of `parts` holds −2·centroids over a last row of the squared norms: `[x, 1] @ part` is
    ‖c‖² − 2·x·c in the product itself, sparing two passes over the (rows × Σk) distances
    (about a fifth of the assignment's time on long documents). Scaling by −2 is exact, and the
    norm is the product's last term, added once to the finished dot product: the same distances
    bit for bit as `(x @ ct) * -2 + norms` (tested against that formula)."""

    def __init__(self, sets: Sequence[numpy.ndarray]):
        sets = [numpy.asarray(c, dtype=numpy.float32) for c in sets]
        if not sets or any(c.ndim != 2 or len(c) == 0 for c in sets) or len({c.shape[1] for c in sets}) != 1:
            raise ValueError(f"CentroidTable: need (k >= 1, d) centroid sets of one d, got {[c.shape for c in sets]}")
        stacked = numpy.concatenate(sets)
        self.width: int = int(stacked.shape[1])
        self.ct: numpy.ndarray = numpy.ascontiguousarray(stacked.T)
        """(d, Σk) centroids, transposed for `x @ ct`."""
        self.norms: numpy.ndarray = (stacked * stacked).sum(1)
        """(Σk,) float32 squared norms (summed as `nearest` always did: same distances)."""
        with numpy.errstate(over="ignore", invalid="ignore"):
            scaled = numpy.vstack([self.ct * numpy.float32(-2.0), self.norms[None, :]]).astype(numpy.float32, copy=False)
        self.max_norm: float = float(numpy.sqrt(self.norms.max())) if self.norms.max() < 1e36 else numpy.inf
        """The longest centroid's length: with it, rows short enough cannot overflow a distance."""
        ends = numpy.cumsum([len(c) for c in sets])
        self.bounds: List[Tuple[int, int]] = [(int(e - len(c)), int(e)) for c, e in zip(sets, ends)]
        """Each set's [start, end) column range."""
        self.parts: List[numpy.ndarray] = [numpy.ascontiguousarray(scaled[:, a:b]) for a, b in self.bounds]
        """(d + 1, k) per set: −2·centroids over the row of their squared norms, for `[x, 1] @ part`.
        Each contiguous: one product per set gives each set's distances as a contiguous (rows, k)
        array, whose argmin needs no copy (a column range of one product over every set did: a
        third of the assignment's time went to those copies)."""
        self._sets = sets
        self._quantized: Dict[str, List[shortlist.QuantizedSet]] = {}

    def quantized(self) -> List[shortlist.QuantizedSet]:
        """The sets in the int8 layout of the kernel `context.shortlist` runs now (`QuantizedSet`'s
        default), with the norms above (made on first use, once per kernel)."""
        name = shortlist.kernel()
        if name not in self._quantized:
            self._quantized[name] = [shortlist.QuantizedSet(c, self.norms[a:b]) for c, (a, b) in zip(self._sets, self.bounds)]
        return self._quantized[name]


def nearest_in_sets(x: numpy.ndarray, table: CentroidTable, product: bool = False) -> numpy.ndarray:
    """(n, number of sets) int64: for each row of `x`, the index of its nearest centroid (squared
    Euclidean distance) within each set of `table`. Rows with NaN or infinity get 0 everywhere.

    Where the CPU has AVX-512 VNNI or AVX2 (`context.shortlist`), finite rows of moderate length are assigned
    by int8 distances and the double-precision distances of a shortlist that provably holds the
    nearest centroid (ids differ from the product's only where two distances tie to float32 rounding).
    Otherwise, or with product=True, distances are ‖c‖² − 2·x·c, each block's in float32 by one product per set (`CentroidTable.parts`),
    in blocks of at most `BLOCK` values; blocks of fewer than `SINGLE_THREAD_ROWS` rows (a Doc at
    prediction time) are multiplied with BLAS on one thread, whatever the environment says. The distances' last bits
    depend on BLAS's thread count (OpenBLAS partitions the product differently), so the limit also
    makes the assignment of such blocks independent of the environment's thread count."""
    x = numpy.asarray(x, dtype=numpy.float32)
    if x.ndim != 2 or x.shape[1] != table.width:
        raise ValueError(f"nearest: need (n, {table.width}) vectors for these centroids, got {x.shape}")
    out = numpy.zeros((len(x), len(table.bounds)), dtype=numpy.int64)
    if len(x) == 0:
        return out
    if SHORTLIST and not product and shortlist.available() and _moderate(x, table):
        shortlist.nearest(numpy.ascontiguousarray(x), table.quantized(), out)
        return out
    rows = max(1, BLOCK // table.ct.shape[1])
    if min(rows, len(x)) < SINGLE_THREAD_ROWS:
        with single_threaded_blas():
            _assign(x, table, rows, out)
    else:
        _assign(x, table, rows, out)
    return out


_SAFE_PRODUCT = 1e36
"""|x · c| ≤ ‖x‖ ‖c‖ (Cauchy–Schwarz, also for every partial sum): below this, no distance of
float32 range (3.4e38) overflows, not even with −2·c and the norm inside the product, and the
pass that maps non-finite distances is skipped."""


def _moderate(x: numpy.ndarray, table: CentroidTable) -> bool:
    """Whether every row is finite and short enough that no distance can overflow (`_SAFE_PRODUCT`):
    such rows go to the shortlist, or to the one product with the norms inside (`_assign`)."""
    with numpy.errstate(invalid="ignore", over="ignore"):
        lengths = numpy.sqrt(numpy.einsum("ij,ij->i", x, x))
        return bool(numpy.isfinite(lengths).all() and float(lengths.max()) * table.max_norm < _SAFE_PRODUCT)


def _product(block: numpy.ndarray, cts: Sequence[numpy.ndarray]) -> List[numpy.ndarray]:
    """`block @ ct` for each matrix of `cts`: the BLAS calls of one block (a seam for the tests)."""
    return [block @ ct for ct in cts]


def _with_ones(block: numpy.ndarray) -> numpy.ndarray:
    """`block` with a last column of ones, for the products with `CentroidTable.parts`."""
    out = numpy.empty((len(block), block.shape[1] + 1), dtype=numpy.float32)
    out[:, :-1] = block
    out[:, -1] = 1.0
    return out


def _assign(x: numpy.ndarray, table: CentroidTable, rows: int, out: numpy.ndarray) -> None:
    """Fill `out` (see `nearest_in_sets`) block by block, `rows` rows at a time."""
    for s in range(0, len(x), rows):
        block = x[s:s + rows]
        with numpy.errstate(invalid="ignore", over="ignore"):
            if _moderate(block, table):  # every vector of a tok2vec: one product per set, ‖c‖² − 2·x·c
                parts = _product(_with_ones(block), table.parts)
            else:  # rows this long or not finite: −2·x·c could overflow where x·c does not
                d = _product(block, [table.ct])[0]
                d *= -2.0
                d += table.norms
                d[~numpy.isfinite(d)] = numpy.inf  # only such rows can make a non-finite distance
                parts = [d[:, a:b] for a, b in table.bounds]
        for j, dist in enumerate(parts):
            out[s:s + rows, j] = numpy.argmin(dist, axis=1)
        out[s:s + rows][~numpy.isfinite(block).all(axis=1)] = 0


def kmeans(x: Union[numpy.ndarray, Sequence[numpy.ndarray]], k: int, iters: int = 12, seed: int = 0,
           max_points: Optional[int] = 200_000) -> numpy.ndarray:
    """(k, d) float32 centroids of the rows of `x` after `iters` Lloyd iterations, started from k
    distinct rows drawn with `seed` (at most `max_points` rows, drawn with the same seed, are used).
    An empty cluster keeps its previous centroid.

    `x` may be a list or tuple of (n_i, d) arrays (e.g. one per Doc): their rows stacked in order,
    the same result as one array; when more than `max_points` rows come, only the sample is copied
    into one array (the parts are never stacked whole). Each iteration assigns by the float product
    (`nearest(product=True)`: large blocks on BLAS's threads), as before the int8 shortlist: the
    centroids of a given sample stay the same bits on every CPU that has the same BLAS."""
    is_parts = isinstance(x, (list, tuple)) and len(x) > 0 and all(hasattr(p, "ndim") for p in x)
    parts = [numpy.asarray(p, dtype=numpy.float32) for p in (x if is_parts else [x])]
    if any(p.ndim != 2 or p.shape[1] == 0 for p in parts) or len({p.shape[1] for p in parts}) != 1:
        shapes = [p.shape for p in parts[:5]]
        raise ValueError(f"kmeans: need (n, d) arrays of vectors of one width d >= 1, got shapes {shapes}"
                         f"{' …' if len(parts) > 5 else ''}")
    if max_points is not None and (not isinstance(max_points, int) or isinstance(max_points, bool) or max_points < 1):
        raise ValueError(f"kmeans: max_points must be None or an int >= 1, got {max_points!r}")
    if not all(numpy.isfinite(p).all() for p in parts):
        raise ValueError("kmeans: the vectors contain NaN or infinity")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"kmeans: k must be a positive int, got {k!r}")
    if not isinstance(iters, int) or iters < 0:
        raise ValueError(f"kmeans: iters must be an int >= 0, got {iters!r}")
    rng = numpy.random.RandomState(seed)
    x = _sample_rows(parts, max_points, rng)
    start = _distinct_rows(x, k, rng)
    if len(start) < k:
        raise ValueError(f"kmeans: {len(start)} distinct vectors cannot make {k} clusters")
    c = x[start].copy()
    for _ in range(iters):
        a = nearest(x, c, product=True)
        order = numpy.argsort(a, kind="stable")
        counts = numpy.bincount(a, minlength=k)
        full = counts > 0
        c[full] = (_cluster_sums(x, order, counts[full]) / counts[full, None]).astype(numpy.float32)
    return c


def _sample_rows(parts: Sequence[numpy.ndarray], max_points: Optional[int],
                 rng: numpy.random.RandomState) -> numpy.ndarray:
    """The rows of the parts stacked in order, or `max_points` of them drawn by `rng` (sorted)
    when there are more: only the sample is ever copied into one array."""
    n = sum(len(p) for p in parts)
    if max_points is not None and n > max_points:
        return _take_rows(parts, numpy.sort(rng.choice(n, max_points, replace=False)))
    return parts[0] if len(parts) == 1 else numpy.concatenate(parts)


def _distinct_rows(x: numpy.ndarray, k: int, rng: numpy.random.RandomState) -> List[int]:
    """Up to k indices of distinct rows of `x`, in the order of one `rng.permutation`: the
    starting centroids of Lloyd's iterations."""
    seen, out = set(), []
    for i in rng.permutation(len(x)).tolist():
        key = x[i].tobytes()
        if key not in seen:
            seen.add(key)
            out.append(i)
            if len(out) == k:
                break
    return out


def _cluster_sums(x: numpy.ndarray, order: numpy.ndarray, counts: numpy.ndarray) -> numpy.ndarray:
    """(len(counts), d) float64 sums of the rows `x[order]`, taken as consecutive runs of `counts`
    rows (one run per non-empty cluster), each summed in order.

    Runs are gathered a group at a time (about `BLOCK` values, whole runs only), so that neither
    `x[order]` nor its float64 copy is ever made whole; each run's sum is the same sequence of
    additions as one `add.reduceat` over everything."""
    ends = numpy.cumsum(counts)
    starts = ends - counts
    sums = numpy.empty((len(counts), x.shape[1]), dtype=numpy.float64)
    rows = max(1, BLOCK // max(1, x.shape[1]))
    i = 0
    while i < len(counts):
        j = max(i + 1, int(numpy.searchsorted(ends, starts[i] + rows, side="right")))
        lo, hi = int(starts[i]), int(ends[j - 1])
        block = x[order[lo:hi]].astype(numpy.float64)
        sums[i:j] = numpy.add.reduceat(block, starts[i:j] - lo, axis=0)
        i = j
    return sums


def _take_rows(parts: Sequence[numpy.ndarray], idx: numpy.ndarray) -> numpy.ndarray:
    """Rows `idx` (sorted) of the parts stacked in order, without stacking them."""
    out = numpy.empty((len(idx), parts[0].shape[1]), dtype=numpy.float32)
    offset = 0
    for p in parts:
        lo, hi = numpy.searchsorted(idx, [offset, offset + len(p)])
        out[lo:hi] = p[idx[lo:hi] - offset]
        offset += len(p)
    return out


# --- a tree of centroids ------------------------------------------------------------------------


def check_tree_ks(ks: Sequence[int]) -> List[int]:
    """`ks` as a list if each granularity splits every cluster of the one before into the same
    number (≥ 2) of children (16, 64, 256, …), else a ValueError."""
    ks = list(ks)
    if not ks or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in ks) or any(
            b <= a or b % a for a, b in zip(ks, ks[1:])):
        raise ValueError(f"a centroid tree needs granularities that each divide the next, e.g. 16, 64, 256; got {ks!r}")
    return ks


def kmeans_tree(x: Union[numpy.ndarray, Sequence[numpy.ndarray]], ks: Sequence[int], iters: int = 12,
                seed: int = 0, max_points: Optional[int] = 200_000) -> List[numpy.ndarray]:
    """Centroid sets of a tree: `ks[0]` centroids by `kmeans`; set i splits each centroid c of set
    i − 1 into ks[i] // ks[i − 1] children (children of c at c · b … c · b + b − 1), fitted by
    Lloyd's iterations on the points that `tree_nearest` sends to c. Fitting and searching cost a
    few distances per point and level instead of one per centroid of every set (k = 4,096: 4
    instead of 4,096). A cluster with fewer distinct points than children repeats its centroid."""
    ks = check_tree_ks(ks)
    sets = [kmeans(x, ks[0], iters=iters, seed=seed, max_points=max_points)]
    if len(ks) == 1:
        return sets
    rng = numpy.random.RandomState(seed)  # the same sample as `kmeans` drew for set 0
    parts = [numpy.asarray(p, dtype=numpy.float32) for p in (x if isinstance(x, (list, tuple)) else [x])]
    pts = _sample_rows(parts, max_points, rng)
    assign = tree_nearest(pts, sets)[:, -1]
    for k in ks[1:]:
        parent_set = sets[-1]
        b = k // len(parent_set)
        children = numpy.repeat(parent_set, b, axis=0)  # a cluster without points keeps its parent
        order = numpy.argsort(assign, kind="stable")
        counts = numpy.bincount(assign, minlength=len(parent_set))
        ends = numpy.cumsum(counts)
        starts = ends - counts
        for p in range(len(parent_set)):
            own = pts[order[starts[p]:ends[p]]]
            children[p * b:(p + 1) * b] = _split(own, b, iters, rng, parent_set[p])
        sets.append(children)
        assign = tree_nearest(pts, sets)[:, -1]
    return sets


def _split(x: numpy.ndarray, b: int, iters: int, rng: numpy.random.RandomState, parent: numpy.ndarray) -> numpy.ndarray:
    """(b, d) centroids of a few points by Lloyd's iterations from b distinct points drawn by
    `rng` (padded with `parent` when there are fewer distinct points); an emptied child keeps
    its place."""
    c = numpy.repeat(parent[None, :], b, axis=0).astype(numpy.float32)
    take = _distinct_rows(x, b, rng)
    c[:len(take)] = x[take]
    if len(take) < b:
        return c
    for _ in range(iters):
        a = numpy.argmin((c * c).sum(1)[None, :] - 2.0 * numpy.einsum("nd,kd->nk", x, c), axis=1)
        for j in range(b):
            mine = x[a == j]
            if len(mine):
                c[j] = mine.astype(numpy.float64).mean(0).astype(numpy.float32)
    return c


def tree_nearest(x: numpy.ndarray, sets: Sequence[numpy.ndarray]) -> numpy.ndarray:
    """(n, len(sets)) int64 cluster ids by descending a tree (`kmeans_tree`): the nearest of set
    0's centroids, then at each level the nearest of the chosen cluster's children only. In
    blocks of rows (bounded memory), with numpy's own loops (einsum: no BLAS call, so no BLAS
    threads and the same result whatever the environment). Rows with NaN or infinity get 0."""
    x = numpy.asarray(x, dtype=numpy.float32)
    width = sets[0].shape[1]
    if x.ndim != 2 or x.shape[1] != width:
        raise ValueError(f"nearest: need (n, {width}) vectors for these centroids, got {x.shape}")
    out = numpy.zeros((len(x), len(sets)), dtype=numpy.int64)
    norms = [(c * c).sum(1) for c in sets]
    widest = max([len(sets[0])] + [len(c) // len(p) for p, c in zip(sets, sets[1:])])
    rows = max(1, BLOCK // (widest * width))
    for s in range(0, len(x), rows):
        block = x[s:s + rows]
        bad = ~numpy.isfinite(block).all(axis=1)
        if bad.any():
            block = numpy.where(bad[:, None], 0.0, block).astype(numpy.float32)
        with numpy.errstate(invalid="ignore", over="ignore"):
            a = numpy.argmin(norms[0][None, :] - 2.0 * numpy.einsum("nd,kd->nk", block, sets[0]), axis=1)
            out[s:s + rows, 0] = a
            for level in range(1, len(sets)):
                b = len(sets[level]) // len(sets[level - 1])
                cand = a[:, None] * b + numpy.arange(b)[None, :]
                d = norms[level][cand] - 2.0 * numpy.einsum("nd,nbd->nb", block, sets[level][cand])
                a = cand[numpy.arange(len(cand)), numpy.argmin(d, axis=1)]
                out[s:s + rows, level] = a
        out[s:s + rows][bad] = 0
    return out
