// core/ops.h — the op interface every backend implements (CPU: core/cpu/; CUDA: core/cuda/).
// Each op is a forward/backward pair with explicit shapes; there is no graph. Layout is
// row-major; shapes are written (B, T, C) = batch, tokens, channels.
// Backward conventions (all backends):
//   * gradients ACCUMULATE: din += ..., dweight += ...; callers zero gradient buffers
//     once per step (ops->zero). A NULL gradient pointer means "not needed".
//   * parameter-gradient reductions run in a fixed order (never thread-order dependent),
//     so results are bitwise reproducible for a given thread count.
// Models hold a `const ops_backend *` and call through it: one model, one trainer.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "rng.h"

#define LAYERNORM_EPS 1e-6f

enum { ATTN_MASK_NONE = 0, ATTN_MASK_LT = 1, ATTN_MASK_LE = 2 };

// Precision of the linear layers' matrix products (train.precision). FP32: fp32 operands and
// accumulation. BF16: both operands of every linear forward and backward product rounded to
// bfloat16 (round to nearest even, core/bf16.h), products accumulated in fp32 into fp32 outputs
// — what PyTorch autocast does for nn.Linear, on the GPU's bf16 tensor cores. Weights, their
// gradients, the optimizer state and every other op stay fp32.
enum { MATMUL_FP32 = 0, MATMUL_BF16 = 1 };

// Multi-head attention over qkv = (B, T, 3C): q = channels [0,C), k = [C,2C), v = [2C,3C);
// head h uses channels [h*C/H, (h+1)*C/H) of each. Scores are q·k/sqrt(C/H) (+ bias), then
// masked, then softmax over keys. Options, all combinable:
//   kv_index  (B, M): image b's keys/values are tokens kv_index[b][0..M) (MP3 context);
//             NULL means all T tokens (M must equal T). A token must not repeat within an
//             image (MP3 context sets never do): the CUDA backend writes each key token's
//             dk/dv rows from one thread per slot; the CPU backend happens to sum repeats.
//   bias      (H, T, T): added to the score of (query token i, key token j) — j is the
//             token index, not the position in kv_index. NULL = no bias.
//   group     (B, T) ids: key token j visible to query i iff group[j] < group[i] (LT) or
//             group[j] <= group[i] (LE). A query that sees no key outputs zeros (probabilities
//             zero, gradient zero) instead of NaN.
//   keep_probs 1: the caller reads `probs` after the forward as the probabilities (B, H, T, M)
//             (attention statistics). 0 (the default of a zeroed desc): `probs` is the
//             backend's private state for the backward — the CPU backend still writes the
//             probabilities there, the CUDA backend runs its fused kernels
//             (core/cuda/attention_fused_cuda.cu) and keeps only the row log-sum-exp
//             (B, H, T), so training never materialises a T×M matrix on the GPU. The same
//             value must be passed to the forward and to the backward that reads its probs.
typedef struct {
    int B, T, C, H, M;
    const int *kv_index;
    const float *bias;
    const int *group;
    int mask_mode;  // ATTN_MASK_NONE / LT / LE (group must be non-NULL unless NONE)
    int keep_probs; // 1: probs holds the probabilities; 0: backend-private saved state
} attention_desc;

// Dies (exit 1: a programming error) naming `who` when d's shapes or options are
// inconsistent: B, T, C, H >= 1 with H dividing C; M == T without kv_index; a known mask mode
// with group ids. Pointer contents (kv_index's range) are each backend's to check where it can.
void attention_desc_check(const attention_desc *d, const char *who);

