// core/cpu/vecmath.h — branch-free float math that vectorises (glibc's expf/erff are scalar
// calls per element): exp for non-positive arguments and erf, shared by the CPU kernels.
#pragma once
#include <stdint.h>
#include <string.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// exp(x) for x <= 0: Cody-Waite reduction x = n ln2 + r, Cephes expf polynomial, scale by
// 2^n through the exponent bits. Returns exactly 1 for x = 0 and exactly 0 for x < -87
// (including -inf); positive x is clamped to 0; NaN stays NaN (and never reaches the integer
// conversion, which would be undefined). Branch-free so that loops vectorise.
ALWAYS_INLINE float exp_nonpos(float x) {
    float xc = x >= -87.0f ? x : -87.0f; // NaN compares false: -87 here, NaN returned below
    xc = xc > 0.0f ? 0.0f : xc;
    const float magic = 12582912.0f; // 1.5 * 2^23: adding and subtracting rounds to integer
    float n = (xc * 1.44269504088896341f + magic) - magic;
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    int32_t bits = ((int32_t)n + 127) * (1 << 23); // n in [-126, 0]: a normal power of two
    float p2;
    memcpy(&p2, &bits, sizeof p2);
    float e = y * p2;
    return x < -87.0f ? 0.0f : x == x ? e : x;
}

// erf(x) by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), given e = exp(-x²) computed
// by the caller (GELU needs the same exponential for its derivative).
ALWAYS_INLINE float erf_with_exp(float x, float e) {
    float ax = x < 0.0f ? -x : x;
    float t = 1.0f / (1.0f + 0.3275911f * ax);
    float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
    float y = 1.0f - poly * e;
    return x < 0.0f ? -y : y;
}
