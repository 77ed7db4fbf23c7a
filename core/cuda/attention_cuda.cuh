// core/cuda/attention_cuda.cuh — what the two CUDA attention files share: the fused kernels'
// entry points (attention_fused_cuda.cu, used for attention_desc.keep_probs == 0) and the
// batch-ordered dbias reduction of the materialising file (attention_cuda.cu). Pointers are
// device pointers; contracts are core/ops.h's attention op.
#pragma once
#include "ops_cuda_internal.cuh"

// out (B, T, C); lse (B, H, T) — the row log-sum-exp of the scaled, biased, masked scores
// (+inf for a row that sees no key), written into the caller's probs buffer (nothing when M = 0).
void cuda_attention_fused_forward(float *out, float *lse, const float *qkv,
                                  const attention_desc *d);
// dqkv (B, T, 3C) +=; dbias (H, T, T) += via scratch (B, H, T, M) when d->bias and dbias are
// non-NULL. out and lse are the fused forward's.
void cuda_attention_fused_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                   const float *qkv, const float *out, const float *lse,
                                   const attention_desc *d);
// dbias[h, i, kv_index[b][m]] (H, T, T) += scratch[b, h, i, m] (B, H, T, M), b = 0..B-1 then
// each slot in order (one block per (h, i) row).
void cuda_attention_dbias_reduce(float *dbias, const float *scratch, const attention_desc *d);
