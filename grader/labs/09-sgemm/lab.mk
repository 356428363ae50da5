# lab.mk - lab 09's build settings (included by the Makefile).
#
# The runner times cuBLAS as the ceiling. The student's object may not use cuBLAS or CUTLASS
# (by symbol), nor tensor cores or reduced precision in its device code: every PTX form of
# mma (mma, mma.sp, wmma, wgmma) and tcgen05, conversions to tf32, half, bf16 or fp8 (vet.sh
# reads instructions only, not the .file lines that hold source paths), and in the machine
# code HMMA/IMMA/DMMA (Volta to Ada, TF32 included), HGMMA/IGMMA/QGMMA (Hopper wgmma),
# UTC*MMA (Blackwell). Not HFMA2: ptxas uses HFMA2.MMA as a move in plain fp32 code.
# Whatever slips past this, the speed check's inputs expose (a TF32 or half product rounds
# them) and a rate above the FP32 FMA peak is rejected as impossible.
LIBS_sgemm := -lcublas
FORBID_sgemm := cublas|cutlass|wmma|mma_sync|nvcuda
FORBID_PTX_sgemm := \<(w|wg)?mma(\.[a-z0-9_:]+)+|\<tcgen05\.[a-z0-9._:]+|\<cvt\.[a-z0-9.]*(tf32|f16|bf16|e4m3|e5m2)
FORBID_SASS_sgemm := HMMA|HGMMA|IMMA|IGMMA|QGMMA|BMMA|DMMA|UTC[A-Z]*MMA
