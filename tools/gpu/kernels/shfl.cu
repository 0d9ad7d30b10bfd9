// Segmented shuffles (width 4, 8, 16: the c operand's segment mask), every
// mode, with their in-range predicates; votes and activemask in divergent code.
extern "C" __global__ void shfl_seg(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int k = 0;
  out[32 * i + k++] = __shfl_up_sync(0xffffffffu, v, 1, 4);
  out[32 * i + k++] = __shfl_up_sync(0xffffffffu, v, 3, 8);
  out[32 * i + k++] = __shfl_down_sync(0xffffffffu, v, 2, 8);
  out[32 * i + k++] = __shfl_down_sync(0xffffffffu, v, 5, 16);
  out[32 * i + k++] = __shfl_xor_sync(0xffffffffu, v, 3, 4);
  out[32 * i + k++] = __shfl_xor_sync(0xffffffffu, v, 9, 16);
  out[32 * i + k++] = __shfl_sync(0xffffffffu, v, v & 31, 8);
  out[32 * i + k++] = __shfl_sync(0xffffffffu, v, (v >> 5) & 31, 16);
  out[32 * i + k++] = __shfl_sync(0xffffffffu, v, 37, 32);
  int p; unsigned r;
  asm("{ .reg .pred q; shfl.sync.up.b32 %0|q, %2, 2, 0x1800, -1; selp.b32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "r"(v));
  out[32 * i + k++] = r; out[32 * i + k++] = p;
  asm("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, 3, 0x181f, -1; selp.b32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "r"(v));
  out[32 * i + k++] = r; out[32 * i + k++] = p;
  asm("{ .reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, 0x1007, -1; selp.b32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "r"(v), "r"(v & 31));
  out[32 * i + k++] = r; out[32 * i + k++] = p;
  if (v & 1) {
    unsigned m = __activemask();
    out[32 * i + k] = m;
    int u;
    asm("{ .reg .pred q, t; setp.ne.s32 t, %2, 0; vote.sync.uni.pred q, t, %1; selp.s32 %0, 1, 0, q; }" : "=r"(u) : "r"(m), "r"(v & 2));
    out[32 * i + k + 1] = u;
    out[32 * i + k + 2] = __ballot_sync(m, v & 4);
    out[32 * i + k + 3] = __all_sync(m, v & 8) + 2 * __any_sync(m, v & 8);
  } else {
    unsigned m = __activemask();
    out[32 * i + k] = ~m;
  }
}
