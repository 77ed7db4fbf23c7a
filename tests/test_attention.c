// tests/test_attention.c — checks of the CPU attention op (core/cpu/attention_cpu.c) against
// finite differences, a naive double-precision reference, equivalences between its options
// (kv_index subset vs masking bias, identity kv_index vs none), thread-count determinism, and
// the bf16 rounding points of train.precision = bf16.
// One PASS/FAIL line per check; small sizes so the whole program runs in well under a second.
#include "testing.h"
#include "gradcheck.h"
#include "../core/bf16.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/rng.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// One attention problem with every buffer its forward and backward need.
typedef struct {
    attention_desc d;
    float *qkv;     // (B, T, 3C) inputs in [-1, 1]
    float *bias;    // (H, T, T) or NULL
    float *w;       // (B, T, C) loss weights = dout
    float *out;     // (B, T, C)
    float *probs;   // (B, H, T, M)
    float *dqkv;    // (B, T, 3C)
    float *dbias;   // (H, T, T) or NULL
    float *scratch; // (B, H, T, M)
    int *kv;        // (B, M) or NULL
    int *group;     // (B, T) or NULL
} acase;

enum { KV_NONE = 0, KV_SUBSET = 1, KV_DUPS = 2, KV_IDENTITY = 3 };

static size_t n_qkv(const acase *c) { return (size_t)c->d.B * c->d.T * 3 * c->d.C; }
static size_t n_out(const acase *c) { return (size_t)c->d.B * c->d.T * c->d.C; }
static size_t n_probs(const acase *c) { return (size_t)c->d.B * c->d.H * c->d.T * c->d.M; }
static size_t n_bias(const acase *c) { return (size_t)c->d.H * c->d.T * c->d.T; }

// kv: KV_NONE (M must be T), KV_SUBSET (a different random subset of M distinct tokens per
// image), KV_DUPS (random tokens with replacement: duplicates), KV_IDENTITY (0..T-1, M = T).
static acase case_make(int B, int T, int C, int H, int M, int kv, int use_bias, int mode,
                       unsigned tag) {
    acase c;
    memset(&c, 0, sizeof c);
    c.d.B = B; c.d.T = T; c.d.C = C; c.d.H = H; c.d.M = M;
    c.d.mask_mode = mode;
    c.qkv = xmalloc(n_qkv(&c) * sizeof(float), "test qkv");
    c.w = xmalloc(n_out(&c) * sizeof(float), "test w");
    c.out = xcalloc(n_out(&c), sizeof(float), "test out");
    c.probs = xcalloc(n_probs(&c), sizeof(float), "test probs");
    c.dqkv = xcalloc(n_qkv(&c), sizeof(float), "test dqkv");
    c.scratch = xcalloc(n_probs(&c), sizeof(float), "test scratch");
    test_fill_uniform(c.qkv, n_qkv(&c), -1.0f, 1.0f, tag);
    test_fill_uniform(c.w, n_out(&c), -1.0f, 1.0f, tag + 1);
    if (use_bias) {
        c.bias = xmalloc(n_bias(&c) * sizeof(float), "test bias");
        c.dbias = xcalloc(n_bias(&c), sizeof(float), "test dbias");
        test_fill_uniform(c.bias, n_bias(&c), -1.0f, 1.0f, tag + 2);
        c.d.bias = c.bias;
    }
    if (kv != KV_NONE) {
        c.kv = xmalloc((size_t)B * M * sizeof(int), "test kv_index");
        int *perm = xmalloc((size_t)T * sizeof(int), "test perm");
        for (int b = 0; b < B; b++) {
            rng_stream s = rng_stream_make(77, RNG_TEST, 0, tag, (uint32_t)b);
            rng_permutation(&s, T, perm);
            for (int m = 0; m < M; m++) {
                int t = kv == KV_SUBSET ? perm[m] : kv == KV_IDENTITY ? m : (int)rng_below(&s, (uint32_t)T);
                c.kv[(size_t)b * M + m] = t;
            }
            if (kv == KV_DUPS && M >= 2) c.kv[(size_t)b * M + 1] = c.kv[(size_t)b * M]; // surely one
        }
        free(perm);
        c.d.kv_index = c.kv;
    }
    if (mode != ATTN_MASK_NONE) {
        c.group = xmalloc((size_t)B * T * sizeof(int), "test group");
        rng_stream s = rng_stream_make(78, RNG_TEST, 0, tag, 0);
        for (int e = 0; e < B * T; e++) c.group[e] = (int)rng_below(&s, 3);
        c.d.group = c.group;
    }
    return c;
}

