# cython: infer_types=True, binding=True
from .eisner cimport MasksC


cdef double eisner2_c(const double* arc, const double* sib, const MasksC* m, int* heads) noexcept nogil
