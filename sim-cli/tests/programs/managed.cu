// Unified memory: the host writes, a kernel updates, the host reads after
// synchronising, twice over.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void step(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * 2 + i;
}

int main() {
    const int n = 300;
    int* v;
    cudaMallocManaged(&v, n * sizeof(int));
    for (int i = 0; i < n; i++) v[i] = i;
    step<<<(n + 63) / 64, 64>>>(v, n);
    cudaDeviceSynchronize();
    v[0] = 100;
    step<<<(n + 63) / 64, 64>>>(v, n);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 1; i < n; i++) bad += v[i] != (i * 3) * 2 + i;
    printf("managed: v[0]=%d v[299]=%d, %d wrong\n", v[0], v[n - 1], bad);
    cudaFree(v);
    return bad != 0 || v == nullptr;
}
