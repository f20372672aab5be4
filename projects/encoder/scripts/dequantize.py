"""An exported encoder graph → its weights in float32 under Hugging Face names, to fine-tune again.

    python scripts/dequantize.py weights/encoder.onnx assets/base/config.json OUT_DIR

`spacy_joint_sbd.encoder.export` names every initializer after its place in BERT (`l3_query_w`,
`word_emb`, `classifier_b`, ...); this reads those names back. Int8 and uint8 tensors of the
quantised graph are dequantised with their scales and zero points ((q − zero) · scale, per output
channel or per tensor as stored), so a fine-tuning can start from the shipped boundary encoder
instead of the pretrained one. Writes `OUT_DIR/model.safetensors` (BertForTokenClassification
names, one boundary logit) and a copy of the config.
"""
import argparse
import json
import re
import shutil
from pathlib import Path
from typing import Dict

import numpy

LAYER_PARTS = {
    "query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
    "ao": "attention.output.dense", "in": "intermediate.dense", "out": "output.dense",
    "ln1": "attention.output.LayerNorm", "ln2": "output.LayerNorm",
}
SUFFIX = {"w": "weight", "g": "weight", "b": "bias"}


def hf_name(stem: str) -> str:
    """The Hugging Face name of an initializer stem (its name without counter or quantisation
    suffix); KeyError for a constant that is not a weight."""
    fixed = {"word_emb": "bert.embeddings.word_embeddings.weight",
             "pos_emb": "bert.embeddings.position_embeddings.weight",
             "type_emb": "bert.embeddings.token_type_embeddings.weight",
             "emb_ln_g": "bert.embeddings.LayerNorm.weight", "emb_ln_b": "bert.embeddings.LayerNorm.bias",
             "classifier_w": "classifier.weight", "classifier_b": "classifier.bias"}
    if stem in fixed:
        return fixed[stem]
    m = re.fullmatch(r"l(\d+)_([a-z0-9]+)_([wbg])", stem)
    if m is None or m.group(2) not in LAYER_PARTS:
        raise KeyError(stem)
    return f"bert.encoder.layer.{m.group(1)}.{LAYER_PARTS[m.group(2)]}.{SUFFIX[m.group(3)]}"


def graph_weights(graph: bytes) -> Dict[str, numpy.ndarray]:
    """Float32 weights under Hugging Face names from an exported (float or quantised) graph."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load_model_from_string(graph)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out: Dict[str, numpy.ndarray] = {}
    for name, value in inits.items():
        if name.endswith(("_scale", "_zero_point")):
            continue
        quantised = name.endswith("_quantized")
        base = name[: -len("_quantized")] if quantised else name
        stem = re.sub(r"_\d+$", "", base)
        try:
            key = hf_name(stem)
        except KeyError:
            continue
        if quantised:
            scale = inits[base + "_scale"].astype(numpy.float32)
            zero = inits[base + "_zero_point"].astype(numpy.float32)
            value = (value.astype(numpy.float32) - zero) * scale
        value = numpy.asarray(value, dtype=numpy.float32)
        if stem.endswith("_w"):
            value = numpy.ascontiguousarray(value.T)  # MatMul's right operand is the weight transposed
        out[key] = value
    row = out.pop("bert.embeddings.token_type_embeddings.weight")
    out["bert.embeddings.token_type_embeddings.weight"] = numpy.stack([row, row])  # the graph keeps type 0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", type=Path)
    ap.add_argument("config", type=Path, help="the pretrained encoder's config.json")
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    from safetensors.numpy import save_file

    weights = graph_weights(args.graph.read_bytes())
    args.out.mkdir(parents=True, exist_ok=True)
    save_file(weights, str(args.out / "model.safetensors"))
    shutil.copy(args.config, args.out / "config.json")
    print(json.dumps({"tensors": len(weights), "parameters": int(sum(v.size for v in weights.values()))}))


if __name__ == "__main__":
    main()
