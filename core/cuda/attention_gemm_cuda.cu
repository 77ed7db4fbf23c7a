// core/cuda/attention_gemm_cuda.cu — training attention on the tensor cores (issue 30, route
// A): the materialised attention of llm.c, in bf16 as PyTorch autocast computes it, for
// train.precision = bf16 with attention_desc.keep_probs == 0. Same contract as core/ops.h's
// attention op and every option it has: key/value subsets kv_index (B, M) (MP3 context),
// bias (H, T, T) by key TOKEN with its gradient, group masks LT / LE (GVP), RoPE'd q/k (rotated
// in qkv before the op), cls rows (ordinary tokens here); a query that sees no key gives zeros.
//
// Per (image b, head h), with hs = C/H, Q (T, hs), K and V (M, hs) the head's rows of qkv
// (K and V of key tokens kv_index[b][m]):
//   forward   Q16, K16, V16 = bf16(Q, K, V)                          attn_pack_kernel
//             S (T, M)  = Q16·K16ᵀ, fp32 accumulate                  cuBLAS, batched over B·H
//             P16 = bf16(softmax(mask(scale·S + bias)))  (saved)    attn_softmax_forward_kernel
//             O (T, hs) = P16·V16, fp32                              cuBLAS
//             out[b, t, h·hs + c] = O                                attn_unpack_kernel
//   backward  dO16 = bf16(dout); Q16, K16, V16 packed again from qkv
//             dP (T, M) = dO16·V16ᵀ                                  cuBLAS
//             dS = P·(dP − Σ_m P·dP) (fp32: → scratch for dbias); dS16 = bf16(dS)
//                                                                    attn_softmax_backward_kernel
//             dQ = dS16·K16, dK = dS16ᵀ·Q16, dV = P16ᵀ·dO16         cuBLAS
//             dqkv += scale·dQ, scale·dK, dV (k, v rows of key tokens) attn_unpack_kernel
//             dbias via attention_cuda.cu's batch-ordered reduction of scratch.
// The bf16 rounding points (q, k, v, P, dout, dS) are the ones core/cpu/attention_cpu.c
// emulates under MATMUL_BF16, so CPU and GPU agree within bf16 tolerance (tests/
// test_cuda_attention_gemm.c). Softmax, its row sums and the dbias reduction stay fp32.
//
// Saved state: P16, (B, H, T, M) bf16 = ⌈B·H·T·M / 2⌉ floats of the caller's probs buffer
// (cuda_attention_state_floats). Workspace, for the length of one call (cuda_alloc_transient:
// stream-ordered from a caching pool, counted by the memory meter, so bench's arena column
// includes it at its peak): the bf16 head matrices, the fp32 score / score-gradient matrix
// (B·H·T·M), its bf16 copy in the backward and the fp32 head results. Which calls take this route:
// core/attention_route.c (the size rule, or `posbench bench --attention`).
//
// Determinism: no atomics; cuBLAS's batched GEMMs are deterministic on one GPU and stream; each
// softmax row is one warp with lane partials folded by a fixed tree (attention_cuda.cuh).
#include "ops_cuda_internal.cuh"
#include "attention_cuda.cuh"
#include <cuda_bf16.h>
#include <math.h>

// ---------------------------------------------------------------- workspace
static size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// ---------------------------------------------------------------- kernels
#define PACK_THREADS 256
#define ROW_THREADS 256 // softmax kernels: one warp per (b, h, query) row
#define ROW_WARPS (ROW_THREADS / 32)

// Element e of a head-major (B, H, R, hs) tensor: image b, head h, row r, channel c.
static __device__ __forceinline__ void head_major_index(size_t e, int H, int R, int hs, int *b,
                                                        int *h, int *r, int *c) {
    *c = (int)(e % hs);
    size_t rest = e / hs;
    *r = (int)(rest % R);
    rest /= R;
    *h = (int)(rest % H);
    *b = (int)(rest / H);
}

// dst (B, H, R, hs) bf16 = channels [off + h·hs, off + (h+1)·hs) of rows tok[b][r] (r when tok is
// NULL) of src (B, rows_per_image, stride). One thread per element, consecutive threads along
// the channels (coalesced reads and writes).
static __global__ void attn_pack_kernel(__nv_bfloat16 *dst, const float *src, int rows_per_image,
                                        int stride, int off, const int *tok, int B, int H, int R,
                                        int hs) {
    size_t e = flat_index(), n = (size_t)B * H * R * hs;
    if (e >= n) return;
    int b, h, r, c;
    head_major_index(e, H, R, hs, &b, &h, &r, &c);
    int t = tok ? tok[(size_t)b * R + r] : r;
    dst[e] = __float2bfloat16_rn(src[((size_t)b * rows_per_image + t) * stride + off + h * hs + c]);
}

