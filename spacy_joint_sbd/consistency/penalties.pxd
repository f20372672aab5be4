# cython: infer_types=True, binding=True
cdef class WordArrays:
    cdef readonly object cand_arr  # int64[N]: candidate labels of every word, flat
    cdef readonly object u_arr  # float64[N]: the multipliers, flat
    cdef const long long[::1] pos  # [W] position of each word in its sentence
    cdef const long long[::1] off  # [W+1] word w's candidates are cand[off[w]:off[w+1]]
    cdef const long long[::1] cand
    cdef double[::1] u
    cdef unsigned char[::1] active  # [W] 0 once the word's constraints are removed
    cdef const long long[::1] sw  # word ids of each sentence, sentence after sentence
    cdef const long long[::1] sw_off  # [S+1] sentence s's words are sw[sw_off[s]:sw_off[s+1]]


cdef class Penalties:
    cdef readonly WordArrays a
    cdef readonly Py_ssize_t s
    cdef Py_ssize_t w0, w1  # sw[w0:w1]: the sentence's words (active or not)
