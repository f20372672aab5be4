"""One trained model serves many threads (prediction only): each `Engine.parse` call keeps its
document, feature, score and beam buffers in its own `Workspace`, and `use_averages()` counts the
threads inside it. 4 threads × 200 documents give exactly the sequential parses, and a 3,000-token
document parsed next to 5-token ones neither hangs nor corrupts the heap (both did when the
document lived on the Engine)."""
import threading

import numpy
import pytest

from spacy_joint_sbd.transition import EngineDoc, TransitionParser
from engine_docs import encode

N_THREADS = 4
DOCS_PER_THREAD = 200
TIMEOUT = 120  # seconds for the whole run; sequentially it takes a few


@pytest.fixture(scope="module")
def trained(sample_docs):
    parser = TransitionParser.from_records(sample_docs, n_rows=1 << 15)
    docs = encode(parser, sample_docs)
    for epoch in range(2):
        parser.train_epoch(docs, "dlaso", 4, shuffle=epoch)
    assert parser.weights.time > 0  # averaged and raw weights differ
    return parser, docs


def random_docs(docs, n_docs, seed, lengths=(1, 120)):
    """Documents of random length whose token rows are drawn from real documents (so features
    fire as on real text), without gold annotation."""
    rows = numpy.concatenate([d.attrs for d in docs])
    rng = numpy.random.default_rng(seed)
    out = []
    for _ in range(n_docs):
        n = int(rng.integers(lengths[0], lengths[1] + 1))
        out.append(EngineDoc(attrs=numpy.ascontiguousarray(rows[rng.integers(0, len(rows), n)])))
    return out


def same(a, b):
    return (numpy.array_equal(a.heads, b.heads) and numpy.array_equal(a.labels, b.labels)
            and numpy.array_equal(a.sent_starts, b.sent_starts))


def run_threads(work):
    """Run each callable of `work` in its own daemon thread (a hang cannot block the test run);
    return their results, or fail on a timeout or an exception."""
    results, errors = [None] * len(work), []

    def target(i):
        try:
            results[i] = work[i]()
        except BaseException as err:  # noqa: B902 - reported below
            errors.append(err)

    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a parsing thread hangs"
    assert not errors, errors
    return results


def test_four_threads_give_the_sequential_parses(trained):
    parser, docs = trained
    beam = 4
    per_thread = [docs + random_docs(docs, DOCS_PER_THREAD - len(docs), seed) for seed in
                  range(N_THREADS)]
    # sequential reference, document by document (as each thread calls it)
    expected = [[parser.parse([d], beam)[0] for d in thread_docs] for thread_docs in per_thread]
    got = run_threads([lambda ds=ds: [parser.parse([d], beam)[0] for d in ds] for ds in per_thread])
    for exp, res in zip(expected, got):
        assert len(res) == DOCS_PER_THREAD
        assert all(same(a, b) for a, b in zip(exp, res))
    assert not parser.weights.using_averages  # the last thread out restored the raw weights


def test_long_and_short_documents_in_parallel(trained):
    parser, docs = trained
    long_doc = random_docs(docs, 1, 7, (3000, 3000))[0]
    short = random_docs(docs, 50, 8, (5, 5))
    want_long = parser.parse([long_doc], 8)[0]
    want_short = parser.parse(short, 8)
    # the engine directly as well: raw weights, a Workspace per call, no use_averages
    want_raw = parser.engine.parse(long_doc.attrs, 8)

    def shorts():
        return [parser.parse([d], 8)[0] for d in short for _ in range(4)]

    got = run_threads([lambda: parser.parse([long_doc], 8)[0], shorts, shorts,
                       lambda: parser.engine.parse(long_doc.attrs, 8)])
    assert same(got[0], want_long)
    for res in got[1:3]:
        assert all(same(r, want_short[i // 4]) for i, r in enumerate(res))
    assert all(numpy.array_equal(a, b) for a, b in zip(got[3], want_raw))
