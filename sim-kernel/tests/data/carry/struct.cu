// A 24-byte structure passed to and returned from a __noinline__ function by
// value (nvcc 13.0.88 -O3 -arch=sm_90 -ptx): `.v2.b32` words, an f64 and a
// b16 at offset 16, which sim-module/src/inline_param.rs holds in 8-byte parts.
struct S { int a; int b; double c; short d; };
__device__ __noinline__ S f(S s, int k) { S r; r.a = s.b + k; r.b = s.a - k; r.c = s.c * 2.0; r.d = (short)(s.d + 1); return r; }
__global__ void agg(const int* in, int* out) {
    int i = threadIdx.x;
    S s; s.a = in[i]; s.b = in[i] * 3; s.c = (double)in[i] + 0.5; s.d = (short)(i - 3);
    S r = f(s, i);
    out[4 * i] = r.a; out[4 * i + 1] = r.b; out[4 * i + 2] = (int)(r.c * 4.0); out[4 * i + 3] = r.d;
}
