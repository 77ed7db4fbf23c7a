// core/cuda/attention_fused_cuda.cu — the CUDA backend's fused multi-head attention, forward and
// backward, used for training (attention_desc.keep_probs == 0; attention_cuda.cu's
// materialising kernels serve keep_probs == 1). Same contract as core/ops.h's attention op —
// packed qkv (B, T, 3C), key/value subsets kv_index (B, M), bias (H, T, T) indexed by key
// TOKEN, group masks LT / LE, a query that sees no key giving zeros — but no T×M matrix is
// ever written to global memory: the forward keeps, per query row, only the log-sum-exp of
// its scaled, biased, masked scores, lse (B, H, T), in the caller's probs buffer (a row that
// sees no key stores +inf, so every exp(s - lse) of it is 0). Flash-attention style: tiles of
// FA_BQ query rows × FA_BK key slots live in shared memory, the softmax is online. FP32
// throughout; no CPU twin is needed (the CPU op keeps its probabilities; see
// core/cpu/attention_cpu.c). Head size hs <= FA_MAX_HS = 128.
//
// Kernels (FA_THREADS = 256 threads = 8 warps; a warp owns query rows r ≡ warp mod 8 of a tile,
// its lane the key slot mm of the key tile):
//   fused_attention_forward_kernel  grid (⌈T/bq⌉, H, B). Q rows staged once; per key tile:
//                 k → scores → running max m, running sum l, p = exp(s - m_new) and the
//                 rescale α = exp(m_old - m_new) per row; then v → acc = α·acc + p·V. At the end
//                 out = acc / l and lse = m + log l.
//   fused_attention_bwd_kv_kernel   grid (⌈M/FA_BK⌉, H, B): FA_BK key slots of one (b, h), k and v
//                 held in shared memory; walks query tiles i = 0..T-1 in order, recomputing
//                 s, p = exp(s - lse), dp = dout·v, ds = p·(dp - D) with D = Σ_c dout·out, and
//                 accumulates dv += pᵀ·dout, dk += dsᵀ·q in registers; adds scale·dk and dv
//                 into the rows of key tokens kv_index[b][m] once, at the end.
//   fused_attention_bwd_q_kernel    grid (⌈T/bq⌉, H, B): bq query rows; walks key tiles in order
//                 with the same s, p, dp, ds code (so its ds are bitwise the kv kernel's) and
//                 accumulates dq += ds·k; writes ds to scratch (B, H, T, M) when dbias is
//                 wanted, which attention_cuda.cu's dbias reduction then sums over the batch.
//
// Determinism: no atomics. Every output element is owned by one thread; every sum has a fixed
// order: dots over channels c = 0..hs-1 as one FMA chain, acc / dq over key slots 0..M-1 and
// dk / dv over queries 0..T-1 as one chain each, row max and Σp as a fixed warp shuffle tree
// per key tile, D as 32 lane partials folded by a fixed tree. Results are bitwise reproducible
// run to run; they are not bitwise the materialising kernels' (different summation of Σp,
// normalisation after P·V instead of before, D from out instead of Σ p·dp).
#include "ops_cuda_internal.cuh"
#include "attention_cuda.cuh"
#include <math.h>

#define FA_THREADS ATTN_THREADS
#define FA_WARPS ATTN_WARPS
#define FA_BK 32         // key slots per tile (one per lane)
#define FA_BQ_MAX 16     // most query rows per tile (8 with large heads: shared memory)
#define FA_MAX_HS 128    // largest head size supported
#define FA_ROWS_PER_WARP (FA_BQ_MAX / FA_WARPS)            // 2
#define FA_Q_ACC (FA_BQ_MAX * FA_MAX_HS / FA_THREADS)      // out / dq elements per thread (8)
#define FA_KV_ACC (FA_BK * FA_MAX_HS / FA_THREADS)         // dk (and dv) elements per thread (16)
#define FA_SMEM_LIMIT (48 * 1024)                          // bytes of dynamic shared memory

// Everything a kernel needs, by value (pointers are device pointers).
typedef struct {
    int B, T, C, H, M;
    int hs;              // head size C / H
    int bq;              // query rows per tile (16 or 8), a multiple of FA_WARPS
    int mask_mode;       // ATTN_MASK_*
    float scale;         // 1 / sqrt(hs)
    const int *kv_index; // (B, M) or NULL
    const float *bias;   // (H, T, T) or NULL
    const int *group;    // (B, T) or NULL
} fa_args;

