"""The syntax heads of a multi-task encoder, as ONNX nodes over the encoder's last layer.

A word is read at its first WordPiece; [CLS] stands for the root. Arcs: a biaffine scorer
(Dozat & Manning 2017), MLPs (GELU) of the word as dependent (`arc_dep`) and as head (`arc_head`),
score(i → j) = d_i · W · h_j + h_j · u, log-softmax over the window's candidates (the `candidates`
input: 1 for [CLS] and each word's first piece), of which the `top_k` best are given with their
log-probabilities and, for each, the best label of a biaffine label classifier (`lab_dep`,
`lab_head`, `lab_W`, `lab_V`). UPOS: a linear layer, its best tag per piece.

The tensors under these names come from `projects/encoder`'s multi-task fine-tuning; the graph
is built op by op (no torch), as `export.bert_graph` builds the encoder it extends.
"""
from dataclasses import dataclass
from typing import Dict, Mapping, Tuple

import numpy

CANDIDATES = "candidates"
OUTPUTS = ("head_index", "head_score", "head_label", "upos")
"""(B, T, K) int64 pieces, (B, T, K) float32 log-probabilities, (B, T, K) int64 labels, (B, T) int64."""
NEG = -10000.0
"""Score of a piece that cannot be a head: padding, a later piece, the word itself."""


@dataclass(frozen=True)
class HeadShape:
    """The sizes of the syntax heads, read off their weights."""

    arc_dim: int
    label_dim: int
    n_labels: int
    n_upos: int

    @classmethod
    def from_weights(cls, weights: Mapping[str, numpy.ndarray]) -> "HeadShape":
        for name in ("arc_W", "lab_W", "upos.weight"):
            if name not in weights:
                raise KeyError(f"the encoder's weights have no {name!r}: not a multi-task encoder")
        n_labels, label_dim, _ = weights["lab_W"].shape
        return cls(arc_dim=int(weights["arc_W"].shape[0]), label_dim=int(label_dim), n_labels=int(n_labels),
                   n_upos=int(weights["upos.weight"].shape[0]))


def has_heads(weights: Mapping[str, numpy.ndarray]) -> bool:
    return "arc_W" in weights


def check_head_weights(weights: Mapping[str, numpy.ndarray], hidden: int) -> Tuple[HeadShape, Dict[str, numpy.ndarray]]:
    """The heads' tensors in float32, checked; KeyError/ValueError naming the first bad one."""
    shape = HeadShape.from_weights(weights)
    a, lb, nl, nu = shape.arc_dim, shape.label_dim, shape.n_labels, shape.n_upos
    want = {"arc_dep.weight": (a, hidden), "arc_dep.bias": (a,), "arc_head.weight": (a, hidden), "arc_head.bias": (a,),
            "arc_W": (a, a), "arc_u": (a,), "lab_dep.weight": (lb, hidden), "lab_dep.bias": (lb,),
            "lab_head.weight": (lb, hidden), "lab_head.bias": (lb,), "lab_W": (nl, lb, lb),
            "lab_V.weight": (nl, 2 * lb), "lab_V.bias": (nl,), "upos.weight": (nu, hidden), "upos.bias": (nu,)}
    out = {}
    for name, dims in want.items():
        if name not in weights:
            raise KeyError(f"the encoder's weights have no {name!r}")
        v = numpy.asarray(weights[name], dtype=numpy.float32)
        if v.shape != dims:
            raise ValueError(f"{name} has shape {v.shape}, expected {dims}")
        if not numpy.isfinite(v).all():
            raise ValueError(f"{name} holds a value that is not finite")
        out[name] = v
    return shape, out


