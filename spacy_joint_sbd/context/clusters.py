"""Contextual features for the hashed linear models: k-means clusters of `Doc.tensor`.

A tok2vec earlier in the pipeline (e.g. one sourced, frozen, from a pretrained spaCy pipeline such
as `en_core_web_sm`) leaves a dense vector per token in `Doc.tensor`: a representation of the
token in its context, trained on far more text than our treebanks. The parser's features are
hashed discrete values, so each vector is quantized to its nearest centroid at several
granularities (e.g. 16, 128 and 1,024 clusters) and each granularity becomes one extra attribute
column (`CTX16`, `CTX128`, …) of the engine's feature block (b0, b0 − 1, s0, b1 and the
b0 − 1 · b0 pair).

Honest by construction: the tok2vec is frozen and never saw our training trees, so training
documents get the same quality of vectors as test documents (unlike a tagger trained on the
training documents, see the jackknifing of tags). The centroids are fitted on the training
documents' vectors (no labels involved) and saved with the model.
"""
import base64
import hashlib
import weakref
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

import numpy
from spacy.tokens import Doc

from ..corpus.docs import doc_name
from .kmeans import CentroidTable, check_tree_ks, kmeans, kmeans_tree, nearest_in_sets, tree_nearest

PREFIX = "CTX"
MAX_CLUSTERS = 1 << 16
"""The largest granularity accepted (the centroids are saved in the component's cfg)."""
_columns_cache: Dict = {}
"""(centroid fingerprint, id(tensor)) → (weak reference to the tensor, uint32 columns); an entry
leaves when its tensor is freed (see `ContextClusters.columns`)."""


