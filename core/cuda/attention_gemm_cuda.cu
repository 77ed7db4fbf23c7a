// core/cuda/attention_gemm_cuda.cu — training attention on the tensor cores (issue 30, route
// A): the materialised attention of llm.c, in bf16 as PyTorch autocast computes it, for
// train.precision = bf16 with attention_desc.keep_probs == 0. Same contract as core/ops.h's
// attention op and every option it has: key/value subsets kv_index (B, M) (MP3 context),
// bias (H, T, T) by key TOKEN with its gradient, group masks LT / LE (GVP), RoPE'd q/k (rotated
// in qkv before the op), cls rows (ordinary tokens here); a query that sees no key gives zeros.
// Also MP3's compact bf16 layout (attention_kv_forward_bf16: q (B, T, C), k|v (B, M, 2C) of the
// M keys only): the packs and unpacks read and write those rows instead (attn_qkv_layout).
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
// emulates under MATMUL_BF16, so CPU and GPU agree within bf16 tolerance (tests/parity/
// cases_attention_routes.c). Softmax, its row sums and the dbias reduction stay fp32.
//
// Saved state: P16, (B, H, T, ld) bf16 = ⌈B·H·T·ld / 2⌉ floats of the caller's probs buffer
// (cuda_attention_state_floats), ld = M rounded up to a multiple of 8 (core/attention_gemm_layout.h:
// every (T, M) matrix of the route has 16-byte aligned rows, so cuBLAS may take its Hopper
// kernels; the padding columns are never read). Pack and unpack run a thread per 4 channels of
// a head row with 32-bit index math; the softmax kernels hold a row of up to 512 keys in
// registers (S and P16 read once). Workspace, for the length of one call (cuda_alloc_transient:
// stream-ordered from a caching pool, counted by the memory meter, so bench's arena column
// includes it at its peak): the bf16 head matrices, the fp32 score / score-gradient matrix
// (B·H·T·M), its bf16 copy in the backward and the fp32 head results. Which calls take this route:
// core/attention_route.c (the size rule, or `posbench bench --attention`).
//
// In place (setting materialised-inplace, core/ops_cuda.h; not the default: unmeasured on a GPU):
// the bf16-storage entry points whose keys are not picked by kv_index — the packed qkv16 (B, T,
// 3C) and the compact q16 (B, T, C), kv16 (B, M, 2C) — skip the packs and unpacks when every head
// matrix is 16-byte aligned (core/attention_gemm_layout.h attn_inplace_usable): per (b, h) the
// head's rows are a strided matrix (leading dimension 3C, or C / 2C, column offset h·hs), so each
// product is one cublasGemmBatchedEx on device arrays of pair pointers (built per call by
// attn_pair_pointers_kernel into the workspace: they are this call's addresses), with O written
// into out (ldc = C) and dQ, dK, dV into the gradient rows, bf16 rounded once from fp32 alpha·x by
// cuBLAS's epilogue (the unpack's rounding point). Its workspace is the T×M matrices and the
// pointer arrays only (attn_inplace_workspace_of). The fp32 entry points, relbias and key subsets
// by index keep the packs. Within bf16 rounding of the packed path, not bit for bit (cuBLAS may
// sum in another order for other leading dimensions and output types).
//
// Determinism: no atomics; cuBLAS's batched GEMMs are deterministic on one GPU and stream; each
// softmax row is one warp with lane partials folded by a fixed tree (attention_cuda.cuh).
#include "ops_cuda_internal.cuh"
#include "attention_cuda.cuh"
#include "../attention_gemm_layout.h"
#include <cuda_bf16.h>
#include <math.h>

// ---------------------------------------------------------------- kernels
#define PACK_THREADS 256
#define ROW_THREADS 256 // softmax kernels: one warp per (b, h, query) row
#define ROW_WARPS (ROW_THREADS / 32)

// The (image, head) pairs of a pack / unpack: grid y, looping when B·H exceeds the grid's limit.
#define PAIR_GRID_MAX 65535

// This thread's head row r and first channel c of a pack / unpack of R rows of hs channels per
// pair (attn_pack_coords); 0 for a thread past the last.
static __device__ __forceinline__ int pack_thread(int R, int hs, int vec, int *r, int *c) {
    const int chunks = attn_pack_chunks(hs, vec);
    const unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (unsigned)R * (unsigned)chunks) return 0;
    attn_pack_coords(e, chunks, vec, r, c);
    return 1;
}

// Element offsets of pair bh's (image b, head h) row r, channel c: in the token rows (B,
// rows_per_image, stride) at token tok[b][r] (r when tok is NULL), channel off + h·hs + c
// (attn_rows_offset); and in the head-major (B, H, R, hs) tensor.
typedef struct {
    size_t rows, heads;
} pack_offsets;

static __device__ __forceinline__ pack_offsets pack_offsets_of(int bh, int r, int c, int H, int R, int hs,
                                                               int rows_per_image, int stride, int off,
                                                               const int *tok) {
    const int b = bh / H, h = bh - b * H;
    const int t = tok ? tok[(size_t)b * R + r] : r;
    pack_offsets at;
    at.rows = attn_rows_offset(b, h, t, c, rows_per_image, stride, off, hs);
    at.heads = ((size_t)bh * R + r) * hs + c;
    return at;
}

