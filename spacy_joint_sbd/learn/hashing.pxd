from libc.stdint cimport uint64_t


cdef uint64_t hash_feature(const uint64_t* values, int n, uint64_t seed) noexcept nogil
