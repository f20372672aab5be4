"""A tok2vec whose prediction holds a bounded number of tokens in its network at once.

spaCy's `Tok2Vec.predict` runs its model over a whole batch in one call, and Thinc's layers keep
every intermediate array of the call alive until it returns: a CNN tok2vec (en_core_web_sm's:
hashed embeddings, then four residual window layers) holds about 15 KB per token, so one Doc of
100,000 tokens took 1.5 GB, and an `nlp.pipe` batch of long texts as much. `BoundedTok2Vec.predict`
feeds the model at most `max_tokens` tokens a call: short Docs grouped up to that budget, a longer
Doc in overlapping pieces whose outer `radius` tokens on each side (the network's receptive field,
the summed `window_size` of its `expand_window` layers) are computed and dropped, so each kept row
saw exactly the context it sees in the whole Doc. A model that mixes context some other way (an
LSTM, a transformer) has no known radius: its Docs are grouped, never cut.

`bound_tok2vec(nlp)` turns a pipeline's `tok2vec` components into `BoundedTok2Vec` (the same
component, weights and serialization: only `predict` differs); `spacy_joint_sbd.numpy_gemm.v1`,
the default pipeline's `[nlp.after_pipeline_creation]`, applies it to the components it names.
"""
from typing import Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.pipeline import Tok2Vec
from spacy.tokens import Doc
from thinc.api import Model

DEFAULT_MAX_TOKENS = 4096
"""Tokens per model call: about 60 MB of a CNN tok2vec's temporaries."""
ROW_WISE = frozenset({"dropout", "extract_features", "hashembed", "ints-getitem", "layernorm", "list2ragged",
                      "maxout", "ragged2list", "static_vectors", "mish", "relu", "linear"})
"""Leaf layers that map each token's row on its own (with `expand_window`, the only layer that looks
at neighbours, these make up spaCy's CNN tok2vec architectures)."""


def receptive_radius(model: Model) -> Optional[int]:
    """How many tokens on each side a token's output depends on: the summed `window_size` of the
    model's `expand_window` layers when every other leaf layer is row-wise, else None (unknown)."""
    radius = 0
    for node in model.walk():
        if node.layers:
            continue
        if node.name == "expand_window":
            radius += int(node.attrs["window_size"])
        elif node.name not in ROW_WISE:
            return None
    return radius


Piece = Tuple[int, Doc, int, int, int]
"""(index of the Doc in the batch, the Doc or a piece of it, first row kept, rows kept, where the
kept rows go in the Doc's output)."""


def plan_pieces(docs: Sequence[Doc], max_tokens: int, radius: Optional[int]) -> List[Piece]:
    """The Docs as model inputs: a Doc of at most `max_tokens` tokens (or any Doc when `radius`
    is None) whole, a longer one as pieces of at most `max_tokens` tokens that overlap by
    2 · `radius`, each keeping its middle rows."""
    out: List[Piece] = []
    for i, doc in enumerate(docs):
        n = len(doc)
        core = max_tokens - 2 * radius if radius is not None else 0
        if n <= max_tokens or core < 1:
            out.append((i, doc, 0, n, 0))
            continue
        # `Span.as_doc` reads the whole Doc's array unless given it: once per Doc, not per piece
        head = doc._get_array_attrs()
        array = doc.to_array(head)
        for start in range(0, n, core):
            stop = min(n, start + core)
            lo, hi = max(0, start - radius), min(n, stop + radius)
            out.append((i, doc[lo:hi].as_doc(array_head=head, array=array), start - lo, stop - start, start))
    return out


def batches(pieces: Sequence[Piece], max_tokens: int) -> Iterable[List[Piece]]:
    """Consecutive pieces, at most `max_tokens` tokens a batch (a longer piece alone)."""
    batch: List[Piece] = []
    size = 0
    for piece in pieces:
        n = len(piece[1])
        if batch and size + n > max_tokens:
            yield batch
            batch, size = [], 0
        batch.append(piece)
        size += n
    if batch:
        yield batch


class BoundedTok2Vec(Tok2Vec):
    """spaCy's `Tok2Vec` predicting `max_tokens` tokens at a time (see the module docstring):
    the same vectors, a bounded peak memory. Training (`update`) is spaCy's own."""

    max_tokens: int = DEFAULT_MAX_TOKENS

    def predict(self, docs: Iterable[Doc]) -> List:
        """The token vectors of each Doc, as `Tok2Vec.predict` gives them."""
        docs = list(docs)
        if sum(len(d) for d in docs) <= self.max_tokens:
            return super().predict(docs)
        radius = receptive_radius(self.model)
        outs: List = [None] * len(docs)
        for batch in batches(plan_pieces(docs, self.max_tokens, radius), self.max_tokens):
            vectors = super().predict([p[1] for p in batch])
            for (i, piece, first, rows, at), vec in zip(batch, vectors):
                if piece is docs[i]:
                    outs[i] = vec
                    continue
                if outs[i] is None:
                    outs[i] = self.model.ops.alloc2f(len(docs[i]), vec.shape[1], zeros=False)
                outs[i][at:at + rows] = vec[first:first + rows]
        return outs


def bound_tok2vec(nlp: Language, components: Sequence[str] = ("tok2vec",),
                  max_tokens: int = DEFAULT_MAX_TOKENS) -> Language:
    """Make the named `tok2vec` components of `nlp` predict at most `max_tokens` tokens a model
    call (`BoundedTok2Vec`). ValueError for a name that is no spaCy `Tok2Vec` or a bad limit."""
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 64:
        raise ValueError(f"bound_tok2vec: max_tokens must be an int >= 64, got {max_tokens!r}")
    for name in components:
        pipe = nlp.get_pipe(name) if name in nlp.component_names else None
        if not isinstance(pipe, Tok2Vec):
            raise ValueError(f"bound_tok2vec: {name!r} is not a tok2vec component of the pipeline "
                             f"({nlp.component_names})")
        pipe.__class__ = BoundedTok2Vec
        pipe.max_tokens = max_tokens
    return nlp


__all__ = ["BoundedTok2Vec", "DEFAULT_MAX_TOKENS", "bound_tok2vec", "receptive_radius"]
