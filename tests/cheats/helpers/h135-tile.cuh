/* tile.cuh - h135's helper header: the classic tiled transpose kernel, its barrier forgotten. */
#ifndef H135_TILE_CUH
#define H135_TILE_CUH

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols)
            tile[threadIdx.y + k][threadIdx.x] = in[(size_t)r * cols + c];
    }
    /* (the __syncthreads() belongs here) */
    const int oc = blockIdx.y * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS) {
        const int orow = blockIdx.x * TILE + threadIdx.y + k;
        if (orow < cols && oc < rows)
            out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + k];
    }
}

#endif
