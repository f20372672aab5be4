"""Windows cover every word within their limits; each word is read where it is most central."""
import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_joint_sbd.encoder.windows import central_windows, plan_windows


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 9), max_size=300), st.integers(1, 40), st.integers(1, 60),
       st.sampled_from([0.25, 0.5, 0.75, 1.0]))
def test_windows_cover_every_word_within_limits(counts, max_words, max_pieces, stride):
    spans = plan_windows(numpy.array(counts), max_words, max_pieces, stride)
    n = len(counts)
    covered = numpy.zeros(n, dtype=int)
    for s, e in spans:
        assert 0 <= s < e <= n
        assert e - s <= max_words
        assert e - s == 1 or sum(counts[s:e]) <= max_pieces
        covered[s:e] += 1
    assert (covered >= 1).all()
    assert [s for s, _ in spans] == sorted({s for s, _ in spans})  # starts strictly increase
    owner = central_windows(spans, n)
    assert (owner >= 0).all()
    for i, k in enumerate(owner):
        s, e = spans[k]
        depth = min(i - s, e - 1 - i)
        assert all(min(i - a, b - 1 - i) <= depth for a, b in spans if a <= i < b)


def test_half_window_stride_gives_every_word_context():
    spans = plan_windows(numpy.ones(1000, dtype=int), 96, 1000)
    assert spans[0] == (0, 96) and spans[1][0] == 48 and spans[-1][1] == 1000
    owner = central_windows(spans, 1000)
    depth = [min(i - spans[k][0], spans[k][1] - 1 - i) for i, k in enumerate(owner)]
    assert min(depth[24:-24]) >= 23  # away from the document's edges, a quarter window each side


def test_wider_stride_reads_each_word_fewer_times():
    counts = numpy.ones(960, dtype=int)
    assert len(plan_windows(counts, 96, 1000, 1.0)) == 10
    assert len(plan_windows(counts, 96, 1000, 0.75)) < len(plan_windows(counts, 96, 1000, 0.5))


def test_empty_and_bad_limits():
    assert plan_windows(numpy.array([], dtype=int), 4, 4) == []
    assert central_windows([], 0).shape == (0,)
    for bad_stride in (0, 1.5):
        try:
            plan_windows(numpy.ones(3, dtype=int), 4, 4, bad_stride)
        except ValueError as e:
            assert "stride" in str(e)
        else:
            raise AssertionError("a stride outside (0, 1] was taken")
    for bad in ((0, 5), (5, 0)):
        try:
            plan_windows(numpy.ones(3, dtype=int), *bad)
        except ValueError as e:
            assert "max_words" in str(e)
        else:
            raise AssertionError("a window limit below 1 was taken")
