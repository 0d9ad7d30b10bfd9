// Device printf between the host's own lines: each launch's output
// appears where the launch is, lanes of a warp in order.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void hello(int round) {
    if (threadIdx.x < 4) printf("round %d: thread %d says %s %.2f\n", round, threadIdx.x, "hi", threadIdx.x * 0.5f);
}

int main() {
    printf("host: before\n");
    hello<<<1, 32>>>(1);
    cudaDeviceSynchronize();
    printf("host: between\n");
    hello<<<1, 32>>>(2);
    cudaDeviceSynchronize();
    printf("host: after\n");
    return 0;
}