// ---------------------------------------------------------------- device helpers

// Σ_c a[c]·b[c], c = 0..hs-1, one FMA chain.
static __device__ __forceinline__ float fa_dot(const float *a, const float *b, int hs) {
    float acc = 0.0f;
    for (int c = 0; c < hs; c++) acc = fmaf(a[c], b[c], acc);
    return acc;
}

// The score of query token i and key slot m (token j) from the raw dot q·k: scale, + bias,
// -inf when the group mask hides it or m is past the last slot (m >= M). The same code in
// every kernel, so forward and backward see the same bits.
static __device__ __forceinline__ float fa_score(float dot, const fa_args &a, int b, int h, int i,
                                                 int m, const int *tok) {
    if (m >= a.M) return -INFINITY;
    const int j = tok ? tok[m] : m;
    float s = __fmul_rn(dot, a.scale);
    if (a.bias) s = __fadd_rn(s, a.bias[((size_t)h * a.T + i) * a.T + j]);
    if (a.mask_mode != ATTN_MASK_NONE) {
        const int *grp = a.group + (size_t)b * a.T;
        int gi = grp[i], gj = grp[j];
        int vis = a.mask_mode == ATTN_MASK_LE ? gj <= gi : gj < gi;
        if (!vis) s = -INFINITY;
    }
    return s;
}

// The backward's per-entry quantities for query row r (token i) of the tile and key slot mm
// (slot m = m0 + mm) of the key tile: p = exp(s - lse) and ds = p·(dp - D), dp = dout·v.
// Qs, dOs (bq, hs); Ks, Vs (FA_BK, hs+1). Masked slots, slots past M and rows past T give 0.
static __device__ __forceinline__ void fa_p_ds(float *p_out, float *ds_out, const float *Qs,
                                               const float *dOs, const float *Ks, const float *Vs,
                                               float lse, float D, const fa_args &a, int b, int h,
                                               int r, int i, int mm, int m0, const int *tok) {
    const int hs = a.hs;
    float p = 0.0f, ds = 0.0f;
    if (i < a.T) {
        float s = fa_score(fa_dot(Qs + r * hs, Ks + mm * (hs + 1), hs), a, b, h, i, m0 + mm, tok);
        p = expf(s - lse); // s = -inf or lse = +inf (row sees nothing): 0
        float dp = fa_dot(dOs + r * hs, Vs + mm * (hs + 1), hs);
        ds = __fmul_rn(p, __fsub_rn(dp, D));
    }
    *p_out = p;
    *ds_out = ds;
}

// Loads the per-row backward state of query rows i0..i0+bq-1 into shared memory: lse_s (bq)
// from the forward's lse, D_s (bq) = Σ dout·out. dOs must be loaded and synchronised.
static __device__ __forceinline__ void fa_row_state(float *lse_s, float *D_s, const float *dOs,
                                                    const float *lse, const float *out,
                                                    const fa_args &a, int b, int h, int i0) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int r = warp; r < a.bq; r += FA_WARPS) {
        int i = i0 + r;
        float D = 0.0f, l = INFINITY;
        if (i < a.T) {
            D = attn_warp_dot(dOs + r * a.hs, out + ((size_t)b * a.T + i) * a.C + h * a.hs, a.hs);
            l = lse[((size_t)b * a.H + h) * a.T + i];
        }
        if (lane == 0) { lse_s[r] = l; D_s[r] = D; }
    }
}

