// The kernel of sim-kernel's tests/it/gridsync.rs (as sim-cli's
// tests/programs/gridsync.cu has it; each file is compiled alone, so the
// kernel stays in both, issue 27): a grid that syncs twice through
// cooperative groups. gridsync.ptx is nvcc 13.0.88's:
//   nvcc -arch=sm_90 -ptx -I$CCCL/include/cccl gridsync.cu
// (CCCL: the nvidia-cuda-cccl 13.0.85 wheel's nvidia/cu13 folder).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void twice(int* buf, int* out, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) buf[i] = 3 * i + 1;
    g.sync();
    if (i < n) out[i] = buf[n - 1 - i];
    g.sync();
    if (i < n) buf[i] = out[(i + 7919) % n] - out[i];
}
