// cudaLaunchKernelEx with launch attributes (cooperative, so the grid can
// sync; a priority hint, which changes nothing), and an instantiated graph
// changed in place: a kernel node's arguments and a memset's value set in
// the executable graph and relaunched, the graph's own node left as it
// was, the whole executable graph updated from a graph of the same shape,
// and an update from a graph of another shape refused.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each thread writes, the grid syncs, each reads its mirror's element.
__global__ void mirror(int* buf, int* out, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) buf[i] = 5 * i + 2;
    g.sync();
    if (i < n) out[i] = buf[n - 1 - i] + i;
}

__global__ void lin(int* y, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] * a + b * i;
}

// Elements of y that are not v * a + b * i.
static int wrong(const int* y, int n, int v, int a, int b) {
    static int h[4096];
    cudaMemcpy(h, y, 4 * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != v * a + b * i;
    return bad;
}

static int at(const int* y, int i) {
    int v = 0;
    cudaMemcpy(&v, y + i, 4, cudaMemcpyDeviceToHost);
    return v;
}

// A memset of y to v (4-byte elements), then lin(y, a, b), then a record
// of `done`, each after the one before; the nodes' handles in `nodes`.
static cudaGraph_t build(int* y, int n, int v, int a, int b, cudaEvent_t done,
                         cudaGraphNode_t* nodes, bool record) {
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaMemsetParams mp = {};
    mp.dst = y;
    mp.value = v;
    mp.elementSize = 4;
    mp.width = n;
    mp.height = 1;
    cudaGraphAddMemsetNode(&nodes[0], g, nullptr, 0, &mp);
    void* args[] = {&y, &a, &b, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void*)lin;
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&nodes[1], g, &nodes[0], 1, &kp);
    if (record) cudaGraphAddEventRecordNode(&nodes[2], g, &nodes[1], 1, done);
    return g;
}

int main() {
    const int blocks = 4, threads = 128, n = blocks * threads - 3;
    int *buf, *out, *y;
    cudaMalloc(&buf, 4 * n);
    cudaMalloc(&out, 4 * n);
    cudaMalloc(&y, 4 * n);

    // Cooperative through the attribute: the grid syncs.
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributeCooperative;
    attrs[0].val.cooperative = 1;
    attrs[1].id = cudaLaunchAttributePriority;
    attrs[1].val.priority = 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.attrs = attrs;
    cfg.numAttrs = 2;
    cudaError_t e = cudaLaunchKernelEx(&cfg, mirror, buf, out, n);
    cudaError_t s = cudaDeviceSynchronize();
    static int h[4096];
    cudaMemcpy(h, out, 4 * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 5 * (n - 1 - i) + 2 + i;
    printf("cudaLaunchKernelEx, cooperative: %d wrong, out[0] %d, out[%d] %d; %s, %s\n", bad,
           h[0], n - 1, h[n - 1], cudaGetErrorName(e), cudaGetErrorName(s));

    // More blocks than the GPU holds at once: refused, as a cooperative launch.
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mirror, threads, 0);
    cfg.gridDim = dim3(per_sm * sms + 1);
    e = cudaLaunchKernelEx(&cfg, mirror, buf, out, n);
    printf("one block more than resident: %s\n", cudaGetErrorName(e));

    // No cooperative attribute: an ordinary launch, with the hint alone.
    cfg.gridDim = dim3(blocks);
    cfg.attrs = attrs + 1;
    cfg.numAttrs = 1;
    cudaMemset(y, 0, 4 * n);
    e = cudaLaunchKernelEx(&cfg, lin, y, 7, 1, n);
    printf("cudaLaunchKernelEx, a hint: %s, %d wrong, y[100] %d\n", cudaGetErrorName(e),
           wrong(y, n, 0, 7, 1), at(y, 100));

    // A graph: memset y to 3, then y = 2 y + i.
    cudaStream_t st;
    cudaStreamCreate(&st);
    cudaEvent_t done;
    cudaEventCreate(&done);
    cudaGraphNode_t nodes[3];
    cudaGraph_t g = build(y, n, 3, 2, 1, done, nodes, true);
    cudaGraphExec_t ge;
    cudaGraphInstantiate(&ge, g, 0);
    e = cudaGraphLaunch(ge, st);
    s = cudaStreamSynchronize(st);
    printf("graph: %s, %s, event %s; %d wrong, y[10] %d\n", cudaGetErrorName(e),
           cudaGetErrorName(s), cudaGetErrorName(cudaEventQuery(done)), wrong(y, n, 3, 2, 1),
           at(y, 10));

    // The executable graph's nodes changed: memset to 5, then y = 3 y - 2 i.
    int a = 3, b = -2;
    void* args[] = {&y, &a, &b, (void*)&n};
    cudaKernelNodeParams kp = {};
    kp.func = (void*)lin;
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaMemsetParams mp = {};
    mp.dst = y;
    mp.value = 5;
    mp.elementSize = 4;
    mp.width = n;
    mp.height = 1;
    cudaError_t ek = cudaGraphExecKernelNodeSetParams(ge, nodes[1], &kp);
    cudaError_t em = cudaGraphExecMemsetNodeSetParams(ge, nodes[0], &mp);
    a = 100;  // read when set, not when the graph runs
    cudaGraphLaunch(ge, st);
    cudaStreamSynchronize(st);
    printf("executable graph's nodes set: %s, %s; %d wrong, y[10] %d\n", cudaGetErrorName(ek),
           cudaGetErrorName(em), wrong(y, n, 5, 3, -2), at(y, 10));

    // A 1D memset may not become 2D.
    mp.height = 2;
    mp.pitch = 4 * n;
    printf("memset made 2D: %s\n",
           cudaGetErrorName(cudaGraphExecMemsetNodeSetParams(ge, nodes[0], &mp)));

    // The graph's own kernel node is as it was built.
    cudaKernelNodeParams got = {};
    e = cudaGraphKernelNodeGetParams(nodes[1], &got);
    printf("graph's kernel node: %s, a %d, b %d, %u blocks of %u\n", cudaGetErrorName(e),
           *(int*)got.kernelParams[1], *(int*)got.kernelParams[2], got.gridDim.x,
           got.blockDim.x);

    // Updated from a graph of the same shape: memset to 1, y = 4 y + 3 i.
    cudaGraphNode_t other[3];
    cudaGraph_t g2 = build(y, n, 1, 4, 3, done, other, true);
    cudaGraphExecUpdateResultInfo info = {};
    e = cudaGraphExecUpdate(ge, g2, &info);
    cudaGraphLaunch(ge, st);
    cudaStreamSynchronize(st);
    printf("cudaGraphExecUpdate: %s, result %d; %d wrong, y[10] %d\n", cudaGetErrorName(e),
           (int)info.result, wrong(y, n, 1, 4, 3), at(y, 10));

    // A graph without the event node: another topology, refused; the
    // executable graph runs as before.
    cudaGraph_t g3 = build(y, n, 9, 9, 9, done, other, false);
    e = cudaGraphExecUpdate(ge, g3, &info);
    cudaGraphLaunch(ge, st);
    cudaStreamSynchronize(st);
    printf("another shape: %s, result %d; %d wrong, y[10] %d\n", cudaGetErrorName(e),
           (int)info.result, wrong(y, n, 1, 4, 3), at(y, 10));
    cudaGetLastError();
    printf("end: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
