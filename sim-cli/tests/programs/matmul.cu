// Tiled matrix multiply through shared memory (16x16 tiles), checked
// against the host's product.
#include <cstdio>
#include <cuda_runtime.h>

#define T 16

__global__ void matmul(const float* a, const float* b, float* c, int n) {
    __shared__ float sa[T][T], sb[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
        sa[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++) acc += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

int main() {
    const int n = 64;
    static float a[n * n], b[n * n], c[n * n];
    for (int i = 0; i < n * n; i++) { a[i] = (i % 7) - 3; b[i] = (i % 5) - 2; }
    float *da, *db, *dc;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dc, sizeof c);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    matmul<<<dim3(n / T, n / T), dim3(T, T)>>>(da, db, dc, n);
    cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float r = 0;
            for (int k = 0; k < n; k++) r += a[i * n + k] * b[k * n + j];
            bad += r != c[i * n + j];
        }
    printf("matmul %dx%d: %d wrong, c[0]=%g c[4095]=%g\n", n, n, bad, c[0], c[n * n - 1]);
    return bad != 0;
}