def add_heads(g, x: str, candidates: str, weights: Mapping[str, numpy.ndarray], hidden: int, top_k: int) -> Dict[str, str]:
    """Nodes of the syntax heads on the encoder output `x` (B, T, H) in graph builder `g`
    (`export._Graph`); returns {output name: value name}."""
    from onnx import TensorProto

    shape, w = check_head_weights(weights, hidden)
    f32, i64 = numpy.float32, numpy.int64
    half = g.const("h_half", numpy.array(0.5, dtype=f32))
    root2 = g.const("h_root2", numpy.array(numpy.sqrt(2.0), dtype=f32))
    one = g.const("h_one", numpy.array(1.0, dtype=f32))

    def gelu(v: str) -> str:
        return g.op("Mul", [g.op("Mul", [v, half]), g.op("Add", [g.op("Erf", [g.op("Div", [v, root2])]), one])])

    def mlp(name: str) -> str:
        return gelu(g.dense(x, w[name + ".weight"], w[name + ".bias"], name))

    def unsqueeze(v: str, axes) -> str:
        return g.op("Unsqueeze", [v, g.const("axes", numpy.array(axes, dtype=i64))])

    def transpose_last(v: str) -> str:
        return g.op("Transpose", [v], perm=[0, 2, 1])

    # Arcs: (B, T, T) scores, candidates only, never the piece itself.
    d, h = mlp("arc_dep"), mlp("arc_head")
    s = g.op("MatMul", [g.op("MatMul", [d, g.const("arc_W", w["arc_W"])]), transpose_last(h)])
    u = g.const("arc_u", numpy.ascontiguousarray(w["arc_u"][:, None]))  # a matrix: int8 MatMul wants one
    s = g.op("Add", [s, transpose_last(g.op("MatMul", [h, u]))])  # (B, 1, T): the head's own term
    cand = g.op("Cast", [candidates], to=TensorProto.FLOAT)
    s = g.op("Add", [s, unsqueeze(g.op("Mul", [g.op("Sub", [one, cand]), g.const("neg", numpy.array(NEG, dtype=f32))]), [1])])
    t = g.op("Gather", [g.op("Shape", [x]), g.const("one_i", numpy.array(1, dtype=i64))], axis=0)
    pos = g.op("Range", [g.const("zero_i", numpy.array(0, dtype=i64)), t, g.const("step_i", numpy.array(1, dtype=i64))])
    eye = g.op("Cast", [g.op("Equal", [unsqueeze(pos, [1]), unsqueeze(pos, [0])])], to=TensorProto.FLOAT)
    s = g.op("Add", [s, g.op("Mul", [eye, g.const("neg2", numpy.array(NEG, dtype=f32))])])
    logp = g.op("LogSoftmax", [s], axis=-1)
    k = g.const("top_k", numpy.array([top_k], dtype=i64))
    values = g.op("TopK", [logp, k], axis=-1, largest=1, sorted=1)
    index = g.name("topk_index")
    g.nodes[-1].output.append(index)  # TopK's second output: the candidates' pieces
    # Labels of every (dependent, head) pair, then those of the top candidates.
    ld, lh = mlp("lab_dep"), mlp("lab_head")
    nl, lb = shape.n_labels, shape.label_dim
    w2 = numpy.ascontiguousarray(w["lab_W"].transpose(1, 0, 2).reshape(lb, nl * lb))
    u = g.op("MatMul", [ld, g.const("lab_W", w2)])  # (B, T, L·Lb)
    b_t_l = g.op("Reshape", [u, g.const("lab_split", numpy.array([0, -1, lb], dtype=i64))])  # (B, T·L, Lb)
    pair = g.op("MatMul", [b_t_l, transpose_last(lh)])  # (B, T·L, T)
    batch = g.op("Gather", [g.op("Shape", [x]), g.const("zero_j", numpy.array(0, dtype=i64))], axis=0)
    dims = g.op("Concat", [unsqueeze(batch, [0]), unsqueeze(t, [0]), g.const("nl", numpy.array([nl], dtype=i64)),
                           unsqueeze(t, [0])], axis=0)
    pair = g.op("Transpose", [g.op("Reshape", [pair, dims])], perm=[0, 1, 3, 2])  # (B, T, T, L)
    v_dep = g.op("MatMul", [ld, g.const("lab_Vd", numpy.ascontiguousarray(w["lab_V.weight"][:, :lb].T))])
    v_head = g.op("MatMul", [lh, g.const("lab_Vh", numpy.ascontiguousarray(w["lab_V.weight"][:, lb:].T))])
    pair = g.op("Add", [g.op("Add", [pair, unsqueeze(v_dep, [2])]), unsqueeze(v_head, [1])])
    pair = g.op("Add", [pair, g.const("lab_b", w["lab_V.bias"])])
    best = g.op("ArgMax", [pair], axis=-1, keepdims=0)  # (B, T, T)
    labels = g.op("GatherElements", [best, index], axis=2)
    upos = g.op("ArgMax", [g.dense(x, w["upos.weight"], w["upos.bias"], "upos")], axis=-1, keepdims=0)
    return {"head_index": index, "head_score": values, "head_label": labels, "upos": upos}
