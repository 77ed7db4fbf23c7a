// core/cpu/attention_cpu.c — the CPU backend's multi-head attention (forward and backward).
// Owns cpu_attention_forward / cpu_attention_backward, whose contract is attention_desc in
// core/ops.h: packed qkv (B, T, 3C), optional per-image key/value subset kv_index (B, M),
// optional additive bias (H, T, T) indexed by (query token, key TOKEN), optional group
// masks (LT / LE), fully-masked query rows giving zeros (never NaN). CUDA twin:
// core/cuda/attention_cuda.cu. attention_desc.keep_probs is ignored here: the probabilities are
// always kept in probs (the backward reads them; `out` is not needed). The CUDA backend's fused
// training kernels (core/cuda/attention_fused_cuda.cu) have no CPU twin: on the CPU the
// (B, H, T, M) probabilities are the cheaper saved state, and results stay bit-for-bit as before.
//
// Work split: one (image b, head h) pair is one unit of work, computed start to finish by a
// single OpenMP thread. A pair reads and writes only its own image's channels of head h, so
// pairs never race, and every sum inside a pair runs in a fixed order — results are bitwise
// identical for any thread count and any schedule. dbias (H, T, T) is shared by the whole
// batch: the backward writes each pair's score gradients into scratch (B, H, T, M), then a
// second pass, parallel over (h, query i), adds them into dbias for b = 0..B-1 in order.
//
// Inside a pair the head's q, k, v (and dout) rows are gathered into contiguous per-thread
// buffers, zero-padded: key slots to Mp and the head size to Dp (multiples of VL = 16
// floats), query rows to Tp (a multiple of RB = 4). Each pair is then five small GEMMs
// (S = Q·Kᵀ, O = P·V forward; dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q, dV = Pᵀ·dO backward) in one
// register-blocked kernel (gemm_small, GCC vector extensions: RB rows × VL columns
// held in registers, one multiply-add chain per output element over k = 0..K-1, so no sum
// is ever reassociated), plus row-wise softmax work on the (Tp, Mp) score block. The two
// true reductions of a softmax row (max, Σ) and the row dot Σ_m p·dp use VL partial sums
// folded in a fixed order. The per-pair kernels are compiled for x86-64-v4 (AVX-512),
// x86-64-v3 (AVX2) and baseline (target_clones); the clone is chosen once per process from
// the CPU, never from the thread count. (Under -std=c11 GCC does not contract a*b+c into
// FMA, so no clone uses FMA; measured, enabling it would gain under 10% here.)
//
// train.precision = bf16 (MATMUL_BF16) with keep_probs == 0 (training): the bf16 rounding of the
// CUDA backend's materialised route (core/cuda/attention_gemm_cuda.cu) is emulated at the same
// points: q, k, v and dout are rounded to bf16 before their products, the probabilities after
// the fp32 softmax (the rounded P is what probs keeps, what P·V and the backward read), and the
// score gradient dS before dQ = dS·K and dK = dSᵀ·Q (dbias receives the fp32 dS). Products of
// bf16 values are exact in fp32, so CPU and GPU then differ by summation order only.
//
// Softmax: s - max(s), exp, divide by the sum; all in float (the sum too, as VL partials).
// exp is a Cephes-style polynomial (≈1 ulp on [-87, 0], exactly 1 at 0, exactly 0 below -87)
// written branch-free so that it vectorises (glibc expf is a scalar call per element).
#include "ops_cpu_internal.h"
#include "vecmath.h"
#include "../bf16.h"
#include "../common.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VL 16 // floats per padded block (one AVX-512 register)
#define RB 4  // rows per register block of the small GEMM

// Build with -DATTN_CLONES= to compile a single version for the -march given (used to test
// the baseline path on an AVX-512 machine).
#ifndef ATTN_CLONES
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define ATTN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ATTN_CLONES
#endif
#endif

typedef struct {
    int B, T, C, H, M;
    int hs;      // head size C / H
    int Mp, Dp;  // M and hs rounded up to multiples of VL
    int Tp;      // T rounded up to a multiple of RB (rows of the small GEMM)
    float scale; // 1 / sqrt(hs)
} attn_geom;

static int round_up_vl(int n) { return (n + VL - 1) / VL * VL; }

