"""A BERT token classifier as an ONNX graph, built from its weights with `onnx.helper`.

The graph is written op by op from a state dict (Hugging Face names, with or without the `bert.`
prefix of `BertForTokenClassification`, plus `classifier.weight` (1, H) and `classifier.bias`), so
exporting needs numpy and `onnx` but no torch: the tests export a tiny random BERT through the
same path as the fine-tuned one. Inputs `input_ids` and `attention_mask` (batch, pieces) int64;
output `logits` (batch, pieces) float32, one boundary logit per WordPiece.

`quantize` turns the float graph into onnxruntime's dynamic int8 form (weights of every MatMul and
the embedding Gathers in int8, activations quantised on the fly), the form that ships.
"""
from pathlib import Path
from typing import Dict, List, Mapping, Union

import numpy

from .config import BertShape
from .heads import CANDIDATES, OUTPUTS as HEAD_OUTPUTS, add_heads, has_heads

OPSET = 17
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "logits"
MASK_FILL = -10000.0
"""Added to the attention score of a padding piece (BERT's own choice)."""


def _strip(weights: Mapping[str, numpy.ndarray]) -> Dict[str, numpy.ndarray]:
    out = {}
    for k, v in weights.items():
        out[k[5:] if k.startswith("bert.") else k] = numpy.asarray(v, dtype=numpy.float32)
    return out


def check_weights(weights: Mapping[str, numpy.ndarray], shape: BertShape) -> Dict[str, numpy.ndarray]:
    """The weights under their bare names, checked against `shape`; KeyError/ValueError naming the
    first missing or misshapen tensor."""
    w = _strip({k: v for k, v in weights.items() if not k.endswith("position_ids")})
    h, i = shape.hidden_size, shape.intermediate_size
    want = {
        "embeddings.word_embeddings.weight": (shape.vocab_size, h),
        "embeddings.position_embeddings.weight": (shape.max_position_embeddings, h),
        "embeddings.token_type_embeddings.weight": (shape.type_vocab_size, h),
        "embeddings.LayerNorm.weight": (h,), "embeddings.LayerNorm.bias": (h,),
        "classifier.weight": (1, h), "classifier.bias": (1,),
    }
    for n in range(shape.num_hidden_layers):
        p = f"encoder.layer.{n}."
        for m in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            want[p + m + ".weight"], want[p + m + ".bias"] = (h, h), (h,)
        want[p + "intermediate.dense.weight"], want[p + "intermediate.dense.bias"] = (i, h), (i,)
        want[p + "output.dense.weight"], want[p + "output.dense.bias"] = (h, i), (h,)
        for m in ("attention.output.LayerNorm", "output.LayerNorm"):
            want[p + m + ".weight"], want[p + m + ".bias"] = (h,), (h,)
    for name, dims in want.items():
        if name not in w:
            raise KeyError(f"the encoder's weights have no {name!r}")
        if w[name].shape != dims:
            raise ValueError(f"{name} has shape {w[name].shape}, the config says {dims}")
        if not numpy.isfinite(w[name]).all():
            raise ValueError(f"{name} holds a value that is not finite")
    return {k: w[k] for k in want}


class _Graph:
    """Nodes and initializers of one graph, with fresh names."""

    def __init__(self) -> None:
        self.nodes: List = []
        self.inits: List = []
        self._n = 0

    def name(self, stem: str) -> str:
        self._n += 1
        return f"{stem}_{self._n}"

    def const(self, stem: str, value) -> str:
        from onnx import numpy_helper

        name = self.name(stem)
        self.inits.append(numpy_helper.from_array(numpy.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: List[str], stem: str = "", **attrs) -> str:
        from onnx import helper

        out = self.name(stem or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out + "_node", **attrs))
        return out

    def dense(self, x: str, weight: numpy.ndarray, bias: numpy.ndarray, stem: str) -> str:
        """x @ weight.T + bias (weights stored transposed, as MatMul's right operand)."""
        w = self.const(stem + "_w", numpy.ascontiguousarray(weight.T))
        return self.op("Add", [self.op("MatMul", [x, w]), self.const(stem + "_b", bias)])

    def layer_norm(self, x: str, gamma: numpy.ndarray, beta: numpy.ndarray, eps: float, stem: str) -> str:
        return self.op("LayerNormalization", [x, self.const(stem + "_g", gamma), self.const(stem + "_b", beta)],
                       axis=-1, epsilon=float(eps))


