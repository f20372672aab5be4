"""The role cache (`beam.Engine.score` with `cache_roles`; parse and beam training): a state's keys
split into role templates and the rest lose no key and add none, and cached scores equal uncached
ones, on every state of the gold derivations of real EWT documents (SWAPs, SBs and the root
included), also along one long derivation whose (role, token) pairs outnumber the cache's slots."""
from collections import Counter

import numpy
import pytest

from engine_docs import encode
from spacy_joint_sbd.transition import TransitionParser
from spacy_joint_sbd.transition import EngineDoc
from spacy_joint_sbd.transition.testing import derivation_scores, role_scores, split_features, state_features

SWAP = 1


@pytest.fixture(scope="module")
def trained(sample_docs):
    """A parser trained one greedy epoch on the sample (non-zero weights in most rows touched), and
    three of its documents, one of which needs SWAP."""
    parser = TransitionParser.from_records(sample_docs, learner="pa")
    docs = encode(parser, sample_docs)
    parser.train_epoch(docs, update="greedy", beam_width=1)
    with_swap = [d for d in docs if SWAP in list(parser.oracle(d))]
    assert with_swap, "the sample has a non-projective document"
    return parser, [with_swap[0], *[d for d in docs if 20 <= len(d) <= 80][:2]]


def _prefixes(parser, doc):
    gold = [int(c) for c in parser.oracle(doc)]
    return [gold[:i] for i in range(len(gold) + 1)]


def test_split_keys_are_the_state_keys(trained):
    parser, docs = trained
    n_states, window_sizes = 0, Counter()
    for doc in docs:
        for prefix in _prefixes(parser, doc):
            other, roles = split_features(parser.engine, doc.attrs, prefix, parser._fixed(doc))
            full = state_features(parser.engine, doc.attrs, prefix, parser._fixed(doc))
            assert Counter(full.tolist()) == Counter(other.tolist() + [k for r in roles for k in r.tolist()])
            *unigram_roles, window = roles
            assert all(len(r) >= 2 for r in unigram_roles)  # every role has its word and tag templates
            # the b0 window (templates 31, 40, 116-118, 204 + 8t) is cached unless a swapped token
            # waits in the buffer: then its keys are among the others
            window_sizes[len(window)] += 1
            n_states += 1
    assert n_states > 150
    cached = {k: v for k, v in window_sizes.items() if k}
    assert len(cached) == 1 and min(cached) >= 5 and window_sizes[0] > 0, window_sizes  # SWAP in doc 0
    assert sum(cached.values()) > 0.8 * n_states, window_sizes


def test_cached_scores_equal_uncached(trained):
    parser, docs = trained
    worst = 0.0
    for doc in docs:
        for prefix in _prefixes(parser, doc)[::3]:
            full, miss, hit = role_scores(parser.engine, doc.attrs, prefix, parser._fixed(doc))
            assert numpy.abs(full).max() > 0
            numpy.testing.assert_array_equal(miss, hit)  # a hit reads what the miss stored
            numpy.testing.assert_allclose(miss, full, rtol=1e-5, atol=1e-5)
            worst = max(worst, float(numpy.abs(miss - full).max()))
    assert worst < 1e-4



def _concat(docs):
    """One EngineDoc of whole documents one after the other (heads shifted)."""
    total, parts = 0, []
    for d in docs:
        parts.append((d.attrs, numpy.where(d.heads >= 0, d.heads + total, -1), d.labels, d.sent_starts))
        total += len(d)
    return EngineDoc(*(numpy.concatenate(p) for p in zip(*parts)))


def test_one_cache_along_a_long_derivation(trained, sample_docs):
    """A cache filled state after state, as a parse fills it, over more (role, token) pairs than
    MAX_ROLE_SLOTS (4096 / 12 roles: ~340 tokens), so entries are evicted and refilled."""
    parser, _ = trained
    doc = _concat(encode(parser, sample_docs[:8]))
    assert len(doc) > 800
    gold = [int(c) for c in parser.oracle(doc)]
    plain, cached = derivation_scores(parser.engine, doc.attrs, gold, parser._fixed(doc))
    assert plain.shape == (len(gold), parser.n_classes) and numpy.abs(plain).max() > 0
    numpy.testing.assert_allclose(cached, plain, rtol=1e-5, atol=1e-5)
