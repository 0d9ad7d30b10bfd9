// 2D 5-point Jacobi step on a row-major nx x ny f32 grid: each interior
// point becomes 0.5 * itself + 0.125 * its four neighbours; the border is
// not written. Launch: block (32, 8), grid (nx / 32, ny / 8).
extern "C" __global__ void stencil5(const float *__restrict__ in, float *__restrict__ out, int nx, int ny)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
        const int c = y * nx + x;
        out[c] = 0.5f * in[c] + 0.125f * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]);
    }
}