def bert_graph(weights: Mapping[str, numpy.ndarray], shape: BertShape, *, top_k: int = 4):
    """The ONNX `ModelProto` of a BERT token classifier with these weights (float32). Weights that
    hold syntax heads (`heads.has_heads`) add the input `candidates` and the heads' outputs, with
    the `top_k` best head candidates of each piece."""
    from onnx import TensorProto, checker, helper

    w = check_weights(weights, shape)
    g = _Graph()
    f32 = numpy.float32
    ids, mask = INPUTS
    # Embeddings: word + position (0 .. T-1) + token type 0.
    seq_len = g.op("Gather", [g.op("Shape", [ids]), g.const("one", numpy.array(1, dtype=numpy.int64))], axis=0)
    positions = g.op("Range", [g.const("zero", numpy.array(0, dtype=numpy.int64)), seq_len,
                               g.const("step", numpy.array(1, dtype=numpy.int64))])
    x = g.op("Gather", [g.const("word_emb", w["embeddings.word_embeddings.weight"]), ids], axis=0)
    pos = g.op("Gather", [g.const("pos_emb", w["embeddings.position_embeddings.weight"]), positions], axis=0)
    x = g.op("Add", [g.op("Add", [x, pos]), g.const("type_emb", w["embeddings.token_type_embeddings.weight"][0])])
    x = g.layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], shape.layer_norm_eps, "emb_ln")
    # Attention bias: 0 where the mask is 1, MASK_FILL where it is 0; shape (B, 1, 1, T).
    m = g.op("Cast", [mask], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const("ones", numpy.array(1.0, dtype=f32)), m]),
                        g.const("fill", numpy.array(MASK_FILL, dtype=f32))])
    bias = g.op("Unsqueeze", [bias, g.const("axes", numpy.array([1, 2], dtype=numpy.int64))])
    nh, hd = shape.num_attention_heads, shape.head_size
    split = g.const("split", numpy.array([0, 0, nh, hd], dtype=numpy.int64))
    merge = g.const("merge", numpy.array([0, 0, shape.hidden_size], dtype=numpy.int64))
    scale = g.const("scale", numpy.array(1.0 / numpy.sqrt(hd), dtype=f32))
    half = g.const("half", numpy.array(0.5, dtype=f32))
    root2 = g.const("root2", numpy.array(numpy.sqrt(2.0), dtype=f32))
    for n in range(shape.num_hidden_layers):
        p = f"encoder.layer.{n}."

        def heads(name: str, perm: List[int]) -> str:
            t = g.dense(x, w[p + f"attention.self.{name}.weight"], w[p + f"attention.self.{name}.bias"], f"l{n}_{name}")
            return g.op("Transpose", [g.op("Reshape", [t, split])], perm=perm)

        q, k, v = heads("query", [0, 2, 1, 3]), heads("key", [0, 2, 3, 1]), heads("value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        attn = g.dense(ctx, w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"], f"l{n}_ao")
        x = g.layer_norm(g.op("Add", [attn, x]), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], shape.layer_norm_eps, f"l{n}_ln1")
        h = g.dense(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"], f"l{n}_in")
        # GELU, exact: 0.5 · h · (1 + erf(h / √2)); onnxruntime fuses the pattern.
        gelu = g.op("Mul", [g.op("Mul", [h, half]),
                            g.op("Add", [g.op("Erf", [g.op("Div", [h, root2])]), g.const("one_f", numpy.array(1.0, dtype=f32))])])
        out = g.dense(gelu, w[p + "output.dense.weight"], w[p + "output.dense.bias"], f"l{n}_out")
        x = g.layer_norm(g.op("Add", [out, x]), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
                         shape.layer_norm_eps, f"l{n}_ln2")
    logits = g.dense(x, w["classifier.weight"], w["classifier.bias"], "classifier")
    g.nodes.append(helper.make_node("Squeeze", [logits, g.const("last", numpy.array([2], dtype=numpy.int64))],
                                    [OUTPUT], name="logits_node"))
    inputs = [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "pieces"]),
              helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "pieces"])]
    outputs = [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", "pieces"])]
    if has_heads(weights):
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
        inputs.append(helper.make_tensor_value_info(CANDIDATES, TensorProto.INT64, ["batch", "pieces"]))
        made = add_heads(g, x, CANDIDATES, weights, shape.hidden_size, top_k)
        kinds = {"head_index": (TensorProto.INT64, ["batch", "pieces", "k"]),
                 "head_score": (TensorProto.FLOAT, ["batch", "pieces", "k"]),
                 "head_label": (TensorProto.INT64, ["batch", "pieces", "k"]),
                 "upos": (TensorProto.INT64, ["batch", "pieces"])}
        for name in HEAD_OUTPUTS:
            g.nodes.append(helper.make_node("Identity", [made[name]], [name], name=name + "_node"))
            outputs.append(helper.make_tensor_value_info(name, *kinds[name]))
    graph = helper.make_graph(g.nodes, "bert_token_classifier", inputs, outputs, initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="spacy_joint_sbd.encoder")
    model.ir_version = 8
    checker.check_model(model)
    return model


def export(weights: Mapping[str, numpy.ndarray], shape: BertShape, path: Union[str, Path], *, top_k: int = 4) -> Path:
    """Write the float32 graph to `path` (one file: BERT's weights fit under protobuf's 2 GB)."""
    import onnx

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(bert_graph(weights, shape, top_k=top_k), str(path))
    return path


def quantize(src: Union[str, Path], dst: Union[str, Path]) -> Path:
    """Dynamic int8 quantisation of a float graph written by `export` (onnxruntime's
    `quantize_dynamic`: signed int8 weights with a scale per output channel (on dev text the fine-tuned
    encoder loses 0.1 F1 to float32 so, 0.6 with one scale per tensor), MatMul and the embedding Gathers).
    Weights use 7 bits of the 8 (`reduce_range`): on x86 CPUs without VNNI (AVX2 only, or AVX-512
    without VNNI) onnxruntime multiplies uint8 activations by int8 weights in pairs summed into 16
    bits, which saturates with full-range weights (the tiny test BERT's logits then correlate 0.94
    with float32, 0.999 with 7-bit weights); with VNNI both forms give the same."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True,
                     op_types_to_quantize=["MatMul", "Gather"])
    return dst
