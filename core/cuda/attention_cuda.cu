// core/cuda/attention_cuda.cu — the CUDA backend's multi-head attention (forward and
// backward). Contract: attention_desc in core/ops.h — packed qkv (B, T, 3C), head h uses
// channels [h·hs, (h+1)·hs) of q, k and v (hs = C/H), scores q·k/sqrt(hs) (+ bias[h, i, j],
// j the key TOKEN), group mask (LT / LE), softmax over the M key slots; probs (B, H, T, M)
// is materialised by the forward and read by the backward. These kernels serve
// attention_desc.keep_probs == 1 (attention statistics); with keep_probs == 0 (training) the
// entry points hand over (core/attention_route.c decides) to the materialised bf16 route of
// attention_gemm_cuda.cu (train.precision bf16, cuBLAS on the tensor cores), to cuDNN's flash
// attention (attention_cudnn.cpp: bf16, when set with CUDA_ATTN_CUDNN and the call is plain
// attention) or to the fused fp32 kernels of attention_fused_cuda.cu, which keep no T×M matrix
// (fp32, long sequences). The dbias reduction below serves the materialised and fused routes
// too. A query that sees no key gets
// zero probabilities, zero output and zero gradient, never NaN (core/attention_cpu.c's rule).
// The desc struct lives on the host; its kv_index / bias / group pointers are device pointers.
//
// Kernels (256 threads; all staging in at most 48 KiB of dynamic shared memory):
//   attention_forward_kernel      grid (⌈T/qt⌉, H, B): qt query rows of one (b, h). The q rows
//                                 are staged once; k, then v, are streamed through shared
//                                 memory in tiles of ATT_KT key slots; the qt score rows (qt, M)
//                                 stay in shared memory for the softmax and for P·V.
//   attention_bwd_query_kernel    grid (⌈T/qt⌉, H, B): per query row i, dp = dout_i·v_m,
//                                 dscore = p ⊙ (dp − Σ_m p·dp), written to scratch when dbias is
//                                 wanted; dq_i = scale·Σ_m dscore_m k_m.
//   attention_bwd_kv_kernel       grid (⌈M/kt2⌉, H, B): kt2 key slots of one (b, h). Walks the
//                                 query rows i = 0..T-1 in order, recomputing each row's dp
//                                 (all M slots: the row sum Σ p·dp needs them) with exactly the
//                                 code of the query kernel, so its dscores are bitwise the ones
//                                 the query kernel used; dk_m = scale·Σ_i dscore_im q_i,
//                                 dv_m = Σ_i p_im dout_i, added into the rows of key tokens
//                                 kv_index[b][m]. It needs no workspace: models/vit.c passes
//                                 scratch = NULL whenever there is no bias to differentiate.
//   attention_dbias_kernel        grid (H·T): one (h, query i) row of dbias; adds scratch over
//                                 b = 0..B-1 in order (as the CPU does), per b each key slot m
//                                 adding into its token j = kv_index[b][m].
//
// Determinism: no atomics; every output element is owned by one thread, and every sum runs in a
// fixed order: dots over the head channels c = 0..hs-1 and P·V / dS·K over key slots m = 0..M-1
// as one FMA chain each, dk/dv over queries i = 0..T-1 as one chain each, the softmax row sum
// and Σ p·dp as 32 lane partials (lane l takes m ≡ l mod 32 in order) folded by a fixed
// shuffle tree. Results are bitwise reproducible run to run. They are NOT bitwise the CPU's:
// the CPU uses a polynomial exp, 16-lane partial sums and separate multiply/add (no FMA).
//
// kv_index must not repeat a token within an image (qkv_pack's rule): two slots of one token
// would write the same dk/dv and dbias elements from different threads. Head size hs <= 128.
#include "ops_cuda_internal.cuh"
#include "attention_cuda.cuh"
#include <math.h>
extern "C" {
#include "../attention_route.h"
#include "attention_cudnn.h"
}

#define ATT_THREADS ATTN_THREADS               // threads per block (8 warps)
#define ATT_WARPS ATTN_WARPS
#define ATT_QT 16                              // most query rows per block (fewer if M is large)
#define ATT_KT 32                              // key slots per shared-memory tile of k or v
#define ATT_MAX_HS 128                         // largest head size supported
#define ATT_FWD_ACC (ATT_QT * ATT_MAX_HS / ATT_THREADS) // out/dq elements per thread (8)
#define ATT_KV_ACC 16                          // dk (and dv) elements per thread in the kv kernel
#define ATT_KV_SLOTS 128                       // most key slots per kv block
#define ATT_SMEM_LIMIT (48 * 1024)             // bytes of dynamic shared memory per block