// One head element (or VEC = 4 consecutive ones) into the bf16 head matrix: rounded from fp32
// rows, copied from bf16 rows (the stored bits: no conversion).
template <int VEC>
static __device__ __forceinline__ void pack_elems(__nv_bfloat16 *d, const float *s) {
    if (VEC == 4) {
        const float4 v = *(const float4 *)s;
        __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
        uint2 packed;
        packed.x = *(const unsigned *)&lo;
        packed.y = *(const unsigned *)&hi;
        *(uint2 *)d = packed;
    } else {
        *d = __float2bfloat16_rn(*s);
    }
}
template <int VEC>
static __device__ __forceinline__ void pack_elems(__nv_bfloat16 *d, const __nv_bfloat16 *s) {
    if (VEC == 4) *(uint2 *)d = *(const uint2 *)s;
    else *d = *s;
}

// dst (B, H, R, hs) bf16 = channels [off + h·hs, off + (h+1)·hs) of rows tok[b][r] (r when tok is
// NULL) of src (B, rows_per_image, stride), fp32 (rounded) or bf16 (train.activations=bf16: read
// as stored). A thread per VEC consecutive channels of one head row (attn_pack_coords; consecutive
// threads along the channels: coalesced), 32-bit index math.
template <int VEC, typename S>
static __global__ void attn_pack_kernel(__nv_bfloat16 *dst, const S *src, int rows_per_image,
                                        int stride, int off, const int *tok, int B, int H, int R,
                                        int hs) {
    int r, c;
    if (!pack_thread(R, hs, VEC, &r, &c)) return;
    for (int bh = blockIdx.y; bh < B * H; bh += gridDim.y) {
        const pack_offsets at = pack_offsets_of(bh, r, c, H, R, hs, rows_per_image, stride, off, tok);
        pack_elems<VEC>(dst + at.heads, src + at.rows);
    }
}

// The destination's prior values for accumulate = 1: fp32 rows are read; bf16 rows are written
// only (train.activations=bf16's dqkv16), as if accumulated onto zero (0 + x: -0 becomes +0, as
// the fp32 route's zeroed dqkv gives).
template <int VEC>
static __device__ __forceinline__ void unpack_prior(float *o, const float *d) {
    if (VEC == 4) {
        const float4 x = *(const float4 *)d;
        o[0] = x.x, o[1] = x.y, o[2] = x.z, o[3] = x.w;
    } else {
        o[0] = *d;
    }
}
template <int VEC>
static __device__ __forceinline__ void unpack_prior(float *o, const __nv_bfloat16 *) {
#pragma unroll
    for (int k = 0; k < VEC; k++) o[k] = 0.0f;
}
template <int VEC>
static __device__ __forceinline__ void unpack_store(float *d, const float *o) {
    if (VEC == 4) *(float4 *)d = make_float4(o[0], o[1], o[2], o[3]);
    else *d = o[0];
}
template <int VEC>
static __device__ __forceinline__ void unpack_store(__nv_bfloat16 *d, const float *o) { // rounded once
    if (VEC == 4) {
        __nv_bfloat162 lo = __floats2bfloat162_rn(o[0], o[1]), hi = __floats2bfloat162_rn(o[2], o[3]);
        uint2 packed;
        packed.x = *(const unsigned *)&lo;
        packed.y = *(const unsigned *)&hi;
        *(uint2 *)d = packed;
    } else {
        *d = __float2bfloat16_rn(o[0]);
    }
}

// dst[b, tok[b][r], off + h·hs + c] (row stride `stride`) = or += alpha·src[b, h, r, c], src
// (B, H, R, hs) fp32; dst fp32, or bf16 rounded once (unpack_prior: a bf16 dst is written).
// accumulate = 0 overwrites (the forward's out), 1 adds (gradients). Each destination element is
// written by one thread (kv_index does not repeat a token: ops.h). The pack's grid and index
// math; the same arithmetic per element in either width.
template <int VEC, typename D>
static __global__ void attn_unpack_kernel(D *dst, const float *src, int rows_per_image,
                                          int stride, int off, const int *tok, int B, int H, int R,
                                          int hs, float alpha, int accumulate) {
    int r, c;
    if (!pack_thread(R, hs, VEC, &r, &c)) return;
    for (int bh = blockIdx.y; bh < B * H; bh += gridDim.y) {
        const pack_offsets at = pack_offsets_of(bh, r, c, H, R, hs, rows_per_image, stride, off, tok);
        D *d = dst + at.rows;
        const float *s = src + at.heads;
        float v[VEC], o[VEC];
        if (VEC == 4) {
            const float4 x = *(const float4 *)s;
            v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        } else {
            v[0] = *s;
        }
        if (accumulate) unpack_prior<VEC>(o, d);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            float a = alpha == 1.0f ? v[k] : __fmul_rn(alpha, v[k]);
            o[k] = accumulate ? __fadd_rn(o[k], a) : a;
        }
        unpack_store<VEC>(d, o);
    }
}