// Checks the descriptor (a violation is a programming error: exit 1) and fills the geometry.
static attn_geom attn_check(const attention_desc *d, const char *who) {
    attention_desc_check(d, who);
    if (d->kv_index) {
        size_t n = (size_t)d->B * (size_t)d->M;
        for (size_t e = 0; e < n; e++)
            if (d->kv_index[e] < 0 || d->kv_index[e] >= d->T)
                die_fail("%s: kv_index[%zu]=%d outside [0,%d)", who, e, d->kv_index[e], d->T);
    }
    attn_geom g;
    g.B = d->B; g.T = d->T; g.C = d->C; g.H = d->H; g.M = d->M;
    g.hs = d->C / d->H;
    g.Mp = round_up_vl(d->M);
    g.Dp = round_up_vl(g.hs);
    g.Tp = (d->T + RB - 1) / RB * RB;
    g.scale = 1.0f / sqrtf((float)g.hs);
    return g;
}

// ---- vector building blocks (n is always a multiple of VL) ----

// max of x (n) with VL partial maxima (max is exact, so any order gives the same value).
ALWAYS_INLINE float max_vl(const float *restrict x, int n) {
    float lane[VL];
    for (int l = 0; l < VL; l++) lane[l] = -INFINITY;
    for (int j = 0; j < n; j += VL)
        for (int l = 0; l < VL; l++) lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
    float m = -INFINITY;
    for (int l = 0; l < VL; l++) m = lane[l] > m ? lane[l] : m;
    return m;
}

// Σ x (n)·y (n) with VL partial sums folded in lane order 0..VL-1 (a fixed order).
ALWAYS_INLINE float dot_vl(const float *restrict x, const float *restrict y, int n) {
    float lane[VL];
    for (int l = 0; l < VL; l++) lane[l] = 0.0f;
    for (int j = 0; j < n; j += VL)
        for (int l = 0; l < VL; l++) lane[l] += x[j + l] * y[j + l];
    float s = 0.0f;
    for (int l = 0; l < VL; l++) s += lane[l];
    return s;
}

// Small GEMM, the work horse of both passes: Cm (rows, N) = A (rows, kdim) · B (kdim, N),
// overwriting Cm (row stride ldc). B is row-major with row stride ldb; A is addressed as
// A[r * ars + k * aks], so a transposed A costs nothing. rows is a multiple of RB, N of VL.
// Each output element is one chain of k = 0..kdim-1 multiply-adds (a fixed order); RB rows
// × one VL-wide column block are accumulated in registers as 8-float vectors (two per row).
// 8 floats, not VL = 16: GCC lowers a 64-byte vector type through the stack on an AVX2 or
// SSE clone (measured: attention forward 6x slower on AVX2), while 8-float vectors map to one
// ymm register (AVX2, AVX-512VL) or two xmm. Lanes are independent, so the width changes no
// result: every element is still the same chain of separate multiplies and adds.
typedef float v8 __attribute__((vector_size(8 * sizeof(float))));
typedef float v8u __attribute__((vector_size(8 * sizeof(float)), aligned(4), may_alias));

ALWAYS_INLINE void gemm_small(float *restrict Cm, int ldc, const float *restrict A, int ars,
                              int aks, const float *restrict B, int ldb, int rows, int kdim,
                              int N) {
    for (int r = 0; r < rows; r += RB) {
        const float *a0 = A + (size_t)r * ars, *a1 = a0 + ars, *a2 = a1 + ars, *a3 = a2 + ars;
        float *c0 = Cm + (size_t)r * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
        for (int n = 0; n < N; n += VL) {
            v8 x0 = {0}, x1 = {0}, x2 = {0}, x3 = {0}, y0 = {0}, y1 = {0}, y2 = {0}, y3 = {0};
            for (int k = 0; k < kdim; k++) {
                const float *bk = B + (size_t)k * ldb + n;
                v8 bx = *(const v8u *)bk, by = *(const v8u *)(bk + 8);
                size_t ka = (size_t)k * aks;
                float s0 = a0[ka], s1 = a1[ka], s2 = a2[ka], s3 = a3[ka];
                x0 += s0 * bx; y0 += s0 * by;
                x1 += s1 * bx; y1 += s1 * by;
                x2 += s2 * bx; y2 += s2 * by;
                x3 += s3 * bx; y3 += s3 * by;
            }
            *(v8u *)(c0 + n) = x0; *(v8u *)(c0 + n + 8) = y0;
            *(v8u *)(c1 + n) = x1; *(v8u *)(c1 + n + 8) = y1;
            *(v8u *)(c2 + n) = x2; *(v8u *)(c2 + n + 8) = y2;
            *(v8u *)(c3 + n) = x3; *(v8u *)(c3 + n + 8) = y3;
        }
    }
}

