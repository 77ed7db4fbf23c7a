// core/bf16.h — float -> bfloat16 rounding (round to nearest, ties to even), the one rounding
// rule of train.precision=bf16 on every backend: the CPU backend rounds operands with it before
// sgemm, the CUDA backend converts with __float2bfloat16_rn (the same rule), tests check both.
// bfloat16 is the storage type of the bf16 activations (core/ops_list.h "bf16 activations"):
// the top 16 bits of the float it stands for.
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

// A bfloat16 value as stored: the high half of the float's bits.
typedef uint16_t bfloat16;

// x rounded to bfloat16 (bf16_round's rule), as stored.
static inline bfloat16 bf16_from_float(float x) {
    float r = bf16_round(x);
    uint32_t bits;
    memcpy(&bits, &r, sizeof bits);
    return (bfloat16)(bits >> 16);
}

// The float a stored bfloat16 stands for (exact).
static inline float bf16_to_float(bfloat16 h) {
    uint32_t bits = (uint32_t)h << 16;
    float y;
    memcpy(&y, &bits, sizeof y);
    return y;
}
