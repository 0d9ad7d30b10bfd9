// CUDA graphs: a stream capture with a fork and join across two streams,
// replayed three times, and a graph built node by node (kernel, 1D copy,
// 4-byte memset, host function, a child graph).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(float* x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

__global__ void scale(float* x, float f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

static void CUDART_CB note(void* p) { ++*(int*)p; }

int main() {
    const int n = 1000;
    float* d;
    float* e;
    cudaMalloc(&d, n * sizeof(float));
    cudaMalloc(&e, n * sizeof(float));
    cudaMemset(d, 0, n * sizeof(float));
    cudaMemset(e, 0, n * sizeof(float));
    cudaStream_t s, t;
    cudaStreamCreate(&s);
    cudaStreamCreate(&t);
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);

    // Captured, not run: d stays 0 until the graph is launched.
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaStreamCaptureStatus st;
    cudaStreamIsCapturing(s, &st);
    add<<<(n + 127) / 128, 128, 0, s>>>(d, 1.0f, n);
    cudaEventRecord(fork, s);
    cudaStreamWaitEvent(t, fork, 0);
    add<<<(n + 127) / 128, 128, 0, t>>>(e, 2.0f, n);
    cudaEventRecord(join, t);
    cudaStreamWaitEvent(s, join, 0);
    scale<<<(n + 127) / 128, 128, 0, s>>>(d, 3.0f, n);
    cudaGraph_t g;
    cudaError_t ended = cudaStreamEndCapture(s, &g);
    float before;
    cudaMemcpy(&before, d, sizeof(float), cudaMemcpyDeviceToHost);
    size_t count = 0;
    cudaGraphGetNodes(g, nullptr, &count);
    cudaGraphExec_t ge;
    cudaGraphInstantiate(&ge, g, 0);
    for (int k = 0; k < 3; k++) cudaGraphLaunch(ge, s);
    cudaStreamSynchronize(s);
    float hd[n], he[n];
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(he, e, sizeof he, cudaMemcpyDeviceToHost);
    // ((0 + 1) * 3 + 1) * 3 + 1) * 3 = 39; e: 3 * 2 = 6.
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hd[i] != 39.0f || he[i] != 6.0f;
    printf("capture: status %d, %s, %zu nodes, d[0] %g before launch, after 3 launches d[0]=%g e[0]=%g, %d wrong\n",
           (int)st, cudaGetErrorString(ended), count, before, hd[0], he[0], bad);

    // Built node by node: memset d to 2.0f, add 0.5, copy d to e, note.
    cudaGraph_t h, child;
    cudaGraphCreate(&h, 0);
    cudaGraphCreate(&child, 0);
    cudaGraphNode_t set, kern, cpy, host, sub;
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 0x40000000;  // 2.0f
    mp.elementSize = 4;
    mp.width = n;
    mp.height = 1;
    cudaGraphAddMemsetNode(&set, h, nullptr, 0, &mp);
    float half = 0.5f;
    int nn = n;
    void* args[] = {&d, &half, &nn};
    cudaKernelNodeParams kp = {};
    kp.func = (void*)add;
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&kern, h, &set, 1, &kp);
    half = 100.0f;  // read when the node was added, not now
    cudaGraphAddMemcpyNode1D(&cpy, h, &kern, 1, e, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
    int notes = 0;
    cudaHostNodeParams hp = {note, &notes};
    cudaGraphAddHostNode(&host, child, nullptr, 0, &hp);
    cudaGraphAddChildGraphNode(&sub, h, &cpy, 1, child);
    cudaGraphExec_t he2;
    cudaGraphInstantiate(&he2, h, 0);
    cudaGraphLaunch(he2, s);
    cudaGraphLaunch(he2, s);
    cudaStreamSynchronize(s);
    cudaMemcpy(he, e, sizeof he, cudaMemcpyDeviceToHost);
    bad = 0;
    for (int i = 0; i < n; i++) bad += he[i] != 2.5f;
    cudaError_t wrong = cudaGraphAddEmptyNode(&sub, h, &set, 1) == cudaSuccess
                            ? cudaGraphAddEmptyNode(&sub, child, &set, 1)
                            : cudaErrorUnknown;
    printf("nodes: e[0]=%g e[999]=%g, %d wrong, host function ran %d times, a foreign dependency: %s\n",
           he[0], he[n - 1], bad, notes, cudaGetErrorName(wrong));
    cudaError_t sync = cudaSuccess;
    cudaStreamBeginCapture(t, cudaStreamCaptureModeRelaxed);
    sync = cudaStreamSynchronize(t);
    cudaGraph_t unused;
    cudaStreamEndCapture(t, &unused);
    printf("synchronising a capturing stream: %s\n", cudaGetErrorName(sync));
    cudaGraphExecDestroy(ge);
    cudaGraphExecDestroy(he2);
    cudaGraphDestroy(g);
    cudaGraphDestroy(h);
    cudaGraphDestroy(child);
    cudaGraphDestroy(unused);
    return bad != 0;
}
