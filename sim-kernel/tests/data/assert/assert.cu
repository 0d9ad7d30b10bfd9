// Device assert as nvcc 13.0.88 compiles it (nvcc -ptx -arch=sm_90 -O3
// assert.cu -o assert.ptx): a failed condition calls __assertfail with the
// condition's text, the file, the line and the function.
#include <cassert>

extern "C" __global__ void check(const int *v, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(v[i] >= 0);
        out[i] = 2 * v[i];
    }
}