// ---------------------------------------------------------------- forward
// out (B, T, C); lse (B, H, T).
// Shared memory: Qs (bq, hs) | KVs (FA_BK, hs+1) k then v tile | Ps (bq, FA_BK) | alpha (bq) |
// lsum (bq).
// At least 4 blocks per SM, i.e. at most 64 registers: with the thread count alone ptxas (CUDA 13,
// sm_80) kept 32 registers and spilled 24 bytes (the build's spill guard, Makefile); at 64 none.
static __global__ void __launch_bounds__(FA_THREADS, 4)
fused_attention_forward_kernel(float *out, float *lse, const float *qkv, fa_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, bq = a.bq, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * bq;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Qs = smem;                       // (bq, hs)
    float *KVs = Qs + bq * hs;              // (FA_BK, hs+1)
    float *Ps = KVs + FA_BK * (hs + 1);     // (bq, FA_BK)
    float *alpha = Ps + bq * FA_BK;         // (bq)
    float *lsum = alpha + bq;               // (bq)
    const float *x = qkv + (size_t)b * T * C3;                      // (T, 3C) this image
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL; // (M) key tokens

    // Running max and sum of this warp's rows r = warp + k·FA_WARPS (same in every lane).
    float run_m[FA_ROWS_PER_WARP], run_l[FA_ROWS_PER_WARP];
#pragma unroll
    for (int k = 0; k < FA_ROWS_PER_WARP; k++) { run_m[k] = -INFINITY; run_l[k] = 0.0f; }
    float acc[FA_Q_ACC];
#pragma unroll
    for (int k = 0; k < FA_Q_ACC; k++) acc[k] = 0.0f;

    attn_load_rows(Qs, hs, x, C3, h * hs, NULL, i0, bq, T, hs);
    for (int m0 = 0; m0 < M; m0 += FA_BK) {
        __syncthreads(); // Qs loaded (first tile) / the previous v tile and Ps no longer read
        attn_load_rows(KVs, hs + 1, x, C3, C + h * hs, tok, m0, FA_BK, M, hs);
        __syncthreads();
        // scores, online softmax statistics, p of this tile
#pragma unroll
        for (int k = 0; k < FA_ROWS_PER_WARP; k++) {
            const int r = warp + k * FA_WARPS, i = i0 + r;
            if (r >= bq) continue; // warp-uniform
            float s = -INFINITY;
            if (i < T) s = fa_score(fa_dot(Qs + r * hs, KVs + lane * (hs + 1), hs), a, b, h, i,
                                    m0 + lane, tok);
            const float m_new = fmaxf(run_m[k], attn_warp_max(s));
            float p = 0.0f, al = 1.0f;
            // something visible so far, or a NaN score (fmaxf skips NaN; exp then carries it into
            // l and acc, so the row is NaN as in torch, not zeros); both warp-uniform
            if (m_new > -INFINITY || __any_sync(ATTN_FULL_MASK, s != s)) {
                p = expf(s - m_new);          // masked: exp(-inf) = 0
                al = expf(run_m[k] - m_new);  // first visible tile: exp(-inf) = 0 (acc is 0)
            }
            run_l[k] = fmaf(run_l[k], al, attn_warp_sum(p));
            run_m[k] = m_new;
            Ps[r * FA_BK + lane] = p;
            if (lane == 0) alpha[r] = al;
        }
        __syncthreads(); // k tile no longer read; Ps, alpha complete
        attn_load_rows(KVs, hs + 1, x, C3, 2 * C + h * hs, tok, m0, FA_BK, M, hs);
        __syncthreads();
        // acc = α·acc + P·V over this tile's slots in order
#pragma unroll
        for (int k = 0; k < FA_Q_ACC; k++) {
            const int e = threadIdx.x + k * FA_THREADS;
            if (e < bq * hs) {
                const int r = e / hs, c = e - r * hs;
                const float *pr = Ps + r * FA_BK;
                float v = __fmul_rn(acc[k], alpha[r]);
                for (int mm = 0; mm < FA_BK; mm++) v = fmaf(pr[mm], KVs[mm * (hs + 1) + c], v);
                acc[k] = v;
            }
        }
    }
    // row sums and lse
#pragma unroll
    for (int k = 0; k < FA_ROWS_PER_WARP; k++) {
        const int r = warp + k * FA_WARPS, i = i0 + r;
        if (r >= bq || lane != 0) continue;
        lsum[r] = run_l[k];
        // l > 0 iff some key was visible (the max contributes exp(0) = 1); else +inf
        if (i < T && M > 0) // M = 0: the caller's probs buffer is empty
            lse[((size_t)b * a.H + h) * T + i] =
                run_l[k] == 0.0f ? INFINITY : __fadd_rn(run_m[k], logf(run_l[k])); // NaN l: NaN
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < FA_Q_ACC; k++) {
        const int e = threadIdx.x + k * FA_THREADS;
        if (e < bq * hs) {
            const int r = e / hs, c = e - r * hs, i = i0 + r;
            if (i < T) {
                const float l = lsum[r];
                out[((size_t)b * T + i) * C + h * hs + c] = l == 0.0f ? 0.0f : __fdiv_rn(acc[k], l);
            }
        }
    }
}

