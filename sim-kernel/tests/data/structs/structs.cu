// Structures passed and returned by value through functions nvcc keeps as
// calls (nvcc -ptx -arch=sm_90 -O3 structs.cu -o structs.ptx): the ABI's
// `.param .align N .b8 name[16]` arguments and results, which simcli holds
// in per-thread memory when it inlines the calls (sim_module::inline).
struct V3 {
    float x, y, z;
    int tag;
};

struct Acc {
    double s;
    int n;
    short lo, hi;
};

__device__ __noinline__ V3 cross(V3 a, V3 b)
{
    V3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, a.tag ^ b.tag};
    return r;
}

__device__ __noinline__ Acc add(Acc a, int v)
{
    a.s += v;
    a.n++;
    a.lo = min(a.lo, (short)v);
    a.hi = max(a.hi, (short)v);
    return a;
}

// A call returning a structure from inside a function returning one.
__device__ __noinline__ Acc fold(const int *in, int n)
{
    Acc a = {0.0, 0, 32767, -32768};
    for (int i = 0; i < n; i++)
        a = add(a, in[i]);
    return a;
}

extern "C" __global__ void structs(float *out, double *dout, int *iout, const int *in)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    V3 a = {(float)in[i], (float)in[(i + 1) % 128], (float)in[(i + 2) % 128], i};
    V3 b = {(float)in[(i + 3) % 128], 2.0f, (float)(i % 7), 3 * i};
    V3 c = cross(a, b);
    if (i & 1)
        c = cross(c, a); // divergent
    out[3 * i] = c.x;
    out[3 * i + 1] = c.y;
    out[3 * i + 2] = c.z;
    Acc s = fold(in + (i % 8), 1 + i % 5);
    dout[i] = s.s;
    iout[4 * i] = c.tag;
    iout[4 * i + 1] = s.n;
    iout[4 * i + 2] = s.lo;
    iout[4 * i + 3] = s.hi;
}
