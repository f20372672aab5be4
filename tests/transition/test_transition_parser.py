"""`TransitionParser`: saving and loading, the oracle cache, names of the public API."""
import json

import numpy
import pytest

from spacy_joint_sbd.transition import TransitionParser
from engine_docs import encode


def test_to_disk_round_trip(small_docs, tmp_path):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 12, learner="pa")
    docs = encode(parser, small_docs)
    parser.train_epoch(docs, "dlaso", 2)
    parser.to_disk(tmp_path / "m")
    loaded = TransitionParser.from_disk(tmp_path / "m")
    for a, b in zip(parser.parse(docs, 2), loaded.parse(docs, 2)):
        assert numpy.array_equal(a.heads, b.heads) and numpy.array_equal(a.labels, b.labels)
    parser.to_disk(tmp_path / "t", training_state=True)
    resumed = TransitionParser.from_disk(tmp_path / "t")
    assert numpy.array_equal(resumed.weights.averaged(), parser.weights.averaged())


def test_old_cfg_with_mode_loads(small_docs, tmp_path):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 10, document_level=False)
    parser.to_disk(tmp_path / "m")
    cfg_path = tmp_path / "m" / "cfg.json"
    cfg = json.loads(cfg_path.read_text())
    assert cfg["document_level"] is False and "mode" not in cfg
    for mode, document_level in (("sentence", False), ("joint", True)):
        old = {k: v for k, v in cfg.items() if k != "document_level"}
        old["mode"] = mode
        cfg_path.write_text(json.dumps(old))
        assert TransitionParser.from_disk(tmp_path / "m").document_level is document_level


def test_oracle_is_cached_on_the_document(small_docs):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 10)
    doc = encode(parser, small_docs[:1])[0]
    first = parser.oracle(doc)
    assert parser.oracle(doc) is first
    assert not hasattr(parser, "_oracle_cache")  # nothing that outlives the documents
    late = TransitionParser(parser.labels, n_rows=1 << 10, sb_oracle="late")
    assert not numpy.array_equal(late.oracle(doc), first)  # one entry per oracle setting
    assert parser.oracle(doc) is first


def test_epoch_stats_name_the_update(small_docs):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 10)
    stats = parser.train_epoch(encode(parser, small_docs[:2]), update="greedy")
    assert stats["update"] == "greedy" and parser.epoch_stats[-1] is stats


def test_fixed_starts_are_n_bools(small_docs):
    parser = TransitionParser.from_records(small_docs, n_rows=1 << 10)
    doc = encode(parser, small_docs[:1])[0]
    heads, labels, starts = parser.engine.parse(doc.attrs, 2, fixed_starts=doc.sent_starts)
    assert numpy.array_equal(starts, doc.sent_starts)
    with pytest.raises(ValueError, match="fixed_starts"):
        parser.engine.parse(doc.attrs, 2, fixed_starts=doc.sent_starts[1:])