static void case_free(acase *c) {
    free(c->qkv); free(c->bias); free(c->w); free(c->out); free(c->probs);
    free(c->dqkv); free(c->dbias); free(c->scratch); free(c->kv); free(c->group);
}

static void run_forward(acase *c) { ops_cpu.attention_forward(c->out, c->probs, c->qkv, &c->d); }

// Forward, then backward with dout = w into zeroed dqkv (and dbias).
static void run_both(acase *c) {
    run_forward(c);
    memset(c->dqkv, 0, n_qkv(c) * sizeof(float));
    if (c->dbias) memset(c->dbias, 0, n_bias(c) * sizeof(float));
    ops_cpu.attention_backward(c->dqkv, c->dbias, c->scratch, c->w, c->qkv, c->out, c->probs, &c->d);
}

static double loss_fn(void *ctx) {
    acase *c = ctx;
    run_forward(c);
    return gradcheck_dot(c->out, c->w, n_out(c));
}

static int all_finite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

// Gradient checks of qkv (and bias when present) by central differences.
static void check_grads(const char *name, acase *c) {
    run_both(c);
    char label[160];
    // The default tolerances, but more sampled entries than the default 64: the inputs here
    // have up to 2448 entries, and every q/k/v channel of every head should be touched.
    gradcheck_tol tol = GRADCHECK_DEFAULT;
    tol.max_checks = 512;
    snprintf(label, sizeof label, "%s dqkv", name);
    gradcheck(label, c, loss_fn, c->qkv, c->dqkv, n_qkv(c), tol);
    if (c->bias) {
        snprintf(label, sizeof label, "%s dbias", name);
        gradcheck(label, c, loss_fn, c->bias, c->dbias, n_bias(c), tol);
    }
}

// ---- naive double-precision reference ----

static int ref_key(const acase *c, int b, int m) {
    return c->kv ? c->kv[(size_t)b * c->d.M + m] : m;
}

static int ref_visible(const acase *c, int b, int i, int j) {
    if (c->d.mask_mode == ATTN_MASK_NONE) return 1;
    int gi = c->group[(size_t)b * c->d.T + i], gj = c->group[(size_t)b * c->d.T + j];
    return c->d.mask_mode == ATTN_MASK_LT ? gj < gi : gj <= gi;
}

// out (B,T,C), P (B,H,T,M), and when dout is non-NULL dqkv (B,T,3C) and dbias (H,T,T), all
// double, by direct loops over the definition in core/ops.h.
static void ref_attention(const acase *c, double *out, double *P, const float *dout,
                          double *dqkv, double *dbias) {
    const int B = c->d.B, T = c->d.T, C = c->d.C, H = c->d.H, M = c->d.M, hs = C / H;
    const double scale = 1.0 / sqrt((double)hs);
    double *s = xmalloc((size_t)M * sizeof(double), "ref s");
    double *dp = xmalloc((size_t)M * sizeof(double), "ref dp");
    if (dout) {
        memset(dqkv, 0, n_qkv(c) * sizeof(double));
        memset(dbias, 0, n_bias(c) * sizeof(double));
    }
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                const float *q = c->qkv + ((size_t)b * T + i) * 3 * C + h * hs;
                double *p = P + (((size_t)b * H + h) * T + i) * M;
                double mx = -INFINITY;
                int any = 0;
                for (int m = 0; m < M; m++) {
                    int j = ref_key(c, b, m);
                    const float *k = c->qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double dot = 0.0;
                    for (int e = 0; e < hs; e++) dot += (double)q[e] * k[e];
                    s[m] = dot * scale + (c->bias ? c->bias[((size_t)h * T + i) * T + j] : 0.0);
                    if (ref_visible(c, b, i, j)) {
                        any = 1;
                        if (s[m] > mx) mx = s[m];
                    }
                }
                double sum = 0.0;
                for (int m = 0; m < M; m++) {
                    p[m] = any && ref_visible(c, b, i, ref_key(c, b, m)) ? exp(s[m] - mx) : 0.0;
                    sum += p[m];
                }
                for (int m = 0; m < M; m++)
                    if (any) p[m] /= sum;
                double *o = out + ((size_t)b * T + i) * C + h * hs;
                for (int e = 0; e < hs; e++) o[e] = 0.0;
                for (int m = 0; m < M; m++) {
                    const float *v = c->qkv + ((size_t)b * T + ref_key(c, b, m)) * 3 * C + 2 * C + h * hs;
                    for (int e = 0; e < hs; e++) o[e] += p[m] * v[e];
                }
                if (!dout) continue;
                const float *g = dout + ((size_t)b * T + i) * C + h * hs;
                double pdp = 0.0;
                for (int m = 0; m < M; m++) {
                    const float *v = c->qkv + ((size_t)b * T + ref_key(c, b, m)) * 3 * C + 2 * C + h * hs;
                    dp[m] = 0.0;
                    for (int e = 0; e < hs; e++) dp[m] += (double)g[e] * v[e];
                    pdp += p[m] * dp[m];
                }
                for (int m = 0; m < M; m++) {
                    int j = ref_key(c, b, m);
                    double ds = p[m] * (dp[m] - pdp);
                    const float *k = c->qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double *dq = dqkv + ((size_t)b * T + i) * 3 * C + h * hs;
                    double *dk = dqkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double *dv = dk + C;
                    for (int e = 0; e < hs; e++) {
                        dq[e] += scale * ds * k[e];
                        dk[e] += scale * ds * q[e];
                        dv[e] += p[m] * g[e];
                    }
                    dbias[((size_t)h * T + i) * T + j] += ds;
                }
            }
    free(s);
    free(dp);
}

