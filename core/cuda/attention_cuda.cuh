// core/cuda/attention_cuda.cuh — what the CUDA attention files share: the block size and
// the warp-level device helpers (tile loads, max, fixed-order sums, a score row's softmax numerators), the fused kernels' entry
// points (attention_fused_cuda.cu, used for attention_desc.keep_probs == 0 in fp32 and for long
// sequences), the materialised bf16 route's (attention_gemm_cuda.cu, training in bf16) and the
// batch-ordered dbias reduction of the materialising file (attention_cuda.cu). Pointers are
// device pointers; contracts are core/ops.h's attention op.
#pragma once
#include "ops_cuda_internal.cuh"

#define ATTN_THREADS 256            // threads per block of every attention kernel (8 warps)
#define ATTN_WARPS (ATTN_THREADS / 32)
#define ATTN_FULL_MASK 0xffffffffu

static __device__ __forceinline__ float attn_warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(ATTN_FULL_MASK, v, o));
    return v; // max is exact: every lane holds the same value
}

// Fixed-order tree sum; lane 0's result is broadcast so every lane holds the same bits.
static __device__ __forceinline__ float attn_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(ATTN_FULL_MASK, v, o);
    return __shfl_sync(ATTN_FULL_MASK, v, 0);
}

// Σ_x a[x]·b[x], x = 0..n-1, on one warp: lane partials over x ≡ lane mod 32 in order, then
// the fixed tree, so every caller derives the same bits.
static __device__ __forceinline__ float attn_warp_dot(const float *a, const float *b, int n) {
    const int lane = threadIdx.x % 32;
    float part = 0.0f;
    for (int x = lane; x < n; x += 32) part = fmaf(a[x], b[x], part);
    return attn_warp_sum(part);
}

// One warp's softmax numerators of a score row, in place: s (M floats, shared or global memory,
// raw q·k) becomes exp(v - max v) with v = scale·s[m] + brow[tok(m)] (brow NULL: no bias;
// tok NULL: slot m is token m), v = -inf for the keys the group mask hides (grp, gi: the key
// tokens' and the query's group ids; mask_mode ATTN_MASK_*). Returns Σ exp (>= 1: the max gives
// exp(0)), the same bits in every lane (fixed-order warp sums); the probabilities are s[m] / Σ.
// Returns 0 when the row sees no key (or every visible score is -inf): the caller writes zeros.
// fmaxf skips NaN, so a row whose visible scores are all NaN finds no finite max either: it
// returns NaN with s NaN, so the row's probabilities are NaN (as torch's softmax), never zeros.
// The materialising fp32 kernels (attention_cuda.cu) and the bf16 route
// (attention_gemm_cuda.cu) share it.
static __device__ __forceinline__ float attn_softmax_numerators(float *s, int M, float scale,
                                                                const int *tok, const float *brow,
                                                                const int *grp, int gi,
                                                                int mask_mode) {
    const int lane = threadIdx.x % 32;
    float mx = -INFINITY;
    int nan_seen = 0;
    for (int m = lane; m < M; m += 32) {
        int j = tok ? tok[m] : m;
        float v = __fmul_rn(s[m], scale);
        if (brow) v = __fadd_rn(v, brow[j]);
        if (mask_mode != ATTN_MASK_NONE) {
            int gj = grp[j];
            int vis = mask_mode == ATTN_MASK_LE ? gj <= gi : gj < gi;
            if (!vis) v = -INFINITY;
        }
        s[m] = v;
        nan_seen |= v != v;
        mx = fmaxf(mx, v);
    }
    mx = attn_warp_max(mx);
    if (!(mx > -INFINITY)) {
        if (!__any_sync(ATTN_FULL_MASK, nan_seen)) return 0.0f;
        for (int m = lane; m < M; m += 32) s[m] = NAN;
        return NAN;
    }
    float sum = 0.0f;
    for (int m = lane; m < M; m += 32) {
        float e = expf(s[m] - mx); // masked: expf(-inf) = 0
        s[m] = e;
        sum += e;
    }
    return attn_warp_sum(sum);
}

