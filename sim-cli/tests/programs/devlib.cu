// Device code as libraries and everyday kernels write it:
// - a __noinline__ function returning a structure by value (the ABI's
//   `.param .align 8 .b8 retval0[16]`);
// - assert: passing in one kernel (its module calls __assertfail, which
//   only a failing thread reaches), and failing in one thread of another:
//   the kernel stops, the thread's line goes to stderr, and
//   cudaErrorAssert sticks, as on a GPU.
// Every value printed is the program's own host check.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

struct Stats {
    double sum;
    int count;
    float max;
};

__device__ __noinline__ Stats summarise(const double* v, int n)
{
    Stats s = {0.0, 0, -1e30f};
    for (int i = 0; i < n; i++) {
        s.sum += v[i];
        s.count++;
        s.max = fmaxf(s.max, (float)v[i]);
    }
    return s;
}

__global__ void stats(const double* v, int n, double* sum, int* count, float* mx)
{
    Stats st = summarise(v, n);
    assert(st.count == n);
    if (threadIdx.x == 0) {
        *sum = st.sum;
        *count = st.count;
        *mx = st.max;
    }
}

__global__ void check(const int* v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        assert(v[i] >= 0);
}

int main()
{
    double hv[100];
    for (int i = 0; i < 100; i++)
        hv[i] = (i * 37) % 101;
    double* v;
    double* sum;
    int* count;
    float* mx;
    cudaMalloc(&v, sizeof hv);
    cudaMalloc(&sum, 8);
    cudaMalloc(&count, 4);
    cudaMalloc(&mx, 4);
    cudaMemcpy(v, hv, sizeof hv, cudaMemcpyHostToDevice);
    stats<<<1, 32>>>(v, 100, sum, count, mx);
    double dsum;
    int dcount;
    float dmx;
    cudaMemcpy(&dsum, sum, 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&dcount, count, 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(&dmx, mx, 4, cudaMemcpyDeviceToHost);
    printf("stats: sum %.1f count %d max %.1f\n", dsum, dcount, dmx);

    int hi[100];
    for (int i = 0; i < 100; i++)
        hi[i] = i == 37 ? -1 : i;
    int* iv;
    cudaMalloc(&iv, sizeof hi);
    cudaMemcpy(iv, hi, sizeof hi, cudaMemcpyHostToDevice);
    check<<<4, 32>>>(iv, 100);
    printf("check: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("after: %s\n", cudaGetErrorName(cudaMemcpy(hi, iv, 4, cudaMemcpyDeviceToHost)));
    return 0;
}