// One warp per row (b, h, i) of S (B, H, T, ld) fp32: s = scale·S + bias[h, i, tok(m)], masked
// keys -inf, p = exp(s - max) / Σ exp, P16 = bf16(p) (B, H, T, ld); a row that sees no key gets
// zeros. NV > 0: the row's M <= 32·NV values held in registers (lane l keeps keys l, l+32, ...),
// S read once and P16 written once; NV = 0: attn_softmax_numerators in place in S (M > 512).
// Both do the same arithmetic in the same order (the same bits).
template <int NV>
static __global__ void __launch_bounds__(ROW_THREADS)
attn_softmax_forward_kernel(__nv_bfloat16 *P16, float *S, const int *kv_index, const float *bias,
                            const int *group, int mask_mode, int B, int H, int T, int M, int ld,
                            float scale) {
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32;
    if (row >= (size_t)B * H * T) return; // the whole warp leaves together
    const int i = (int)(row % T), h = (int)(row / T % H), b = (int)(row / ((size_t)T * H));
    float *s = S + row * ld;
    __nv_bfloat16 *p = P16 + row * ld;
    const int *tok = kv_index ? kv_index + (size_t)b * M : NULL;
    const float *brow = bias ? bias + ((size_t)h * T + i) * T : NULL;
    const int *grp = group ? group + (size_t)b * T : NULL;
    const int gi = mask_mode != ATTN_MASK_NONE ? grp[i] : 0;
    if constexpr (NV == 0) {
        const float sum = attn_softmax_numerators(s, M, scale, tok, brow, grp, gi, mask_mode);
        if (sum == 0.0f) { // no visible key (or every visible score -inf): zeros (all NaN: sum NaN)
            for (int m = lane; m < M; m += 32) p[m] = __float2bfloat16_rn(0.0f);
            return;
        }
        for (int m = lane; m < M; m += 32) p[m] = __float2bfloat16_rn(s[m] / sum);
    } else {
        float v[NV];
        float mx = -INFINITY;
        int nan_seen = 0;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int m = lane + 32 * k;
            v[k] = -INFINITY;
            if (m < M) {
                const int j = tok ? tok[m] : m;
                float x = __fmul_rn(s[m], scale);
                if (brow) x = __fadd_rn(x, brow[j]);
                if (mask_mode != ATTN_MASK_NONE) {
                    const int gj = grp[j];
                    const int vis = mask_mode == ATTN_MASK_LE ? gj <= gi : gj < gi;
                    if (!vis) x = -INFINITY;
                }
                v[k] = x;
                nan_seen |= x != x;
                mx = fmaxf(mx, x);
            }
        }
        mx = attn_warp_max(mx);
        if (!(mx > -INFINITY)) { // zeros; every visible score NaN (fmaxf skips NaN): NaN, as torch
            const float fill = __any_sync(ATTN_FULL_MASK, nan_seen) ? NAN : 0.0f;
#pragma unroll
            for (int k = 0; k < NV; k++)
                if (lane + 32 * k < M) p[lane + 32 * k] = __float2bfloat16_rn(fill);
            return;
        }
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            if (lane + 32 * k < M) {
                v[k] = expf(v[k] - mx); // masked: expf(-inf) = 0
                sum += v[k];
            }
        }
        sum = attn_warp_sum(sum);
#pragma unroll
        for (int k = 0; k < NV; k++)
            if (lane + 32 * k < M) p[lane + 32 * k] = __float2bfloat16_rn(v[k] / sum);
    }
}

// One warp per row of dP (B, H, T, ld) fp32: dS = P·(dP − Σ_m P·dP) with P = P16 (the rounded
// probabilities the forward used); dS16 = bf16(dS) (B, H, T, ld); scratch (B, H, T, M) fp32 dS
// when non-NULL (dbias). NV > 0: the row's P and dP in registers (read once); NV = 0: read twice.
// The same arithmetic in the same order either way.
template <int NV>
static __global__ void __launch_bounds__(ROW_THREADS)
attn_softmax_backward_kernel(__nv_bfloat16 *dS16, float *scratch, const float *dP,
                             const __nv_bfloat16 *P16, size_t rows, int M, int ld) {
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32;
    if (row >= rows) return;
    const __nv_bfloat16 *p = P16 + row * ld;
    const float *dp = dP + row * ld;
    __nv_bfloat16 *ds16 = dS16 + row * ld;
    float *sc = scratch ? scratch + row * M : NULL;
    float part = 0.0f;
    if constexpr (NV == 0) {
        for (int m = lane; m < M; m += 32) part = fmaf(__bfloat162float(p[m]), dp[m], part);
        const float pdp = attn_warp_sum(part);
        for (int m = lane; m < M; m += 32) {
            float ds = __bfloat162float(p[m]) * (dp[m] - pdp); // p = 0 (masked / empty row): 0
            ds16[m] = __float2bfloat16_rn(ds);
            if (sc) sc[m] = ds;
        }
    } else {
        float pv[NV], dv[NV];
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int m = lane + 32 * k;
            pv[k] = 0.0f, dv[k] = 0.0f;
            if (m < M) {
                pv[k] = __bfloat162float(p[m]);
                dv[k] = dp[m];
                part = fmaf(pv[k], dv[k], part);
            }
        }
        const float pdp = attn_warp_sum(part);
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int m = lane + 32 * k;
            if (m < M) {
                float ds = pv[k] * (dv[k] - pdp);
                ds16[m] = __float2bfloat16_rn(ds);
                if (sc) sc[m] = ds;
            }
        }
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

