"""A pretrained CNN tok2vec cut to its first `depth` encoder layers (issue 32: a cheaper source of
context). spaCy's `MaxoutWindowEncoder` is a chain of `depth` residual window layers over the
embedding; keeping the first k of them gives vectors that see ±k tokens instead of ±depth, at
(1 + k) / (1 + depth) of the matrix products. Nothing is retrained: the copy holds the source's own
embedding and first k layers, and its config says `depth = k`, so the saved pipeline rebuilds and
loads it like any tok2vec.
"""
import copy
from typing import Optional

from spacy.language import Language
from spacy.pipeline import Tok2Vec


def add_truncated_tok2vec(nlp: Language, source: Language, depth: Optional[int] = None,
                          name: str = "tok2vec") -> Tok2Vec:
    """Add `source`'s tok2vec to `nlp` as `name`: sourced whole when `depth` is None or the
    source's own depth, else rebuilt with `encode.depth = depth` (1 ≤ depth < the source's) and
    given the source's weights for the embedding and the first `depth` encoder layers. The two
    give the same vectors when `depth` is the source's. ValueError for a depth the source does not
    have or a tok2vec that is not a `spacy.Tok2Vec` with a `MaxoutWindowEncoder`."""
    cfg = source.config["components"]["tok2vec"]
    encode = cfg.get("model", {}).get("encode", {})
    if cfg.get("factory") != "tok2vec" or "depth" not in encode or "MaxoutWindowEncoder" not in \
            str(encode.get("@architectures", "")):
        raise ValueError(f"tok2vec depth: the source's tok2vec is not a MaxoutWindowEncoder CNN ({cfg.get('model')})")
    full = int(encode["depth"])
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= full):
        raise ValueError(f"tok2vec depth must be an int in [1, {full}], got {depth!r}")
    if depth is None or depth == full:
        return nlp.add_pipe("tok2vec", name=name, source=source)
    model_cfg = copy.deepcopy(dict(cfg["model"]))
    model_cfg["encode"] = dict(model_cfg["encode"], depth=depth)
    model_cfg["embed"] = dict(model_cfg["embed"], width=int(encode["width"]))  # resolve the reference
    pipe = nlp.add_pipe("tok2vec", name=name, config={"model": model_cfg})
    src_model = source.get_pipe("tok2vec").model
    pipe.model.initialize(X=[nlp.make_doc("a b")])
    src_nodes = [n for n in src_model.walk(order="dfs_pre") if n.param_names]
    new_nodes = [n for n in pipe.model.walk(order="dfs_pre") if n.param_names]
    for src, new in zip(src_nodes, new_nodes):
        for p in new.param_names:
            if not src.has_param(p) or src.get_param(p).shape != new.get_param(p).shape:
                raise ValueError(f"tok2vec depth: layer {new.name!r} does not match the source's {src.name!r}")
            new.set_param(p, src.get_param(p).copy())
    return pipe
