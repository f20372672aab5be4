# cython: infer_types=True, binding=True
from ..graph.eisner cimport MasksC


cdef double dmv_viterbi_c(const int* cls, int n, int C, const double* root, const double* stop,
                          const double* cont, const double* choose, const MasksC* m,
                          int* heads) noexcept nogil
