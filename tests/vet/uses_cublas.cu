/* SGEMM through cuBLAS: the library does the work the lab asks for. */
#include <cublas_v2.h>
extern "C" void sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
                      float beta, float *C, cudaStream_t stream)
{
    static cublasHandle_t h;
    if (!h) cublasCreate(&h);
    cublasSetStream(h, stream);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
}