static double max_abs_diff(const float *a, const double *ref, size_t n, double *ref_max) {
    double worst = 0.0, rm = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - ref[i]);
        if (!(e <= worst)) worst = e; // NaN counts as worst
        if (fabs(ref[i]) > rm) rm = fabs(ref[i]);
    }
    if (ref_max) *ref_max = rm;
    return worst;
}

// Forward (out, probs) within 1e-5 of the double reference; backward (dqkv, dbias) within
// 1e-5 relative to the largest reference gradient (gradients sum over up to 17 keys and
// queries, so their size and float rounding grow with it).
static void check_reference(const char *name, acase *c) {
    run_both(c);
    double *out = xmalloc(n_out(c) * sizeof(double), "ref out");
    double *P = xmalloc(n_probs(c) * sizeof(double), "ref probs");
    double *dqkv = xmalloc(n_qkv(c) * sizeof(double), "ref dqkv");
    double *dbias = xmalloc(n_bias(c) * sizeof(double), "ref dbias");
    ref_attention(c, out, P, c->w, dqkv, dbias);
    char label[160];
    double e_out = max_abs_diff(c->out, out, n_out(c), NULL);
    double e_p = max_abs_diff(c->probs, P, n_probs(c), NULL);
    snprintf(label, sizeof label, "reference forward %s", name);
    test_check(label, e_out <= 1e-5 && e_p <= 1e-5, "max |out - ref| %.2e, max |probs - ref| %.2e",
               e_out, e_p);
    double gmax, bmax = 0.0;
    double e_dq = max_abs_diff(c->dqkv, dqkv, n_qkv(c), &gmax);
    double e_db = c->dbias ? max_abs_diff(c->dbias, dbias, n_bias(c), &bmax) : 0.0;
    snprintf(label, sizeof label, "reference backward %s", name);
    test_check(label, e_dq <= 1e-5 * fmax(1.0, gmax) && e_db <= 1e-5 * fmax(1.0, bmax),
               "max |dqkv - ref| %.2e (ref max %.2f), max |dbias - ref| %.2e (ref max %.2f)",
               e_dq, gmax, e_db, bmax);
    free(out); free(P); free(dqkv); free(dbias);
}

// ---- train.precision = bf16: the rounding points of the CUDA materialised route ----
// Under MATMUL_BF16 with keep_probs = 0 the op rounds q, k, v, dout, the probabilities and the
// score gradient dS to bf16 (core/cpu/attention_cpu.c). Checked against a double evaluation
// from bf16-rounded inputs: every kept probability is a bf16 value within one bf16 step of the
// double softmax; out = Σ P·bf16(v) and dv = Σ Pᵀ·bf16(dout) (exact products of the op's own P)
// within 1e-5; dq, dk within one bf16 step of their dS terms; dbias (fp32 dS) within 1e-5.
// With keep_probs = 1 (attention statistics) nothing is rounded: bitwise the fp32 results.
static float rb(float x) { return bf16_round(x); }

