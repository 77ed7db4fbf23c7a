// core/resize.c — bicubic interpolation weights (see resize.h), following torch's CPU kernel
// (aten/src/ATen/native/UpSample.h: area_pixel_compute_scale, area_pixel_compute_source_index
// with cubic = true, get_cubic_upsample_coefficients). The rounding below was matched
// against torch 1.13's weights (F.interpolate of one-hot signals), not read from its build:
//   * scale = (float)in / out; the source coordinate s = (i + 0.5) · scale - 0.5 is formed
//     in double (torch's t carries more than a float s's precision: (i + 0.5) is a double
//     there); the base tap is floor of s rounded to float, and t = s - base in double, then
//     rounded to float (so t can be a hair below 0 when s sits just below an integer; no
//     clamping, like torch). t from a float-rounded s would move the weights by ~1e-6;
//   * the cubic polynomials run as fused multiply-adds (torch's kernels are presumably
//     compiled with FMA contraction); plain float evaluation is up to 1e-6 further away.
// Measured against torch 1.13 CPU: max |w - torch| 3.6e-7 over all in, out in 1..64
// (a few float ulps); tests/resize_oracle.py checks a sweep of them.
#include "resize.h"
#include "common.h"
#include <math.h>
#include <string.h>

#define BICUBIC_A (-0.75f) // Keys' parameter, as in torch (OpenCV uses -0.75 too)

// Keys cubic for |x| <= 1: ((A + 2)·x - (A + 3))·x² + 1 (torch's cubic_convolution1).
static float cubic_near(float x) {
    float r = fmaf(BICUBIC_A + 2.0f, x, -(BICUBIC_A + 3.0f));
    return fmaf(r * x, x, 1.0f);
}
// Keys cubic for 1 <= |x| <= 2: ((A·x - 5A)·x + 8A)·x - 4A (torch's cubic_convolution2).
static float cubic_far(float x) {
    float r = fmaf(BICUBIC_A, x, -5.0f * BICUBIC_A);
    r = fmaf(r, x, 8.0f * BICUBIC_A);
    return fmaf(r, x, -4.0f * BICUBIC_A);
}

void resize_bicubic_weights(float *w, int out_size, int in_size) {
    if (out_size < 1 || in_size < 1)
        die_fail("resize_bicubic_weights: sizes must be >= 1 (out %d, in %d)", out_size, in_size);
    memset(w, 0, (size_t)out_size * in_size * sizeof(float));
    const float scale = (float)in_size / (float)out_size;
    for (int i = 0; i < out_size; i++) {
        const double s = (double)scale * ((double)i + 0.5) - 0.5; // not clamped (cubic)
        const float fl = floorf((float)s);
        const float t = (float)(s - (double)fl), u = 1.0f - t;
        // distances to taps fl-1, fl, fl+1, fl+2
        const float coeff[4] = {cubic_far(t + 1.0f), cubic_near(t), cubic_near(u),
                                cubic_far(u + 1.0f)};
        float *row = w + (size_t)i * in_size; // (in_size)
        for (int k = 0; k < 4; k++) {
            int idx = (int)fl - 1 + k;
            idx = idx < 0 ? 0 : idx > in_size - 1 ? in_size - 1 : idx; // border taps clamp
            row[idx] += coeff[k];
        }
    }
}