// x (n) rounded to bf16 in place (the emulated points of train.precision = bf16, above).
static void round_bf16_n(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = bf16_round(x[i]);
}

// 1 when this attention call rounds at the bf16 points: bf16 precision, training state.
static int attn_rounds_bf16(const attention_desc *d) {
    return cpu_matmul_precision() == MATMUL_BF16 && !d->keep_probs;
}

// ---- per-thread workspace ----

static size_t fwd_ws_floats(const attn_geom *g) {
    return 2 * (size_t)g->Tp * g->Dp + (size_t)g->hs * g->Mp + (size_t)g->Mp * g->Dp +
           (size_t)g->Tp * g->Mp + 2 * (size_t)g->Mp;
}

static size_t bwd_ws_floats(const attn_geom *g) {
    return 3 * (size_t)g->Tp * g->Dp + 3 * (size_t)g->Mp * g->Dp + (size_t)g->hs * g->Mp +
           2 * (size_t)g->Tp * g->Mp;
}

// Key tokens of image b (Mp; padding entries point at token 0 and are never used as keys).
ALWAYS_INLINE void key_tokens(int *restrict tok, const attention_desc *d, const attn_geom *g,
                              int b) {
    for (int m = 0; m < g->M; m++) tok[m] = d->kv_index ? d->kv_index[(size_t)b * g->M + m] : m;
    for (int m = g->M; m < g->Mp; m++) tok[m] = 0;
}

// dst (prows, Dp) = channels [off, off+hs) of rows tok[r] (or r when tok is NULL) of x
// (row stride `stride`), for r < rows; everything else zero.
ALWAYS_INLINE void gather_rows(float *restrict dst, const float *x, int rows, int prows, int stride,
                               int off, const int *tok, int hs, int Dp) {
    for (int r = 0; r < rows; r++) {
        const float *src = x + (size_t)(tok ? tok[r] : r) * stride + off;
        float *row = dst + (size_t)r * Dp;
        for (int c = 0; c < hs; c++) row[c] = src[c];
        for (int c = hs; c < Dp; c++) row[c] = 0.0f;
    }
    for (size_t e = (size_t)rows * Dp; e < (size_t)prows * Dp; e++) dst[e] = 0.0f;
}

// dstT (hs, Mp): the same gather, transposed (key slot m is column m); padding zero.
ALWAYS_INLINE void gather_cols(float *restrict dstT, const float *x, int M, int Mp, int stride,
                               int off, const int *tok, int hs) {
    for (int m = 0; m < M; m++) {
        const float *src = x + (size_t)tok[m] * stride + off;
        for (int c = 0; c < hs; c++) dstT[(size_t)c * Mp + m] = src[c];
    }
    for (int c = 0; c < hs; c++)
        for (int m = M; m < Mp; m++) dstT[(size_t)c * Mp + m] = 0.0f;
}

// Visibility of key slot m for query i (Mp floats, 1 or 0; padding 0). Returns the count.
ALWAYS_INLINE int visibility(float *restrict vis, const int *restrict gk, const attention_desc *d,
                             const attn_geom *g, int b, int i) {
    int count = 0;
    if (d->mask_mode == ATTN_MASK_NONE) {
        for (int m = 0; m < g->M; m++) vis[m] = 1.0f;
        count = g->M;
    } else {
        int gi = d->group[(size_t)b * g->T + i];
        int le = d->mask_mode == ATTN_MASK_LE;
        for (int m = 0; m < g->M; m++) {
            int v = le ? gk[m] <= gi : gk[m] < gi;
            vis[m] = v ? 1.0f : 0.0f;
            count += v;
        }
    }
    for (int m = g->M; m < g->Mp; m++) vis[m] = 0.0f;
    return count;
}

// ---- forward: one (b, h) pair ----
// S = scale·Q·Kᵀ (+ bias), masked, row softmax -> P (probs), out = P·V.