// ---------------------------------------------------------------- backward: keys and values
// For key slots s0..s0+FA_BK-1 of (b, h): dqkv[b, tok(m), k channels of h] += scale·Σ_i ds_im q_i,
// [v channels] += Σ_i p_im dout_i, i = 0..T-1 in order.
// Shared memory: Ks, Vs (FA_BK, hs+1) | Qs, dOs (bq, hs) | Ps, dSs (bq, FA_BK) | lse_s, D_s (bq).
static __global__ void __launch_bounds__(FA_THREADS)
fused_attention_bwd_kv_kernel(float *dqkv, const float *dout, const float *qkv, const float *out,
                              const float *lse, fa_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, bq = a.bq, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, s0 = blockIdx.x * FA_BK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Ks = smem;                       // (FA_BK, hs+1)
    float *Vs = Ks + FA_BK * (hs + 1);      // (FA_BK, hs+1)
    float *Qs = Vs + FA_BK * (hs + 1);      // (bq, hs)
    float *dOs = Qs + bq * hs;              // (bq, hs)
    float *Ps = dOs + bq * hs;              // (bq, FA_BK)
    float *dSs = Ps + bq * FA_BK;           // (bq, FA_BK)
    float *lse_s = dSs + bq * FA_BK;        // (bq)
    float *D_s = lse_s + bq;                // (bq)
    const float *x = qkv + (size_t)b * T * C3;
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL;

    attn_load_rows(Ks, hs + 1, x, C3, C + h * hs, tok, s0, FA_BK, M, hs);
    attn_load_rows(Vs, hs + 1, x, C3, 2 * C + h * hs, tok, s0, FA_BK, M, hs);
    float dk[FA_KV_ACC], dv[FA_KV_ACC];
#pragma unroll
    for (int k = 0; k < FA_KV_ACC; k++) { dk[k] = 0.0f; dv[k] = 0.0f; }

    for (int i0 = 0; i0 < T; i0 += bq) {
        __syncthreads(); // the previous query tile's Qs, dOs, Ps, dSs no longer read
        attn_load_rows(Qs, hs, x, C3, h * hs, NULL, i0, bq, T, hs);
        attn_load_rows(dOs, hs, dout + (size_t)b * T * C, C, h * hs, NULL, i0, bq, T, hs);
        __syncthreads();
        fa_row_state(lse_s, D_s, dOs, lse, out, a, b, h, i0);
        __syncthreads();
        for (int r = warp; r < bq; r += FA_WARPS) {
            float p, ds;
            fa_p_ds(&p, &ds, Qs, dOs, Ks, Vs, lse_s[r], D_s[r], a, b, h, r, i0 + r, lane, s0, tok);
            Ps[r * FA_BK + lane] = p;
            dSs[r * FA_BK + lane] = ds;
        }
        __syncthreads();
        // dk += dsᵀ·Q, dv += Pᵀ·dO over this tile's rows in order (rows past T are 0)
#pragma unroll
        for (int k = 0; k < FA_KV_ACC; k++) {
            const int e = threadIdx.x + k * FA_THREADS;
            if (e < FA_BK * hs) {
                const int mm = e / hs, c = e - mm * hs;
                float gk = dk[k], gv = dv[k];
                for (int r = 0; r < bq; r++) {
                    gk = fmaf(dSs[r * FA_BK + mm], Qs[r * hs + c], gk);
                    gv = fmaf(Ps[r * FA_BK + mm], dOs[r * hs + c], gv);
                }
                dk[k] = gk;
                dv[k] = gv;
            }
        }
    }

#pragma unroll
    for (int k = 0; k < FA_KV_ACC; k++) {
        const int e = threadIdx.x + k * FA_THREADS;
        if (e < FA_BK * hs) {
            const int mm = e / hs, c = e - mm * hs, m = s0 + mm;
            if (m < M) {
                const int j = tok ? tok[m] : m;
                float *dkp = dqkv + ((size_t)b * T + j) * C3 + C + h * hs + c;
                float *dvp = dkp + C;
                *dkp = __fadd_rn(*dkp, __fmul_rn(a.scale, dk[k]));
                *dvp = __fadd_rn(*dvp, dv[k]);
            }
        }
    }
}

