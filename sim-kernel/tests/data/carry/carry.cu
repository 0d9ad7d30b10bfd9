// Issue 23's extended-precision forms in real programs (nvcc 13.0.88
// -O3 -arch=sm_90 -ptx): double `sin`, whose large-argument reduction
// (libdevice's __internal_trig_reduction_slowpathd) chains mad.lo.cc /
// madc.hi.cc, and unsigned __int128 arithmetic (add.cc / addc, mad chains).
__global__ void sin_f64(const double* in, double* out) {
    out[threadIdx.x] = sin(in[threadIdx.x]);
}

// Per thread i: the 128-bit a*b + c and a*b - c of the words in[3i..3i+2],
// stored as four 64-bit halves.
__global__ void u128_ops(const unsigned long long* in, unsigned long long* out) {
    unsigned i = threadIdx.x;
    unsigned __int128 a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
    unsigned __int128 s = a * b + c;
    unsigned __int128 d = a * b - (c << 64 | c);
    out[4 * i] = (unsigned long long)s;
    out[4 * i + 1] = (unsigned long long)(s >> 64);
    out[4 * i + 2] = (unsigned long long)d;
    out[4 * i + 3] = (unsigned long long)(d >> 64);
}
