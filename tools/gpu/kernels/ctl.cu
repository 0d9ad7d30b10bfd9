// Control flow as CUDA code writes it: nested data-dependent branches, loops
// whose trip count differs per lane with break and continue, early returns,
// a switch, and unsigned char/short/double stores.
extern "C" __global__ void control(const int* in, int* out, unsigned char* bytes, short* halves, double* dbl, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int acc = 0;
  for (int k = 0; k < (v & 63); k++) {
    if ((k ^ v) & 4) continue;
    acc += k * (v >> 8);
    if (acc > (v >> 4)) break;
    if (k & 8) { acc ^= 0x55; } else if (k & 16) { acc -= 3; }
  }
  switch ((v >> 12) & 7) {
    case 0: acc += 11; break;
    case 1: acc *= 3; break;
    case 2: acc -= v; break;
    case 3: acc ^= v; break;
    case 4: acc = acc / ((v & 7) + 1); break;
    case 5: acc = acc % ((v & 15) + 1); break;
    default: acc = ~acc;
  }
  if ((v & 0x300) == 0x300) return;
  int j = 0;
  while (j < ((v >> 16) & 15)) { acc = acc * 5 + j; j += 1 + (acc & 1); }
  out[i] = acc;
  bytes[i] = (unsigned char)(acc ^ v);
  halves[i] = (short)(acc >> 3);
  dbl[i] = (double)acc * 0.5 + (double)v;
}
