// Thrust and CUB as a researcher's program calls them: thrust::sort,
// reduce, transform and inclusive_scan over device vectors, and
// cub::DeviceRadixSort::SortPairs with its two-call temporary storage.
// Integers throughout, so every result is exact whatever the order of the
// reductions; each is checked on the host. nvcc 13's thrust::transform
// issues `prefetch.global.L2` (CUB's transform kernel).
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <cub/cub.cuh>

struct sq {
  __host__ __device__ unsigned operator()(unsigned x) const { return x * x; }
};

int main() {
  const int n = 4000;
  thrust::host_vector<unsigned> h(n);
  unsigned s = 12345;
  for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; h[i] = s >> 8; }
  thrust::device_vector<unsigned> d = h;
  thrust::sort(d.begin(), d.end());
  thrust::host_vector<unsigned> r = d;
  int bad = 0;
  for (int i = 1; i < n; i++) bad += r[i - 1] > r[i];
  printf("thrust::sort bad=%d first=%u last=%u\n", bad, r[0], r[n - 1]);

  thrust::device_vector<unsigned> f(n);
  thrust::sequence(f.begin(), f.end(), 0u, 3u);
  unsigned sum = thrust::reduce(f.begin(), f.end(), 0u);
  printf("thrust::reduce %u (want %u)\n", sum, 3u * (n - 1) * n / 2);

  thrust::device_vector<unsigned> g(n);
  thrust::transform(f.begin(), f.end(), g.begin(), sq());
  thrust::inclusive_scan(g.begin(), g.end(), g.begin());
  unsigned last = g[n - 1], mid = g[n / 2], ref = 0, ref_mid = 0;
  for (int i = 0; i < n; i++) {
    ref += (3u * i) * (3u * i);
    if (i == n / 2) ref_mid = ref;
  }
  printf("transform+scan last %u (want %u) middle %u (want %u)\n", last, ref, mid, ref_mid);

  unsigned *k_in, *k_out;
  int *v_in, *v_out;
  cudaMalloc(&k_in, n * 4); cudaMalloc(&k_out, n * 4);
  cudaMalloc(&v_in, n * 4); cudaMalloc(&v_out, n * 4);
  thrust::host_vector<int> hv(n);
  for (int i = 0; i < n; i++) hv[i] = i;
  cudaMemcpy(k_in, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(v_in, hv.data(), n * 4, cudaMemcpyHostToDevice);
  void* tmp = nullptr;
  size_t tb = 0;
  cub::DeviceRadixSort::SortPairs(tmp, tb, k_in, k_out, v_in, v_out, n);
  cudaMalloc(&tmp, tb);
  cub::DeviceRadixSort::SortPairs(tmp, tb, k_in, k_out, v_in, v_out, n);
  cudaError_t e = cudaDeviceSynchronize();
  thrust::host_vector<unsigned> ko(n);
  thrust::host_vector<int> vo(n);
  cudaMemcpy(ko.data(), k_out, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(vo.data(), v_out, n * 4, cudaMemcpyDeviceToHost);
  bad = 0;
  for (int i = 0; i < n; i++) {
    if (i && ko[i - 1] > ko[i]) bad++;
    if (h[vo[i]] != ko[i]) bad++;
  }
  printf("cub radix pairs bad=%d first=%u err=%s\n", bad, ko[0], cudaGetErrorString(e));
  cudaFree(tmp); cudaFree(k_in); cudaFree(k_out); cudaFree(v_in); cudaFree(v_out);
  return 0;
}
