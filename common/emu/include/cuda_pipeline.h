/*
 * cuda_pipeline.h -- the pipeline primitives (cuda_pipeline_primitives.h). The class
 * nvcuda::experimental::pipeline and its memcpy_async are not emulated: they are refused where
 * used, naming them.
 */
#ifndef CUDA_EMU_PIPELINE_H
#define CUDA_EMU_PIPELINE_H
#define _CUDA_PIPELINE_H_ /* NVIDIA's guard */

#include "cuda_pipeline_primitives.h"

namespace nvcuda {
namespace experimental {

#define CUDA_EMU_PIPELINE_CLASS CUDA_EMU_REFUSED("nvcuda::experimental::pipeline (use __pipeline_memcpy_async, __pipeline_commit and __pipeline_wait_prior)")
class pipeline {
  public:
    CUDA_EMU_PIPELINE_CLASS pipeline();
    CUDA_EMU_PIPELINE_CLASS void commit();
    CUDA_EMU_PIPELINE_CLASS void commit_and_wait();
    CUDA_EMU_PIPELINE_CLASS void wait(unsigned);
    template <unsigned N> CUDA_EMU_PIPELINE_CLASS void wait_prior();
};
template <class T>
CUDA_EMU_PIPELINE_CLASS void memcpy_async(T &dst, const T &src, pipeline &pipe);
template <class T, unsigned DstN, unsigned SrcN>
CUDA_EMU_PIPELINE_CLASS void memcpy_async(T (*dst)[DstN], const T (*src)[SrcN], pipeline &pipe);
#undef CUDA_EMU_PIPELINE_CLASS

} // namespace experimental
} // namespace nvcuda

#endif /* CUDA_EMU_PIPELINE_H */