ATTN_CLONES
static void attn_forward_pair(float *out, float *probs, const float *qkv, const attention_desc *d,
                              const attn_geom *g, int b, int h, float *ws, int *iws, int bf16) {
    const int T = g->T, Tp = g->Tp, M = g->M, Mp = g->Mp, Dp = g->Dp, hs = g->hs, C = g->C;
    const int C3 = 3 * C;
    float *restrict Q = ws;                     // (Tp, Dp) queries of head h
    float *restrict O = Q + (size_t)Tp * Dp;    // (Tp, Dp) outputs of head h
    float *restrict Kt = O + (size_t)Tp * Dp;   // (hs, Mp) keys, transposed
    float *restrict V = Kt + (size_t)hs * Mp;   // (Mp, Dp) values
    float *restrict S = V + (size_t)Mp * Dp;    // (Tp, Mp) scores, then probabilities
    float *restrict bg = S + (size_t)Tp * Mp;   // (Mp) bias row gathered by key token
    float *restrict vis = bg + Mp;              // (Mp) visibility of one query
    int *restrict tok = iws;                    // (Mp) key token of key slot m
    int *restrict gk = iws + Mp;                // (Mp) group id of key slot m

    const float *x = qkv + (size_t)b * T * C3;  // (T, 3C) this image
    key_tokens(tok, d, g, b);
    if (d->mask_mode != ATTN_MASK_NONE)
        for (int m = 0; m < M; m++) gk[m] = d->group[(size_t)b * T + tok[m]];
    gather_rows(Q, x, T, Tp, C3, h * hs, NULL, hs, Dp);
    gather_cols(Kt, x, M, Mp, C3, C + h * hs, tok, hs);
    gather_rows(V, x, M, Mp, C3, 2 * C + h * hs, tok, hs, Dp);
    if (bf16) {
        round_bf16_n(Q, (size_t)Tp * Dp);
        round_bf16_n(Kt, (size_t)hs * Mp);
        round_bf16_n(V, (size_t)Mp * Dp);
    }
    for (int m = 0; m < Mp; m++) bg[m] = 0.0f;
    const float scale = g->scale;

    gemm_small(S, Mp, Q, Dp, 1, Kt, Mp, Tp, hs, Mp); // S (Tp, Mp) = Q · Kᵀ
    for (int i = 0; i < T; i++) {
        float *s = S + (size_t)i * Mp;                               // (Mp)
        float *prow = probs + (((size_t)b * g->H + h) * T + i) * M;  // (M)
        int nvis = visibility(vis, gk, d, g, b, i);
        float mx = -INFINITY;
        if (nvis > 0) {
            if (d->bias) {
                const float *brow = d->bias + ((size_t)h * T + i) * T; // (T) by key token
                for (int m = 0; m < M; m++) bg[m] = brow[tok[m]];
            }
            for (int m = 0; m < Mp; m++) {
                float v = s[m] * scale + bg[m];
                s[m] = vis[m] != 0.0f ? v : -INFINITY;
            }
            mx = max_vl(s, Mp);
        }
        if (!(mx > -INFINITY)) { // nothing visible (or every visible score is -inf): zeros
            // max_vl skips NaN, so a row whose visible scores are all NaN lands here too: it
            // becomes NaN (as torch's softmax), never zeros that would hide a NaN q or k
            // (the P·V gemm below carries the NaN into out).
            float fill = 0.0f;
            for (int m = 0; m < Mp; m++) fill = vis[m] != 0.0f && s[m] != s[m] ? NAN : fill;
            for (int m = 0; m < Mp; m++) s[m] = fill;
            for (int m = 0; m < M; m++) prow[m] = fill;
            continue;
        }
        for (int m = 0; m < Mp; m++) s[m] = exp_nonpos(s[m] - mx); // masked: exp(-inf) = 0
        float sum = dot_vl(s, vis, Mp); // Σ of the visible exponentials (≥ 1: the max gives 1)
        for (int m = 0; m < Mp; m++) s[m] = s[m] / sum;
        if (bf16) round_bf16_n(s, (size_t)Mp);
        for (int m = 0; m < M; m++) prow[m] = s[m];
    }
    for (size_t e = (size_t)T * Mp; e < (size_t)Tp * Mp; e++) S[e] = 0.0f; // padding rows
    gemm_small(O, Dp, S, Mp, 1, V, Dp, Tp, M, Dp); // O (Tp, Dp) = P · V
    for (int i = 0; i < T; i++) {
        float *orow = out + ((size_t)b * T + i) * C + (size_t)h * hs; // (hs)
        const float *o = O + (size_t)i * Dp;
        for (int c = 0; c < hs; c++) orow[c] = o[c];
    }
}

