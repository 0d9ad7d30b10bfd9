// First-touch latency probes (tools/gpu/memprobe/run.py): one thread chases
// a chain of `hops` dependent 4-byte loads through a freshly copied buffer;
// the chain's order is the pattern under test. clk[0] = cycles for the
// whole chain, measured with %clock64 around it.
extern "C" __global__ void chase(const unsigned* buf, long long* clk, int hops, unsigned* sink) {
  unsigned p = 0;
  long long t0 = clock64();
  for (int k = 0; k < hops; k++) p = buf[p];
  // The store depends on the last load: the second clock read waits for it.
  sink[0] = p;
  __threadfence_block();
  long long t1 = clock64();
  clk[0] = t1 - t0;
  clk[1] = p;
}
