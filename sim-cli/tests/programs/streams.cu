// Two streams, asynchronous copies and events between them.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float* x, float f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

int main() {
    const int n = 512;
    float *h, *d0, *d1;
    cudaMallocHost(&h, 2 * n * sizeof(float));
    for (int i = 0; i < 2 * n; i++) h[i] = i;
    cudaMalloc(&d0, n * sizeof(float)); cudaMalloc(&d1, n * sizeof(float));
    cudaStream_t s0, s1;
    cudaStreamCreate(&s0); cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaEvent_t start, mid, stop;
    cudaEventCreate(&start); cudaEventCreate(&mid); cudaEventCreate(&stop);
    cudaEventRecord(start, s0);
    cudaMemcpyAsync(d0, h, n * sizeof(float), cudaMemcpyHostToDevice, s0);
    cudaMemcpyAsync(d1, h + n, n * sizeof(float), cudaMemcpyHostToDevice, s1);
    scale<<<n / 128, 128, 0, s0>>>(d0, 2.0f, n);
    cudaEventRecord(mid, s0);
    cudaStreamWaitEvent(s1, mid, 0);
    scale<<<n / 128, 128, 0, s1>>>(d1, 3.0f, n);
    cudaMemcpyAsync(h, d0, n * sizeof(float), cudaMemcpyDeviceToHost, s0);
    cudaMemcpyAsync(h + n, d1, n * sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaEventRecord(stop, s1);
    cudaStreamSynchronize(s0); cudaStreamSynchronize(s1);
    float first = 0, all = 0;
    cudaEventElapsedTime(&first, start, mid);
    cudaEventElapsedTime(&all, start, stop);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 2.0f * i;
    for (int i = n; i < 2 * n; i++) bad += h[i] != 3.0f * i;
    printf("streams: %d wrong, h[1]=%g h[1023]=%g, times positive and ordered: %d\n", bad, h[1],
           h[2 * n - 1], first > 0 && all > first);
    cudaStreamDestroy(s0); cudaStreamDestroy(s1);
    cudaFreeHost(h);
    return bad != 0;
}
