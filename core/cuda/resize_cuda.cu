// core/cuda/resize_cuda.cu — the CUDA resize2d op pair (contract in core/ops_list.h): separable 2D
// resampling of channels-last grids with dense per-axis weight matrices (core/resize.c builds
// torch's bicubic ones). The CPU twin is core/cpu/resize_cpu.c; every pointer is a device
// pointer. Determinism: no atomics; one thread per output element, summing in the CPU's order
// with explicit round-to-nearest products and sums (__fmul_rn, __fadd_rn: no FMA contraction),
// so the GPU rounds exactly where the CPU does.
#include "ops_cuda_internal.cuh"

#define RESIZE_THREADS 256

// As core/cpu/resize_cpu.c: the weight of output row i for input row y is wy[i·wy_o + y·wy_i]
// (forward: wy (OH, H) row-major; backward: the transpose, the same matrix with swapped
// strides), likewise wx. Each output row/column only visits the input span between its first
// and last non-zero weight (4 taps for bicubic), which each thread finds by scanning its
// weight row (H + W reads; no workspace, so nothing is allocated per call). Output element
// (p, i, j, c) is one thread:
//   tmp_x = Σ_{y in span_i} wy[i, y]·in[p, y, x, c] (from 0, y increasing), then
//   out   = out0 + Σ_{x in span_j} wx[j, x]·tmp_x (x increasing, out0 = 0 or the old value),
// exactly the CPU's operations and order.

// [*lo, *hi) = first and last + 1 non-zero weight of output index o (empty if none)
static __device__ __forceinline__ void nonzero_span(int *lo, int *hi, const float *w, long so,
                                                    long si, int o, int n_in) {
    int a = 0, b = n_in;
    while (a < n_in && w[o * so + a * si] == 0.0f) a++;
    while (b > a && w[o * so + (b - 1) * si] == 0.0f) b--;
    *lo = a;
    *hi = b;
}

// out (P, OH, OW, C) (+)= in (P, H, W, C) resampled by (wy, wx)
static __global__ void resize_kernel(float *out, const float *in, const float *wy, long wy_o,
                                     long wy_i, const float *wx, long wx_o, long wx_i, int P,
                                     int H, int W, int OH, int OW, int C, int accumulate) {
    const size_t total = (size_t)P * OH * OW * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C), j = (int)((idx / C) % OW);
    const int i = (int)((idx / ((size_t)C * OW)) % OH);
    const size_t p = idx / ((size_t)C * OW * OH);
    const float *src = in + p * H * W * C + c; // (H, W) plane of channel c, stride C
    int y_lo, y_hi, x_lo, x_hi;
    nonzero_span(&y_lo, &y_hi, wy, wy_o, wy_i, i, H);
    nonzero_span(&x_lo, &x_hi, wx, wx_o, wx_i, j, W);
    float acc = accumulate ? out[idx] : 0.0f;
    for (int x = x_lo; x < x_hi; x++) {
        float tmp = 0.0f;
        for (int y = y_lo; y < y_hi; y++)
            tmp = __fadd_rn(tmp, __fmul_rn(wy[i * wy_o + y * wy_i], src[((size_t)y * W + x) * C]));
        acc = __fadd_rn(acc, __fmul_rn(wx[j * wx_o + x * wx_i], tmp));
    }
    out[idx] = acc;
}

static void resize_run(float *out, const float *in, const float *wy, long wy_o, long wy_i,
                       const float *wx, long wx_o, long wx_i, int P, int H, int W, int OH, int OW,
                       int C, int accumulate) {
    if (P < 1 || H < 1 || W < 1 || OH < 1 || OW < 1 || C < 1)
        die_fail("resize2d: empty shape (P %d, %d x %d -> %d x %d, C %d)", P, H, W, OH, OW, C);
    const size_t total = (size_t)P * OH * OW * C;
    resize_kernel<<<cuda_blocks(total, RESIZE_THREADS), RESIZE_THREADS, 0, cuda_stream()>>>(
        out, in, wy, wy_o, wy_i, wx, wx_o, wx_i, P, H, W, OH, OW, C, accumulate);
    CUDA_LAUNCH_CHECK();
}

void cuda_resize2d_forward(float *out, const float *in, const float *wy, const float *wx, int P,
                           int H, int W, int OH, int OW, int C) {
    // wy (OH, H), wx (OW, W) read row-major
    resize_run(out, in, wy, H, 1, wx, W, 1, P, H, W, OH, OW, C, 0);
}

void cuda_resize2d_backward(float *din, const float *dout, const float *wy, const float *wx,
                            int P, int H, int W, int OH, int OW, int C) {
    // din (P, H, W, C) += resampling of dout (P, OH, OW, C) by wyᵀ (H, OH), wxᵀ (W, OW)
    resize_run(din, dout, wy, 1, H, wx, 1, W, P, OH, OW, H, W, C, 1);
}
