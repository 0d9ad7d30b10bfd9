// A sum over several launches: each block reduces its slice in dynamic
// shared memory, launches repeat until one value is left; the bias added
// per element comes through cudaMemcpyToSymbol.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ int bias;

__global__ void reduce(const int* in, int* out, int n, int add_bias) {
    extern __shared__ int s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] + (add_bias ? bias : 0) : 0;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

int main() {
    const int n = 5000, threads = 128;
    static int h[n];
    long long want = 0;
    for (int i = 0; i < n; i++) { h[i] = (i * 37) % 101 - 50; want += h[i] + 3; }
    int b = 3;
    cudaMemcpyToSymbol(bias, &b, sizeof b);
    int *x, *y;
    cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
    cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice);
    int m = n, launches = 0;
    while (m > 1) {
        int blocks = (m + threads - 1) / threads;
        reduce<<<blocks, threads, threads * sizeof(int)>>>(x, y, m, launches == 0);
        int* t = x; x = y; y = t;
        m = blocks;
        launches++;
    }
    int got = 0;
    cudaMemcpy(&got, x, 4, cudaMemcpyDeviceToHost);
    printf("sum %d (want %lld) in %d launches: %s\n", got, want, launches,
           cudaGetErrorString(cudaGetLastError()));
    return got != want;
}