// Everything a kernel needs, passed by value (pointers are device pointers).
typedef struct {
    int B, T, C, H, M;
    int hs;          // head size C / H
    int mask_mode;   // ATTN_MASK_*
    int qt;          // query rows per block
    int kt2;         // key slots per kv-kernel block
    float scale;     // 1 / sqrt(hs)
    const int *kv_index; // (B, M) or NULL
    const float *bias;   // (H, T, T) or NULL
    const int *group;    // (B, T) or NULL
} attn_args;

// ---------------------------------------------------------------- device helpers
// (warp max / sum / dot and tile loads: attention_cuda.cuh)

// S[r·ldS + m0 + mm] = Σ_{c=0..hs-1} A[r·lda + c]·Bt[mm·ldb + c] for r < nrows, mm < kt.
// One warp per row, lane = key slot (kt <= 32); Bt has stride hs+1 so lanes hit distinct
// banks. Each dot is one FMA chain over c in order.
static __device__ __forceinline__ void tile_dots(float *S, int ldS, int m0, const float *A,
                                                 int lda, const float *Bt, int ldb, int nrows,
                                                 int kt, int hs) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int r = warp; r < nrows; r += ATT_WARPS) {
        if (lane >= kt) continue;
        const float *a = A + r * lda, *bt = Bt + lane * ldb;
        float acc = 0.0f;
        for (int c = 0; c < hs; c++) acc = fmaf(a[c], bt[c], acc);
        S[r * ldS + m0 + lane] = acc;
    }
}

// acc[k] += Σ_{mm<kt} S[r·ldS + m0 + mm]·Bt[mm·ldb + c] for this thread's elements
// e = tid + k·ATT_THREADS < nrows·hs, (r, c) = (e / hs, e % hs). One FMA chain per element,
// continued tile after tile: key slots in order 0..M-1.
template <int NACC>
static __device__ __forceinline__ void tile_accumulate(float (&acc)[NACC], const float *S, int ldS,
                                                       int m0, const float *Bt, int ldb,
                                                       int nrows, int kt, int hs) {
#pragma unroll
    for (int k = 0; k < NACC; k++) {
        int e = threadIdx.x + k * ATT_THREADS;
        if (e < nrows * hs) {
            int r = e / hs, c = e - r * hs;
            const float *s = S + r * ldS + m0;
            float v = acc[k];
            for (int mm = 0; mm < kt; mm++) v = fmaf(s[mm], Bt[mm * ldb + c], v);
            acc[k] = v;
        }
    }
}

// dp rows (nq, M) of query rows i0.. : dp[r, m] = dout_i·v_m. A (qt, hs) holds the dout rows
// (already loaded, synchronised by the first barrier below); Bs is the (ATT_KT, hs+1) tile.
// Ends with a barrier: S is complete, Bs free.
static __device__ __forceinline__ void dp_rows(float *S, const float *A, float *Bs,
                                               const float *x, const int *tok,
                                               const attn_args &a, int h, int nq) {
    const int hs = a.hs, M = a.M, C3 = 3 * a.C;
    for (int m0 = 0; m0 < M; m0 += ATT_KT) {
        int kt = min(ATT_KT, M - m0);
        __syncthreads(); // Bs no longer read by the previous tile
        attn_load_rows(Bs, hs + 1, x, C3, 2 * a.C + h * hs, tok, m0, ATT_KT, M, hs);
        __syncthreads();
        tile_dots(S, M, m0, A, hs, Bs, hs + 1, nq, kt, hs);
    }
    __syncthreads();
}