// dst (n, hs) with row stride ld = head channels [off, off+hs) of rows first..first+n-1 of
// x (row stride `stride`); row index idx maps to token tok[idx] (tok NULL: idx). Rows with
// idx >= limit are zero. Coalesced along the channels; called by all ATTN_THREADS threads.
static __device__ __forceinline__ void attn_load_rows(float *dst, int ld, const float *x, int stride,
                                                      int off, const int *tok, int first, int n,
                                                      int limit, int hs) {
    for (int e = threadIdx.x; e < n * hs; e += ATTN_THREADS) {
        int r = e / hs, c = e - r * hs, idx = first + r;
        float v = 0.0f;
        if (idx < limit) {
            int t = tok ? tok[idx] : idx;
            v = x[(size_t)t * stride + off + c];
        }
        dst[r * ld + c] = v;
    }
}

// out (B, T, C); lse (B, H, T) — the row log-sum-exp of the scaled, biased, masked scores
// (+inf for a row that sees no key), written into the caller's probs buffer (nothing when M = 0).
void cuda_attention_fused_forward(float *out, float *lse, const float *qkv,
                                  const attention_desc *d);
// dqkv (B, T, 3C) +=; dbias (H, T, T) += via scratch (B, H, T, M) when d->bias and dbias are
// non-NULL. out and lse are the fused forward's.
void cuda_attention_fused_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                   const float *qkv, const float *out, const float *lse,
                                   const attention_desc *d);
// The materialised bf16 route for training (attention_gemm_cuda.cu; which calls take it:
// core/attention_route.c, which also sizes the state it keeps: P in bf16, ⌈B·H·T·M / 2⌉ floats):
// its passes (contracts of the fused entry points above, with `state` the forward's P16).
void cuda_attention_gemm_forward(float *out, float *state, const float *qkv,
                                 const attention_desc *d);
void cuda_attention_gemm_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                  const float *qkv, const float *state, const attention_desc *d);
// The materialised route on bf16 storage (attention_forward_bf16 / attention_backward_bf16 with no
// kv_index and no bias): q, k, v and dout packed from the stored bf16 bits (a layout pass, no
// conversion), out16 and dqkv16 rounded once by the unpack (dqkv16 written, not accumulated). The
// same bits as the fp32 entry points on the widened inputs, outputs rounded.
void cuda_attention_gemm_forward_bf16(bfloat16 *out16, float *state, const bfloat16 *qkv16, const attention_desc *d);
void cuda_attention_gemm_backward_bf16(bfloat16 *dqkv16, const bfloat16 *dout16, const bfloat16 *qkv16, const float *state,
                                       const attention_desc *d);
// The materialised route on the compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16):
// q16 (B, T, C) and kv16 (B, M, 2C) packed from the stored bits, out16, dq16 and dkv16 rounded once
// by the unpack (the gradients written). The same bits as the packed entry points on the same keys.
void cuda_attention_gemm_kv_forward_bf16(bfloat16 *out16, float *state, const bfloat16 *q16, const bfloat16 *kv16,
                                         const attention_desc *d);
void cuda_attention_gemm_kv_backward_bf16(bfloat16 *dq16, bfloat16 *dkv16, const bfloat16 *dout16, const bfloat16 *q16,
                                          const bfloat16 *kv16, const float *state, const attention_desc *d);
// The route attention_forward / attention_backward take for d: cuda_attention_route_of
// (core/ops_cuda.h), so the bf16-storage ops (attention_bf16_cuda.cu) take it too.
// dbias[h, i, kv_index[b][m]] (H, T, T) += scratch[b, h, i, m] (B, H, T, M), b = 0..B-1 then
// each slot in order (one block per (h, i) row).
void cuda_attention_dbias_reduce(float *dbias, const float *scratch, const attention_desc *d);
