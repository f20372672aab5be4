"""A pretrained CNN tok2vec cut to its first `depth` encoder layers (a cheaper source of
context). spaCy's `MaxoutWindowEncoder` is a chain of `depth` residual window layers over the
embedding; keeping the first k of them gives vectors that see ±k tokens instead of ±depth. The
embedding's mixing layer multiplies twice as wide an input as a window layer, so the products cost
(2 + k) / (2 + depth) of the source's: 2/3 for k = 2 of 4, 1/2 for k = 1. Nothing is retrained:
the copy holds the source's own embedding and first k layers, and its config says `depth = k`, so
the saved pipeline rebuilds and loads it like any tok2vec.
"""
import copy
from typing import Optional

from spacy.language import Language
from spacy.pipeline import Tok2Vec


def check_depth(source: Language, depth: Optional[int]) -> int:
    """The depth of `source`'s tok2vec encoder, after checking that it can be cut to `depth` (None:
    not cut). ValueError (one line) for a depth the source does not have, or a source without a
    `spacy.Tok2Vec` whose encoder is a `MaxoutWindowEncoder`."""
    if "tok2vec" not in source.component_names:
        raise ValueError(f"tok2vec depth: the source pipeline has no tok2vec component ({source.component_names})")
    cfg = source.config["components"]["tok2vec"]
    encode = cfg.get("model", {}).get("encode", {})
    if cfg.get("factory") != "tok2vec" or "depth" not in encode or "MaxoutWindowEncoder" not in \
            str(encode.get("@architectures", "")):
        raise ValueError(f"tok2vec depth: the source's tok2vec is not a MaxoutWindowEncoder CNN "
                         f"(its encoder is {encode.get('@architectures', cfg.get('model', {}).get('@architectures'))!r})")
    full = int(encode["depth"])
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= full):
        raise ValueError(f"tok2vec depth must be an int in [1, {full}], got {depth!r}")
    return full


def add_truncated_tok2vec(nlp: Language, source: Language, depth: Optional[int] = None,
                          name: str = "tok2vec") -> Tok2Vec:
    """Add `source`'s tok2vec to `nlp` as `name`: sourced whole when `depth` is None or the
    source's own depth, else rebuilt with `encode.depth = depth` (1 ≤ depth < the source's) and
    given the source's embedding and its first `depth` encoder layers, layer by layer. ValueError
    as `check_depth`."""
    full = check_depth(source, depth)
    if depth is None or depth == full:
        return nlp.add_pipe("tok2vec", name=name, source=source)
    model_cfg = copy.deepcopy(dict(source.config["components"]["tok2vec"]["model"]))
    model_cfg["encode"] = dict(model_cfg["encode"], depth=depth)
    model_cfg["embed"] = dict(model_cfg["embed"], width=int(model_cfg["encode"]["width"]))  # resolve the reference
    pipe = nlp.add_pipe("tok2vec", name=name, config={"model": model_cfg})
    pipe.model.initialize(X=[nlp.make_doc("a b")])
    src, new = source.get_pipe("tok2vec").model, pipe.model
    # by structure: the embedding whole, then the encoder's residual layers one by one
    # (encode = with_array(chain(residual × depth)); a chain of one layer is that layer)
    src_layers = _residuals(src.get_ref("encode"))
    new_layers = _residuals(new.get_ref("encode"))
    if len(src_layers) != full or len(new_layers) != depth:
        raise ValueError(f"tok2vec depth: expected {full} and {depth} encoder layers, found "
                         f"{len(src_layers)} and {len(new_layers)}")
    _copy(src.get_ref("embed"), new.get_ref("embed"), "embed")
    for i, (a, b) in enumerate(zip(src_layers, new_layers)):
        _copy(a, b, f"encoder layer {i}")
    return pipe


def _residuals(encode) -> list:
    """The residual window layers of a MaxoutWindowEncoder (with_array over a chain of them, or
    over the one layer itself when depth is 1), in order."""
    inner = encode.layers[0]
    if inner.layers and all(layer.name.startswith("residual(") for layer in inner.layers):
        return list(inner.layers)  # the chain
    return [inner]


def _copy(src, new, what: str) -> None:
    """The parameters of `src`'s nodes into `new`'s, which must be the same layers in the same order."""
    src_nodes = [n for n in src.walk(order="dfs_pre") if n.param_names]
    new_nodes = [n for n in new.walk(order="dfs_pre") if n.param_names]
    if [n.name for n in src_nodes] != [n.name for n in new_nodes]:
        raise ValueError(f"tok2vec depth: the {what} differs from the source's "
                         f"({[n.name for n in new_nodes]} against {[n.name for n in src_nodes]})")
    for k, (a, b) in enumerate(zip(src_nodes, new_nodes)):
        for p in b.param_names:
            if not a.has_param(p) or a.get_param(p).shape != b.get_param(p).shape:
                got = a.get_param(p).shape if a.has_param(p) else None
                raise ValueError(f"tok2vec depth: {what}, node {k} ({b.name}) parameter {p}: shape "
                                 f"{b.get_param(p).shape}, the source's {got}")
            b.set_param(p, a.get_param(p).copy())
