// The kernel of sim-kernel's tests/it/gridsync.rs (twice.cuh, which sim-cli's
// tests/programs/gridsync.cu includes too): a grid that syncs twice through
// cooperative groups. gridsync.ptx is nvcc 13.0.88's:
//   nvcc -arch=sm_90 -ptx -I$CCCL/include/cccl gridsync.cu
// (CCCL: the nvidia-cuda-cccl 13.0.85 wheel's nvidia/cu13 folder).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" {
#include "twice.cuh"
}