static void check_bf16_points(const char *name, acase *c) {
    const int B = c->d.B, T = c->d.T, C = c->d.C, H = c->d.H, M = c->d.M, hs = C / H;
    const double scale = 1.0 / sqrt((double)hs);
    ops_cpu.set_matmul_precision(MATMUL_BF16);
    run_both(c);
    ops_cpu.set_matmul_precision(MATMUL_FP32);
    double *dq = xcalloc(n_qkv(c), sizeof(double), "ref bf16 dqkv");
    double *dq_bound = xcalloc(n_qkv(c), sizeof(double), "ref bf16 dqkv bound");
    double *db = xcalloc(n_bias(c), sizeof(double), "ref bf16 dbias");
    double *s = xmalloc((size_t)M * sizeof(double), "ref s"), *dp = xmalloc((size_t)M * sizeof(double), "ref dp");
    double e_p = 0.0, e_out = 0.0;
    size_t not_bf16 = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                const float *q = c->qkv + ((size_t)b * T + i) * 3 * C + h * hs;
                const float *g = c->w + ((size_t)b * T + i) * C + h * hs;
                const float *p = c->probs + (((size_t)b * H + h) * T + i) * M; // the op's P
                double mx = -INFINITY, sum = 0.0, pdp = 0.0;
                for (int m = 0; m < M; m++) {
                    int j = ref_key(c, b, m);
                    const float *k = c->qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double dot = 0.0;
                    for (int e = 0; e < hs; e++) dot += (double)rb(q[e]) * rb(k[e]);
                    s[m] = ref_visible(c, b, i, j)
                               ? dot * scale + (c->bias ? c->bias[((size_t)h * T + i) * T + j] : 0.0)
                               : -INFINITY;
                    if (s[m] > mx) mx = s[m];
                }
                for (int m = 0; m < M; m++) sum += mx > -INFINITY ? exp(s[m] - mx) : 0.0;
                for (int m = 0; m < M; m++) {
                    double pd = mx > -INFINITY ? exp(s[m] - mx) / sum : 0.0;
                    e_p = fmax(e_p, fabs(p[m] - pd) - fabs(pd) / 256.0 - 1e-6);
                    not_bf16 += rb(p[m]) != p[m];
                }
                for (int e = 0; e < hs; e++) {
                    double o = 0.0;
                    for (int m = 0; m < M; m++)
                        o += (double)p[m] * rb(c->qkv[((size_t)b * T + ref_key(c, b, m)) * 3 * C + 2 * C + h * hs + e]);
                    e_out = fmax(e_out, fabs(c->out[((size_t)b * T + i) * C + h * hs + e] - o));
                }
                for (int m = 0; m < M; m++) {
                    const float *v = c->qkv + ((size_t)b * T + ref_key(c, b, m)) * 3 * C + 2 * C + h * hs;
                    dp[m] = 0.0;
                    for (int e = 0; e < hs; e++) dp[m] += (double)rb(g[e]) * rb(v[e]);
                    pdp += (double)p[m] * dp[m];
                }
                for (int m = 0; m < M; m++) {
                    int j = ref_key(c, b, m);
                    double ds = (double)p[m] * (dp[m] - pdp);
                    double ds16 = rb((float)ds);
                    const float *k = c->qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    size_t qi = ((size_t)b * T + i) * 3 * C + h * hs, kj = ((size_t)b * T + j) * 3 * C + C + h * hs;
                    for (int e = 0; e < hs; e++) {
                        dq[qi + e] += scale * ds16 * rb(k[e]);
                        dq_bound[qi + e] += scale * fabs(ds) * fabs(k[e]) / 128.0;
                        dq[kj + e] += scale * ds16 * rb(q[e]);
                        dq_bound[kj + e] += scale * fabs(ds) * fabs(q[e]) / 128.0;
                        dq[kj + C + e] += (double)p[m] * rb(g[e]);
                    }
                    db[((size_t)h * T + i) * T + j] += ds;
                }
            }
    double e_grad = 0.0, gmax = 0.0;
    for (size_t e = 0; e < n_qkv(c); e++) {
        gmax = fmax(gmax, fabs(dq[e]));
        e_grad = fmax(e_grad, fabs(c->dqkv[e] - dq[e]) - dq_bound[e]);
    }
    double bmax = 0.0, e_db = c->dbias ? max_abs_diff(c->dbias, db, n_bias(c), &bmax) : 0.0;
    char label[160];
    snprintf(label, sizeof label, "bf16 rounding points forward %s", name);
    test_check(label, not_bf16 == 0 && e_p <= 0.0 && e_out <= 1e-5,
               "%zu probabilities not bf16 values; P beyond one bf16 step of the double softmax by %.2e; "
               "max |out - Σ P·bf16(v)| %.2e", not_bf16, e_p, e_out);
    snprintf(label, sizeof label, "bf16 rounding points backward %s", name);
    test_check(label, e_grad <= 1e-5 * fmax(1.0, gmax) && e_db <= 1e-5 * fmax(1.0, bmax),
               "dqkv beyond the bf16 dS bound by %.2e (ref max %.2f), max |dbias - ref| %.2e", e_grad, gmax,
               e_db);
    // keep_probs = 1: no rounding, bitwise the fp32 results
    float *out32 = xmalloc(n_out(c) * sizeof(float), "fp32 out"), *dqkv32 = xmalloc(n_qkv(c) * sizeof(float), "fp32 dqkv");
    run_both(c);
    memcpy(out32, c->out, n_out(c) * sizeof(float));
    memcpy(dqkv32, c->dqkv, n_qkv(c) * sizeof(float));
    c->d.keep_probs = 1;
    ops_cpu.set_matmul_precision(MATMUL_BF16);
    run_both(c);
    ops_cpu.set_matmul_precision(MATMUL_FP32);
    c->d.keep_probs = 0;
    snprintf(label, sizeof label, "bf16 with keep_probs = 1 is the fp32 op, bit for bit %s", name);
    test_check(label, memcmp(out32, c->out, n_out(c) * sizeof(float)) == 0 &&
                          memcmp(dqkv32, c->dqkv, n_qkv(c) * sizeof(float)) == 0, "out and dqkv compared");
    free(out32); free(dqkv32); free(dq); free(dq_bound); free(db); free(s); free(dp);
}