class ContextClusters:
    """Centroid sets, one per granularity; `columns(doc)` gives the (n × sets) uint64 cluster ids
    (id + 1, so that no value is 0) that extend the Doc's attribute array.

    tree=True: the sets form a tree (`context.kmeans.kmeans_tree`: each cluster split into the same
    number of children at the next granularity) and a vector descends it, comparing itself with a
    cluster's children only: 16 + 4 · 4 distances per token for (16, 64, 256, 1,024, 4,096)
    instead of 5,456, and cluster ids that nest like Brown-cluster prefixes. tree=False: every
    set is searched whole (`context.kmeans.nearest_in_sets`)."""

    def __init__(self, centroids: Sequence[numpy.ndarray], tree: bool = False):
        centroids = [numpy.ascontiguousarray(c, dtype=numpy.float32) for c in centroids]
        if not centroids:
            raise ValueError("ContextClusters needs at least one centroid set")
        dims = {c.shape[1] if c.ndim == 2 else -1 for c in centroids}
        if len(dims) != 1 or -1 in dims or 0 in dims or any(len(c) == 0 for c in centroids):
            raise ValueError(f"ContextClusters: centroid sets must be non-empty (k, d) arrays of one d, "
                             f"got shapes {[c.shape for c in centroids]}")
        if not all(numpy.isfinite(c).all() for c in centroids):
            raise ValueError("ContextClusters: centroids contain NaN or infinity")
        self.centroids: List[numpy.ndarray] = centroids
        self.width = int(centroids[0].shape[1])
        self.tree = bool(tree)
        if self.tree:
            check_tree_ks([len(c) for c in centroids])
        self._table = None if self.tree else CentroidTable(centroids)
        """All sets stacked with their norms, for one matrix product per Doc in `columns` (flat)."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(b"tree" if self.tree else b"flat")
        for c in centroids:
            digest.update(numpy.asarray(c.shape, dtype=numpy.int64).tobytes())
            digest.update(c.tobytes())
        self.fingerprint: bytes = digest.digest()
        """Identifies the centroids: two components with the same clusters share `columns`' cache."""

    @property
    def ks(self) -> List[int]:
        return [len(c) for c in self.centroids]

    @property
    def names(self) -> List[str]:
        """The attribute-column names, e.g. ["CTX16", "CTX128", "CTX1024"]."""
        return [f"{PREFIX}{k}" if self.ks.count(k) == 1 else f"{PREFIX}{k}_{i}" for i, k in enumerate(self.ks)]

    @classmethod
    def fit(cls, docs: Iterable[Doc], ks: Sequence[int], seed: int = 0, iters: int = 12,
            max_points: Optional[int] = 200_000, tree: bool = False) -> "ContextClusters":
        """k-means centroids (one set per k in `ks`) of the vectors in the docs' `tensor`: the i-th
        set from `seed + i`, on at most `max_points` vectors drawn with that seed. With more vectors
        than that, only the sample is copied: the docs' vectors are never stacked whole.
        tree=True: one tree (`kmeans_tree`, from `seed`); each k must divide the next."""
        ks = list(ks)
        if not ks or not all(isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= MAX_CLUSTERS for k in ks):
            raise ValueError(f"ContextClusters.fit: ks must be positive ints, got {ks!r}")
        vectors = list(_vectors_of_one_width(docs))
        if not vectors:
            raise ValueError("ContextClusters.fit: no token vectors (empty documents?)")
        if tree:
            check_tree_ks(ks)
            return cls(kmeans_tree(vectors, ks, iters=iters, seed=seed, max_points=max_points), tree=True)
        return cls([kmeans(vectors, k, iters=iters, seed=seed + i, max_points=max_points) for i, k in enumerate(ks)])

    def columns(self, doc: Doc) -> numpy.ndarray:
        """(len(doc), number of sets) uint64 cluster ids + 1 of the Doc's token vectors.

        The tagger and the parser of one pipeline usually hold the same clusters: the result is
        remembered for as long as the Doc's tensor object lives (weakly referenced, so nothing is
        kept alive), and the second component reads the first one's columns instead of comparing
        every vector with every centroid again. A new tensor (a tok2vec run again) is a new entry."""
        if len(doc) == 0:
            return numpy.zeros((0, len(self.centroids)), dtype=numpy.uint64)
        hit = self._cached(doc)
        if hit is not None:
            return hit.astype(numpy.uint64)
        out = self._nearest(self._vectors(doc)).astype(numpy.uint64)
        out += 1
        self._remember(doc, out)
        return out

    def prime(self, docs: Sequence[Doc]) -> None:
        """Assign the token vectors of a batch of Docs (those not assigned yet) in one search, so
        that `columns` then reads each from the cache: many short texts cost one matrix product
        per 768 tokens instead of one per text (a text's own product, its thread limit and its
        Python calls dominate below a few dozen tokens). The same ids as `columns` one Doc at a
        time (each row's distances do not depend on the rows beside it; tested)."""
        todo = [d for d in docs if len(d) and self._cached(d) is None]
        if len(todo) < 2:
            return
        vectors = [self._vectors(d) for d in todo]
        found = self._nearest(numpy.concatenate(vectors)).astype(numpy.uint64)
        found += 1
        start = 0
        for doc, x in zip(todo, vectors):
            self._remember(doc, found[start:start + len(x)])
            start += len(x)

    def _nearest(self, x: numpy.ndarray) -> numpy.ndarray:
        return tree_nearest(x, self.centroids) if self.tree else nearest_in_sets(x, self._table)

    def _vectors(self, doc: Doc) -> numpy.ndarray:
        x = doc_vectors(doc)
        if x.shape[1] != self.width:
            raise ValueError(f"{doc_name(doc)}: Doc.tensor has width {x.shape[1]}, but the "
                             f"context clusters were fitted on width {self.width} (another tok2vec?)")
        return x

    def _cached(self, doc: Doc) -> Optional[numpy.ndarray]:
        tensor = doc.tensor
        hit = _columns_cache.get((self.fingerprint, id(tensor)))
        if hit is not None and hit[0]() is tensor and len(hit[1]) == len(doc):
            return hit[1]
        return None

    def _remember(self, doc: Doc, columns: numpy.ndarray) -> None:
        tensor = doc.tensor
        key = (self.fingerprint, id(tensor))
        try:
            ref = weakref.ref(tensor, lambda _, key=key: _columns_cache.pop(key, None))
        except TypeError:  # an array type without weak references: no cache
            return
        _columns_cache[key] = (ref, columns.astype(numpy.uint32))

    def to_dict(self) -> Dict:
        out = {"ks": self.ks, "width": self.width,
               "centroids": base64.b64encode(numpy.concatenate(self.centroids).tobytes()).decode("ascii")}
        if self.tree:  # flat clusters keep the form saved before trees existed
            out["tree"] = True
        return out

    @classmethod
    def from_dict(cls, data) -> "ContextClusters":
        """Inverse of `to_dict`; ValueError for anything else."""
        try:
            ks, width = [int(k) for k in data["ks"]], int(data["width"])
            tree = data.get("tree", False)
            if not isinstance(tree, bool):
                raise ValueError(f"tree must be true or false, got {tree!r}")
            flat = numpy.frombuffer(base64.b64decode(data["centroids"], validate=True), dtype=numpy.float32)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"not saved context clusters ({type(e).__name__}: {e})") from None
        if not ks or min(ks) < 1 or max(ks) > MAX_CLUSTERS or width < 1 or flat.size != sum(ks) * width:
            raise ValueError(f"not saved context clusters (ks {ks}, width {width}, {flat.size} floats)")
        mats = numpy.split(flat.reshape(sum(ks), width), numpy.cumsum(ks)[:-1])
        try:
            return cls([m.copy() for m in mats], tree=tree)
        except ValueError as e:
            raise ValueError(f"not saved context clusters ({e})") from None