// dst[b, tok[b][r], off + h·hs + c] (row stride `stride`) = or += alpha·src[b, h, r, c], src
// (B, H, R, hs) fp32. accumulate = 0 overwrites (the forward's out), 1 adds (gradients). Each
// destination element is written by one thread (kv_index does not repeat a token: ops.h).
static __global__ void attn_unpack_kernel(float *dst, const float *src, int rows_per_image,
                                          int stride, int off, const int *tok, int B, int H, int R,
                                          int hs, float alpha, int accumulate) {
    size_t e = flat_index(), n = (size_t)B * H * R * hs;
    if (e >= n) return;
    int b, h, r, c;
    head_major_index(e, H, R, hs, &b, &h, &r, &c);
    int t = tok ? tok[(size_t)b * R + r] : r;
    float *d = dst + ((size_t)b * rows_per_image + t) * stride + off + h * hs + c;
    float v = alpha == 1.0f ? src[e] : __fmul_rn(alpha, src[e]);
    *d = accumulate ? __fadd_rn(*d, v) : v;
}

// One warp per row (b, h, i) of S (B, H, T, M) fp32: s = scale·S + bias[h, i, tok(m)], masked
// keys -inf, p = exp(s - max) / Σ exp, P16 = bf16(p); a row that sees no key gets zeros.
static __global__ void __launch_bounds__(ROW_THREADS)
attn_softmax_forward_kernel(__nv_bfloat16 *P16, float *S, const int *kv_index, const float *bias,
                            const int *group, int mask_mode, int B, int H, int T, int M,
                            float scale) {
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32;
    if (row >= (size_t)B * H * T) return; // the whole warp leaves together
    const int i = (int)(row % T), h = (int)(row / T % H), b = (int)(row / ((size_t)T * H));
    float *s = S + row * M;
    __nv_bfloat16 *p = P16 + row * M;
    const int *tok = kv_index ? kv_index + (size_t)b * M : NULL;
    const float *brow = bias ? bias + ((size_t)h * T + i) * T : NULL;
    const int *grp = group ? group + (size_t)b * T : NULL;
    const int gi = mask_mode != ATTN_MASK_NONE ? grp[i] : 0;
    const float sum = attn_softmax_numerators(s, M, scale, tok, brow, grp, gi, mask_mode);
    if (sum == 0.0f) { // no visible key (or every visible score -inf): zeros
        for (int m = lane; m < M; m += 32) p[m] = __float2bfloat16_rn(0.0f);
        return;
    }
    for (int m = lane; m < M; m += 32) p[m] = __float2bfloat16_rn(s[m] / sum);
}

// One warp per row of dP (B, H, T, M) fp32: dS = P·(dP − Σ_m P·dP) with P = P16 (the rounded
// probabilities the forward used); dS16 = bf16(dS); scratch (fp32 dS) when non-NULL (dbias).
static __global__ void __launch_bounds__(ROW_THREADS)
attn_softmax_backward_kernel(__nv_bfloat16 *dS16, float *scratch, const float *dP,
                             const __nv_bfloat16 *P16, size_t rows, int M) {
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32;
    if (row >= rows) return;
    const __nv_bfloat16 *p = P16 + row * M;
    const float *dp = dP + row * M;
    float part = 0.0f;
    for (int m = lane; m < M; m += 32) part = fmaf(__bfloat162float(p[m]), dp[m], part);
    const float pdp = attn_warp_sum(part);
    for (int m = lane; m < M; m += 32) {
        float ds = __bfloat162float(p[m]) * (dp[m] - pdp); // p = 0 (masked / empty row): 0
        dS16[row * M + m] = __float2bfloat16_rn(ds);
        if (scratch) scratch[row * M + m] = ds;
    }
}