// S (R1, R2) row-major per pair, leading dimension ld >= R2 = X (R1, hs) · Y (R2, hs)ᵀ:
// column-major Sᵀ = Y·Xᵀ.
static void gemm_abt(float *S, int ld, const __nv_bfloat16 *X, const __nv_bfloat16 *Y, int R1, int R2,
                     int hs, int batch) {
    batched_gemm(CUBLAS_OP_T, CUBLAS_OP_N, R2, R1, hs, Y, hs, (long long)R2 * hs, X, hs,
                 (long long)R1 * hs, S, ld, (long long)R1 * ld, batch);
}

// O (R1, hs) per pair = P (R1, R2; leading dimension ld) · Y (R2, hs): column-major Oᵀ = Yᵀ·Pᵀ.
static void gemm_ab(float *O, const __nv_bfloat16 *P, int ld, const __nv_bfloat16 *Y, int R1, int R2,
                    int hs, int batch) {
    batched_gemm(CUBLAS_OP_N, CUBLAS_OP_N, hs, R1, R2, Y, hs, (long long)R2 * hs, P, ld,
                 (long long)R1 * ld, O, hs, (long long)R1 * hs, batch);
}

// G (R2, hs) per pair = P (R1, R2; leading dimension ld)ᵀ · X (R1, hs): column-major Gᵀ = Xᵀ·P.
static void gemm_atb(float *G, const __nv_bfloat16 *P, int ld, const __nv_bfloat16 *X, int R1, int R2,
                     int hs, int batch) {
    batched_gemm(CUBLAS_OP_N, CUBLAS_OP_T, hs, R2, R1, X, hs, (long long)R1 * hs, P, ld,
                 (long long)R1 * ld, G, hs, (long long)R2 * hs, batch);
}

// The grid of a pack / unpack of R head rows of hs channels per (image, head) pair.
static dim3 pack_grid(int B, int H, int R, int hs, int vec) {
    unsigned per_pair = (unsigned)R * (unsigned)attn_pack_chunks(hs, vec);
    int pairs = B * H;
    return dim3(cuda_blocks(per_pair, PACK_THREADS), pairs < PAIR_GRID_MAX ? (unsigned)(pairs > 0 ? pairs : 1) : PAIR_GRID_MAX);
}

// dst (B, H, R, hs) bf16 from rows of src (see attn_pack_kernel), 4 channels per thread where the
// strides and pointers allow it.
template <typename S>
static void pack_heads(__nv_bfloat16 *dst, const S *src, int rows_per_image, int stride, int off,
                       const int *tok, int B, int H, int R, int hs) {
    if ((size_t)R * hs == 0 || B * H == 0) return;
    int vec = attn_pack_vec(hs, stride, off, (uintptr_t)src, (uintptr_t)dst, 2);
    dim3 grid = pack_grid(B, H, R, hs, vec);
    if (vec == 4)
        attn_pack_kernel<4><<<grid, PACK_THREADS, 0, cuda_stream()>>>(dst, src, rows_per_image, stride, off, tok, B, H, R, hs);
    else
        attn_pack_kernel<1><<<grid, PACK_THREADS, 0, cuda_stream()>>>(dst, src, rows_per_image, stride, off, tok, B, H, R, hs);
    CUDA_LAUNCH_CHECK();
}

// Rows of dst = (or +=) alpha·src (B, H, R, hs) fp32 (see attn_unpack_kernel).
template <typename D>
static void unpack_heads(D *dst, const float *src, int rows_per_image, int stride, int off, const int *tok,
                         int B, int H, int R, int hs, float alpha, int accumulate) {
    if ((size_t)R * hs == 0 || B * H == 0) return;
    int vec = attn_pack_vec(hs, stride, off, (uintptr_t)dst, (uintptr_t)src, 4);
    dim3 grid = pack_grid(B, H, R, hs, vec);
    if (vec == 4)
        attn_unpack_kernel<4><<<grid, PACK_THREADS, 0, cuda_stream()>>>(dst, src, rows_per_image, stride, off, tok, B, H, R, hs, alpha,
                                                      accumulate);
    else
        attn_unpack_kernel<1><<<grid, PACK_THREADS, 0, cuda_stream()>>>(dst, src, rows_per_image, stride, off, tok, B, H, R, hs, alpha,
                                                      accumulate);
    CUDA_LAUNCH_CHECK();
}

// Where a call's q, k and v rows live (core/attention_gemm_layout.h).
static attn_qkv_layout packed_layout(const attention_desc *d) { return attn_layout_packed(d->T, d->C, d->kv_index); }
static attn_qkv_layout compact_layout(const attention_desc *d) { return attn_layout_compact(d->M, d->C); }