// Fully masked queries (no visible key) give zero output, zero probabilities and zero query
// gradient; nothing anywhere is NaN; other rows of probs sum to 1.
static void check_masked_rows(const char *name, acase *c) {
    run_both(c);
    const int B = c->d.B, T = c->d.T, C = c->d.C, H = c->d.H, M = c->d.M, hs = C / H;
    int finite = all_finite(c->out, n_out(c)) && all_finite(c->probs, n_probs(c)) &&
                 all_finite(c->dqkv, n_qkv(c)) && (!c->dbias || all_finite(c->dbias, n_bias(c)));
    int masked_rows = 0, bad_zero = 0;
    double worst_sum = 0.0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                int any = 0;
                for (int m = 0; m < M; m++) any |= ref_visible(c, b, i, ref_key(c, b, m));
                const float *p = c->probs + (((size_t)b * H + h) * T + i) * M;
                double sum = 0.0;
                for (int m = 0; m < M; m++) sum += p[m];
                if (any) {
                    if (fabs(sum - 1.0) > worst_sum || isnan(sum)) worst_sum = fabs(sum - 1.0);
                    continue;
                }
                masked_rows++;
                const float *o = c->out + ((size_t)b * T + i) * C + h * hs;
                const float *dq = c->dqkv + ((size_t)b * T + i) * 3 * C + h * hs;
                for (int e = 0; e < hs; e++) bad_zero += o[e] != 0.0f || dq[e] != 0.0f;
                for (int m = 0; m < M; m++) bad_zero += p[m] != 0.0f;
            }
    char label[160];
    snprintf(label, sizeof label, "masked rows %s", name);
    test_check(label, finite && masked_rows > 0 && bad_zero == 0,
               "%d fully masked query rows, %d nonzero values in them, all finite: %s",
               masked_rows, bad_zero, finite ? "yes" : "NO");
    snprintf(label, sizeof label, "probs rows sum to 1 %s", name);
    test_check(label, worst_sum <= 1e-6, "worst |Σp - 1| %.2e over visible rows (masked rows sum 0)",
               worst_sum);
}

// A NaN query makes every score of its rows NaN: max_vl (which skips NaN) then finds no finite
// score, the path of a fully masked row. Those rows must come out NaN (as torch's softmax), not
// zeros: zeros gave a model with a NaN W_q finite outputs, a finite loss and a run called done.
static void check_nan_query(const char *name, acase *c) {
    const int T = c->d.T, C = c->d.C, H = c->d.H, M = c->d.M, hs = C / H;
    c->qkv[0] = NAN; // q of token 0 of batch 0, head 0: every score of that row is NaN
    run_forward(c);
    int nan_out = 0, nan_probs = 0, other_finite = 1;
    for (int e = 0; e < hs; e++) nan_out += isnan(c->out[e]);
    for (int m = 0; m < M; m++) nan_probs += isnan(c->probs[m]);
    // rows of other queries never read q of token 0: they stay finite
    other_finite = all_finite(c->out + C, (size_t)(T - 1) * C) && all_finite(c->out + hs, (size_t)(C - hs));
    char label[160];
    snprintf(label, sizeof label, "NaN query row stays NaN %s", name);
    test_check(label, nan_out == hs && nan_probs == M && other_finite,
               "%d/%d NaN outputs, %d/%d NaN probabilities in the row, other rows finite: %s", nan_out, hs,
               nan_probs, M, other_finite ? "yes" : "NO");
}

