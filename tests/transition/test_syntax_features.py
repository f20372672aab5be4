"""The syntax templates (`features`, 300–317): the engine reads an encoder's head candidates from
3·K attribute columns, caches no role of them wrongly, takes any values without harm, and a parser
trained with gold candidates parses far better than one without them."""
import dataclasses
from collections import Counter

import numpy
import pytest

from engine_docs import encode
from spacy_joint_sbd.transition import Engine, EngineDoc, TransitionParser, head_attrs
from spacy_joint_sbd.transition.testing import split_features, state_features

K = 2


def with_candidates(doc: EngineDoc, k: int = K, gold: bool = True, seed: int = 0) -> EngineDoc:
    """`doc` with 3·k head-candidate columns: the gold head best (bin 7, its label's id as label)
    and a wrong one second when `gold`; random values (any uint64) otherwise."""
    n = len(doc)
    cols = numpy.zeros((n, 3 * k), dtype=numpy.uint64)
    if gold:
        cols[:, 0] = numpy.where(doc.heads >= 0, doc.heads + 2, 1)  # engine number + 1; the root is 1
        cols[:, k] = 7
        cols[:, 2 * k] = doc.labels.astype(numpy.uint64) + 1000
        if k > 1:
            cols[:, 1] = numpy.minimum(numpy.arange(n) + 3, n + 1)  # the next word, as a wrong second
            cols[:, k + 1] = 2
            cols[:, 2 * k + 1] = 1001
    else:
        cols[:] = numpy.random.default_rng(seed).integers(0, numpy.iinfo(numpy.uint64).max, size=cols.shape,
                                                          dtype=numpy.uint64, endpoint=True)
    return dataclasses.replace(doc, attrs=numpy.ascontiguousarray(numpy.hstack([doc.attrs, cols])))


@pytest.fixture(scope="module")
def plain_and_syntax(sample_docs):
    plain = TransitionParser.from_records(sample_docs)
    syntax = TransitionParser(plain.labels, attrs=[*plain.attrs, *head_attrs(K)], head_candidates=K)
    docs = encode(plain, sample_docs)
    return plain, syntax, docs


def test_bad_candidate_settings_are_refused(plain_and_syntax):
    plain, _, _ = plain_and_syntax
    with pytest.raises(ValueError, match="n_cand"):
        Engine(3, 5, 0, 1, (), cand_col=3, n_cand=1)  # 3 columns from column 3 do not fit in 5
    with pytest.raises(ValueError, match="n_cand"):
        Engine(3, 40, 0, 1, (), cand_col=0, n_cand=9)
    with pytest.raises(ValueError, match="n_cand"):
        Engine(3, 5, 0, 1, (), cand_col=2, n_cand=0)
    with pytest.raises(ValueError, match="head_candidates"):
        TransitionParser(plain.labels, attrs=plain.attrs, head_candidates=K)  # its columns are missing
    with pytest.raises(ValueError, match="head_candidates"):
        TransitionParser(plain.labels, attrs=[*plain.attrs, *head_attrs(K)], head_candidates=True)


def test_eighteen_keys_more_and_none_among_the_roles(plain_and_syntax):
    plain, syntax, docs = plain_and_syntax
    doc = next(d for d in docs if 20 <= len(d) <= 60)
    cand = with_candidates(doc)
    gold = [int(c) for c in plain.oracle(doc)]
    assert syntax.cfg["extra"] == plain.cfg["extra"]  # the candidate columns are not extra columns
    for i in range(0, len(gold) + 1, 5):
        prefix = gold[:i]
        without = state_features(plain.engine, doc.attrs, prefix, plain._fixed(doc))
        full = state_features(syntax.engine, cand.attrs, prefix, syntax._fixed(cand))
        assert len(full) == len(without) + 18
        assert set(without.tolist()) <= set(full.tolist())
        other, roles = split_features(syntax.engine, cand.attrs, prefix, syntax._fixed(cand))
        assert Counter(full.tolist()) == Counter(other.tolist() + [k for r in roles for k in r.tolist()])


def test_the_keys_follow_the_candidates(plain_and_syntax):
    """The same state with other candidates (none, gold, random) gets other syntax keys."""
    plain, syntax, docs = plain_and_syntax
    doc = next(d for d in docs if 20 <= len(d) <= 60)
    prefix = [int(c) for c in plain.oracle(doc)][:12]
    none = dataclasses.replace(doc, attrs=numpy.hstack([doc.attrs, numpy.zeros((len(doc), 3 * K), numpy.uint64)]))
    keys = [set(state_features(syntax.engine, d.attrs, prefix, syntax._fixed(d)).tolist())
            for d in (none, with_candidates(doc), with_candidates(doc, gold=False))]
    assert len(keys[0] - keys[1]) >= 8 and len(keys[1] - keys[2]) >= 8


def _uas(parser, docs):
    right = total = 0
    for d, p in zip(docs, parser.parse(docs, beam_width=4)):
        right += int((p.heads == d.heads).sum())
        total += len(d)
    return right / total


def test_a_parser_learns_to_read_the_candidates(plain_and_syntax):
    """Trained on 20 documents with gold candidates, a parser reads them (UAS above 0.85 on held-out ones) where
    one without them cannot; random candidate values parse without harm to the interpreter."""
    plain, syntax, docs = plain_and_syntax
    train, test = docs[:20], docs[20:]
    cand_train, cand_test = [with_candidates(d) for d in train], [with_candidates(d) for d in test]
    for epoch in range(2):
        plain.train_epoch(train, update="greedy", beam_width=1, shuffle=epoch)
        syntax.train_epoch(cand_train, update="greedy", beam_width=1, shuffle=epoch)
    with_gold, without = _uas(syntax, cand_test), _uas(plain, test)
    assert with_gold > 0.85 and with_gold > without + 0.2, (with_gold, without)
    noisy = syntax.parse([with_candidates(d, gold=False, seed=i) for i, d in enumerate(test)], beam_width=4)
    assert all(len(p.heads) == len(d) for p, d in zip(noisy, test))
