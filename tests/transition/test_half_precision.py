"""Prediction scores with the averaged weights rounded to float16 (`HashedWeights.half_table`):
half the bytes per weight row read. The engine's half-precision path gives the parses and
probabilities, bit for bit, of the float32 path over a table of the same values, whether the
weights were trained in memory, loaded half-only, or loaded as float32."""
import numpy
import pytest

from spacy_joint_sbd.transition import TransitionParser
from engine_docs import encode


@pytest.fixture(scope="module")
def trained(sample_docs):
    parser = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    docs = encode(parser, sample_docs[:40])
    for epoch in range(2):
        parser.train_epoch(docs, "dlaso", 4, shuffle=epoch)
    assert parser.weights.time > 0
    return parser, docs


def parses(parser, docs, use_averages):
    out = []
    for d in docs:
        heads, labels, starts, probs = parser.engine.parse(d.attrs, 4, None, use_averages, return_probs=True)
        out.append((heads.tolist(), labels.tolist(), starts.tolist(), probs.view(numpy.uint64).tolist()))
    return out


def test_half_precision_parses_as_float32_of_the_same_values(trained, sample_docs):
    parser, docs = trained
    H = parser.weights.half_table()
    assert H is not None and H.dtype == numpy.float16
    in_memory = parses(parser, docs, use_averages=True)  # trained: the half table of the averages

    as_float = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    as_float.set_params({"W": H.astype(numpy.float32)})  # a float32 table of the same values
    assert as_float.weights.half_table() is not None
    reference = []
    for d in docs:  # scored by the float32 kernel: the live table, not its half version
        heads, labels, starts, probs = as_float.engine.parse(d.attrs, 4, None, False, return_probs=True)
        reference.append((heads.tolist(), labels.tolist(), starts.tolist(), probs.view(numpy.uint64).tolist()))
    assert in_memory == reference

    half_only = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    half_only.weights.set_half_params(H)
    assert parses(half_only, docs, use_averages=False) == reference
    assert parses(half_only, docs, use_averages=True) == reference
    assert half_only.weights.half_only  # parsing never built a float32 table


def test_a_half_only_parser_trains_on_from_the_same_values(trained, sample_docs):
    parser, docs = trained
    H = parser.weights.half_table()
    again = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    again.weights.set_half_params(H)
    again.train_epoch(docs[:5], "dlaso", 4, shuffle=0)
    assert not again.weights.half_only and again.weights.time > 0
    start = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    start.set_params({"W": H.astype(numpy.float32)})
    start.train_epoch(docs[:5], "dlaso", 4, shuffle=0)
    assert numpy.array_equal(again.weights.get_params()["W"], start.weights.get_params()["W"])


def test_without_f16c_prediction_reads_a_float32_copy_with_the_same_parses(trained, sample_docs):
    """Where the CPU has no F16C (ARM, old x86), converting each float16 in software would make
    the parser slower than before: prediction reads a float32 copy of the half table instead,
    with the same parses, and the weights stay half-only."""
    from spacy_joint_sbd.learn import weights as weights_module
    parser, docs = trained
    H = parser.weights.half_table()
    half_only = TransitionParser.from_records(sample_docs[:40], n_rows=1 << 14)
    half_only.weights.set_half_params(H)
    with_f16c = parses(half_only, docs, use_averages=False)
    assert half_only.weights.prediction_table() is half_only.weights.half_table() or weights_module.half_kernel() == "plain"
    try:
        weights_module._use_f16c(False)
        table = half_only.weights.prediction_table()
        assert table.dtype == numpy.float32 and numpy.array_equal(table, H.astype(numpy.float32))
        assert half_only.weights.prediction_table() is table  # cached
        assert parses(half_only, docs, use_averages=False) == with_f16c
        assert parses(parser, docs, use_averages=True) == with_f16c
    finally:
        weights_module._use_f16c(True)
    assert half_only.weights.half_only