// ---- equivalences ----

static int bitwise_equal(const float *a, const float *b, size_t n) {
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static float max_diff_f(const float *a, const float *b, size_t n) {
    float worst = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float e = fabsf(a[i] - b[i]);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

// Attention over a kv_index subset equals full attention in which every non-context key is
// masked by a bias of -1e9 (added to a real bias), image by image (the bias is per head, not
// per image, so each image runs alone with B = 1). Compared: out, probs, dqkv, dbias.
// With a group mask, a query whose visible keys are all outside the context differs by
// design (the subset has nothing to attend to: zeros; the full version softmaxes over keys
// that all carry -1e9); those rows are left out of the comparison and given dout = 0.
static int sees_context(const acase *c, int b, int i) {
    for (int m = 0; m < c->d.M; m++)
        if (ref_visible(c, b, i, ref_key(c, b, m))) return 1;
    return 0;
}

static void check_subset_vs_masked(int mode, const char *name) {
    const int B = 3, T = 7, C = 16, H = 2, M = 4;
    acase sub = case_make(B, T, C, H, M, KV_SUBSET, 1, mode, 300);
    int compared = 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            if (sees_context(&sub, b, i)) compared++;
            else memset(sub.w + ((size_t)b * T + i) * C, 0, (size_t)C * sizeof(float));
        }
    run_both(&sub);
    float worst_out = 0.0f, worst_p = 0.0f, worst_dq = 0.0f, worst_db = 0.0f;
    float *dbias_sum = xcalloc((size_t)H * T * T, sizeof(float), "dbias sum");
    for (int b = 0; b < B; b++) {
        acase full = case_make(1, T, C, H, T, KV_NONE, 1, mode, 400);
        memcpy(full.qkv, sub.qkv + (size_t)b * T * 3 * C, (size_t)T * 3 * C * sizeof(float));
        memcpy(full.w, sub.w + (size_t)b * T * C, (size_t)T * C * sizeof(float));
        if (mode != ATTN_MASK_NONE) memcpy(full.group, sub.group + (size_t)b * T, T * sizeof(int));
        const int *kv = sub.kv + (size_t)b * M;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++) {
                    int in_ctx = 0;
                    for (int m = 0; m < M; m++) in_ctx |= kv[m] == j;
                    size_t e = ((size_t)h * T + i) * T + j;
                    full.bias[e] = sub.bias[e] + (in_ctx ? 0.0f : -1e9f);
                }
        run_both(&full);
        float e;
        for (int i = 0; i < T; i++) {
            if (!sees_context(&sub, b, i)) continue;
            e = max_diff_f(full.out + (size_t)i * C, sub.out + ((size_t)b * T + i) * C, (size_t)C);
            if (!(e <= worst_out)) worst_out = e;
        }
        e = max_diff_f(full.dqkv, sub.dqkv + (size_t)b * T * 3 * C, (size_t)T * 3 * C);
        if (!(e <= worst_dq)) worst_dq = e;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                if (!sees_context(&sub, b, i)) continue;
                const float *pf = full.probs + ((size_t)h * T + i) * T;
                const float *ps = sub.probs + (((size_t)b * H + h) * T + i) * M;
                for (int m = 0; m < M; m++) {
                    e = fabsf(pf[kv[m]] - ps[m]);
                    if (!(e <= worst_p)) worst_p = e;
                }
            }
        // Full-attention dbias of non-context keys is exactly zero (p = 0); sum the images.
        for (size_t k = 0; k < (size_t)H * T * T; k++) dbias_sum[k] += full.dbias[k];
        case_free(&full);
    }
    worst_db = max_diff_f(dbias_sum, sub.dbias, (size_t)H * T * T);
    char label[160];
    snprintf(label, sizeof label, "kv_index subset == full attention masked by -1e9 bias (%s)", name);
    test_check(label, worst_out <= 1e-6f && worst_p <= 1e-6f && worst_dq <= 1e-5f && worst_db <= 1e-5f,
               "%d/%d query rows compared; max diff out %.2e probs %.2e dqkv %.2e dbias %.2e",
               compared, B * T, worst_out, worst_p, worst_dq, worst_db);
    free(dbias_sum);
    case_free(&sub);
}

