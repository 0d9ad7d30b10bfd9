// Indirect device-function calls as nvcc 13.0.88 emits them
// (nvcc -ptx -arch=sm_90 -O3 indirect.cu -o indirect.ptx): a table of
// __noinline__ functions chosen per thread through a function pointer
// (lanes of one warp call different targets), one pointer chosen by the
// block (every lane of a warp calls the same target), and a
// virtual-function-like pattern (a per-thread "object" whose table of two
// methods is selected by its kind).
typedef int (*op_t)(int, int);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b + 1; }
__device__ __noinline__ int op_xor(int a, int b) { return (a ^ b) * 5; }

// Two "classes", each with two "virtual methods".
typedef float (*area_t)(float);
typedef int (*sides_t)(int);
__device__ __noinline__ float sq_area(float s) { return s * s; }
__device__ __noinline__ float tri_area(float s) { return 0.25f * s * s; }
__device__ __noinline__ int sq_sides(int k) { return 4 * k; }
__device__ __noinline__ int tri_sides(int k) { return 3 * k + 1; }
struct vtable { area_t area; sides_t sides; };

__device__ op_t table[4] = {op_add, op_sub, op_mul, op_xor};
__device__ vtable vtables[2] = {{sq_area, sq_sides}, {tri_area, tri_sides}};

extern "C" __global__ void indirect(int *out, float *fout, const int *in) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[i];
  // Divergent: each lane its own target (i, i/3: neighbours differ).
  op_t f = table[(i + i / 3) & 3];
  int a = f(v, i);
  // Uniform within a block: one target for every lane.
  op_t g = table[blockIdx.x & 3];
  int b = g(a, 7);
  // Virtual-like: the object's kind picks its table.
  const vtable &vt = vtables[(v >> 2) & 1];
  out[2 * i] = b;
  out[2 * i + 1] = vt.sides(i);
  fout[i] = vt.area((float)(v % 17));
}

// Pointers made in registers (`mov.u64 %rd, f`), and one stored to
// memory and called from there by the neighbouring lane.
extern "C" __global__ void pick(int *out, const int *in, op_t *slot) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int v = in[i];
  op_t h = (v & 4) ? op_add : op_mul;
  out[2 * i] = h(v, i);
  slot[i] = (i & 1) ? op_sub : op_xor;
  __syncwarp();
  out[2 * i + 1] = slot[i ^ 1](v, 3);
}

// Calls through a pointer from the input: a value that is no function's
// address stops the launch, as the GPU faults.
extern "C" __global__ void wild(int *out, const long long *in) {
  op_t f = (op_t)in[threadIdx.x];
  out[threadIdx.x] = f(1, 2);
}
