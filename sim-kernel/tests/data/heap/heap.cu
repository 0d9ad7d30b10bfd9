// Device malloc/free (sim-kernel/src/heap.rs). Compiled by nvcc 13.0.88:
//   nvcc -ptx -arch=sm_90 -O3 heap.cu -o heap.ptx

// Each thread allocates 4 * (1 + t % 5) ints, fills them with t * 16 + i,
// and keeps the pointer in `ptrs[t]`; after a barrier it sums the block of
// the next thread of its block (another thread's memory), writes the sum
// to `sums[t]`, and after a second barrier frees its own block and
// allocates one of the same size again, which must not be NULL, and
// writes `again[t] = 1` if so, after checking it reads what it writes.
// Thread 0 of each block also calls free(NULL), which does nothing.
__global__ void alloc_rw(int **ptrs, int *sums, int *again) {
  __shared__ int *mine[256];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = 4 * (1 + t % 5);
  int *p = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) p[i] = t * 16 + i;
  ptrs[t] = p;
  mine[threadIdx.x] = p;
  __syncthreads();
  int u = (threadIdx.x + 1) % blockDim.x;
  int un = 4 * (1 + (blockIdx.x * blockDim.x + u) % 5);
  int s = 0;
  for (int i = 0; i < un; ++i) s += mine[u][i];
  sums[t] = s;
  __syncthreads();
  free(p);
  if (threadIdx.x == 0) free(nullptr);
  int *q = (int *)malloc(n * sizeof(int));
  int ok = 0;
  if (q) {
    q[n - 1] = t;
    ok = q[n - 1] == t;
  }
  again[t] = ok;
  ptrs[t] = q;
}

// A later kernel: each thread reads the block `alloc_rw` left it (its last
// word holds t), writes it to `seen[t]`, and frees it.
__global__ void read_free(int **ptrs, int *seen) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = 4 * (1 + t % 5);
  int *q = ptrs[t];
  seen[t] = q ? q[n - 1] : -1;
  free(q);
}

struct Pair {
  long long a, b;
};

// One thread, on a fresh 8 MiB heap: a 4 MiB block; 6 MiB more is NULL;
// 2 MiB more is not; 3 MiB more is NULL (9 MiB in all); after the 4 MiB
// block is freed a 3 MiB one fits (only where the 4 MiB block was: the
// rest is 2 MiB). C++ new/delete (nvcc calls malloc/free) of a struct and
// of an array. out: one word a step.
__global__ void exhaust(long long *out) {
  char *a = (char *)malloc(4 << 20);
  char *b = (char *)malloc(6 << 20);
  char *c = (char *)malloc(2 << 20);
  char *d = (char *)malloc(3 << 20);
  out[0] = a != nullptr;
  out[1] = b == nullptr;
  out[2] = c != nullptr;
  out[3] = d == nullptr;
  a[(4 << 20) - 1] = 7;
  c[0] = 9;
  free(a);
  char *e = (char *)malloc(3 << 20);
  out[4] = e != nullptr;
  out[5] = e != nullptr && e >= a && e + (3 << 20) <= a + (4 << 20);
  e[(3 << 20) - 1] = 5;
  out[6] = e[(3 << 20) - 1] + c[0];
  Pair *p = new Pair;
  p->a = 40;
  p->b = 2;
  int *arr = new int[100];
  arr[99] = 1000;
  out[7] = p->a + p->b + arr[99];
  delete p;
  delete[] arr;
  free(e);
  free(c);
  free(b);
  free(d);
}

// Frees an address malloc never gave: the launch stops with an error
// naming the thread and the call.
__global__ void bad_free(int *buf) {
  if (threadIdx.x == 3) free(buf + 1);
}

// One thread: `n` malloc/free pairs between two clock64 reads, the cycles
// in out[0] (what the timing model charges a call: docs/validation.md).
__global__ void churn(long long *out, int n) {
  long long t0 = clock64();
  long long keep = 0;
  for (int i = 0; i < n; ++i) {
    char *p = (char *)malloc(64);
    keep += (long long)p & 1;
    free(p);
  }
  long long t1 = clock64();
  out[0] = t1 - t0;
  out[1] = keep;
}
