// The runtime calls libraries lean on: stream-ordered and pitched
// allocation, 2D copies, pointer attributes, limits, prefetch hints and a
// host callback; and what ptxas allocated for a kernel (its registers, from
// the program's machine code) with the occupancy they allow.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void bump(float* m, size_t pitch, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) ((float*)((char*)m + y * pitch))[x] += 1.0f;
}

// 48 registers a thread (nvcc 13.0.88, -arch=sm_90): 1,536 a warp, so an
// SM's 65,536 hold one block of 1,024 threads and five of 256.
__global__ void many(float* out, const float* in, int n) {
    float acc[40];
#pragma unroll
    for (int k = 0; k < 40; k++) acc[k] = in[threadIdx.x + k * 32];
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int k = 0; k < 40; k++) acc[k] = acc[k] * acc[(k + 1) % 40] + 1.0f;
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < 40; k++) s += acc[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__device__ int sym[4];

static void CUDART_CB done(void* p) { *(int*)p = 42; }

int main() {
    const int w = 100, h = 8;
    static float host[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) host[y][x] = y * 1000 + x;
    cudaStream_t s;
    cudaStreamCreate(&s);
    float* m;
    size_t pitch = 0;
    cudaMallocPitch(&m, &pitch, w * sizeof(float), h);
    cudaMemcpy2DAsync(m, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice, s);
    bump<<<h, 128, 0, s>>>(m, pitch, w, h);
    cudaMemcpy2D(host, w * sizeof(float), m, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);
    int* a;
    cudaMallocAsync(&a, 4096, s);
    int* u;
    cudaMallocManaged(&u, 64);
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    cudaMemPrefetchAsync(u, 64, loc, 0, s);
    cudaPointerAttributes pa, pu, ph;
    int local = 0;
    cudaPointerGetAttributes(&pa, a);
    cudaPointerGetAttributes(&pu, u);
    cudaPointerGetAttributes(&ph, &local);
    size_t fifo = 0;
    cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize);
    int flag = 0;
    cudaLaunchHostFunc(s, done, &flag);
    cudaStreamSynchronize(s);
    // Symbol copies whose other side is device memory.
    int four[4] = {7, 8, 9, 10}, back[4] = {0, 0, 0, 0};
    cudaMemcpy(a, four, sizeof four, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(sym, a, sizeof four, 0, cudaMemcpyDeviceToDevice);
    cudaMemcpyFromSymbol(a + 8, sym, 2 * sizeof(int), 2 * sizeof(int), cudaMemcpyDeviceToDevice);
    cudaMemcpy(back, a + 8, 2 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("symbol via device: %d %d\n", back[0], back[1]);
    cudaFreeAsync(a, s);
    printf("pitch %zu, host[7][99]=%g host[0][0]=%g\n", pitch, host[7][99], host[0][0]);
    printf("types: device %d managed %d host memory %d\n", pa.type, pu.type, ph.type);
    printf("printf fifo %zu, callback %d, error %s\n", fifo, flag, cudaGetErrorName(cudaGetLastError()));
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, many);
    int b256 = 0, b1024 = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b256, many, 256, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b1024, many, 1024, 0);
    printf("many: %d registers, %d blocks of 256 an SM, %d of 1024\n", fa.numRegs, b256, b1024);
    return 0;
}
