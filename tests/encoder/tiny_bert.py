"""A tiny randomly initialised BERT (two layers, width 32) and an independent numpy forward pass.

The tests export it through `spacy_joint_sbd.encoder.export`, the path the fine-tuned encoder
takes, and check the graph against `forward`: the same arithmetic written without ONNX.
"""
from math import erf
from typing import Dict, List

import numpy

from spacy_joint_sbd.encoder.config import BertShape

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "?", "!", "'", "-"] + [
    "the", "a", "i", "you", "we", "it", "is", "was", "to", "and", "of", "in", "that", "so", "went",
    "store", "they", "had", "no", "milk", "left", "asked", "clerk", "about", "yes", "okay", "hello",
    "there", "world", "day", "came", "next", "late", "he", "she", "said", "un", "##s", "##ed",
    "##ing", "##ly", "##er", "##a", "##b", "##c", "##d", "##e", "##n", "##o", "##t"]
SHAPE = BertShape(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, max_position_embeddings=512)


def random_weights(seed: int = 0, shape: BertShape = SHAPE) -> Dict[str, numpy.ndarray]:
    """BertForTokenClassification's state dict (with the `bert.` prefix), N(0, 0.2) weights."""
    rng = numpy.random.default_rng(seed)
    h, i = shape.hidden_size, shape.intermediate_size

    def r(*dims):
        return rng.normal(0, 0.2, dims).astype(numpy.float32)

    w = {"bert.embeddings.word_embeddings.weight": r(shape.vocab_size, h),
         "bert.embeddings.position_embeddings.weight": r(shape.max_position_embeddings, h),
         "bert.embeddings.token_type_embeddings.weight": r(shape.type_vocab_size, h),
         "bert.embeddings.LayerNorm.weight": 1 + r(h), "bert.embeddings.LayerNorm.bias": r(h),
         "classifier.weight": r(1, h), "classifier.bias": r(1)}
    for n in range(shape.num_hidden_layers):
        p = f"bert.encoder.layer.{n}."
        for m in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            w[p + m + ".weight"], w[p + m + ".bias"] = r(h, h), r(h)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = r(i, h), r(i)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(h, i), r(h)
        for m in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + m + ".weight"], w[p + m + ".bias"] = 1 + r(h), r(h)
    return w


def _ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / numpy.sqrt(var + eps) * g + b


def forward(weights: Dict[str, numpy.ndarray], ids: numpy.ndarray, mask: numpy.ndarray,
            shape: BertShape = SHAPE) -> numpy.ndarray:
    """(batch, pieces) logits, in float64."""
    w = {k[5:] if k.startswith("bert.") else k: v.astype(numpy.float64) for k, v in weights.items()}
    return (hidden(weights, ids, mask, shape) @ w["classifier.weight"].T + w["classifier.bias"])[..., 0]


