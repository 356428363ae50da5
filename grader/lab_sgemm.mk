# lab_sgemm.mk - lab 09's build settings (included by the Makefile).
#
# The runner times cuBLAS as the ceiling. The student's object may not use cuBLAS or CUTLASS
# (by symbol), nor tensor cores or TF32 in its device code: PTX mma/wmma/wgmma/tcgen05 and
# conversions to tf32 (checked always; \< keeps a path like /home/emma.x/ in the PTX's .file
# lines from matching), and in the machine code HMMA/IMMA (Volta to Ada, TF32
# included), HGMMA/IGMMA/QGMMA (Hopper wgmma), UTC*MMA (Blackwell) where cuobjdump exists.
LIBS_sgemm := -lcublas
FORBID_sgemm := cublas|cutlass|wmma|mma_sync|nvcuda
FORBID_PTX_sgemm := \<(w|wg)?mma\.(sync|load|store|mma)[a-z0-9._]*|\<tcgen05\.mma[a-z0-9._]*|\<cvt\.[a-z.]*tf32
FORBID_SASS_sgemm := HMMA|HGMMA|IMMA|IGMMA|QGMMA|BMMA|UTCHMMA|UTCQMMA

# grader/lab_sgemm.cu includes the reference kernels and the ladder steps.
$(BUILD)/gpu/grader/lab_sgemm.o: $(wildcard solutions/09-sgemm/*.cu solutions/09-sgemm/*.cuh)
