# cython: infer_types=True, binding=True
"""Feature hashing with MurmurHash (Bohnet 2010): strings and feature tuples → uint64 keys.

A feature is a template id followed by the attribute values it conjoins; its key is the 64-bit
MurmurHash of those words. `HashedWeights` maps a key to a row of its table (key mod n_rows).
"""
import numpy

from libc.stdint cimport uint64_t
from murmurhash.mrmr cimport hash64

DEFAULT_SEED = 0x5EED


cdef uint64_t hash_feature(const uint64_t* values, int n, uint64_t seed) noexcept nogil:
    """Hash `n` uint64 words (template id + conjoined attribute values) into one feature key."""
    return hash64(<void*>values, n * sizeof(uint64_t), seed)


def hash_string(str text, uint64_t seed=DEFAULT_SEED) -> int:
    """MurmurHash64 of the UTF-8 bytes of `text`: how callers turn attribute strings into ids."""
    cdef bytes b = text.encode("utf8")
    return hash64(<char*>b, len(b), seed)


def hash_values(values, uint64_t seed=DEFAULT_SEED) -> int:
    """Python-level `hash_feature` over a sequence of ints (each taken modulo 2**64)."""
    words = [v & 0xFFFFFFFFFFFFFFFF for v in values]  # hash what was read, whatever len() says
    cdef uint64_t[::1] arr = numpy.array(words or [0], dtype=numpy.uint64)
    return hash_feature(&arr[0], len(words), seed)


def hash_words5(a: int, b: int, c: int, d: int, e: int, uint64_t seed=DEFAULT_SEED) -> int:
    """`hash_values((a, b, c, d, e), seed)` by the five-word MurmurHash64A the parser's features
    use (`sjs_murmur64a_words5`): the tests compare the two."""
    return sjs_murmur64a_words5(a & 0xFFFFFFFFFFFFFFFF, b & 0xFFFFFFFFFFFFFFFF, c & 0xFFFFFFFFFFFFFFFF,
                                d & 0xFFFFFFFFFFFFFFFF, e & 0xFFFFFFFFFFFFFFFF, seed)
