# cython: infer_types=True, binding=True
from .eisner cimport MasksC


cdef double eisner2_c(const double* arc, const double* sib, const MasksC* m, int* heads) noexcept nogil
cdef int eisner2_free_c(const double* arc, const double* sibT, int D, int* heads,
                        double* score) noexcept nogil
cdef void swap_sib_axes(const double* sib, double* sibT, int D) noexcept nogil