// ---------------------------------------------------------------- backward: queries
// dqkv[b, i, q channels of h] += scale·Σ_m ds_im k_m (when dqkv is non-NULL); scratch
// (B, H, T, M) = ds (when non-NULL, for dbias).
// Shared memory: Qs, dOs (bq, hs) | Ks, Vs (FA_BK, hs+1) | dSs (bq, FA_BK) | lse_s, D_s (bq).
static __global__ void __launch_bounds__(FA_THREADS)
fused_attention_bwd_q_kernel(float *dqkv, float *scratch, const float *dout, const float *qkv,
                             const float *out, const float *lse, fa_args a) {
    extern __shared__ float smem[];
    const int hs = a.hs, bq = a.bq, M = a.M, T = a.T, C = a.C, C3 = 3 * C;
    const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * bq;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Qs = smem;                       // (bq, hs)
    float *dOs = Qs + bq * hs;              // (bq, hs)
    float *Ks = dOs + bq * hs;              // (FA_BK, hs+1)
    float *Vs = Ks + FA_BK * (hs + 1);      // (FA_BK, hs+1)
    float *dSs = Vs + FA_BK * (hs + 1);     // (bq, FA_BK)
    float *lse_s = dSs + bq * FA_BK;        // (bq)
    float *D_s = lse_s + bq;                // (bq)
    const float *x = qkv + (size_t)b * T * C3;
    const int *tok = a.kv_index ? a.kv_index + (size_t)b * M : NULL;

    attn_load_rows(Qs, hs, x, C3, h * hs, NULL, i0, bq, T, hs);
    attn_load_rows(dOs, hs, dout + (size_t)b * T * C, C, h * hs, NULL, i0, bq, T, hs);
    __syncthreads();
    fa_row_state(lse_s, D_s, dOs, lse, out, a, b, h, i0);
    float acc[FA_Q_ACC];
#pragma unroll
    for (int k = 0; k < FA_Q_ACC; k++) acc[k] = 0.0f;

    for (int m0 = 0; m0 < M; m0 += FA_BK) {
        __syncthreads(); // lse_s, D_s ready (first tile) / the previous Ks, Vs, dSs no longer read
        attn_load_rows(Ks, hs + 1, x, C3, C + h * hs, tok, m0, FA_BK, M, hs);
        attn_load_rows(Vs, hs + 1, x, C3, 2 * C + h * hs, tok, m0, FA_BK, M, hs);
        __syncthreads();
        for (int r = warp; r < bq; r += FA_WARPS) {
            float p, ds;
            const int i = i0 + r;
            fa_p_ds(&p, &ds, Qs, dOs, Ks, Vs, lse_s[r], D_s[r], a, b, h, r, i, lane, m0, tok);
            dSs[r * FA_BK + lane] = ds;
            if (scratch && i < T && m0 + lane < M)
                scratch[(((size_t)b * a.H + h) * T + i) * M + m0 + lane] = ds;
        }
        if (!dqkv) continue; // only the dscores were wanted (block-uniform)
        __syncthreads();
        // dq += dS·K over this tile's slots in order (slots past M have ds = 0)
#pragma unroll
        for (int k = 0; k < FA_Q_ACC; k++) {
            const int e = threadIdx.x + k * FA_THREADS;
            if (e < bq * hs) {
                const int r = e / hs, c = e - r * hs;
                const float *dsr = dSs + r * FA_BK;
                float v = acc[k];
                for (int mm = 0; mm < FA_BK; mm++) v = fmaf(dsr[mm], Ks[mm * (hs + 1) + c], v);
                acc[k] = v;
            }
        }
    }
    if (!dqkv) return;
#pragma unroll
    for (int k = 0; k < FA_Q_ACC; k++) {
        const int e = threadIdx.x + k * FA_THREADS;
        if (e < bq * hs) {
            const int r = e / hs, c = e - r * hs, i = i0 + r;
            if (i < T) {
                float *d = dqkv + ((size_t)b * T + i) * C3 + h * hs + c;
                *d = __fadd_rn(*d, __fmul_rn(a.scale, acc[k]));
            }
        }
    }
}

