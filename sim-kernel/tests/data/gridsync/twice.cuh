// The kernel of sim-kernel's tests/it/gridsync.rs and of sim-cli's
// tests/programs/gridsync.cu, one source for both: a grid that syncs twice
// through cooperative groups, so every thread reads what others wrote before
// each sync. Include it after <cooperative_groups.h> and
// `namespace cg = cooperative_groups;` (gridsync.cu here wraps it in
// extern "C" for its PTX entry's name).
__global__ void twice(int* buf, int* out, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) buf[i] = 3 * i + 1;
    g.sync();
    if (i < n) out[i] = buf[n - 1 - i];
    g.sync();
    if (i < n) buf[i] = out[(i + 7919) % n] - out[i];
}