// ---------------------------------------------------------------- forward
// out (B, T, C) = per head softmax(mask(scale·Q·Kᵀ + bias))·V; probs (B, H, T, M).
// Shared memory: Qs (qt, hs) | Bs (ATT_KT, hs+1) k then v tiles | S (qt, M) scores → probs.
static __global__ void __launch_bounds__(ATT_THREADS)
attention_forward_kernel(float *out, float *probs, const float *qkv, attn_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, qt = a.qt, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * qt;
    const int nq = min(qt, T - i0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Qs = smem;                      // (qt, hs)
    float *Bs = Qs + qt * hs;              // (ATT_KT, hs+1)
    float *S = Bs + ATT_KT * (hs + 1);     // (qt, M)
    const float *x = qkv + (size_t)b * T * C3;                      // (T, 3C) this image
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL; // (M) key tokens

    // 1. raw scores S = Q·Kᵀ
    attn_load_rows(Qs, hs, x, C3, h * hs, NULL, i0, qt, T, hs);
    for (int m0 = 0; m0 < M; m0 += ATT_KT) {
        int kt = min(ATT_KT, M - m0);
        __syncthreads();
        attn_load_rows(Bs, hs + 1, x, C3, C + h * hs, tok, m0, ATT_KT, M, hs);
        __syncthreads();
        tile_dots(S, M, m0, Qs, hs, Bs, hs + 1, nq, kt, hs);
    }
    __syncthreads();

    // 2. scale, bias, mask, softmax; one warp per query row
    for (int r = warp; r < nq; r += ATT_WARPS) {
        const int i = i0 + r;
        float *s = S + r * M;
        float *prow = probs + (((size_t)b * a.H + h) * T + i) * M;
        const float *brow = a.bias ? a.bias + ((size_t)h * T + i) * T : NULL; // by key token
        const int *grp = a.group ? a.group + (size_t)b * T : NULL;
        const int gi = a.mask_mode != ATTN_MASK_NONE ? grp[i] : 0;
        const float sum = attn_softmax_numerators(s, M, a.scale, tok, brow, grp, gi, a.mask_mode);
        if (sum == 0.0f) { // no visible key (or all visible scores -inf): zeros (all NaN: sum NaN)
            for (int m = lane; m < M; m += 32) { s[m] = 0.0f; prow[m] = 0.0f; }
            continue;
        }
        for (int m = lane; m < M; m += 32) {
            float p = s[m] / sum;
            s[m] = p;
            prow[m] = p;
        }
    }

    // 3. out = P·V
    float acc[ATT_FWD_ACC];
#pragma unroll
    for (int k = 0; k < ATT_FWD_ACC; k++) acc[k] = 0.0f;
    for (int m0 = 0; m0 < M; m0 += ATT_KT) {
        int kt = min(ATT_KT, M - m0);
        __syncthreads(); // S complete (first tile) / Bs no longer read
        attn_load_rows(Bs, hs + 1, x, C3, 2 * C + h * hs, tok, m0, ATT_KT, M, hs);
        __syncthreads();
        tile_accumulate(acc, S, M, m0, Bs, hs + 1, nq, kt, hs);
    }
#pragma unroll
    for (int k = 0; k < ATT_FWD_ACC; k++) {
        int e = threadIdx.x + k * ATT_THREADS;
        if (e < nq * hs) {
            int r = e / hs, c = e - r * hs;
            out[((size_t)b * T + i0 + r) * C + h * hs + c] = acc[k];
        }
    }
}

// ---------------------------------------------------------------- backward: queries
// dscore (B, H, T, M) = p ⊙ (dp − Σ_m p·dp), dp = dout·vᵀ → scratch when non-NULL;
// dqkv[b, i, q channels of h] += scale·Σ_m dscore_m k_m when dqkv is non-NULL.
// Shared memory: As (qt, hs) dout rows | Bs (ATT_KT, hs+1) v then k tiles | S (qt, M) dp → dscore.
static __global__ void __launch_bounds__(ATT_THREADS)
attention_bwd_query_kernel(float *dqkv, float *scratch, const float *dout, const float *qkv,
                           const float *probs, attn_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, qt = a.qt, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * qt;
    const int nq = min(qt, T - i0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *As = smem;                      // (qt, hs)
    float *Bs = As + qt * hs;              // (ATT_KT, hs+1)
    float *S = Bs + ATT_KT * (hs + 1);     // (qt, M)
    const float *x = qkv + (size_t)b * T * C3;
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL;

    // 1. dp = dO·Vᵀ
    attn_load_rows(As, hs, dout + (size_t)b * T * C, C, h * hs, NULL, i0, qt, T, hs);
    dp_rows(S, As, Bs, x, tok, a, h, nq);

    // 2. dscore rows; one warp per query row
    for (int r = warp; r < nq; r += ATT_WARPS) {
        const size_t row = ((size_t)b * a.H + h) * T + i0 + r;
        const float *p = probs + row * M;
        float *s = S + r * M;
        const float pdp = attn_warp_dot(p, s, M);
        for (int m = lane; m < M; m += 32) {
            float ds = p[m] * (s[m] - pdp); // p = 0 (masked / empty row): 0
            s[m] = ds;
            if (scratch) scratch[row * M + m] = ds;
        }
    }
    if (!dqkv) return; // only the dscores were wanted (block-uniform)

    // 3. dq = scale·dS·K
    float acc[ATT_FWD_ACC];
#pragma unroll
    for (int k = 0; k < ATT_FWD_ACC; k++) acc[k] = 0.0f;
    for (int m0 = 0; m0 < M; m0 += ATT_KT) {
        int kt = min(ATT_KT, M - m0);
        __syncthreads();
        attn_load_rows(Bs, hs + 1, x, C3, C + h * hs, tok, m0, ATT_KT, M, hs);
        __syncthreads();
        tile_accumulate(acc, S, M, m0, Bs, hs + 1, nq, kt, hs);
    }
#pragma unroll
    for (int k = 0; k < ATT_FWD_ACC; k++) {
        int e = threadIdx.x + k * ATT_THREADS;
        if (e < nq * hs) {
            int r = e / hs, c = e - r * hs;
            float *d = dqkv + ((size_t)b * T + i0 + r) * C3 + h * hs + c;
            *d = __fadd_rn(*d, __fmul_rn(a.scale, acc[k]));
        }
    }
}

// ---------------------------------------------------------------- backward: keys and values
// For key slots s0..s0+ns-1 of (b, h): dqkv[b, kv_index[b][m], k channels of h] +=
// scale·Σ_i dscore_im q_i and [v channels] += Σ_i p_im dout_i, i = 0..T-1 in order.
// Shared memory: dOs (qt, hs) | Bs (ATT_KT, hs+1) v tiles, then the q rows (qt, hs) |
// S (qt, M) dp | dsS (qt, kt2) dscores of this block's slots | pS (qt, kt2) their probs.
// At least 3 blocks per SM, i.e. at most 80 registers: with the thread count alone ptxas (CUDA 13,
// sm_90) kept 64 registers and spilled 4 bytes (the build's spill guard, Makefile); at 80 none.
static __global__ void __launch_bounds__(ATT_THREADS, 3)
attention_bwd_kv_kernel(float *dqkv, const float *dout, const float *qkv, const float *probs,
                        attn_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, qt = a.qt, kt2 = a.kt2, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, s0 = blockIdx.x * kt2;
    const int ns = min(kt2, M - s0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *dOs = smem;                     // (qt, hs)
    float *Bs = dOs + qt * hs;             // (ATT_KT, hs+1); later (qt, hs) q rows
    float *S = Bs + ATT_KT * (hs + 1);     // (qt, M)
    float *dsS = S + qt * M;               // (qt, kt2)
    float *pS = dsS + qt * kt2;            // (qt, kt2)
    const float *x = qkv + (size_t)b * T * C3;
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL;

    float dk[ATT_KV_ACC], dv[ATT_KV_ACC];
#pragma unroll
    for (int k = 0; k < ATT_KV_ACC; k++) { dk[k] = 0.0f; dv[k] = 0.0f; }

    for (int i0 = 0; i0 < T; i0 += qt) {
        const int nq = min(qt, T - i0);
        __syncthreads(); // the previous query tile's dOs / q rows / dsS / pS no longer read
        attn_load_rows(dOs, hs, dout + (size_t)b * T * C, C, h * hs, NULL, i0, qt, T, hs);
        dp_rows(S, dOs, Bs, x, tok, a, h, nq); // same dp as the query kernel

        // dscores and probs of this block's slots (same formula as the query kernel)
        for (int r = warp; r < nq; r += ATT_WARPS) {
            const float *p = probs + (((size_t)b * a.H + h) * T + i0 + r) * M;
            const float *s = S + r * M;
            const float pdp = attn_warp_dot(p, s, M);
            for (int mm = lane; mm < ns; mm += 32) {
                float pm = p[s0 + mm];
                dsS[r * kt2 + mm] = pm * (s[s0 + mm] - pdp);
                pS[r * kt2 + mm] = pm;
            }
        }
        attn_load_rows(Bs, hs, x, C3, h * hs, NULL, i0, qt, T, hs); // q rows (Bs free after dp_rows)
        __syncthreads();

        // dk += dsᵀ·Q, dv += Pᵀ·dO over this tile's rows in order
#pragma unroll
        for (int k = 0; k < ATT_KV_ACC; k++) {
            int e = threadIdx.x + k * ATT_THREADS;
            if (e < ns * hs) {
                int mm = e / hs, c = e - mm * hs;
                float gk = dk[k], gv = dv[k];
                for (int r = 0; r < nq; r++) {
                    gk = fmaf(dsS[r * kt2 + mm], Bs[r * hs + c], gk);
                    gv = fmaf(pS[r * kt2 + mm], dOs[r * hs + c], gv);
                }
                dk[k] = gk;
                dv[k] = gv;
            }
        }
    }

#pragma unroll
    for (int k = 0; k < ATT_KV_ACC; k++) {
        int e = threadIdx.x + k * ATT_THREADS;
        if (e < ns * hs) {
            int mm = e / hs, c = e - mm * hs, m = s0 + mm;
            int j = tok ? tok[m] : m;
            float *dkp = dqkv + ((size_t)b * T + j) * C3 + C + h * hs + c;
            float *dvp = dkp + C;
            *dkp = __fadd_rn(*dkp, __fmul_rn(a.scale, dk[k]));
            *dvp = __fadd_rn(*dvp, dv[k]);
        }
    }
}

// ---------------------------------------------------------------- backward: bias
// dbias[h, i, j] (H, T, T) += Σ_b scratch[b, h, i, m] with j = kv_index[b][m] (m when NULL),
// b = 0..B-1 in order: one block per (h, i) row. With kv_index the row is held in shared
// memory (T floats) and a barrier separates consecutive images.
static __global__ void __launch_bounds__(ATT_THREADS)
attention_dbias_kernel(float *dbias, const float *scratch, attn_args a) {
    extern __shared__ float smem[];
    const int T = a.T, M = a.M, H = a.H;
    const int h = blockIdx.x / T, i = blockIdx.x % T;
    float *drow = dbias + (size_t)blockIdx.x * T; // (T) by key token
    if (!a.kv_index) { // M == T, slot m is token m: a chain over b per element
        for (int j = threadIdx.x; j < T; j += ATT_THREADS) {
            float acc = drow[j];
            for (int b = 0; b < a.B; b++) acc += scratch[(((size_t)b * H + h) * T + i) * M + j];
            drow[j] = acc;
        }
        return;
    }
    float *row = smem; // (T)
    for (int j = threadIdx.x; j < T; j += ATT_THREADS) row[j] = drow[j];
    __syncthreads();
    for (int b = 0; b < a.B; b++) {
        const float *srow = scratch + (((size_t)b * H + h) * T + i) * M;
        const int *tok = a.kv_index + (size_t)b * M;
        for (int m = threadIdx.x; m < M; m += ATT_THREADS) row[tok[m]] += srow[m];
        __syncthreads(); // image b complete before image b+1 touches the row
    }
    for (int j = threadIdx.x; j < T; j += ATT_THREADS) drow[j] = row[j];
}

// ---------------------------------------------------------------- host side

// Checks the descriptor (a violation is a programming error: exit 1) like the CPU backend
// does — except kv_index's range, which lives on the device — and fills the kernel arguments.
static attn_args attn_make_args(const attention_desc *d, const char *who) {
    attention_desc_check(d, who);
    attn_args a;
    a.B = d->B; a.T = d->T; a.C = d->C; a.H = d->H; a.M = d->M;
    a.hs = d->C / d->H;
    if (a.hs > ATT_MAX_HS)
        die_fail("%s: head size %d > %d is not supported by the CUDA attention", who, a.hs,
                 ATT_MAX_HS);
    a.mask_mode = d->mask_mode;
    a.scale = 1.0f / sqrtf((float)a.hs);
    a.kv_index = d->kv_index;
    a.bias = d->bias;
    a.group = d->group;
    int kt2 = ATT_KV_ACC * ATT_THREADS / a.hs;
    if (kt2 > ATT_KV_SLOTS) kt2 = ATT_KV_SLOTS;
    if (kt2 > a.M) kt2 = a.M > 0 ? a.M : 1;
    a.kt2 = kt2;
    a.qt = ATT_QT;
    return a;
}

// Shared-memory floats of the forward / query kernels and of the kv kernel for qt rows.
static size_t smem_rows_floats(const attn_args *a, int qt) {
    return (size_t)qt * a->hs + (size_t)ATT_KT * (a->hs + 1) + (size_t)qt * a->M;
}
static size_t smem_kv_floats(const attn_args *a, int qt) {
    return smem_rows_floats(a, qt) + 2 * (size_t)qt * a->kt2;
}

// The largest qt in {16, 8, 4, 2, 1} whose layout fits ATT_SMEM_LIMIT (the score rows grow
// with M); dies when even one row does not fit (M in the thousands).
static int pick_qt(const attn_args *a, int kv, const char *who) {
    for (int qt = ATT_QT; qt >= 1; qt /= 2) {
        size_t fl = kv ? smem_kv_floats(a, qt) : smem_rows_floats(a, qt);
        if (fl * sizeof(float) <= ATT_SMEM_LIMIT) return qt;
    }
    die_fail("%s: M=%d key slots need more than %d bytes of shared memory per query row", who,
             a->M, ATT_SMEM_LIMIT);
}

void cuda_attention_dbias_reduce(float *dbias, const float *scratch, const attention_desc *d) {
    attn_args a = attn_make_args(d, "attention_backward (dbias)");
    size_t bsmem = a.kv_index ? (size_t)a.T * sizeof(float) : 0;
    if (bsmem > ATT_SMEM_LIMIT)
        die_fail("attention_backward: T=%d too large for the dbias kernel", a.T);
    attention_dbias_kernel<<<(unsigned)(a.H * a.T), ATT_THREADS, bsmem, cuda_stream()>>>(dbias, scratch, a);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- routes
// Which implementation serves a call (core/attention_route.c): keep_probs = 1 the kernels above;
// training the cuDNN route (attention_cudnn.cpp, when set and able), the materialised bf16 route
// (attention_gemm_cuda.cu) or the fused kernels (attention_fused_cuda.cu). The choice depends on
// the process-wide setting, the precision, d and the cuDNN route's per-shape answer, which is
// kept, so a forward and the backward reading its state take the same route.
static int attention_route_setting = CUDA_ATTN_AUTO;

extern "C" void cuda_set_attention_route(int route) {
    if (route != CUDA_ATTN_AUTO && route != CUDA_ATTN_MATERIALISED && route != CUDA_ATTN_FUSED &&
        route != CUDA_ATTN_CUDNN && route != CUDA_ATTN_MATERIALISED_INPLACE)
        die_fail("cuda_set_attention_route: %d is not CUDA_ATTN_AUTO, _MATERIALISED, _FUSED, _CUDNN or "
                 "_MATERIALISED_INPLACE", route);
    attention_route_setting = route;
}

extern "C" int cuda_attention_route(void) { return attention_route_setting; }

// What the cuDNN route can do for d (ATTN_CUDNN_*, core/attention_route.h), given whether its
// graph for d's shape was prepared.
static int cudnn_answer(int prepared) {
    if (prepared) return ATTN_CUDNN_READY;
    return cuda_attention_cudnn_available(NULL, 0) ? ATTN_CUDNN_NO_GRAPH : ATTN_CUDNN_ABSENT;
}

static attention_route route_of(const attention_desc *d) {
    const int precision = cuda_matmul_precision();
    int cudnn = ATTN_CUDNN_ABSENT;
    if (attention_route_setting == CUDA_ATTN_CUDNN && attention_cudnn_expressible(d, precision, NULL, 0))
        cudnn = cudnn_answer(cuda_attention_cudnn_prepare(d, NULL, 0)); // says why once on stderr when not
    return attention_route_for(d, precision, attention_route_setting, cudnn);
}

extern "C" int cuda_attention_route_of(const attention_desc *d) { return (int)route_of(d); }

// The compact layout's route (attention_kv_forward_bf16): the same rule, the cuDNN answer for its
// own graphs (q and k|v in separate buffers, T queries and M keys).
extern "C" int cuda_attention_kv_route_of(const attention_desc *d) {
    const int precision = cuda_matmul_precision();
    int cudnn = ATTN_CUDNN_ABSENT;
    if (attention_route_setting == CUDA_ATTN_CUDNN && attention_cudnn_expressible(d, precision, NULL, 0))
        cudnn = cudnn_answer(cuda_attention_cudnn_kv_prepare(d, NULL, 0));
    return (int)attention_route_for(d, precision, attention_route_setting, cudnn);
}

// Training (keep_probs = 0) keeps the bf16 probabilities of the materialised route or the row
// log-sum-exp (B, H, T) of the fused and cuDNN routes: sized for every route the setting may take
// for calls that use at most `uses`; under the cuDNN setting with the library loaded, calls it can
// express keep only the row log-sum-exp (a shape without a graph then takes the fused kernels).
size_t cuda_attention_state_floats(int B, int H, int T, int M, int C, unsigned uses) {
    const int loaded = attention_route_setting == CUDA_ATTN_CUDNN && cuda_attention_cudnn_available(NULL, 0);
    return attention_route_state_floats(B, H, T, M, C, uses, cuda_matmul_precision(), attention_route_setting, loaded);
}

void cuda_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d) {
    switch (route_of(d)) { // each route checks d
    case ATTN_ROUTE_CUDNN: cuda_attention_cudnn_forward(out, probs, qkv, d); return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_forward(out, probs, qkv, d); return;
    case ATTN_ROUTE_FUSED: cuda_attention_fused_forward(out, probs, qkv, d); return;
    case ATTN_ROUTE_PROBS: break;
    }
    attn_args a = attn_make_args(d, "attention_forward");
    a.qt = pick_qt(&a, 0, "attention_forward");
    dim3 grid((unsigned)((a.T + a.qt - 1) / a.qt), (unsigned)a.H, (unsigned)a.B);
    size_t smem = smem_rows_floats(&a, a.qt) * sizeof(float);
    attention_forward_kernel<<<grid, ATT_THREADS, smem, cuda_stream()>>>(out, probs, qkv, a);
    CUDA_LAUNCH_CHECK();
}

void cuda_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                             const float *qkv, const float *out, const float *probs,
                             const attention_desc *d) {
    switch (route_of(d)) {
    case ATTN_ROUTE_CUDNN: // no bias on this route: dqkv is all there is
        if (dqkv) cuda_attention_cudnn_backward(dqkv, dout, qkv, out, probs, d);
        return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_backward(dqkv, dbias, scratch, dout, qkv, probs, d); return;
    case ATTN_ROUTE_FUSED: cuda_attention_fused_backward(dqkv, dbias, scratch, dout, qkv, out, probs, d); return;
    case ATTN_ROUTE_PROBS: break;
    }
    attn_args a = attn_make_args(d, "attention_backward");
    const int want_dbias = d->bias != NULL && dbias != NULL;
    if (want_dbias && scratch == NULL)
        die_fail("attention_backward: dbias requested without scratch (B, H, T, M)");
    if (dqkv == NULL && !want_dbias) return;

    // dq and the dscores (scratch is written only when dbias needs it, as on the CPU)
    a.qt = pick_qt(&a, 0, "attention_backward");
    dim3 qgrid((unsigned)((a.T + a.qt - 1) / a.qt), (unsigned)a.H, (unsigned)a.B);
    size_t qsmem = smem_rows_floats(&a, a.qt) * sizeof(float);
    attention_bwd_query_kernel<<<qgrid, ATT_THREADS, qsmem, cuda_stream()>>>(dqkv, want_dbias ? scratch : NULL,
                                                              dout, qkv, probs, a);
    CUDA_LAUNCH_CHECK();

    // dk, dv
    if (dqkv && a.M > 0) {
        a.qt = pick_qt(&a, 1, "attention_backward");
        dim3 kgrid((unsigned)((a.M + a.kt2 - 1) / a.kt2), (unsigned)a.H, (unsigned)a.B);
        size_t ksmem = smem_kv_floats(&a, a.qt) * sizeof(float);
        attention_bwd_kv_kernel<<<kgrid, ATT_THREADS, ksmem, cuda_stream()>>>(dqkv, dout, qkv, probs, a);
        CUDA_LAUNCH_CHECK();
    }

    // dbias, reduced over the batch in order
    if (want_dbias) cuda_attention_dbias_reduce(dbias, scratch, d);
}
