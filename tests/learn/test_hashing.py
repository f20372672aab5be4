"""The parser's five-word feature hash (`sjs_murmur64a_words5`) is murmurhash's MurmurHash64A of
the same 40 bytes, so models trained before it read the same rows."""
import numpy
import pytest

from spacy_joint_sbd.learn.hashing import DEFAULT_SEED, hash_values, hash_words5

EDGES = [0, 1, 2 ** 63, 2 ** 64 - 1, 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F]


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 0, 2 ** 64 - 1])
def test_words5_is_murmurhash64a(seed):
    rng = numpy.random.default_rng(seed % 1000)
    keys = [[int(v) for v in rng.integers(0, 2 ** 64, size=5, dtype=numpy.uint64)] for _ in range(2000)]
    keys += [[a, b, 0, 0, 0] for a in EDGES for b in EDGES] + [[e] * 5 for e in EDGES]
    for key in keys:
        assert hash_words5(*key, seed=seed) == hash_values(key, seed), key


def test_words5_takes_ints_modulo_2_64():
    assert hash_words5(-1, 0, 0, 0, 2 ** 64 + 3) == hash_values([2 ** 64 - 1, 0, 0, 0, 3])
