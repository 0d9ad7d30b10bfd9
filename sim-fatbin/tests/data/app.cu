// A tiny program for the sim-fatbin fixtures: one kernel, launched once.
#include <cstdio>
__global__ void inc(int* p) { p[threadIdx.x] += 1; }
int main() {
    int* d = nullptr;
    cudaMalloc(&d, 32 * sizeof(int));
    inc<<<1, 32>>>(d);
    printf("%d\n", (int)cudaDeviceSynchronize());
    return 0;
}
