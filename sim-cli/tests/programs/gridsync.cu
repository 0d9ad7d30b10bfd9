// Cooperative groups' grid-wide sync: cudaLaunchCooperativeKernel runs a
// grid as large as the GPU holds at once (the occupancy API's blocks per SM
// times the SMs), which syncs twice, so every block reads what all the
// others wrote before each sync; one block more is refused. Launched the
// ordinary way, the kernel finds no grid workspace and traps, and the
// error sticks, as on a GPU.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// The kernel, `twice`: one source with sim-kernel's tests/data/gridsync.
#include "../../../sim-kernel/tests/data/gridsync/twice.cuh"

// Elements of `twice`'s two outputs that are not what two syncs give.
static int wrong(const int* buf, const int* out, int n) {
    static int got_out[1 << 20], got_buf[1 << 20];
    cudaMemcpy(got_out, out, 4 * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(got_buf, buf, 4 * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int o = 3 * (n - 1 - i) + 1, later = 3 * (n - 1 - (i + 7919) % n) + 1;
        bad += got_out[i] != o || got_buf[i] != later - o;
    }
    return bad;
}

int main() {
    int attr = 0, sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&attr, cudaDevAttrCooperativeLaunch, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("cooperative launch: attribute %d, property %d\n", attr, prop.cooperativeLaunch);
    const int threads = 256;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, twice, threads, 0);
    int blocks = per_sm * sms, n = blocks * threads - 5;
    int *buf, *out;
    cudaMalloc(&buf, 4 * (n + 5));
    cudaMalloc(&out, 4 * (n + 5));
    void* args[] = {&buf, &out, &n};
    cudaError_t e = cudaLaunchCooperativeKernel((void*)twice, blocks, threads, args);
    cudaError_t s = cudaDeviceSynchronize();
    printf("%d blocks a SM, all resident: %d wrong; %s, %s\n", per_sm, wrong(buf, out, n),
           cudaGetErrorName(e), cudaGetErrorName(s));
    e = cudaLaunchCooperativeKernel((void*)twice, blocks + 1, threads, args);
    printf("one block more: %s\n", cudaGetErrorName(e));
    // Captured into a graph, the launch gets its workspace when the graph runs.
    cudaStream_t st;
    cudaStreamCreate(&st);
    cudaMemset(buf, 0, 4 * n);
    cudaMemset(out, 0, 4 * n);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
    cudaLaunchCooperativeKernel((void*)twice, blocks, threads, args, 0, st);
    cudaStreamEndCapture(st, &g);
    cudaGraphInstantiate(&ge, g, 0);
    e = cudaGraphLaunch(ge, st);
    s = cudaStreamSynchronize(st);
    printf("captured in a graph: %d wrong; %s, %s\n", wrong(buf, out, n), cudaGetErrorName(e),
           cudaGetErrorName(s));
    twice<<<2, 64>>>(buf, out, 128);
    printf("ordinary launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int first = 0;
    printf("after: %s\n", cudaGetErrorName(cudaMemcpy(&first, out, 4, cudaMemcpyDeviceToHost)));
    return 0;
}