// Q16, K16, V16 of every (b, h) from q's rows and kv's rows laid out as L says, fp32 or bf16.
template <typename S>
static void pack_qkv(__nv_bfloat16 *q16, __nv_bfloat16 *k16, __nv_bfloat16 *v16, const S *q, const S *kv,
                     const attn_qkv_layout &L, const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, hs = d->C / H;
    pack_heads(q16, q, T, L.q_stride, 0, NULL, B, H, T, hs);
    pack_heads(k16, kv, L.kv_rows, L.kv_stride, L.k_off, L.tok, B, H, M, hs);
    pack_heads(v16, kv, L.kv_rows, L.kv_stride, L.v_off, L.tok, B, H, M, hs);
}

// The softmax kernels for M keys: the register bucket attn_softmax_bucket chooses.
#define SOFTMAX_BUCKETS(X) X(1) X(2) X(4) X(8) X(16)

static void softmax_forward(__nv_bfloat16 *P16, float *S, const attention_desc *d, int ld, float scale) {
    size_t rows = (size_t)d->B * d->H * d->T;
    dim3 grid(cuda_blocks(rows, ROW_WARPS));
    switch (attn_softmax_bucket(d->M)) {
#define LAUNCH(n)                                                                                                   \
    case n:                                                                                                         \
        attn_softmax_forward_kernel<n><<<grid, ROW_THREADS, 0, cuda_stream()>>>(P16, S, d->kv_index, d->bias, d->group, d->mask_mode, \
                                                              d->B, d->H, d->T, d->M, ld, scale);                   \
        break;
        SOFTMAX_BUCKETS(LAUNCH)
#undef LAUNCH
    default:
        attn_softmax_forward_kernel<0><<<grid, ROW_THREADS, 0, cuda_stream()>>>(P16, S, d->kv_index, d->bias, d->group, d->mask_mode,
                                                              d->B, d->H, d->T, d->M, ld, scale);
    }
    CUDA_LAUNCH_CHECK();
}

static void softmax_backward(__nv_bfloat16 *dS16, float *scratch, const float *dP, const __nv_bfloat16 *P16,
                             const attention_desc *d, int ld) {
    size_t rows = (size_t)d->B * d->H * d->T;
    dim3 grid(cuda_blocks(rows, ROW_WARPS));
    switch (attn_softmax_bucket(d->M)) {
#define LAUNCH(n)                                                                                         \
    case n:                                                                                               \
        attn_softmax_backward_kernel<n><<<grid, ROW_THREADS, 0, cuda_stream()>>>(dS16, scratch, dP, P16, rows, d->M, ld); \
        break;
        SOFTMAX_BUCKETS(LAUNCH)
#undef LAUNCH
    default:
        attn_softmax_backward_kernel<0><<<grid, ROW_THREADS, 0, cuda_stream()>>>(dS16, scratch, dP, P16, rows, d->M, ld);
    }
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- in-place operands
// (the file's header, "In place"). One cublasGemmBatchedEx per product, a device array of B·H pair
// pointers per operand. The arrays are built per call, not cached by shape: they hold this call's
// addresses (each layer's activations are other buffers), and one small kernel writes all of a
// call's arrays (6 forward, 10 backward) into its workspace.
#define PAIR_ARRAYS_MAX ATTN_INPLACE_BWD_ARRAYS
#define POINTER_THREADS 256

typedef struct {
    const char *base[PAIR_ARRAYS_MAX]; // the tensor's element 0
    attn_view view[PAIR_ARRAYS_MAX];
    int elem_bytes[PAIR_ARRAYS_MAX];
    int n;
} pair_pointer_spec;

// arrays[a·B·H + b·H + h] = base[a] + attn_pair_offset(view[a], b, h) elements, for each array a.
static __global__ void attn_pair_pointers_kernel(const void **arrays, pair_pointer_spec spec, int B, int H) {
    const size_t BH = (size_t)B * H, e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= BH * (size_t)spec.n) return;
    const int a = (int)(e / BH), bh = (int)(e - (size_t)a * BH), b = bh / H, h = bh - b * H;
    arrays[e] = spec.base[a] + attn_pair_offset(spec.view[a], b, h) * (size_t)spec.elem_bytes[a];
}

// Adds an operand to spec; returns its pointer array's index.
static int spec_add(pair_pointer_spec *s, const void *base, attn_view v, int elem_bytes) {
    if (s->n >= PAIR_ARRAYS_MAX) die_fail("attention (in place): more than %d pointer arrays", PAIR_ARRAYS_MAX);
    s->base[s->n] = (const char *)base;
    s->view[s->n] = v;
    s->elem_bytes[s->n] = elem_bytes;
    return s->n++;
}

// Writes spec's B·H-pointer arrays into ws (room for spec.n of them); returns ws.
static const void **build_pair_pointers(void *ws, const pair_pointer_spec &spec, int B, int H) {
    const size_t n = (size_t)B * H * spec.n;
    attn_pair_pointers_kernel<<<cuda_blocks(n, POINTER_THREADS), POINTER_THREADS, 0, cuda_stream()>>>(
        (const void **)ws, spec, B, H);
    CUDA_LAUNCH_CHECK();
    return (const void **)ws;
}

