// datasets/views_geometry.c — the spatial transforms of a view, each as torchvision 0.14 does it
// on a float tensor (functional_tensor.py) with PyTorch 1.13's CPU kernels: resized crop with
// bilinear interpolation (antialias=False), horizontal flip, Gaussian blur. Images are (C, H, W)
// floats; every output value is computed by one thread in a fixed order (no reductions across
// pixels), so results do not depend on threading.
#include "views.h"
#include "../core/common.h"
#include <math.h>
#include <stdlib.h>

// One axis of torch's upsample_bilinear2d (align_corners=False), compute_source_index_and_lambda:
// same size: i0 = i1 = o, l0 = 1, l1 = 0. Otherwise scale = (float)in/out (rounded to float),
// src = scale·(o + 0.5) - 0.5 in double, clamped to >= 0 (linear modes clamp; cubic does not),
// i0 = (int)src, i1 = i0 + (i0 < in - 1), l1 = (float)min(max(src - i0, 0), 1), l0 = 1 - l1.
// Measured against PyTorch 1.13's CPU kernel: these weights equal its bitwise for every pair of
// sizes in 1..39 (a float src instead differs by up to 1e-6: 28 -> 12 has src 3 - 1.2e-7, not 3).
static void linear_taps(int out, int in, int *i0, int *i1, float *l0, float *l1) {
    const double scale = (double)((float)in / (float)out);
    for (int o = 0; o < out; o++) {
        if (out == in) {
            i0[o] = i1[o] = o, l0[o] = 1.0f, l1[o] = 0.0f;
            continue;
        }
        double src = scale * ((double)o + 0.5) - 0.5;
        if (src < 0.0) src = 0.0;
        const int a = (int)src;
        i0[o] = a;
        i1[o] = a + (a < in - 1 ? 1 : 0);
        double lam = src - (double)a;
        lam = lam < 0.0 ? 0.0 : lam > 1.0 ? 1.0 : lam;
        l1[o] = (float)lam, l0[o] = 1.0f - (float)lam;
    }
}

void view_resized_crop(const float *src, int C, int H, int W, int top, int left, int h, int w, int S,
                       float *dst) {
    // torchvision F.resized_crop (tensor): crop(img, top, left, h, w) = img[..., top:top+h,
    // left:left+w], then resize(size=[S, S], BILINEAR, antialias=False) = F.interpolate(mode=
    // 'bilinear', align_corners=False). The 2-tap kernel (PyTorch 1.13 CPU, separable_upsample_
    // generic_Nd, Interpolate<2, .., 2>): out = (x[y0][x0]·wx0 + x[y0][x1]·wx1)·wy0 +
    // (x[y1][x0]·wx0 + x[y1][x1]·wx1)·wy1, all float.
    if (top < 0 || left < 0 || h < 1 || w < 1 || top + h > H || left + w > W || S < 1)
        die_fail("view_resized_crop: box (%d, %d, %d, %d) outside a %d x %d image or size %d", top, left, h, w,
                 H, W, S);
    int *iy0 = xmalloc((size_t)4 * S * sizeof(int), "view resize taps");
    float *ly0 = xmalloc((size_t)4 * S * sizeof(float), "view resize weights");
    int *iy1 = iy0 + S, *ix0 = iy0 + 2 * S, *ix1 = iy0 + 3 * S;
    float *ly1 = ly0 + S, *lx0 = ly0 + 2 * S, *lx1 = ly0 + 3 * S;
    linear_taps(S, h, iy0, iy1, ly0, ly1);
    linear_taps(S, w, ix0, ix1, lx0, lx1);
    for (int c = 0; c < C; c++) {
        const float *plane = src + ((size_t)c * H + top) * W + left; // crop (h, w), row stride W
        float *out = dst + (size_t)c * S * S;                          // (S, S)
        for (int y = 0; y < S; y++) {
            const float *r0 = plane + (size_t)iy0[y] * W, *r1 = plane + (size_t)iy1[y] * W;
            for (int x = 0; x < S; x++) {
                const float t0 = r0[ix0[x]] * lx0[x] + r0[ix1[x]] * lx1[x];
                const float t1 = r1[ix0[x]] * lx0[x] + r1[ix1[x]] * lx1[x];
                out[(size_t)y * S + x] = t0 * ly0[y] + t1 * ly1[y];
            }
        }
    }
    free(iy0);
    free(ly0);
}

void view_hflip(float *x, int C, int H, int W) {
    // torchvision hflip (tensor): img.flip(-1): out[.., x] = in[.., W - 1 - x].
    for (size_t r = 0; r < (size_t)C * H; r++) {
        float *row = x + r * W;
        for (int a = 0, b = W - 1; a < b; a++, b--) {
            const float t = row[a];
            row[a] = row[b], row[b] = t;
        }
    }
}

// Reflect padding (torch pad mode 'reflect': the edge pixel is not repeated): -k -> k,
// n - 1 + k -> n - 1 - k. Valid for |offset| < n (view_config_check: kernel/2 < size).
static int reflect(int i, int n) {
    if (i < 0) i = -i;
    if (i > n - 1) i = 2 * (n - 1) - i;
    return i;
}

enum { BLUR_KERNEL_MAX = 255 };

void view_gaussian_blur(float *x, int C, int H, int W, int kernel, float sigma, float *scratch) {
    // torchvision gaussian_blur (tensor), kernel_size [k, k], sigma [s, s]:
    // _get_gaussian_kernel1d: t = linspace(-(k-1)/2, (k-1)/2, k), pdf = exp(-0.5·(t/s)²),
    // k1 = pdf / sum(pdf) (float32); _get_gaussian_kernel2d: k2[i][j] = k1[i]·k1[j];
    // pad by k/2 with mode 'reflect', then conv2d per channel (groups = C):
    // out[y][x] = Σ_i Σ_j k2[i][j] · in[y + i - k/2][x + j - k/2].
    if (kernel < 1 || kernel % 2 == 0 || kernel > BLUR_KERNEL_MAX || kernel / 2 >= H || kernel / 2 >= W ||
        !(sigma > 0.0f))
        die_fail("view_gaussian_blur: kernel %d, sigma %g on a %d x %d image (odd kernel, kernel/2 < side, "
                 "sigma > 0)", kernel, (double)sigma, H, W);
    const int half = kernel / 2;
    float k1[BLUR_KERNEL_MAX], sum = 0.0f;
    for (int i = 0; i < kernel; i++) {
        const float t = (float)(i - half) / sigma;
        k1[i] = expf(-0.5f * (t * t));
        sum += k1[i];
    }
    for (int i = 0; i < kernel; i++) k1[i] /= sum;
    for (size_t i = 0; i < (size_t)C * H * W; i++) scratch[i] = x[i];
    for (int c = 0; c < C; c++) {
        const float *in = scratch + (size_t)c * H * W; // (H, W)
        float *out = x + (size_t)c * H * W;             // (H, W)
        for (int y = 0; y < H; y++)
            for (int xx = 0; xx < W; xx++) {
                float acc = 0.0f;
                for (int i = 0; i < kernel; i++) {
                    const float *row = in + (size_t)reflect(y + i - half, H) * W;
                    for (int j = 0; j < kernel; j++) acc += (k1[i] * k1[j]) * row[reflect(xx + j - half, W)];
                }
                out[(size_t)y * W + xx] = acc;
            }
    }
}
