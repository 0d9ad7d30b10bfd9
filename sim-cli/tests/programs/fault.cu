// A kernel that writes far out of bounds: the launch fails with
// cudaErrorIllegalAddress, which then sticks, as on a GPU.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void oob(int* p) { p[threadIdx.x + (1 << 28)] = 1; }

int main() {
    int* p;
    cudaMalloc(&p, 64);
    oob<<<1, 32>>>(p);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorName(e));
    printf("after: %s\n", cudaGetErrorName(cudaMemcpy(p, p, 4, cudaMemcpyDeviceToDevice)));
    return 0;
}
