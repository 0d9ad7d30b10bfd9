// Kernels of the device tests (sim-kernel/tests/it/device.rs).
// device.ptx: nvcc 13.0.88 -arch=sm_90 -ptx device.cu
__device__ int counter;
__device__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__constant__ float scale[4];

extern "C" __global__ void fill_idx(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * 3;
}

extern "C" __global__ void add_one(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] += 1;
    atomicAdd(&counter, 1);
  }
}

extern "C" __global__ void scale_table(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale[i % 4] * table[i % 4];
  if (i == 0) table[0] = 10.0f;
}

// Each block reverses its stretch of `a` through dynamic shared memory,
// with a static shared array beside it that must not alias it.
extern "C" __global__ void reverse_dyn(float *a) {
  extern __shared__ float s[];
  __shared__ int tag[3];
  int t = threadIdx.x, n = blockDim.x;
  float *blk = a + blockIdx.x * n;
  if (t < 3) tag[t] = 100 + t;
  s[t] = blk[t];
  __syncthreads();
  blk[t] = s[n - 1 - t] + (float)tag[t % 3];
}

extern "C" __global__ void out_of_bounds(int *a) { a[threadIdx.x + (1 << 24)] = 1; }

extern "C" __global__ void trapper(int *a) {
  if (threadIdx.x == 5) asm volatile("trap;");
  a[threadIdx.x] = 1;
}

struct Mix {
  int a;
  float b;
  double c;
};

__device__ __noinline__ double twice(double x) { return x * 2.0; }

extern "C" __global__ void params_mix(double *out, double x, char c, short s,
                                      unsigned char uc, Mix m) {
  out[0] = twice(x);
  out[1] = (double)c;
  out[2] = (double)s;
  out[3] = (double)uc;
  out[4] = (double)m.a;
  out[5] = (double)m.b;
  out[6] = m.c;
}