typedef struct ops_backend {
    const char *name;

    // ---- memory (arenas live where the backend computes) ----
    // Backend memory of `bytes` (64-byte aligned, zeroed); dies (exit 1) naming `what` when it
    // cannot. Models, objectives and the trainer hold only such pointers for tensors and reach
    // them from the host through the copies below (CPU: plain malloc / memcpy).
    void *(*alloc)(size_t bytes, const char *what);
    void (*free)(void *p); // NULL is fine
    // host -> backend, backend -> host, backend -> backend; each returns when the copy is done.
    void (*upload)(void *dst, const void *src, size_t bytes);
    void (*download)(void *dst, const void *src, size_t bytes);
    void (*copy)(void *dst, const void *src, size_t bytes);
    void (*synchronize)(void); // waits for every op issued so far
    // The peak of live bytes allocated by `alloc` (and not yet freed) since the last reset or
    // the start; reset = 1 then starts a new window at the current live bytes. Arenas only:
    // libraries' own workspaces (cuBLAS, the bf16 operand scratch) are not counted.
    size_t (*memory_peak)(int reset);
    void (*zero)(float *x, size_t n);

    // Process-wide precision of linear_forward / linear_backward from the next op on
    // (MATMUL_FP32 or MATMUL_BF16; like cuBLAS's math mode, one setting for the process: the
    // trainer sets it at the start of every run).
    void (*set_matmul_precision)(int precision);

    // ---- dense layers ----
    // out (N, OC) = in (N, IC) · weight(OC, IC)ᵀ + bias (OC); bias may be NULL.
    void (*linear_forward)(float *out, const float *in, const float *weight, const float *bias,
                           int N, int IC, int OC);
    // din (N, IC) += dout·weight; dweight (OC, IC) += doutᵀ·in; dbias (OC) += Σ_n dout.
    void (*linear_backward)(float *din, float *dweight, float *dbias, const float *dout,
                            const float *in, const float *weight, int N, int IC, int OC);

    // out (N, C) = (in - mean) * rstd * weight + bias; saves mean (N), rstd (N).
    void (*layernorm_forward)(float *out, float *mean, float *rstd, const float *in,
                              const float *weight, const float *bias, int N, int C);
    void (*layernorm_backward)(float *din, float *dweight, float *dbias, const float *dout,
                               const float *in, const float *weight, const float *mean,
                               const float *rstd, int N, int C);

    // Exact GELU: x * Φ(x) (PyTorch nn.GELU default). (n)
    void (*gelu_forward)(float *out, const float *in, size_t n);
    void (*gelu_backward)(float *din, const float *dout, const float *in, size_t n);

    // Residual with optional drop path: out (B, S) = x + keep_scale[b] * branch, where
    // keep_scale (B) is 0 or 1/(1-p) per sample (NULL = 1). S = elements per sample.
    void (*residual_forward)(float *out, const float *x, const float *branch,
                             const float *keep_scale, int B, size_t S);
    void (*residual_backward)(float *dx, float *dbranch, const float *dout,
                              const float *keep_scale, int B, size_t S);
    // keep_scale (B): sample b dropped with probability p (uniform from addr, element b).
    void (*drop_path_scales)(float *keep_scale, int B, float p, rng_addr addr);

    // Dropout (n): mask[e] = 0 with probability p else 1/(1-p); out = in * mask.
    void (*dropout_forward)(float *out, float *mask, const float *in, size_t n, float p,
                            rng_addr addr);
    void (*dropout_backward)(float *din, const float *dout, const float *mask, size_t n);

    // ---- token bookkeeping ----
    // images (B, Cin, H, W) -> patches (B, (H/p)*(W/p), Cin*p*p), channel order (c, py, px)
    // as a Conv2d weight (D, Cin, p, p) flattens. No backward: images are inputs.
    void (*patchify)(float *patches, const float *images, int B, int Cin, int H, int W, int p);
    // x (B, T, C), T = N + has_cls: x[b,0] = cls (if cls), x[b, t0+n] = patch[b,n];
    // then x[b,t] += pos[t] when pos (T, C) is given.
    void (*embed_tokens_forward)(float *x, const float *patch, const float *cls, const float *pos,
                                 int B, int N, int C);
    void (*embed_tokens_backward)(float *dpatch, float *dcls, float *dpos, const float *dx,
                                  int B, int N, int C, int has_cls);
    // out (B, M, C) = in[b, idx[b, m], :] with in (B, T, C), idx (B, M).
    void (*gather_tokens_forward)(float *out, const float *in, const int *idx, int B, int T,
                                  int M, int C);
    void (*gather_tokens_backward)(float *din, const float *dout, const int *idx, int B, int T,
                                   int M, int C);
    // out[b, idx[b, m], :] = in[b, m, :]; other rows of out (B, T, C) are left as they are.
    void (*scatter_tokens_forward)(float *out, const float *in, const int *idx, int B, int T,
                                   int M, int C);
    void (*scatter_tokens_backward)(float *din, const float *dout, const int *idx, int B, int T,
                                    int M, int C);
    // Masked (MP3) attention input: qkv (B, T, 3C) gets q (B, T, C) in every row and the
    // keys/values kv (B, M, 2C) of context token idx[b, m] in that token's row (channels
    // [C, 3C)); the k/v channels of other rows are left as they are (attention with
    // kv_index = idx never reads them). idx must not repeat within an image.
    void (*qkv_pack_forward)(float *qkv, const float *q, const float *kv, const int *idx, int B,
                             int T, int M, int C);
    // dq (B, T, C) += dqkv[..., 0:C]; dkv (B, M, 2C) += dqkv[b, idx[b, m], C:3C].
    void (*qkv_pack_backward)(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
                              int T, int M, int C);
    // Relative position bias: out (H, E) = table[h, index[e]] with table (H, K), index (E)
    // in [0, K) (E = T*T (query, key) pairs). Backward: dtable[h, index[e]] += dout[h, e],
    // summed over e in order for each h.
    void (*bias_gather_forward)(float *out, const float *table, const int *index, int H, int E,
                                int K);
    void (*bias_gather_backward)(float *dtable, const float *dout, const int *index, int H,
                                 int E, int K);
    // out (B, C) = mean over tokens t0..T-1 of in (B, T, C).
    void (*mean_pool_forward)(float *out, const float *in, int B, int T, int C, int t0);
    void (*mean_pool_backward)(float *din, const float *dout, int B, int T, int C, int t0);

    // ---- token mixing (gMLP's spatial gating unit; core/cpu/mixing_cpu.c) ----
    // Spatial projection along tokens, per image: out (B, T, C)[b, i, c] =
    //   Σ_j W[i, j] · in[b, j, c] + bias[i], with W (T, T) and bias (T) (NULL = none).
    void (*token_mix_forward)(float *out, const float *in, const float *W, const float *bias,
                              int B, int T, int C);
    // din (B, T, C) += Wᵀ · dout per image; dW (T, T) += Σ_b dout_b · in_bᵀ, images added in
    // order 0..B-1; dbias (T) += Σ_b Σ_c dout[b, i, c] in that order. NULL: not needed.
    void (*token_mix_backward)(float *din, float *dW, float *dbias, const float *dout,
                               const float *in, const float *W, int B, int T, int C);
    // Multiplicative gating (n): out = a ⊙ g; backward da += dout ⊙ g, dg += dout ⊙ a.
    void (*gate_forward)(float *out, const float *a, const float *g, size_t n);
    void (*gate_backward)(float *da, float *dg, const float *dout, const float *a, const float *g,
                          size_t n);

    // ---- resizing ----
    // Separable 2D resampling, channels last: out (P, OH, OW, C)[p, i, j, c] =
    //   Σ_y Σ_x wy[i, y] · wx[j, x] · in[p, y, x, c], with wy (OH, H), wx (OW, W) any weights
    //   (resize_bicubic_weights gives torch's bicubic). Images (B, Cimg, H, W) are P = B·Cimg, C = 1;
    //   a position table (H·W, d) is P = 1, C = d.
    void (*resize2d_forward)(float *out, const float *in, const float *wy, const float *wx, int P,
                             int H, int W, int OH, int OW, int C);
    // din (P, H, W, C) += the transpose applied to dout (P, OH, OW, C). Fixed summation order.
    void (*resize2d_backward)(float *din, const float *dout, const float *wy, const float *wx,
                              int P, int H, int W, int OH, int OW, int C);

    // ---- attention ----
    // out (B, T, C); probs (B, H, T, M) receives the attention probabilities (keep_probs = 1)
    // or the backend's saved state (keep_probs = 0, see attention_desc) and is read by the
    // backward pass.
    void (*attention_forward)(float *out, float *probs, const float *qkv,
                              const attention_desc *d);
    // dqkv (B, T, 3C) +=; dbias (H, T, T) += when both d->bias and dbias are non-NULL;
    // scratch (B, H, T, M) is workspace (needed only when dbias is non-NULL). out (B, T, C) and
    // probs are the forward's, unchanged (the fused CUDA backward forms Σ_c dout·out per row
    // from out; the CPU backend does not read it).
    void (*attention_backward)(float *dqkv, float *dbias, float *scratch, const float *dout,
                               const float *qkv, const float *out, const float *probs,
                               const attention_desc *d);
    // Floats the `probs` buffer needs with keep_probs = 0 (the backward's saved state) for B
    // images, H heads, T query rows and M key slots: CPU B·H·T·M (it keeps the probabilities),
    // CUDA B·H·T (the fused kernels' row log-sum-exp). keep_probs = 1 always needs B·H·T·M.
    size_t (*attention_state_floats)(int B, int H, int T, int M);

    // ---- position encodings ----
    // sin2d (CAPE eq. 3-4), C even, K = C/2 frequencies k = 1..K: w_kx = 10^(2k/C)·cos k,
    // w_ky = 10^(2k/C)·sin k, phase_k = π(w_kx·x + w_ky·y); channel k-1 gets cos(phase_k) and
    // channel K+k-1 sin(phase_k) (all cos first, then all sin: CAPE's reference layout).
    // x (B, T, C) += sin2d(px[b, n], py[b, n]) on token rows t0 + n (n < N = T - t0); cls rows
    // (t < t0) untouched. px, py (B, N): per-image positions (CAPE draws them per image).
    // Phases are formed in double: within 1e-5 of a double evaluation for |x|, |y| <= 3.
    // No backward: the encoding is fixed (nothing to learn), so the gradient w.r.t. x passes
    // through unchanged; the caller simply keeps using dx.
    void (*sincos2d_add)(float *x, const float *px, const float *py, int B, int T, int C, int t0);
    // 1D sinusoids at continuous positions (CAPE's speech encoding: positions in seconds),
    // C even, K = C/2 frequencies k = 0..K-1: w_k = freq_scale·10000^(-2k/C); channel 2k gets
    // cos(w_k·t) and channel 2k+1 sin(w_k·t) (interleaved, as sin1d and CAPE's E_2k, E_2k+1).
    // x (B, T, C) += that at t = pt[b, n] on token rows t0 + n (n < N = T - t0); cls rows
    // untouched. pt (B, N): per-sequence positions. Phases formed in double. No backward (fixed
    // encoding: the gradient w.r.t. x passes through unchanged).
    void (*sincos1d_add)(float *x, const float *pt, int B, int T, int C, int t0, float freq_scale);
    // RoPE. Rotates q (channels [0, C)) and k ([C, 2C)) of qkv (B, T, 3C) in place on token
    // rows t0..T-1, per head h (head channels [h·Dh, (h+1)·Dh), Dh = C/H even): channel pair
    // (2j, 2j+1) of a head is rotated by angle[n, j] (n = t - t0):
    // (a, b) -> (a·cos - b·sin, a·sin + b·cos). cos_table, sin_table (N, Dh/2), N = T - t0
    // (models/posenc/tables.h builds them). v and cls rows untouched.
    void (*rope_forward)(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                         int C, int H, int t0);
    // In place on dqkv (B, T, 3C): the inverse rotation (angle -> -angle) of the q and k
    // channels, turning the gradient w.r.t. the rotated q/k into the gradient w.r.t. the
    // unrotated ones (the exact adjoint of rope_forward). An exception to "gradients
    // accumulate": call it once, after attention_backward has filled dqkv and before the qkv
    // projection's backward reads it. v channels and cls rows untouched.
    void (*rope_backward)(float *dqkv, const float *cos_table, const float *sin_table, int B,
                          int T, int C, int H, int t0);

    // ---- losses (per-row values; the caller averages) ----
    // Softmax cross entropy with label smoothing s: target distribution (1-s)·onehot + s/K.
    // loss (N), probs (N, K) saved; target < 0 means "ignore this row" (loss 0, no gradient).
    void (*softmax_xent_forward)(float *loss, float *probs, const float *logits,
                                 const int *target, int N, int K, float smoothing);
    // dlogits (N, K) += scale * (probs - target distribution).
    void (*softmax_xent_backward)(float *dlogits, const float *probs, const int *target, int N,
                                  int K, float smoothing, float scale);
    // loss (N) = mean over D of (pred - target)^2; dpred += scale * 2 (pred - target) / D.
    void (*mse_forward)(float *loss, const float *pred, const float *target, int N, int D);
    void (*mse_backward)(float *dpred, const float *pred, const float *target, int N, int D,
                         float scale);

    // ---- reductions (results come back to the host) ----
    // Σ x[i] in double in a fixed order (CPU: i = 0, 1, ..., n-1), returned to the host.
    double (*sum)(const float *x, size_t n);
    // rank (N) on the backend: for row n of logits (N, K), the number of classes ranked ahead
    // of target[n] (a larger logit, or an equal one with a lower index); a row holding a
    // non-finite logit gets rank K (it is never counted correct). target in [0, K).
    void (*class_rank)(int *rank, const float *logits, const int *target, int N, int K);
    // index (N) on the backend = argmax over k of x[n, k], x (N, K); ties go to the lowest k;
    // -1 for a row holding a NaN or an infinity (it matches no class or position).
    void (*argmax_rows)(int *index, const float *x, int N, int K);

    // ---- optimizer ----
    // Σ x² in double, summed in a fixed order.
    double (*sum_squares)(const float *x, size_t n);
    void (*scale)(float *x, size_t n, float s);
    // One AdamW step on n values (decoupled decay: p -= lr * (wd * p + m̂ / (sqrt(v̂) + eps))),
    // t = 1-based step count for bias correction.
    void (*adamw_update)(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                         float beta1, float beta2, float eps, float weight_decay, int t);
} ops_backend;

extern const ops_backend ops_cpu;
// The CPU ops with every arena PROT_NONE outside ops and copies (core/cpu/ops_cpu_guarded.c):
// `--device cpu-guarded`, which proves that host code reaches backend memory only through
// upload/download.
extern const ops_backend ops_cpu_guarded;