// kv_index = 0..T-1 (M = T) gives the same result as kv_index = NULL.
static void check_identity_kv(int mode, const char *name) {
    acase a = case_make(2, 17, 12, 2, 17, KV_NONE, 1, mode, 500);
    acase b = case_make(2, 17, 12, 2, 17, KV_IDENTITY, 1, mode, 500);
    run_both(&a);
    run_both(&b);
    int bits = bitwise_equal(a.out, b.out, n_out(&a)) && bitwise_equal(a.probs, b.probs, n_probs(&a)) &&
               bitwise_equal(a.dqkv, b.dqkv, n_qkv(&a)) && bitwise_equal(a.dbias, b.dbias, n_bias(&a));
    float e = fmaxf(fmaxf(max_diff_f(a.out, b.out, n_out(&a)), max_diff_f(a.probs, b.probs, n_probs(&a))),
                    fmaxf(max_diff_f(a.dqkv, b.dqkv, n_qkv(&a)), max_diff_f(a.dbias, b.dbias, n_bias(&a))));
    char label[160];
    snprintf(label, sizeof label, "kv_index identity == kv_index NULL (%s)", name);
    test_check(label, e <= 1e-6f, "bitwise %s, max diff %.2e", bits ? "equal" : "different", e);
    case_free(&a);
    case_free(&b);
}

// Backward accumulates: starting from r gives r + (the gradient from zero).
static void check_accumulates(void) {
    acase c = case_make(2, 7, 16, 2, 5, KV_DUPS, 1, ATTN_MASK_LE, 600);
    run_both(&c);
    float *g = xmalloc(n_qkv(&c) * sizeof(float), "g"), *gb = xmalloc(n_bias(&c) * sizeof(float), "gb");
    memcpy(g, c.dqkv, n_qkv(&c) * sizeof(float));
    memcpy(gb, c.dbias, n_bias(&c) * sizeof(float));
    float *r = xmalloc(n_qkv(&c) * sizeof(float), "r"), *rb = xmalloc(n_bias(&c) * sizeof(float), "rb");
    test_fill_uniform(r, n_qkv(&c), -1.0f, 1.0f, 601);
    test_fill_uniform(rb, n_bias(&c), -1.0f, 1.0f, 602);
    memcpy(c.dqkv, r, n_qkv(&c) * sizeof(float));
    memcpy(c.dbias, rb, n_bias(&c) * sizeof(float));
    ops_cpu.attention_backward(c.dqkv, c.dbias, c.scratch, c.w, c.qkv, c.out, c.probs, &c.d);
    float worst = 0.0f;
    for (size_t i = 0; i < n_qkv(&c); i++) worst = fmaxf(worst, fabsf(c.dqkv[i] - (r[i] + g[i])));
    for (size_t i = 0; i < n_bias(&c); i++) worst = fmaxf(worst, fabsf(c.dbias[i] - (rb[i] + gb[i])));
    test_check("backward accumulates into dqkv and dbias", worst <= 1e-5f, "max |after - (before + grad)| %.2e",
               worst);
    // dqkv = NULL with dbias: only dbias; d->bias = NULL: dbias untouched.
    memset(c.dbias, 0, n_bias(&c) * sizeof(float));
    ops_cpu.attention_backward(NULL, c.dbias, c.scratch, c.w, c.qkv, c.out, c.probs, &c.d);
    int same = bitwise_equal(c.dbias, gb, n_bias(&c));
    test_check("backward dbias only (dqkv NULL)", same, "dbias %s the full backward's",
               same ? "equals" : "differs from");
    c.d.bias = NULL;
    run_forward(&c);
    memcpy(c.dbias, rb, n_bias(&c) * sizeof(float));
    ops_cpu.attention_backward(c.dqkv, c.dbias, c.scratch, c.w, c.qkv, c.out, c.probs, &c.d);
    same = bitwise_equal(c.dbias, rb, n_bias(&c));
    test_check("backward leaves dbias alone without a bias", same, "dbias %s",
               same ? "unchanged" : "CHANGED");
    free(g); free(gb); free(r); free(rb);
    case_free(&c);
}