// ---- backward: one (b, h) pair ----
// With S = scale·q·k + bias, P = softmax(S) over visible keys, out = P·V:
//   dP = dout·Vᵀ, dS = P ⊙ (dP - Σ_m P dP), dV = Pᵀ·dout, dQ = scale·dS·K, dK = scale·dSᵀ·Q,
//   dbias[h, i, tok[m]] = Σ_b dS. Masked keys have P = 0, hence dS = 0: no mask is needed,
//   and a fully masked query (P row all zero) gets no gradient.

ATTN_CLONES
static void attn_backward_pair(float *dqkv, float *scratch, const float *dout, const float *qkv,
                               const float *probs, const attention_desc *d, const attn_geom *g,
                               int b, int h, float *ws, int *iws, int bf16) {
    const int T = g->T, Tp = g->Tp, M = g->M, Mp = g->Mp, Dp = g->Dp, hs = g->hs, C = g->C;
    const int C3 = 3 * C;
    float *restrict Q = ws;                     // (Tp, Dp) queries
    float *restrict dO = Q + (size_t)Tp * Dp;   // (Tp, Dp) output gradient of head h
    float *restrict dQ = dO + (size_t)Tp * Dp;  // (Tp, Dp) query gradient (unscaled)
    float *restrict K = dQ + (size_t)Tp * Dp;   // (Mp, Dp) keys
    float *restrict dK = K + (size_t)Mp * Dp;   // (Mp, Dp) key gradient (unscaled)
    float *restrict dV = dK + (size_t)Mp * Dp;  // (Mp, Dp) value gradient
    float *restrict Vt = dV + (size_t)Mp * Dp;  // (hs, Mp) values, transposed
    float *restrict P = Vt + (size_t)hs * Mp;   // (Tp, Mp) probabilities
    float *restrict dS = P + (size_t)Tp * Mp;   // (Tp, Mp) dP, then dS
    int *restrict tok = iws;                    // (Mp)

    const float *x = qkv + (size_t)b * T * C3;            // (T, 3C) this image
    float *dx = dqkv ? dqkv + (size_t)b * T * C3 : NULL;  // (T, 3C); NULL: only dS wanted
    key_tokens(tok, d, g, b);
    gather_rows(dO, dout + (size_t)b * T * C, T, Tp, C, h * hs, NULL, hs, Dp);
    gather_cols(Vt, x, M, Mp, C3, 2 * C + h * hs, tok, hs);
    if (bf16) {
        round_bf16_n(dO, (size_t)Tp * Dp);
        round_bf16_n(Vt, (size_t)hs * Mp);
    }
    const float *pb = probs + ((size_t)b * g->H + h) * T * M; // (T, M)
    for (int i = 0; i < T; i++) {
        for (int m = 0; m < M; m++) P[(size_t)i * Mp + m] = pb[(size_t)i * M + m];
        for (int m = M; m < Mp; m++) P[(size_t)i * Mp + m] = 0.0f;
    }
    for (size_t e = (size_t)T * Mp; e < (size_t)Tp * Mp; e++) P[e] = 0.0f;

    gemm_small(dS, Mp, dO, Dp, 1, Vt, Mp, Tp, hs, Mp); // dP (Tp, Mp) = dO · Vᵀ
    for (int i = 0; i < Tp; i++) {
        const float *p = P + (size_t)i * Mp;
        float *ds = dS + (size_t)i * Mp;
        float pdp = dot_vl(p, ds, Mp);
        for (int m = 0; m < Mp; m++) ds[m] = p[m] * (ds[m] - pdp);
    }
    if (scratch) {
        float *sb = scratch + ((size_t)b * g->H + h) * T * M; // (T, M)
        for (int i = 0; i < T; i++)
            for (int m = 0; m < M; m++) sb[(size_t)i * M + m] = dS[(size_t)i * Mp + m];
    }
    if (!dx) return;

    const float scale = g->scale;
    gather_rows(Q, x, T, Tp, C3, h * hs, NULL, hs, Dp);
    gather_rows(K, x, M, Mp, C3, C + h * hs, tok, hs, Dp);
    if (bf16) { // dS after scratch took its fp32 values (dbias)
        round_bf16_n(dS, (size_t)Tp * Mp);
        round_bf16_n(Q, (size_t)Tp * Dp);
        round_bf16_n(K, (size_t)Mp * Dp);
    }
    gemm_small(dQ, Dp, dS, Mp, 1, K, Dp, Tp, M, Dp);  // dQ (Tp, Dp) = dS · K
    gemm_small(dK, Dp, dS, 1, Mp, Q, Dp, Mp, T, Dp);  // dK (Mp, Dp) = dSᵀ · Q
    gemm_small(dV, Dp, P, 1, Mp, dO, Dp, Mp, T, Dp);  // dV (Mp, Dp) = Pᵀ · dO
    for (int i = 0; i < T; i++) {
        float *dqi = dx + (size_t)i * C3 + (size_t)h * hs;
        const float *q = dQ + (size_t)i * Dp;
        for (int c = 0; c < hs; c++) dqi[c] += scale * q[c];
    }
    // Scatter-add key/value gradients to their tokens, slot by slot in order (a token that
    // appears twice in kv_index receives both contributions).
    for (int m = 0; m < M; m++) {
        float *dk = dx + (size_t)tok[m] * C3 + C + (size_t)h * hs;
        float *dv = dk + C;
        const float *dkm = dK + (size_t)m * Dp, *dvm = dV + (size_t)m * Dp;
        for (int c = 0; c < hs; c++) dk[c] += scale * dkm[c];
        for (int c = 0; c < hs; c++) dv[c] += dvm[c];
    }
}

