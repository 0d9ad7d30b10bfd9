// Built against CUDA 12's runtime (simcli exec's CUDA 12 test:
// sim-cli/tests/it/exec.rs): the fields of CUDA 12's struct cudaDeviceProp
// that lie where CUDA 13's does not have them (cudaGetDeviceProperties is
// cudaGetDeviceProperties_v2 in CUDA 12's header), the runtime's version,
// and cudaPointerGetAttributes writing no more than CUDA 12's 24 bytes.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void square(int* v) { v[threadIdx.x] *= v[threadIdx.x]; }

int main() {
    cudaDeviceProp p;
    memset(&p, 0x5a, sizeof p);
    cudaError_t e = cudaGetDeviceProperties(&p, 0);
    printf("props: %s, %s, sm_%d%d, %d SMs\n", cudaGetErrorString(e), p.name, p.major, p.minor,
           p.multiProcessorCount);
    printf("clock %d kHz, memory clock %d kHz, bus %d bits, L2 %d bytes\n", p.clockRate,
           p.memoryClockRate, p.memoryBusWidth, p.l2CacheSize);
    printf("shared: %zu a block, %zu opt-in, %zu reserved, %zu an SM; %d blocks an SM\n",
           p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
           p.sharedMemPerMultiprocessor, p.maxBlocksPerMultiProcessor);
    printf("threads: %d a block, %d an SM; warp %d; overlap %d, managed %d\n",
           p.maxThreadsPerBlock, p.maxThreadsPerMultiProcessor, p.warpSize, p.deviceOverlap,
           p.managedMemory);
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    printf("runtime %d.%d\n", rt / 1000, rt % 1000 / 10);
    int h[32];
    for (int i = 0; i < 32; i++) h[i] = i;
    int* d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    square<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("h[31]=%d\n", h[31]);
    struct {
        cudaPointerAttributes a;
        unsigned char guard[64];
    } pa;
    memset(&pa, 0x5a, sizeof pa);
    e = cudaPointerGetAttributes(&pa.a, d);
    int intact = 1;
    for (int i = 0; i < 64; i++) intact &= pa.guard[i] == 0x5a;
    printf("pointer: %s, type %d, device %d, same %d, past the struct intact %d\n",
           cudaGetErrorString(e), (int)pa.a.type, pa.a.device, pa.a.devicePointer == d, intact);
    cudaFree(d);
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