// Bitwise identical out, probs, dqkv, dbias for 1, 2 and 3 OpenMP threads.
static void check_determinism(void) {
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    const int counts[3] = {1, 2, 3};
    acase c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = case_make(3, 17, 16, 2, 11, KV_DUPS, 1, ATTN_MASK_LE, 700);
        omp_set_num_threads(counts[k]);
        run_both(&c[k]);
    }
    omp_set_num_threads(saved);
    for (int k = 1; k < 3; k++) {
        int eq = bitwise_equal(c[0].out, c[k].out, n_out(&c[0])) &&
                 bitwise_equal(c[0].probs, c[k].probs, n_probs(&c[0])) &&
                 bitwise_equal(c[0].dqkv, c[k].dqkv, n_qkv(&c[0])) &&
                 bitwise_equal(c[0].dbias, c[k].dbias, n_bias(&c[0]));
        char label[96];
        snprintf(label, sizeof label, "determinism 1 vs %d threads", counts[k]);
        test_check(label, eq, "out, probs, dqkv, dbias %s", eq ? "bitwise equal" : "DIFFER");
    }
    for (int k = 0; k < 3; k++) case_free(&c[k]);
#else
    test_skip("determinism 1 vs 2 threads", "built without OpenMP");
#endif
}

int main(void) {
    // ---- gradient checks ----
    struct {
        const char *name;
        int B, T, C, H, M, kv, bias, mode;
    } g[] = {
        {"plain T=5", 2, 5, 8, 2, 5, KV_NONE, 0, ATTN_MASK_NONE},
        {"plain T=17 hs=6", 2, 17, 12, 2, 17, KV_NONE, 0, ATTN_MASK_NONE},
        {"kv_index T=7 M=4", 3, 7, 16, 2, 4, KV_SUBSET, 0, ATTN_MASK_NONE},
        {"kv_index duplicates T=5 M=6", 2, 5, 8, 2, 6, KV_DUPS, 1, ATTN_MASK_NONE},
        {"bias T=7", 2, 7, 16, 2, 7, KV_NONE, 1, ATTN_MASK_NONE},
        {"group LT T=7", 2, 7, 16, 2, 7, KV_NONE, 0, ATTN_MASK_LT},
        {"group LE T=7", 2, 7, 16, 2, 7, KV_NONE, 0, ATTN_MASK_LE},
        {"all options LT T=17 M=9", 3, 17, 16, 2, 9, KV_SUBSET, 1, ATTN_MASK_LT},
        {"all options LE T=17 M=9", 3, 17, 16, 2, 9, KV_SUBSET, 1, ATTN_MASK_LE},
        {"all options LE duplicates T=7 M=9", 2, 7, 8, 2, 9, KV_DUPS, 1, ATTN_MASK_LE},
    };
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        acase c = case_make(g[k].B, g[k].T, g[k].C, g[k].H, g[k].M, g[k].kv, g[k].bias, g[k].mode,
                            100 + 10 * (unsigned)k);
        check_grads(g[k].name, &c);
        check_reference(g[k].name, &c);
        case_free(&c);
    }

    // ---- train.precision = bf16 rounding points ----
    {
        acase a = case_make(2, 17, 32, 2, 17, KV_NONE, 1, ATTN_MASK_NONE, 600);
        check_bf16_points("plain + bias T=17 hs=16", &a);
        case_free(&a);
        acase k = case_make(3, 17, 48, 3, 9, KV_SUBSET, 1, ATTN_MASK_LT, 610);
        check_bf16_points("kv_index + bias + LT T=17 M=9", &k);
        case_free(&k);
    }

    // ---- fully masked rows (LT: queries of the smallest group see nothing) ----
    {
        acase c = case_make(2, 7, 16, 2, 7, KV_NONE, 1, ATTN_MASK_LT, 200);
        check_masked_rows("LT T=7", &c);
        case_free(&c);
        acase s = case_make(3, 17, 16, 2, 9, KV_SUBSET, 1, ATTN_MASK_LT, 210);
        check_masked_rows("LT kv_index T=17 M=9", &s);
        case_free(&s);
    }

    // ---- NaN is never turned into a finite value ----
    {
        acase c = case_make(1, 5, 8, 2, 5, KV_NONE, 0, ATTN_MASK_NONE, 220);
        check_nan_query("plain T=5", &c);
        case_free(&c);
        acase b = case_make(1, 7, 16, 2, 7, KV_NONE, 1, ATTN_MASK_NONE, 230);
        check_nan_query("bias T=7", &b);
        case_free(&b);
    }

    // ---- equivalences ----
    check_subset_vs_masked(ATTN_MASK_NONE, "no mask");
    check_subset_vs_masked(ATTN_MASK_LE, "LE");
    check_identity_kv(ATTN_MASK_NONE, "no mask");
    check_identity_kv(ATTN_MASK_LT, "LT");
    check_accumulates();

    // ---- determinism ----
    check_determinism();
    return test_exit_code();
}
