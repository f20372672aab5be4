"""`learn.packing`: a weight table stored by its nonzero entries, rebuilt bit for bit."""
import numpy
import pytest

from spacy_joint_sbd.learn.packing import FORMAT, is_packed, pack, unpack


def sparse_table(rows=300, cols=7, zeros=0.7, seed=0):
    rng = numpy.random.default_rng(seed)
    W = rng.normal(size=(rows, cols)).astype(numpy.float32)
    W[rng.random(W.shape) < zeros] = 0.0
    return W


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and numpy.array_equal(a.view(numpy.uint32), b.view(numpy.uint32))


@pytest.mark.parametrize("shape", [(300, 7), (1, 1), (13,), (5, 3, 2)])
def test_round_trip_is_bit_exact_with_negative_zero_and_nan(shape):
    W = numpy.zeros(shape, dtype=numpy.float32).reshape(-1)
    W[::3] = numpy.arange(len(W[::3]), dtype=numpy.float32) - 1.5
    W[1::7] = -0.0
    if W.size > 5:
        W[5] = numpy.nan
    W = W.reshape(shape)
    packed = pack(W)
    assert is_packed(packed) == (W.size > 1)  # one set weight: a mask would not shrink it
    assert same_bits(unpack(packed), W)
    if W.size > 1:
        assert packed["format"] == FORMAT


def test_a_mostly_zero_table_packs_to_a_fraction_and_a_dense_one_stays_dense():
    W = sparse_table(zeros=0.8)
    packed = pack(W)
    assert packed["mask"].nbytes + packed["values"].nbytes < 0.3 * W.nbytes
    assert same_bits(unpack(packed), W)
    dense = sparse_table(zeros=0.0)
    assert pack(dense) is dense and unpack(dense) is dense  # packing would not shrink it
    ints = numpy.zeros((10, 10), dtype=numpy.int64)
    assert pack(ints) is ints  # only float32 and float16 tables are packed
    assert pack(numpy.zeros((0, 4), dtype=numpy.float32)).shape == (0, 4)


def test_a_strided_view_packs_as_its_values():
    W = sparse_table(rows=40, cols=10, zeros=0.9)
    view = W[::2, ::3]
    assert same_bits(unpack(pack(view)), numpy.ascontiguousarray(view))


def corrupt(field, value):
    packed = pack(sparse_table(rows=30, cols=5, zeros=0.8))
    packed[field] = value
    return packed


@pytest.mark.parametrize("packed, message", [
    (corrupt("format", "dense-bits.v9"), "unknown format"),
    (corrupt("shape", [30, -5]), "bad shape"),
    (corrupt("shape", "30x5"), "bad shape"),
    (corrupt("shape", [True, 5]), "bad shape"),
    (corrupt("shape", [1 << 20, 1 << 20]), "more than"),
    (corrupt("mask", numpy.zeros(3, dtype=numpy.uint8)), "mask does not cover"),
    (corrupt("mask", [1, 2, 3]), "mask does not cover"),
    (corrupt("values", numpy.zeros(2, dtype=numpy.float32)), "values for"),
    (corrupt("values", numpy.zeros(2, dtype=numpy.float64)), "float32 vector"),
    (corrupt("shape", [29, 5]), "mask does not cover|past the last"),
])
def test_foreign_or_truncated_parts_are_a_clear_error(packed, message):
    with pytest.raises(ValueError, match=message):
        unpack(packed)


def test_mask_bits_past_the_end_are_refused():
    packed = pack(numpy.array([0, 0, 1.5], dtype=numpy.float32))
    packed["mask"] = packed["mask"] | numpy.uint8(1)  # bit 8 of a 3-weight table
    packed["values"] = numpy.array([1.5, 2.0], dtype=numpy.float32)
    with pytest.raises(ValueError, match="past the last weight"):
        unpack(packed)


def test_a_float16_table_packs_with_its_dtype_and_comes_back_bit_for_bit():
    """The joint parser saves its table as float16 (`HashedWeights.half_table`): packed with its
    dtype named, -0.0 and NaN kept; a packed table without a dtype (saved before) is float32."""
    W = sparse_table(zeros=0.8).astype(numpy.float16)
    W[0, :2] = [-0.0, numpy.nan]
    packed = pack(W)
    assert packed["dtype"] == "float16" and packed["values"].dtype == numpy.float16
    back = unpack(packed)
    assert back.dtype == numpy.float16 and numpy.array_equal(back.view(numpy.uint16), W.view(numpy.uint16))
    assert "dtype" not in pack(sparse_table(zeros=0.8))
    wrong = dict(packed, dtype="float64")
    with pytest.raises(ValueError, match="unknown dtype"):
        unpack(wrong)
    with pytest.raises(ValueError, match="float16 vector"):
        unpack(dict(packed, values=packed["values"].astype(numpy.float32)))
