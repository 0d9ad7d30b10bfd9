// Dynamic shared memory past 48 KiB (simcli exec's test programs:
// sim-cli/tests/it/exec.rs): refused without opting in, as on a GPU;
// allowed after cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)
// up to the device's opt-in maximum, and that maximum cannot be passed.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* out, int n) {
    extern __shared__ int s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = i;
    __syncthreads();
    int sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sum += s[n - 1 - i];
    atomicAdd(out, sum);
}

static void launch(const char* what, int* d, int bytes) {
    cudaMemset(d, 0, 4);
    fill<<<1, 256, bytes>>>(d, bytes / 4);
    cudaError_t launched = cudaGetLastError();
    cudaError_t done = cudaDeviceSynchronize();
    int sum = -1;
    cudaMemcpy(&sum, d, 4, cudaMemcpyDeviceToHost);
    printf("%s (%d bytes): launch %s, sync %s, sum %d\n", what, bytes,
           cudaGetErrorString(launched), cudaGetErrorString(done),
           launched == cudaSuccess ? sum : -1);
}

int main() {
    int* d;
    cudaMalloc(&d, 4);
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, fill);
    printf("opt-in maximum %d, kernel's maximum %d\n", optin, fa.maxDynamicSharedSizeBytes);
    launch("48 KiB", d, 48 * 1024);
    launch("64 KiB without opting in", d, 64 * 1024);
    cudaError_t e = cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
    cudaFuncGetAttributes(&fa, fill);
    printf("set 64 KiB: %s, kernel's maximum %d\n", cudaGetErrorString(e), fa.maxDynamicSharedSizeBytes);
    launch("64 KiB", d, 64 * 1024);
    launch("96 KiB past what was set", d, 96 * 1024);
    e = cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1);
    printf("set the maximum + 1: %s\n", cudaGetErrorString(e));
    cudaGetLastError();
    e = cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    printf("set the maximum: %s\n", cudaGetErrorString(e));
    launch("the maximum", d, optin);
    cudaFree(d);
    return 0;
}
