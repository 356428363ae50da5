# lab_sgemm.mk - lab 09's build settings (included by the Makefile).
#
# The runner times cuBLAS as the ceiling. The student's object may not use cuBLAS, CUTLASS
# or the warp-level matrix (tensor-core) API by symbol, nor tensor-core instructions in its
# machine code: HMMA/IMMA (Volta to Ada, TF32 included), HGMMA/IGMMA/QGMMA (Hopper wgmma).
LIBS_sgemm := -lcublas
FORBID_sgemm := cublas|cutlass|wmma|mma_sync|nvcuda
FORBID_SASS_sgemm := HMMA|HGMMA|IMMA|IGMMA|QGMMA|BMMA|UTCHMMA|UTCQMMA

# grader/lab_sgemm.cu includes the reference kernels and the ladder steps.
$(BUILD)/gpu/grader/lab_sgemm.o: $(wildcard solutions/09-sgemm/*.cu solutions/09-sgemm/*.cuh)