// ---------------------------------------------------------------- host side

// Shared-memory bytes of each kernel for bq query rows.
static size_t fa_smem_forward(int hs, int bq) {
    return sizeof(float) * ((size_t)bq * hs + (size_t)FA_BK * (hs + 1) + (size_t)bq * FA_BK + 2 * (size_t)bq);
}
static size_t fa_smem_backward(int hs, int bq) { // the kv and the q kernel hold the same tiles
    return sizeof(float) * (2 * (size_t)FA_BK * (hs + 1) + 2 * (size_t)bq * hs +
                            2 * (size_t)bq * FA_BK + 2 * (size_t)bq);
}

// Checks the descriptor (exit 1 on a programming error) and fills the kernel arguments; the
// query tile is FA_BQ_MAX rows unless the backward's tiles would not fit FA_SMEM_LIMIT.
static fa_args fa_make_args(const attention_desc *d, const char *who) {
    attention_desc_check(d, who);
    fa_args a;
    a.B = d->B; a.T = d->T; a.C = d->C; a.H = d->H; a.M = d->M;
    a.hs = d->C / d->H;
    if (a.hs > FA_MAX_HS)
        die_fail("%s: head size %d > %d is not supported by the fused CUDA attention", who, a.hs,
                 FA_MAX_HS);
    a.bq = fa_smem_backward(a.hs, FA_BQ_MAX) <= FA_SMEM_LIMIT ? FA_BQ_MAX : FA_BQ_MAX / 2;
    a.mask_mode = d->mask_mode;
    a.scale = 1.0f / sqrtf((float)a.hs);
    a.kv_index = d->kv_index;
    a.bias = d->bias;
    a.group = d->group;
    return a;
}

void cuda_attention_fused_forward(float *out, float *lse, const float *qkv,
                                  const attention_desc *d) {
    fa_args a = fa_make_args(d, "attention_forward (fused)");
    dim3 grid((unsigned)((a.T + a.bq - 1) / a.bq), (unsigned)a.H, (unsigned)a.B);
    fused_attention_forward_kernel<<<grid, FA_THREADS, fa_smem_forward(a.hs, a.bq), cuda_stream()>>>(out, lse,
                                                                                     qkv, a);
    CUDA_LAUNCH_CHECK();
}

void cuda_attention_fused_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                   const float *qkv, const float *out, const float *lse,
                                   const attention_desc *d) {
    fa_args a = fa_make_args(d, "attention_backward (fused)");
    const int want_dbias = d->bias != NULL && dbias != NULL;
    if (want_dbias && scratch == NULL)
        die_fail("attention_backward: dbias requested without scratch (B, H, T, M)");
    if (out == NULL) die_fail("attention_backward (fused): the forward's out is required");
    if ((dqkv == NULL && !want_dbias) || a.M == 0) return; // no key: every gradient is 0
    const size_t smem = fa_smem_backward(a.hs, a.bq);

    // dq and the dscores (scratch written only when dbias needs it)
    dim3 qgrid((unsigned)((a.T + a.bq - 1) / a.bq), (unsigned)a.H, (unsigned)a.B);
    fused_attention_bwd_q_kernel<<<qgrid, FA_THREADS, smem, cuda_stream()>>>(
        dqkv, want_dbias ? scratch : NULL, dout, qkv, out, lse, a);
    CUDA_LAUNCH_CHECK();

    // dk, dv
    if (dqkv && a.M > 0) {
        dim3 kgrid((unsigned)((a.M + FA_BK - 1) / FA_BK), (unsigned)a.H, (unsigned)a.B);
        fused_attention_bwd_kv_kernel<<<kgrid, FA_THREADS, smem, cuda_stream()>>>(dqkv, dout, qkv, out, lse, a);
        CUDA_LAUNCH_CHECK();
    }

    // dbias, reduced over the batch in order (attention_cuda.cu)
    if (want_dbias) cuda_attention_dbias_reduce(dbias, scratch, d);
}
