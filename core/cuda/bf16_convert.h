// core/cuda/bf16_convert.h — vectorised fp32 <-> bf16 passes over device arrays for the cuDNN
// attention route (core/cuda/attention_cudnn.cpp), implemented in bf16_convert_cuda.cu. bf16 is
// stored as uint16_t bits (round to nearest even, as __float2bfloat16_rn and core/bf16.h). Each
// launches on the backend stream (cuda_stream.h) and returns; 8 elements per thread with 16-byte loads and stores
// where the operands are 16-byte aligned (core/vec_plan.h's vec_split_for), scalar elsewhere. Elementwise, so
// bitwise the same result either way.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void cuda_f32_to_bf16(uint16_t *dst, const float *src, size_t n);     // dst (n) = bf16(src)
void cuda_bf16_to_f32(float *dst, const uint16_t *src, size_t n);     // dst (n) = src (exact)
void cuda_bf16_add_to_f32(float *dst, const uint16_t *src, size_t n); // dst (n) += src, fp32 add

#ifdef __cplusplus
}
#endif
