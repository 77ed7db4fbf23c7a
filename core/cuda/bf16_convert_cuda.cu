// core/cuda/bf16_convert_cuda.cu — vectorised fp32 <-> bf16 elementwise passes
// (core/cuda/bf16_convert.h). A vector thread takes 8 consecutive elements: two float4 (32 bytes)
// of fp32 and one uint4 (16 bytes) of bf16; the scalar kernel serves the tail n mod 8 and
// misaligned operands (the split is core/vec_plan.h's vec_split_for). Grid-stride loops over groups with one
// 64-bit multiply per group, no per-element division. The per-element arithmetic is the scalar
// kernel's (__float2bfloat16_rn, exact widening, __fadd_rn), so both give the same bits.
#include "cuda_common.cuh"
#include <cuda_bf16.h>
extern "C" {
#include "../vec_plan.h"
#include "bf16_convert.h"
}

#define CONVERT_THREADS 256
#define CONVERT_MAX_BLOCKS 4096u // grid-stride beyond: enough to fill any current GPU

enum { TO_BF16 = 0, TO_F32 = 1, ADD_F32 = 2 };

static unsigned convert_blocks(size_t items) {
    unsigned b = cuda_blocks(items, CONVERT_THREADS);
    return b < CONVERT_MAX_BLOCKS ? b : CONVERT_MAX_BLOCKS;
}

static __device__ __forceinline__ void unpack8(const uint4 &u, float f[8]) {
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) { // bf16 bits are the high half of the float: exact
        f[2 * i] = __uint_as_float(w[i] << 16);
        f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
}

// Two bf16 (round to nearest even), lo in the low half: little-endian memory order.
static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    return (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(lo)) |
           (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(hi)) << 16;
}

template <int OP>
static __global__ void __launch_bounds__(CONVERT_THREADS)
convert_vec8_kernel(void *dst, const void *src, size_t groups) {
    const size_t stride = (size_t)gridDim.x * CONVERT_THREADS;
    for (size_t g = flat_index(); g < groups; g += stride) {
        if (OP == TO_BF16) {
            const float4 *s = (const float4 *)src + 2 * g;
            const float4 a = s[0], b = s[1];
            uint4 u;
            u.x = pack2(a.x, a.y); u.y = pack2(a.z, a.w); u.z = pack2(b.x, b.y); u.w = pack2(b.z, b.w);
            ((uint4 *)dst)[g] = u;
        } else {
            float f[8];
            unpack8(((const uint4 *)src)[g], f);
            float4 *d = (float4 *)dst + 2 * g;
            if (OP == ADD_F32) {
                float4 a = d[0], b = d[1];
                a.x = __fadd_rn(a.x, f[0]); a.y = __fadd_rn(a.y, f[1]);
                a.z = __fadd_rn(a.z, f[2]); a.w = __fadd_rn(a.w, f[3]);
                b.x = __fadd_rn(b.x, f[4]); b.y = __fadd_rn(b.y, f[5]);
                b.z = __fadd_rn(b.z, f[6]); b.w = __fadd_rn(b.w, f[7]);
                d[0] = a; d[1] = b;
            } else {
                d[0] = make_float4(f[0], f[1], f[2], f[3]);
                d[1] = make_float4(f[4], f[5], f[6], f[7]);
            }
        }
    }
}

template <int OP>
static __global__ void __launch_bounds__(CONVERT_THREADS)
convert_scalar_kernel(void *dst, const void *src, size_t begin, size_t n) {
    const size_t stride = (size_t)gridDim.x * CONVERT_THREADS;
    for (size_t e = begin + flat_index(); e < n; e += stride) {
        if (OP == TO_BF16) {
            ((__nv_bfloat16 *)dst)[e] = __float2bfloat16_rn(((const float *)src)[e]);
        } else {
            float v = __uint_as_float((unsigned)((const uint16_t *)src)[e] << 16);
            float *d = (float *)dst + e;
            *d = OP == ADD_F32 ? __fadd_rn(*d, v) : v;
        }
    }
}

template <int OP>
static void convert(void *dst, const void *src, size_t n) {
    if (n == 0) return;
    vec_split s = vec_split_for(n, 8, (uintptr_t)dst, (uintptr_t)src, 16);
    if (s.groups) {
        convert_vec8_kernel<OP><<<convert_blocks(s.groups), CONVERT_THREADS, 0, cuda_stream()>>>(dst, src, s.groups);
        CUDA_LAUNCH_CHECK();
    }
    if (s.tail_start < n) {
        convert_scalar_kernel<OP><<<convert_blocks(n - s.tail_start), CONVERT_THREADS, 0, cuda_stream()>>>(dst, src, s.tail_start, n);
        CUDA_LAUNCH_CHECK();
    }
}

extern "C" void cuda_f32_to_bf16(uint16_t *dst, const float *src, size_t n) { convert<TO_BF16>(dst, src, n); }
extern "C" void cuda_bf16_to_f32(float *dst, const uint16_t *src, size_t n) { convert<TO_F32>(dst, src, n); }
extern "C" void cuda_bf16_add_to_f32(float *dst, const uint16_t *src, size_t n) { convert<ADD_F32>(dst, src, n); }
