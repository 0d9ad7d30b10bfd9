// Device code as libraries and everyday kernels write it:
// - double-precision libdevice: sin/cos of arguments up to 1e22 (the slow
//   path's carry chains, and its 16-byte structure returned by value),
//   lgamma, pow, erf, tgamma (`rcp.approx.ftz.f64` refined by Newton steps);
// - a __noinline__ function returning a structure by value (the ABI's
//   `.param .align 8 .b8 retval0[16]`);
// - assert: passing in one kernel (its module calls __assertfail, which
//   only a failing thread reaches), and failing in one thread of another:
//   the kernel stops, the thread's line goes to stderr, and
//   cudaErrorAssert sticks, as on a GPU.
// Every value printed is the program's own host check.
#include <cassert>
#include <cmath>
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

__global__ void dmath(const double* x, double* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[2 * i] = sin(v * v * v * v) + cos(v * 1e20);
        y[2 * i + 1] = lgamma(v) + pow(v, 0.37) + erf(v) + tgamma(v * 0.1 + 0.5);
    }
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
    // Within 1e-13 of the host's libm: device and host agree to an ulp or
    // two where the results are not tiny (sin(v^4) of v in [0.05, 28]).
    const int n = 256;
    double *x, *y;
    cudaMallocManaged(&x, n * 8);
    cudaMallocManaged(&y, 2 * n * 8);
    for (int i = 0; i < n; i++)
        x[i] = 0.05 + i * 0.11;
    dmath<<<2, 128>>>(x, y, n);
    printf("dmath: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int close = 0;
    for (int i = 0; i < n; i++) {
        double v = x[i];
        double t = sin(v * v * v * v) + cos(v * 1e20);
        double m = lgamma(v) + pow(v, 0.37) + erf(v) + tgamma(v * 0.1 + 0.5);
        close += fabs(y[2 * i] - t) <= 1e-13 && fabs(y[2 * i + 1] - m) <= 1e-13 * fabs(m);
    }
    printf("dmath: %d of %d within 1e-13 of the host's\n", close, n);

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
