// Vector add with a __device__ counter, a __constant__ scale, events and
// the device's properties (simcli exec's test programs: sim-cli/tests/it/exec.rs).
#include <cstdio>
#include <cuda_runtime.h>

__device__ int counter;
__constant__ float scale;

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = (a[i] + b[i]) * scale;
        atomicAdd(&counter, 1);
    }
}

int main() {
    const int n = 1000;
    static float ha[n], hb[n], hc[n];
    for (int i = 0; i < n; i++) { ha[i] = i; hb[i] = 2 * i; }
    float *a, *b, *c;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
    cudaMemcpy(a, ha, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, n * 4, cudaMemcpyHostToDevice);
    float s = 0.5f;
    cudaMemcpyToSymbol(scale, &s, 4);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(hc, c, n * 4, cudaMemcpyDeviceToHost);
    int cnt = 0;
    cudaMemcpyFromSymbol(&cnt, counter, 4);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hc[i] != (ha[i] + hb[i]) * 0.5f;
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("c[999]=%g counter=%d bad=%d\n", hc[999], cnt, bad);
    printf("device: %s, sm_%d%d, %d SMs, time positive: %d\n", p.name, p.major, p.minor,
           p.multiProcessorCount, ms > 0);
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(a); cudaFree(b); cudaFree(c);
    return bad != 0;
}
