// Device-function calls as nvcc 13.0.88 emits them
// (nvcc -ptx -arch=sm_90 -O3 calls.cu -o calls.ptx).
__device__ __noinline__ int mad2(int a, int b) { return a * 3 + b; }

__device__ __noinline__ float scale(float x, long long k) { return x * (float)k + 0.5f; }

// Recursion that is no tail call (each level loads through the inner
// result), so NVVM keeps the calls: walk(t, n) is n levels deep.
__device__ __noinline__ int walk(const int *t, int n) {
  if (n <= 0) return 1;
  int a = walk(t, n - 1);
  return t[a & 7] + a;
}

extern "C" __global__ void calls(int *out, float *fout, const int *in) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[i];
  if (i & 1) v = mad2(v, i);           // divergent call
  out[3 * i] = mad2(v, 7);             // uniform call
  out[3 * i + 1] = walk(in, i % 8);    // recursion, lane-dependent depth
  out[3 * i + 2] = (i % 3 == 0) ? walk(in, 5) : -1;
  fout[i] = scale((float)v, (long long)i - 10);
}

// Recursion as deep as n + threadIdx.x: past simcli's inlining depth the
// launch stops with an error naming the call.
extern "C" __global__ void deep(int *out, const int *in, int n) {
  out[threadIdx.x] = walk(in, n + (int)threadIdx.x);
}
