from libc.stdint cimport uint64_t


cdef extern from *:
    """
    #include <stdint.h>
    /* MurmurHash64A (Austin Appleby, public domain; what murmurhash's hash64 computes) of five
       uint64 words, 40 bytes, written out for that one length: the same key bit for bit (both read
       the key as native uint64 words), without the call through murmurhash's
       module or the loop and tail of the general function. The joint parser hashes every feature
       key this way, tens of millions a second. */
    #define SJS_MURMUR_M 0xc6a4a7935bd1e995ULL
    static inline uint64_t sjs_murmur_block(uint64_t h, uint64_t k) {
        k *= SJS_MURMUR_M;
        k ^= k >> 47;
        k *= SJS_MURMUR_M;
        h ^= k;
        return h * SJS_MURMUR_M;
    }
    static inline uint64_t sjs_murmur64a_words5(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                                                uint64_t e, uint64_t seed) {
        uint64_t h = seed ^ (40ULL * SJS_MURMUR_M);
        h = sjs_murmur_block(h, a);
        h = sjs_murmur_block(h, b);
        h = sjs_murmur_block(h, c);
        h = sjs_murmur_block(h, d);
        h = sjs_murmur_block(h, e);
        h ^= h >> 47;
        h *= SJS_MURMUR_M;
        h ^= h >> 47;
        return h;
    }
    """
    uint64_t sjs_murmur64a_words5(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                                  uint64_t seed) noexcept nogil


cdef uint64_t hash_feature(const uint64_t* values, int n, uint64_t seed) noexcept nogil
