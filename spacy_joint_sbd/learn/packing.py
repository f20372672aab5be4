"""A weight table stored by its nonzero entries: a bit per weight, then the nonzero values.

A hashed perceptron never touches most of its weights: in the default pipeline 61% of the
parser's and 82% of the tagger's are exactly zero, yet almost no row is all zero (collisions fill
every bucket), so the saving is per weight, not per row. `pack` keeps one bit per weight (set
where its bit pattern is not +0.0) and the set weights in row-major order; `unpack` rebuilds the
table bit for bit (-0.0 and NaN stay as they were). float32 and float16 tables (the joint parser
saves its averaged table rounded to float16: `HashedWeights.half_table`) are packed alike, the
dtype recorded (absent: float32, as tables were saved before float16 ones existed). Tables that
would not shrink (the boundary prior's, which has no zeros) stay dense.
"""
from typing import Dict, Union

import numpy

FORMAT = "nonzero-bits.v1"
"""The `format` key of a packed table: names the layout, so that a later one can be told apart."""

MAX_WEIGHTS = 1 << 32
"""The largest table `unpack` rebuilds (16 GiB of float32): a foreign or corrupt shape must
fail with a clear error, not ask numpy for petabytes."""

Table = Union[numpy.ndarray, Dict]

_BITS = {numpy.dtype(numpy.float32): numpy.uint32, numpy.dtype(numpy.float16): numpy.uint16}
"""The dtypes `pack` packs, with the unsigned integer of the same width."""


def pack(W: numpy.ndarray) -> Table:
    """`W` as a packed dict when that is smaller than `W` itself, else `W` unchanged.

    Only float32 and float16 arrays are packed; anything else is returned as it is."""
    if not isinstance(W, numpy.ndarray) or W.dtype not in _BITS or W.size == 0:
        return W
    bits = numpy.ascontiguousarray(W).reshape(-1).view(_BITS[W.dtype])
    set_ = bits != 0
    n_set = int(numpy.count_nonzero(set_))
    width = W.dtype.itemsize
    if width * n_set + (W.size + 7) // 8 >= width * W.size:
        return W
    packed = {
        "format": FORMAT,
        "shape": [int(d) for d in W.shape],
        "mask": numpy.packbits(set_),
        "values": bits[set_].view(W.dtype),
    }
    if W.dtype != numpy.float32:
        packed["dtype"] = W.dtype.name
    return packed


def is_packed(value: object) -> bool:
    """Whether `value` is what `pack` returns for a table it shrank."""
    return isinstance(value, dict) and "format" in value


def unpack(value: Table) -> numpy.ndarray:
    """The dense table `pack` was given (float32 or float16); a dense array passes through.

    A packed dict whose parts disagree (foreign or truncated data) is a ValueError."""
    if not is_packed(value):
        return value
    if value.get("format") != FORMAT:
        raise ValueError(f"packed weight table of unknown format {value.get('format')!r} (expected {FORMAT})")
    shape = value.get("shape")
    if (not isinstance(shape, (list, tuple)) or not shape
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
        raise ValueError(f"packed weight table: bad shape {shape!r}")
    n = 1
    for d in shape:
        n *= d
    if n > MAX_WEIGHTS:
        raise ValueError(f"packed weight table: shape {tuple(shape)} has more than {MAX_WEIGHTS:,} weights")
    mask, values = value.get("mask"), value.get("values")
    if not isinstance(mask, numpy.ndarray) or mask.dtype != numpy.uint8 or mask.shape != ((n + 7) // 8,):
        raise ValueError(f"packed weight table: the mask does not cover {n:,} weights")
    dtype = value.get("dtype", "float32")
    if dtype not in ("float32", "float16"):
        raise ValueError(f"packed weight table: unknown dtype {dtype!r}")
    if not isinstance(values, numpy.ndarray) or values.dtype != numpy.dtype(dtype) or values.ndim != 1:
        raise ValueError(f"packed weight table: the values are not a {dtype} vector")
    set_ = numpy.unpackbits(mask, count=n).view(bool)
    if n % 8 and numpy.unpackbits(mask[-1:])[n % 8:].any():
        raise ValueError("packed weight table: mask bits set past the last weight")
    n_set = int(numpy.count_nonzero(set_))
    if n_set != values.shape[0]:
        raise ValueError(f"packed weight table: {values.shape[0]:,} values for {n_set:,} set bits (truncated?)")
    W = numpy.zeros(n, dtype=values.dtype)
    W[set_] = values
    return W.reshape(shape)