// ---------------------------------------------------------------- host side
// Row-major per-(b, h) products as column-major cuBLAS calls, batched over the B·H pairs
// (every operand (B, H, rows, cols) contiguous): C = A·Bᵀ, C = A·B and C = Aᵀ·B with A, B bf16
// and C fp32 (compute fp32: products of bf16 values are exact, sums in fp32).
static void batched_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const void *A, int lda, long long sa, const void *B, int ldb,
                         long long sb, float *C, int ldc, long long sc, int batch) {
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(cuda_cublas(), ta, tb, m, n, k, &one, A, CUDA_R_16BF,
                                            lda, sa, B, CUDA_R_16BF, ldb, sb, &zero, C, CUDA_R_32F,
                                            ldc, sc, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// S (R1, R2) row-major per pair = X (R1, hs) · Y (R2, hs)ᵀ: column-major Sᵀ = Y·Xᵀ.
static void gemm_abt(float *S, const __nv_bfloat16 *X, const __nv_bfloat16 *Y, int R1, int R2,
                     int hs, int batch) {
    batched_gemm(CUBLAS_OP_T, CUBLAS_OP_N, R2, R1, hs, Y, hs, (long long)R2 * hs, X, hs,
                 (long long)R1 * hs, S, R2, (long long)R1 * R2, batch);
}

// O (R1, hs) per pair = P (R1, R2) · Y (R2, hs): column-major Oᵀ = Yᵀ·Pᵀ.
static void gemm_ab(float *O, const __nv_bfloat16 *P, const __nv_bfloat16 *Y, int R1, int R2,
                    int hs, int batch) {
    batched_gemm(CUBLAS_OP_N, CUBLAS_OP_N, hs, R1, R2, Y, hs, (long long)R2 * hs, P, R2,
                 (long long)R1 * R2, O, hs, (long long)R1 * hs, batch);
}

// G (R2, hs) per pair = P (R1, R2)ᵀ · X (R1, hs): column-major Gᵀ = Xᵀ·P.
static void gemm_atb(float *G, const __nv_bfloat16 *P, const __nv_bfloat16 *X, int R1, int R2,
                     int hs, int batch) {
    batched_gemm(CUBLAS_OP_N, CUBLAS_OP_T, hs, R2, R1, X, hs, (long long)R1 * hs, P, R2,
                 (long long)R1 * R2, G, hs, (long long)R2 * hs, batch);
}

// Offsets into the workspace, each 256-byte aligned: the forward's part first (fwd_total bytes),
// then what only the backward adds (total bytes).
typedef struct {
    size_t q16, k16, v16, mat32, o32, fwd_total, do16, mat16, dk32, dv32, total;
} gemm_layout;

static gemm_layout gemm_layout_of(const attention_desc *d) {
    const size_t BH = (size_t)d->B * d->H, hs = (size_t)(d->C / d->H);
    const size_t qh = BH * d->T * hs, kh = BH * d->M * hs, tm = BH * d->T * d->M;
    gemm_layout L;
    size_t at = 0;
    L.q16 = at;   at += align256(qh * 2);
    L.k16 = at;   at += align256(kh * 2);
    L.v16 = at;   at += align256(kh * 2);
    L.mat32 = at; at += align256(tm * 4); // S (forward) / dP (backward)
    L.o32 = at;   at += align256(qh * 4); // O (forward) / dQ (backward)
    L.fwd_total = at;
    L.do16 = at;  at += align256(qh * 2);
    L.mat16 = at; at += align256(tm * 2); // dS16 (backward)
    L.dk32 = at;  at += align256(kh * 4);
    L.dv32 = at;  at += align256(kh * 4);
    L.total = at;
    return L;
}

// Q16, K16, V16 of every (b, h) from qkv (B, T, 3C).
static void pack_qkv(__nv_bfloat16 *q16, __nv_bfloat16 *k16, __nv_bfloat16 *v16, const float *qkv,
                     const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H;
    size_t nq = (size_t)B * H * T * hs, nk = (size_t)B * H * M * hs;
    attn_pack_kernel<<<cuda_blocks(nq, PACK_THREADS), PACK_THREADS>>>(q16, qkv, T, 3 * C, 0, NULL,
                                                                      B, H, T, hs);
    CUDA_LAUNCH_CHECK();
    attn_pack_kernel<<<cuda_blocks(nk, PACK_THREADS), PACK_THREADS>>>(k16, qkv, T, 3 * C, C,
                                                                      d->kv_index, B, H, M, hs);
    CUDA_LAUNCH_CHECK();
    attn_pack_kernel<<<cuda_blocks(nk, PACK_THREADS), PACK_THREADS>>>(v16, qkv, T, 3 * C, 2 * C,
                                                                      d->kv_index, B, H, M, hs);
    CUDA_LAUNCH_CHECK();
}

void cuda_attention_gemm_forward(float *out, float *state, const float *qkv,
                                 const attention_desc *d) {
    attention_desc_check(d, "attention_forward (bf16 materialised)");
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H;
    gemm_layout L = gemm_layout_of(d);
    char *ws = (char *)cuda_alloc_transient(L.fwd_total, "attention workspace (bf16 heads, T×M scores)");
    __nv_bfloat16 *q16 = (__nv_bfloat16 *)(ws + L.q16), *k16 = (__nv_bfloat16 *)(ws + L.k16);
    __nv_bfloat16 *v16 = (__nv_bfloat16 *)(ws + L.v16), *P16 = (__nv_bfloat16 *)state;
    float *S = (float *)(ws + L.mat32), *O = (float *)(ws + L.o32);
    pack_qkv(q16, k16, v16, qkv, d);
    gemm_abt(S, q16, k16, T, M, hs, BH); // S (T, M) = Q·Kᵀ
    size_t rows = (size_t)BH * T;
    attn_softmax_forward_kernel<<<cuda_blocks(rows, ROW_WARPS), ROW_THREADS>>>(
        P16, S, d->kv_index, d->bias, d->group, d->mask_mode, B, H, T, M,
        1.0f / sqrtf((float)hs));
    CUDA_LAUNCH_CHECK();
    gemm_ab(O, P16, v16, T, M, hs, BH); // O (T, hs) = P·V
    size_t no = (size_t)BH * T * hs;
    attn_unpack_kernel<<<cuda_blocks(no, PACK_THREADS), PACK_THREADS>>>(out, O, T, C, 0, NULL, B,
                                                                        H, T, hs, 1.0f, 0);
    CUDA_LAUNCH_CHECK();
    cuda_free_transient(ws);
}

void cuda_attention_gemm_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                  const float *qkv, const float *state, const attention_desc *d) {
    attention_desc_check(d, "attention_backward (bf16 materialised)");
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H;
    const int want_dbias = d->bias != NULL && dbias != NULL;
    if (want_dbias && scratch == NULL)
        die_fail("attention_backward: dbias requested without scratch (B, H, T, M)");
    if (dqkv == NULL && !want_dbias) return;
    gemm_layout L = gemm_layout_of(d);
    char *ws = (char *)cuda_alloc_transient(L.total, "attention workspace (bf16 heads, T×M gradients)");
    __nv_bfloat16 *q16 = (__nv_bfloat16 *)(ws + L.q16), *k16 = (__nv_bfloat16 *)(ws + L.k16);
    __nv_bfloat16 *v16 = (__nv_bfloat16 *)(ws + L.v16), *do16 = (__nv_bfloat16 *)(ws + L.do16);
    __nv_bfloat16 *dS16 = (__nv_bfloat16 *)(ws + L.mat16);
    const __nv_bfloat16 *P16 = (const __nv_bfloat16 *)state;
    float *dP = (float *)(ws + L.mat32), *dQ = (float *)(ws + L.o32);
    float *dK = (float *)(ws + L.dk32), *dV = (float *)(ws + L.dv32);
    pack_qkv(q16, k16, v16, qkv, d);
    size_t nq = (size_t)BH * T * hs, nk = (size_t)BH * M * hs;
    attn_pack_kernel<<<cuda_blocks(nq, PACK_THREADS), PACK_THREADS>>>(do16, dout, T, C, 0, NULL, B,
                                                                      H, T, hs);
    CUDA_LAUNCH_CHECK();
    gemm_abt(dP, do16, v16, T, M, hs, BH); // dP (T, M) = dO·Vᵀ
    size_t rows = (size_t)BH * T;
    attn_softmax_backward_kernel<<<cuda_blocks(rows, ROW_WARPS), ROW_THREADS>>>(
        dS16, want_dbias ? scratch : NULL, dP, P16, rows, M);
    CUDA_LAUNCH_CHECK();
    if (dqkv) {
        const float scale = 1.0f / sqrtf((float)hs);
        gemm_ab(dQ, dS16, k16, T, M, hs, BH);  // dQ (T, hs) = dS·K
        gemm_atb(dK, dS16, q16, T, M, hs, BH); // dK (M, hs) = dSᵀ·Q
        gemm_atb(dV, P16, do16, T, M, hs, BH); // dV (M, hs) = Pᵀ·dO
        attn_unpack_kernel<<<cuda_blocks(nq, PACK_THREADS), PACK_THREADS>>>(
            dqkv, dQ, T, 3 * C, 0, NULL, B, H, T, hs, scale, 1);
        CUDA_LAUNCH_CHECK();
        attn_unpack_kernel<<<cuda_blocks(nk, PACK_THREADS), PACK_THREADS>>>(
            dqkv, dK, T, 3 * C, C, d->kv_index, B, H, M, hs, scale, 1);
        CUDA_LAUNCH_CHECK();
        attn_unpack_kernel<<<cuda_blocks(nk, PACK_THREADS), PACK_THREADS>>>(
            dqkv, dV, T, 3 * C, 2 * C, d->kv_index, B, H, M, hs, 1.0f, 1);
        CUDA_LAUNCH_CHECK();
    }
    cuda_free_transient(ws);
    if (want_dbias) cuda_attention_dbias_reduce(dbias, scratch, d);
}