def hidden(weights: Dict[str, numpy.ndarray], ids: numpy.ndarray, mask: numpy.ndarray,
           shape: BertShape = SHAPE) -> numpy.ndarray:
    """(batch, pieces, hidden) last layer, in float64."""
    w = {k[5:] if k.startswith("bert.") else k: v.astype(numpy.float64) for k, v in weights.items()}
    eps = shape.layer_norm_eps
    b, t = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None]
    x = _ln(x + w["embeddings.token_type_embeddings.weight"][0], w["embeddings.LayerNorm.weight"],
            w["embeddings.LayerNorm.bias"], eps)
    nh, hd = shape.num_attention_heads, shape.head_size
    bias = (1.0 - mask[:, None, None, :]) * -10000.0
    verf = numpy.vectorize(erf)
    for n in range(shape.num_hidden_layers):
        p = f"encoder.layer.{n}."

        def lin(v, m):
            return v @ w[p + m + ".weight"].T + w[p + m + ".bias"]

        def split(v):
            return v.reshape(b, t, nh, hd).transpose(0, 2, 1, 3)

        q, k, v = (split(lin(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) / numpy.sqrt(hd) + bias
        s = numpy.exp(s - s.max(-1, keepdims=True))
        ctx = (s / s.sum(-1, keepdims=True)) @ v
        ctx = ctx.transpose(0, 2, 1, 3).reshape(b, t, nh * hd)
        x = _ln(lin(ctx, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"], eps)
        hmid = lin(x, "intermediate.dense")
        hmid = 0.5 * hmid * (1 + verf(hmid / numpy.sqrt(2)))
        x = _ln(lin(hmid, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return x


def random_head_weights(seed: int = 0, shape: BertShape = SHAPE, *, arc: int = 12, lab: int = 8,
                        n_labels: int = 5, n_upos: int = 4) -> Dict[str, numpy.ndarray]:
    """The syntax heads of a multi-task encoder (`spacy_joint_sbd.encoder.heads`), N(0, 0.3)."""
    rng = numpy.random.default_rng(seed)
    h = shape.hidden_size

    def r(*dims):
        return rng.normal(0, 0.3, dims).astype(numpy.float32)

    return {"arc_dep.weight": r(arc, h), "arc_dep.bias": r(arc), "arc_head.weight": r(arc, h), "arc_head.bias": r(arc),
            "arc_W": r(arc, arc), "arc_u": r(arc), "lab_dep.weight": r(lab, h), "lab_dep.bias": r(lab),
            "lab_head.weight": r(lab, h), "lab_head.bias": r(lab), "lab_W": r(n_labels, lab, lab),
            "lab_V.weight": r(n_labels, 2 * lab), "lab_V.bias": r(n_labels), "upos.weight": r(n_upos, h),
            "upos.bias": r(n_upos)}


def forward_heads(weights: Dict[str, numpy.ndarray], ids: numpy.ndarray, mask: numpy.ndarray,
                  candidates: numpy.ndarray, top_k: int, shape: BertShape = SHAPE):
    """(head_index, head_score, head_label, upos) as the graph defines them, in float64."""
    w = {k: v.astype(numpy.float64) for k, v in weights.items()}
    x = hidden(weights, ids, mask, shape)
    verf = numpy.vectorize(erf)

    def mlp(name):
        v = x @ w[name + ".weight"].T + w[name + ".bias"]
        return 0.5 * v * (1 + verf(v / numpy.sqrt(2)))

    d, hd = mlp("arc_dep"), mlp("arc_head")
    s = d @ w["arc_W"] @ hd.transpose(0, 2, 1) + (hd @ w["arc_u"])[:, None, :]
    t = ids.shape[1]
    s = s + (1 - candidates[:, None, :]) * -10000.0 + numpy.eye(t)[None] * -10000.0
    s = s - s.max(-1, keepdims=True)
    logp = s - numpy.log(numpy.exp(s).sum(-1, keepdims=True))
    index = numpy.argsort(-logp, axis=-1, kind="stable")[..., :top_k]
    score = numpy.take_along_axis(logp, index, axis=-1)
    ld, lh = mlp("lab_dep"), mlp("lab_head")
    nb = ld.shape[-1]
    pair = numpy.einsum("bid,lde,bje->bijl", ld, w["lab_W"], lh)
    pair = pair + (ld @ w["lab_V.weight"][:, :nb].T)[:, :, None, :] + (lh @ w["lab_V.weight"][:, nb:].T)[:, None, :, :]
    best = (pair + w["lab_V.bias"]).argmax(-1)
    label = numpy.take_along_axis(best, index, axis=-1)
    upos = (x @ w["upos.weight"].T + w["upos.bias"]).argmax(-1)
    return index, score, label, upos


def wordpiece_tokenizer_json(vocab: List[str] = VOCAB) -> str:
    """An uncased BERT WordPiece `tokenizer.json` over `vocab`, built with `tokenizers`."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    tok = Tokenizer(WordPiece({p: i for i, p in enumerate(vocab)}, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab.index("[CLS]")), ("[SEP]", vocab.index("[SEP]"))])
    return tok.to_str()


SYNTAX_LABELS = ["root", "nsubj", "obj", "det", "advmod"]
SYNTAX_UPOS = ["NOUN", "VERB", "DET", "X"]


def write_encoder_dir(path, *, seed: int = 0, quantized: bool = True, calibration=None, syntax: bool = False,
                      top_k: int = 3):
    """An encoder directory of the tiny BERT (export → int8 quantisation → `EncoderFiles`); with
    `syntax`, a multi-task one (random heads over `SYNTAX_LABELS`)."""
    import tempfile
    from pathlib import Path

    from spacy_joint_sbd.encoder.export import export, quantize
    from spacy_joint_sbd.encoder.files import EncoderFiles

    with tempfile.TemporaryDirectory() as tmp:
        weights = random_weights(seed)
        if syntax:
            weights.update(random_head_weights(seed + 1, n_labels=len(SYNTAX_LABELS), n_upos=len(SYNTAX_UPOS)))
        graph = export(weights, SHAPE, Path(tmp) / "f32.onnx", top_k=top_k)
        if quantized:
            graph = quantize(graph, Path(tmp) / "i8.onnx")
        data = graph.read_bytes()
    card = {"calibration": calibration} if calibration else {}
    if syntax:
        card["syntax"] = {"labels": SYNTAX_LABELS, "upos": SYNTAX_UPOS, "top_k": top_k}
    EncoderFiles(data, wordpiece_tokenizer_json(), card).to_disk(path)
    return Path(path)
