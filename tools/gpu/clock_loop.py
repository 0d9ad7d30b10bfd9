"""The end of a clocked microbenchmark loop in PTX, shared by the kernels of
tools/gpu/ubench/gen.py and tools/gpu/make_mixed.py (the H100 set's shape:
sim-core/data/calibration/h100/README.md)."""


def loop_tail(iters, tid, warp, t0, t1, out_bytes):
    """PTX lines (each ended by a newline) after a loop body: the counter `%cnt` stepped
    and the branch back to `LOOP` until `iters`, the clock read into t1, the warp's clock
    pair (t0, t1) stored at pclk + 16 * warp (warp = tid / 32, into the register `warp`),
    and %rb left at pout + out_bytes * tid for the caller's stores. %ra, %rb and %pl are
    scratch."""
    return f"""  add.u32 %cnt, %cnt, 1;
  setp.lt.u32 %pl, %cnt, {iters};
  @%pl bra LOOP;
  mov.u64 {t1}, %clock64;
  ld.param.u64 %rb, [pclk];
  cvta.to.global.u64 %rb, %rb;
  shr.u32 {warp}, {tid}, 5;
  mul.wide.u32 %ra, {warp}, 16;
  add.u64 %rb, %rb, %ra;
  st.global.u64 [%rb], {t0};
  st.global.u64 [%rb+8], {t1};
  ld.param.u64 %rb, [pout];
  cvta.to.global.u64 %rb, %rb;
  mul.wide.u32 %ra, {tid}, {out_bytes};
  add.u64 %rb, %rb, %ra;
"""
