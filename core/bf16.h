// core/bf16.h — float -> bfloat16 rounding (round to nearest, ties to even), the one rounding
// rule of train.precision=bf16 on every backend: the CPU backend rounds operands with it before
// sgemm, the CUDA backend converts with __float2bfloat16_rn (the same rule), tests check both.
#pragma once
#include <stdint.h>
#include <string.h>

// x rounded to the nearest bfloat16 (8 exponent bits, 7 stored mantissa bits), returned as a
// float. NaN stays NaN (quiet), ±inf stays ±inf, values past the largest bf16 round to ±inf.
static inline float bf16_round(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7f800000u) == 0x7f800000u) { // inf (low bits already zero) or NaN
        if (bits & 0x007fffffu) bits = (bits | 0x00400000u) & 0xffff0000u; // quiet NaN
    } else {
        bits += 0x7fffu + ((bits >> 16) & 1u);
        bits &= 0xffff0000u;
    }
    float y;
    memcpy(&y, &bits, sizeof y);
    return y;
}
