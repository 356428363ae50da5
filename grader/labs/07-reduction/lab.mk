# lab.mk - lab 07's build rules (included by the Makefile).
#
# The point of the lab is to write the reduction: a student object that uses CUB or Thrust is
# rejected at build time (grader/vet.sh searches the names of its global and undefined symbols
# with this extended regex). Device-wide calls (cub::DeviceReduce::Sum, thrust::reduce) are
# the target; after inlining their kernels are local symbols that vet.sh does not search, so
# the regex also matches every CUB (_ZN3cub) and Thrust global symbol those headers leave
# behind. That rejects cub::BlockReduce too, which is fine here: the tree is the lesson.
# Tested with CUDA 13.0: a file calling cub::DeviceReduce::Sum (NVTX on or off) and one
# calling thrust::reduce are both rejected; the skeleton and the reference are admitted.
FORBID_reduction := DeviceReduce|DeviceSegmentedReduce|DeviceScan|_ZN3cub|_ZGVZN3cub|thrust|cublas