// One product per pair from pointer arrays (column-major, as cuBLAS): C = alpha·op(A)·op(B), A and
// B bf16, C fp32 or bf16 (ctype), compute fp32.
static void pointer_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                         const void *const *A, int lda, const void *const *B, int ldb, const void **C,
                         cudaDataType ctype, int ldc, int batch) {
    const float zero = 0.0f;
    CUBLAS_CHECK(cublasGemmBatchedEx(cuda_cublas(), ta, tb, m, n, k, &alpha, A, CUDA_R_16BF, lda, B, CUDA_R_16BF, ldb,
                                     &zero, (void *const *)C, ctype, ldc, batch, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
}

static long inplace_calls; // cuda_attention_inplace_calls (host side, the calling thread's stream)
extern "C" long cuda_attention_inplace_calls(void) { return inplace_calls; }

// 1 when this bf16 call reads and writes in place (the setting, and attn_inplace_usable).
static int inplace_wanted(const attn_qkv_layout &Lq, const attention_desc *d, const void *q, const void *kv,
                          const void *o, const void *dq, const void *dkv) {
    return cuda_attention_route() == CUDA_ATTN_MATERIALISED_INPLACE &&
           attn_inplace_usable(&Lq, d->T, d->C, d->H, (uintptr_t)q, (uintptr_t)kv, (uintptr_t)o, (uintptr_t)dq,
                               (uintptr_t)dkv);
}

// The forward in place: S (T, M) = Q·Kᵀ (column-major Sᵀ = K·Qᵀ), softmax, O (T, hs) = P·V
// (column-major Oᵀ = Vᵀ·Pᵀ) written into out's rows.
static void inplace_forward(__nv_bfloat16 *out, float *state, const __nv_bfloat16 *q, const __nv_bfloat16 *kv,
                            const attn_qkv_layout &Lq, const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H, ld = attn_score_ld(M);
    const attn_inplace_views w = attn_inplace_views_of(&Lq, T, C, H);
    const attn_inplace_workspace L = attn_inplace_workspace_of(B, H, T, M);
    char *ws = (char *)cuda_alloc_transient(L.fwd_total, "attention workspace (in place: T×M scores, pointers)");
    float *S = (float *)(ws + L.mat32);
    __nv_bfloat16 *P16 = (__nv_bfloat16 *)state;
    pair_pointer_spec spec = {};
    const int aK = spec_add(&spec, kv, w.k, 2), aQ = spec_add(&spec, q, w.q, 2);
    const int aS = spec_add(&spec, S, attn_view_heads(H, T, ld), 4), aV = spec_add(&spec, kv, w.v, 2);
    const int aP = spec_add(&spec, P16, attn_view_heads(H, T, ld), 2), aO = spec_add(&spec, out, w.o, 2);
    const void **p = build_pair_pointers(ws + L.ptrs, spec, B, H);
    inplace_calls++;
    pointer_gemm(CUBLAS_OP_T, CUBLAS_OP_N, M, T, hs, 1.0f, p + aK * BH, w.k.ld, p + aQ * BH, w.q.ld, p + aS * BH,
                 CUDA_R_32F, ld, BH); // S (T, M) = Q·Kᵀ
    softmax_forward(P16, S, d, ld, 1.0f / sqrtf((float)hs));
    pointer_gemm(CUBLAS_OP_N, CUBLAS_OP_N, hs, T, M, 1.0f, p + aV * BH, w.v.ld, p + aP * BH, ld, p + aO * BH,
                 CUDA_R_16BF, w.o.ld, BH); // O (T, hs) = P·V, into out
    cuda_free_transient(ws);
}

// The backward in place: dP = dO·Vᵀ, dS, then dQ = scale·dS·K, dK = scale·dSᵀ·Q, dV = Pᵀ·dO
// written (not accumulated) into the gradient rows.
static void inplace_backward(__nv_bfloat16 *dq, __nv_bfloat16 *dkv, const __nv_bfloat16 *dout, const __nv_bfloat16 *q,
                             const __nv_bfloat16 *kv, const float *state, const attn_qkv_layout &Lq,
                             const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H, ld = attn_score_ld(M);
    const attn_inplace_views w = attn_inplace_views_of(&Lq, T, C, H);
    const attn_inplace_workspace L = attn_inplace_workspace_of(B, H, T, M);
    char *ws = (char *)cuda_alloc_transient(L.total, "attention workspace (in place: T×M gradients, pointers)");
    float *dP = (float *)(ws + L.mat32);
    __nv_bfloat16 *dS16 = (__nv_bfloat16 *)(ws + L.mat16);
    const __nv_bfloat16 *P16 = (const __nv_bfloat16 *)state;
    const attn_view tm = attn_view_heads(H, T, ld);
    pair_pointer_spec spec = {};
    const int aV = spec_add(&spec, kv, w.v, 2), aDO = spec_add(&spec, dout, w.o, 2), aDP = spec_add(&spec, dP, tm, 4);
    const int aK = spec_add(&spec, kv, w.k, 2), aDS = spec_add(&spec, dS16, tm, 2), aDQ = spec_add(&spec, dq, w.q, 2);
    const int aQ = spec_add(&spec, q, w.q, 2), aDK = spec_add(&spec, dkv, w.k, 2);
    const int aP = spec_add(&spec, P16, tm, 2), aDV = spec_add(&spec, dkv, w.v, 2);
    const void **p = build_pair_pointers(ws + L.bwd_ptrs, spec, B, H);
    inplace_calls++;
    const float scale = 1.0f / sqrtf((float)hs);
    pointer_gemm(CUBLAS_OP_T, CUBLAS_OP_N, M, T, hs, 1.0f, p + aV * BH, w.v.ld, p + aDO * BH, w.o.ld, p + aDP * BH,
                 CUDA_R_32F, ld, BH); // dP (T, M) = dO·Vᵀ
    softmax_backward(dS16, NULL, dP, P16, d, ld);
    pointer_gemm(CUBLAS_OP_N, CUBLAS_OP_N, hs, T, M, scale, p + aK * BH, w.k.ld, p + aDS * BH, ld, p + aDQ * BH,
                 CUDA_R_16BF, w.q.ld, BH); // dQ (T, hs) = scale·dS·K
    pointer_gemm(CUBLAS_OP_N, CUBLAS_OP_T, hs, M, T, scale, p + aQ * BH, w.q.ld, p + aDS * BH, ld, p + aDK * BH,
                 CUDA_R_16BF, w.k.ld, BH); // dK (M, hs) = scale·dSᵀ·Q
    pointer_gemm(CUBLAS_OP_N, CUBLAS_OP_T, hs, M, T, 1.0f, p + aDO * BH, w.o.ld, p + aP * BH, ld, p + aDV * BH,
                 CUDA_R_16BF, w.v.ld, BH); // dV (M, hs) = Pᵀ·dO
    cuda_free_transient(ws);
}

// The forward on q, kv (laid out as Lq says; the packed layout passes qkv twice) and out of type X:
// fp32 (attention_forward) or bf16 (attention_forward_bf16, attention_kv_forward_bf16: q, k, v
// packed from the stored bits, out rounded once by the unpack). The caller has checked d.
template <typename X>
static void gemm_forward(X *out, float *state, const X *q, const X *kv, const attn_qkv_layout &Lq, const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H;
    const int ld = attn_score_ld(M);
    const attn_gemm_workspace L = attn_gemm_workspace_of(B, H, T, M, C);
    char *ws = (char *)cuda_alloc_transient(L.fwd_total, "attention workspace (bf16 heads, T×M scores)");
    __nv_bfloat16 *q16 = (__nv_bfloat16 *)(ws + L.q16), *k16 = (__nv_bfloat16 *)(ws + L.k16);
    __nv_bfloat16 *v16 = (__nv_bfloat16 *)(ws + L.v16), *P16 = (__nv_bfloat16 *)state;
    float *S = (float *)(ws + L.mat32), *O = (float *)(ws + L.o32);
    pack_qkv(q16, k16, v16, q, kv, Lq, d);
    gemm_abt(S, ld, q16, k16, T, M, hs, BH); // S (T, M) = Q·Kᵀ
    softmax_forward(P16, S, d, ld, 1.0f / sqrtf((float)hs));
    gemm_ab(O, P16, ld, v16, T, M, hs, BH); // O (T, hs) = P·V
    unpack_heads(out, O, T, C, 0, NULL, B, H, T, hs, 1.0f, 0);
    cuda_free_transient(ws);
}

// The backward on dout, q, kv and their gradients dq, dkv (laid out as Lq says; the packed layout
// passes qkv and dqkv twice) of type X: fp32 (attention_backward: dqkv +=) or bf16
// (attention_backward_bf16, attention_kv_backward_bf16: dO packed from the stored bits, the
// gradients written, rounded once). The caller has checked d.
template <typename X>
static void gemm_backward(X *dq, X *dkv, float *dbias, float *scratch, const X *dout, const X *q, const X *kv,
                          const float *state, const attn_qkv_layout &Lq, const attention_desc *d) {
    const int B = d->B, H = d->H, T = d->T, M = d->M, C = d->C, hs = C / H, BH = B * H;
    const int ld = attn_score_ld(M);
    const int want_dbias = d->bias != NULL && dbias != NULL;
    if (want_dbias && scratch == NULL)
        die_fail("attention_backward: dbias requested without scratch (B, H, T, M)");
    if (dq == NULL && !want_dbias) return;
    const attn_gemm_workspace L = attn_gemm_workspace_of(B, H, T, M, C);
    char *ws = (char *)cuda_alloc_transient(L.total, "attention workspace (bf16 heads, T×M gradients)");
    __nv_bfloat16 *q16 = (__nv_bfloat16 *)(ws + L.q16), *k16 = (__nv_bfloat16 *)(ws + L.k16);
    __nv_bfloat16 *v16 = (__nv_bfloat16 *)(ws + L.v16), *do16 = (__nv_bfloat16 *)(ws + L.do16);
    __nv_bfloat16 *dS16 = (__nv_bfloat16 *)(ws + L.mat16);
    const __nv_bfloat16 *P16 = (const __nv_bfloat16 *)state;
    float *dP = (float *)(ws + L.mat32), *dQ = (float *)(ws + L.o32);
    float *dK = (float *)(ws + L.dk32), *dV = (float *)(ws + L.dv32);
    pack_qkv(q16, k16, v16, q, kv, Lq, d);
    pack_heads(do16, dout, T, C, 0, NULL, B, H, T, hs);
    gemm_abt(dP, ld, do16, v16, T, M, hs, BH); // dP (T, M) = dO·Vᵀ
    softmax_backward(dS16, want_dbias ? scratch : NULL, dP, P16, d, ld);
    if (dq) {
        const float scale = 1.0f / sqrtf((float)hs);
        gemm_ab(dQ, dS16, ld, k16, T, M, hs, BH);  // dQ (T, hs) = dS·K
        gemm_atb(dK, dS16, ld, q16, T, M, hs, BH); // dK (M, hs) = dSᵀ·Q
        gemm_atb(dV, P16, ld, do16, T, M, hs, BH); // dV (M, hs) = Pᵀ·dO
        unpack_heads(dq, dQ, T, Lq.q_stride, 0, NULL, B, H, T, hs, scale, 1);
        unpack_heads(dkv, dK, Lq.kv_rows, Lq.kv_stride, Lq.k_off, Lq.tok, B, H, M, hs, scale, 1);
        unpack_heads(dkv, dV, Lq.kv_rows, Lq.kv_stride, Lq.v_off, Lq.tok, B, H, M, hs, 1.0f, 1);
    }
    cuda_free_transient(ws);
    if (want_dbias) cuda_attention_dbias_reduce(dbias, scratch, d);
}

void cuda_attention_gemm_forward(float *out, float *state, const float *qkv, const attention_desc *d) {
    attention_desc_check(d, "attention_forward (bf16 materialised)");
    gemm_forward(out, state, qkv, qkv, packed_layout(d), d);
}

void cuda_attention_gemm_backward(float *dqkv, float *dbias, float *scratch, const float *dout, const float *qkv,
                                  const float *state, const attention_desc *d) {
    attention_desc_check(d, "attention_backward (bf16 materialised)");
    gemm_backward(dqkv, dqkv, dbias, scratch, dout, qkv, qkv, state, packed_layout(d), d);
}

void cuda_attention_gemm_forward_bf16(bfloat16 *out16, float *state, const bfloat16 *qkv16, const attention_desc *d) {
    attention_desc_check(d, "attention_forward_bf16 (materialised)");
    const __nv_bfloat16 *qkv = (const __nv_bfloat16 *)qkv16;
    const attn_qkv_layout L = packed_layout(d);
    if (inplace_wanted(L, d, qkv, qkv, out16, NULL, NULL)) inplace_forward((__nv_bfloat16 *)out16, state, qkv, qkv, L, d);
    else gemm_forward((__nv_bfloat16 *)out16, state, qkv, qkv, L, d);
}

void cuda_attention_gemm_backward_bf16(bfloat16 *dqkv16, const bfloat16 *dout16, const bfloat16 *qkv16, const float *state,
                                       const attention_desc *d) {
    attention_desc_check(d, "attention_backward_bf16 (materialised)");
    __nv_bfloat16 *dqkv = (__nv_bfloat16 *)dqkv16;
    const __nv_bfloat16 *qkv = (const __nv_bfloat16 *)qkv16;
    const __nv_bfloat16 *dout = (const __nv_bfloat16 *)dout16;
    const attn_qkv_layout L = packed_layout(d);
    if (inplace_wanted(L, d, qkv, qkv, dout, dqkv, dqkv)) inplace_backward(dqkv, dqkv, dout, qkv, qkv, state, L, d);
    else gemm_backward(dqkv, dqkv, (float *)NULL, (float *)NULL, dout, qkv, qkv, state, L, d);
}

void cuda_attention_gemm_kv_forward_bf16(bfloat16 *out16, float *state, const bfloat16 *q16, const bfloat16 *kv16,
                                         const attention_desc *d) {
    attention_desc_check_kv_bf16(d, "attention_kv_forward_bf16 (materialised)");
    const __nv_bfloat16 *q = (const __nv_bfloat16 *)q16, *kv = (const __nv_bfloat16 *)kv16;
    const attn_qkv_layout L = compact_layout(d);
    if (inplace_wanted(L, d, q, kv, out16, NULL, NULL)) inplace_forward((__nv_bfloat16 *)out16, state, q, kv, L, d);
    else gemm_forward((__nv_bfloat16 *)out16, state, q, kv, L, d);
}

void cuda_attention_gemm_kv_backward_bf16(bfloat16 *dq16, bfloat16 *dkv16, const bfloat16 *dout16, const bfloat16 *q16,
                                          const bfloat16 *kv16, const float *state, const attention_desc *d) {
    attention_desc_check_kv_bf16(d, "attention_kv_backward_bf16 (materialised)");
    __nv_bfloat16 *dq = (__nv_bfloat16 *)dq16, *dkv = (__nv_bfloat16 *)dkv16;
    const __nv_bfloat16 *dout = (const __nv_bfloat16 *)dout16, *q = (const __nv_bfloat16 *)q16;
    const __nv_bfloat16 *kv = (const __nv_bfloat16 *)kv16;
    const attn_qkv_layout L = compact_layout(d);
    if (inplace_wanted(L, d, q, kv, dout, dq, dkv)) inplace_backward(dq, dkv, dout, q, kv, state, L, d);
    else gemm_backward(dq, dkv, (float *)NULL, (float *)NULL, dout, q, kv, state, L, d);
}