def has_vectors(doc: Doc) -> bool:
    """Whether `Doc.tensor` holds one non-empty vector per token (what a tok2vec leaves): the one
    test of both `doc_vectors` and the parser's `initialize`, which runs the components before it
    on docs without. False for an empty Doc."""
    t = doc.tensor
    return len(doc) > 0 and t.ndim == 2 and t.shape[0] == len(doc) and t.shape[1] > 0


def check_ks(ks, name: str, max_sets: Optional[int] = None) -> List[int]:
    """A component's `context_clusters` setting as a list, or a ValueError naming the component:
    ints in 1..MAX_CLUSTERS (bools refused), at most `max_sets` of them when given."""
    out = list(ks or [])
    if (max_sets is not None and len(out) > max_sets) or not all(
            isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= MAX_CLUSTERS for k in out):
        most = "" if max_sets is None else f"at most {max_sets} "
        raise ValueError(f"[{name}] context_clusters must be a list of {most}ints in 1..{MAX_CLUSTERS}, got {ks!r}")
    return out


def with_tensor(doc: Doc, nlp, before: str) -> Doc:
    """`doc` if it has token vectors, else a copy run through the components of `nlp` before the
    one named `before` (e.g. a sourced tok2vec): how a component's `initialize` gets vectors for
    fitting its clusters from examples whose predicted docs have none."""
    if len(doc) == 0 or has_vectors(doc):
        return doc
    if nlp is not None:
        doc = doc.copy()
        for name, proc in nlp.components:  # disabled (e.g. frozen) components included
            if name == before:
                break
            doc = proc(doc)
    return doc  # still without vectors: ContextClusters names the document


def doc_vectors(doc: Doc) -> numpy.ndarray:
    """The Doc's token vectors as an (n, d) float32 array ((0, 0) for an empty Doc), or a
    ValueError naming the document when no component before set them."""
    if len(doc) == 0:
        return numpy.zeros((0, 0), dtype=numpy.float32)
    if not has_vectors(doc):
        raise ValueError(f"{doc_name(doc)}: no token vectors in Doc.tensor (shape {doc.tensor.shape} for "
                         f"{len(doc)} tokens). The context features need a tok2vec before the parser that "
                         f"sets Doc.tensor, e.g. one sourced from en_core_web_sm")
    t = doc.tensor
    if hasattr(t, "get"):  # cupy
        t = t.get()
    return numpy.ascontiguousarray(t, dtype=numpy.float32)


def _vectors_of_one_width(docs: Iterable[Doc]) -> Iterator[numpy.ndarray]:
    """`doc_vectors` of the non-empty docs, or a ValueError naming the first doc whose width
    differs from the docs' before it."""
    width: Optional[int] = None
    for doc in docs:
        v = doc_vectors(doc)
        if len(v) == 0:
            continue
        if width is None:
            width = v.shape[1]
        elif v.shape[1] != width:
            raise ValueError(f"ContextClusters.fit: the documents' tensors differ in width: {doc_name(doc)} has "
                             f"width {v.shape[1]}, the documents before it {width}")
        yield v
