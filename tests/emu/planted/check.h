/*
 * check.h -- the planted-bug programs' CUDA error check: a failing call
 * prints the error's name and string with the file and line, and main
 * returns 2 (the programs' "CUDA error" exit status).
 */
#ifndef PLANTED_CHECK_H
#define PLANTED_CHECK_H

#include <cstdio>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            printf("CUDA error: %s (%s) at %s:%d\n", cudaGetErrorName(e_),                \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                           \
            return 2;                                                                     \
        }                                                                                 \
    } while (0)

#endif /* PLANTED_CHECK_H */
