// Shared-memory float atomics and 64-bit integer atomics on boundary values;
// every thread owns its slots, so the result does not depend on thread order.
extern "C" __global__ void atom_more(const float* fa, const float* fb, float* fo,
                                     unsigned long long* u, const unsigned long long* ub,
                                     long long* s, const long long* sb, int n) {
  __shared__ float sh[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sh[t] = fa[i];
  __syncthreads();
  float old = atomicAdd(&sh[t], fb[i]);
  __syncthreads();
  fo[2 * i] = sh[t];
  fo[2 * i + 1] = old;
  atomicMin(&s[4 * i], sb[i]);
  atomicMax(&s[4 * i + 1], sb[i]);
  atomicAdd(&u[4 * i], ub[i]);
  atomicMin(&u[4 * i + 1], ub[i]);
  atomicMax(&u[4 * i + 2], ub[i]);
  atomicExch(&u[4 * i + 3], ub[i]);
  atomicCAS(&u[4 * i], ub[i] & 1, ub[i]);
  atomicAnd(&u[4 * i + 1], ub[i] | 0xff00ff00ff00ff00ull);
  atomicOr(&s[4 * i + 2], sb[i]);
  atomicXor(&s[4 * i + 3], sb[i]);
}