// ---- entry points ----

size_t cpu_attention_state_floats(int B, int H, int T, int M, int C, unsigned uses) {
    (void)C, (void)uses; // the CPU keeps the probabilities whatever the call uses
    return (size_t)B * H * T * M;
}

void cpu_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d) {
    attn_geom g = attn_check(d, "attention_forward");
    size_t nws = fwd_ws_floats(&g);
    int pairs = g.B * g.H, bf16 = attn_rounds_bf16(d);
#pragma omp parallel
    {
        float *ws = xmalloc_aligned(nws * sizeof(float), "attention forward workspace");
        int *iws = xmalloc(2 * (size_t)g.Mp * sizeof(int), "attention forward workspace");
#pragma omp for schedule(dynamic, 1)
        for (int bh = 0; bh < pairs; bh++)
            attn_forward_pair(out, probs, qkv, d, &g, bh / g.H, bh % g.H, ws, iws, bf16);
        free(iws);
        free(ws);
    }
}

void cpu_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                            const float *qkv, const float *out, const float *probs,
                            const attention_desc *d) {
    (void)out; // the probabilities are kept (keep_probs is ignored): Σ p·dp needs no output
    attn_geom g = attn_check(d, "attention_backward");
    int want_dbias = d->bias != NULL && dbias != NULL;
    if (want_dbias && scratch == NULL)
        die_fail("attention_backward: dbias requested without scratch (B, H, T, M)");
    if (dqkv == NULL && !want_dbias) return;
    size_t nws = bwd_ws_floats(&g);
    int pairs = g.B * g.H, bf16 = attn_rounds_bf16(d);
    float *sc = want_dbias ? scratch : NULL;
#pragma omp parallel
    {
        float *ws = xmalloc_aligned(nws * sizeof(float), "attention backward workspace");
        int *iws = xmalloc((size_t)g.Mp * sizeof(int), "attention backward workspace");
#pragma omp for schedule(dynamic, 1)
        for (int bh = 0; bh < pairs; bh++)
            attn_backward_pair(dqkv, sc, dout, qkv, probs, d, &g, bh / g.H, bh % g.H, ws, iws, bf16);
        free(iws);
        free(ws);
    }
    if (!want_dbias) return;
    // dbias[h, i, tok_b[m]] += scratch[b, h, i, m], b = 0..B-1 then m = 0..M-1, in order.
    const int T = g.T, M = g.M, H = g.H, B = g.B;
#pragma omp parallel for schedule(static)
    for (int hi = 0; hi < H * T; hi++) {
        int h = hi / T, i = hi % T;
        float *drow = dbias + (size_t)hi * T; // (T) by key token
        for (int b = 0; b < B; b++) {
            const float *srow = scratch + (((size_t)b * H + h) * T + i) * M; // (M)
            if (d->kv_index) {
                const int *tok = d->kv_index + (size_t)b * M;
                for (int m = 0; m < M; m++) drow[tok[m]] += srow[m];
            } else {
                for (int m = 0; m < M; m++) drow[m] += srow[m];
            }
        }
    }
}
