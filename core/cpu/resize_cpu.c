// core/cpu/resize_cpu.c — the CPU resize2d op pair (contract in core/ops_list.h): separable 2D resampling
// of channels-last grids with dense per-axis weight matrices. CUDA twin: core/cuda/resize_cuda.cu;
// the weights come from core/resize.c.
// One kernel does both directions: the forward pass resamples with (wy, wx), the backward
// pass with their transposes (the same matrices read with swapped strides) and accumulates.
// Sparsity: each output row/column only visits the input span between its first and last
// non-zero weight (4 taps for bicubic), found once per call; weights are any values. For
// finite inputs this equals the dense sum; a NaN/Inf outside the span does not propagate.
// Work split: one output row (p, i) is one unit of work, computed start to finish by one
// thread in a fixed order, so results never depend on the thread count. For a row, the y
// pass forms tmp[x][c] = Σ_y wy[i, y] · in[p, y, x, c] (y increasing) in a stack tile, then
// the x pass adds wx[j, x] · tmp[x][c] into out[p, i, j, c] for x increasing. Wide rows are
// cut into tiles of at most RESIZE_TILE floats (channel blocks, then column blocks); as the
// x pass accumulates into out in increasing x anyway, tiling changes no result.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <string.h>

#define RESIZE_TILE 4096     // floats of the per-thread intermediate (16 KiB of stack)
#define RESIZE_MAX_SIDE 4096 // longest grid side (span tables live on the stack: <= 64 KiB)

// span[2o], span[2o+1] = first and one-past-last index k with w[o·so + k·si] != 0
// (0, 0 for an all-zero row).
static void nonzero_spans(int *span, const float *w, long so, long si, int n_out, int n_in) {
    for (int o = 0; o < n_out; o++) {
        int lo = 0, hi = n_in;
        while (lo < n_in && w[o * so + lo * si] == 0.0f) lo++;
        while (hi > lo && w[o * so + (hi - 1) * si] == 0.0f) hi--;
        span[2 * o] = lo, span[2 * o + 1] = hi;
    }
}

// out (P, OH, OW, C) (+)= resampled in (P, H, W, C); the weight of output row i for input
// row y is wy[i·wy_o + y·wy_i], of output column j for input column x is wx[j·wx_o + x·wx_i].
static void resample(float *out, const float *in, const float *wy, long wy_o, long wy_i,
                     const float *wx, long wx_o, long wx_i, int P, int H, int W, int OH, int OW,
                     int C, int accumulate) {
    if (H > RESIZE_MAX_SIDE || W > RESIZE_MAX_SIDE || OH > RESIZE_MAX_SIDE || OW > RESIZE_MAX_SIDE)
        die_fail("resize2d: grid %d x %d -> %d x %d has a side over %d", H, W, OH, OW, RESIZE_MAX_SIDE);
    if (P < 1 || H < 1 || W < 1 || OH < 1 || OW < 1 || C < 1)
        die_fail("resize2d: empty shape (P %d, %d x %d -> %d x %d, C %d)", P, H, W, OH, OW, C);
    int yspan[2 * OH], xspan[2 * OW]; // (OH, 2), (OW, 2): [first, last + 1) non-zero input
    nonzero_spans(yspan, wy, wy_o, wy_i, OH, H);
    nonzero_spans(xspan, wx, wx_o, wx_i, OW, W);
    const int cw = C < RESIZE_TILE ? C : RESIZE_TILE;           // channels per tile
    const int xw = RESIZE_TILE / cw < W ? RESIZE_TILE / cw : W; // columns per tile (1 if cw < C)
    const long rows = (long)P * OH;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < rows; r++) {
        const int p = (int)(r / OH), i = (int)(r % OH);
        float tmp[RESIZE_TILE]; // (nx, nc) tile of the y-resampled row
        float *orow = out + (size_t)r * OW * C; // (OW, C)
        if (!accumulate) memset(orow, 0, (size_t)OW * C * sizeof(float));
        for (int c0 = 0; c0 < C; c0 += cw) {
            const int nc = C - c0 < cw ? C - c0 : cw;
            for (int x0 = 0; x0 < W; x0 += xw) {
                const int nx = W - x0 < xw ? W - x0 : xw;
                // y pass: tmp (nx, nc) = Σ_y wy[i, y] · in[p, y, x0.., c0..]; the source block
                // is contiguous (nc == C, or nx == 1 when channels are split)
                const size_t len = (size_t)nx * nc;
                memset(tmp, 0, len * sizeof(float));
                for (int y = yspan[2 * i]; y < yspan[2 * i + 1]; y++) {
                    const float wgt = wy[i * wy_o + y * wy_i];
                    const float *src = in + (((size_t)p * H + y) * W + x0) * C + c0;
                    for (size_t k = 0; k < len; k++) tmp[k] += wgt * src[k];
                }
                // x pass: out[p, i, j, c0..] += Σ_x wx[j, x] · tmp[x - x0, ..], x increasing
                for (int j = 0; j < OW; j++) {
                    const int lo = xspan[2 * j] > x0 ? xspan[2 * j] : x0;
                    const int hi = xspan[2 * j + 1] < x0 + nx ? xspan[2 * j + 1] : x0 + nx;
                    float *dst = orow + (size_t)j * C + c0;
                    if (nc == 1) { // images (C = 1): a short dot product, same order
                        float acc = dst[0];
                        for (int x = lo; x < hi; x++) acc += wx[j * wx_o + x * wx_i] * tmp[x - x0];
                        dst[0] = acc;
                        continue;
                    }
                    for (int x = lo; x < hi; x++) {
                        const float wgt = wx[j * wx_o + x * wx_i];
                        const float *t = tmp + (size_t)(x - x0) * nc;
                        for (int c = 0; c < nc; c++) dst[c] += wgt * t[c];
                    }
                }
            }
        }
    }
}

void cpu_resize2d_forward(float *out, const float *in, const float *wy, const float *wx, int P,
                          int H, int W, int OH, int OW, int C) {
    // wy (OH, H), wx (OW, W) read row-major
    resample(out, in, wy, H, 1, wx, W, 1, P, H, W, OH, OW, C, 0);
}

void cpu_resize2d_backward(float *din, const float *dout, const float *wy, const float *wx, int P,
                           int H, int W, int OH, int OW, int C) {
    // din (P, H, W, C) += resampling of dout (P, OH, OW, C) by wyᵀ (H, OH), wxᵀ (W, OW)
    resample(din, dout, wy, 1, H, wx, 1, W, P, OH, OW, H, W, C, 1);
}
