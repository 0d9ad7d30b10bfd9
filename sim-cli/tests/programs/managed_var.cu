// A __managed__ variable: initialised in PTX, updated by the host, then
// by a kernel, read by the host.
#include <cstdio>
__managed__ int total = 5;
__global__ void add(int v) { atomicAdd(&total, v); }
int main() {
  total += 10;
  add<<<1, 32>>>(2);
  cudaDeviceSynchronize();
  printf("total=%d\n", total);
  return 0;
}
