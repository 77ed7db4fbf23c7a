// tests/dense_bf16_cases.c — the bf16-activation ops against their fp32 twins (dense_bf16_cases.h).
#include "dense_bf16_cases.h"
#include "testing.h"
#include "../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Backend copies of host arrays and back.
static void *up(const ops_backend *ops, const void *host, size_t bytes) {
    void *d = ops->alloc(bytes, "bf16 test buffer");
    ops->upload(d, host, bytes);
    return d;
}
static void *down(const ops_backend *ops, const void *dev, size_t bytes) {
    void *h = xmalloc(bytes ? bytes : 1, "bf16 test host buffer");
    ops->download(h, dev, bytes);
    return h;
}

// n values uniform in [lo, hi), rounded to bf16: the fp32 copy (exact) and the stored bits.
static void bf16_inputs(size_t n, float lo, float hi, unsigned tag, float **f32, bfloat16 **b16) {
    *f32 = test_rnd(n, lo, hi, tag);
    *b16 = xmalloc(n * sizeof(bfloat16), "bf16 inputs");
    for (size_t i = 0; i < n; i++) (*b16)[i] = bf16_from_float((*f32)[i]), (*f32)[i] = bf16_to_float((*b16)[i]);
}

// How many of n bf16 values differ from bf16_round of the fp32 reference.
static size_t count_unrounded(const bfloat16 *got, const float *ref, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += got[i] != bf16_from_float(ref[i]);
    return bad;
}

static size_t count_different(const float *a, const float *b, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return bad;
}

static void check_conversions(const ops_backend *ops, const char *label) {
    size_t n = 1003;
    float *x = test_rnd(n, -1e3f, 1e3f, 11);
    x[0] = 0.0f, x[1] = -0.0f, x[2] = 1.0f + 1.0f / 256.0f; // a tie: rounds to even (1.0)
    float *dx = up(ops, x, n * sizeof(float));
    bfloat16 *d16 = ops->alloc(n * sizeof(bfloat16), "bf16");
    float *dback = ops->alloc(n * sizeof(float), "back");
    ops->to_bf16(d16, dx, n);
    ops->from_bf16(dback, d16, n);
    bfloat16 *h16 = down(ops, d16, n * sizeof(bfloat16));
    float *back = down(ops, dback, n * sizeof(float));
    size_t bad = count_unrounded(h16, x, n), bad_back = 0;
    for (size_t i = 0; i < n; i++) bad_back += back[i] != bf16_round(x[i]);
    char name[160];
    snprintf(name, sizeof name, "%s: to_bf16 rounds to nearest even, from_bf16 widens exactly (n %zu)", label, n);
    test_check(name, bad == 0 && bad_back == 0 && h16[2] == 0x3f80, "%zu rounded wrong, %zu widened wrong, tie 0x%04x", bad,
               bad_back, h16[2]);
    free(x), free(h16), free(back);
    ops->free(dx), ops->free(d16), ops->free(dback);
}

static void check_gelu(const ops_backend *ops, const char *label) {
    size_t n = 20011; // not a multiple of the CPU's chunk
    float *x, *g;
    bfloat16 *x16, *g16;
    bf16_inputs(n, -6.0f, 6.0f, 21, &x, &x16);
    bf16_inputs(n, -2.0f, 2.0f, 22, &g, &g16);
    float *dx = up(ops, x, n * 4), *dg = up(ops, g, n * 4), *dy = ops->alloc(n * 4, "y"), *ddx = ops->alloc(n * 4, "dx");
    bfloat16 *dx16 = up(ops, x16, n * 2), *dg16 = up(ops, g16, n * 2), *dy16 = ops->alloc(n * 2, "y16");
    bfloat16 *ddx16 = ops->alloc(n * 2, "dx16");
    ops->gelu_forward(dy, dx, n);
    ops->gelu_forward_bf16(dy16, dx16, n);
    ops->gelu_backward(ddx, dg, dx, n); // from zero: the written value
    bfloat16 *garbage = xmalloc(n * 2, "garbage");
    for (size_t i = 0; i < n; i++) garbage[i] = 0x7f7f; // a large value: an accumulate would show
    ops->upload(ddx16, garbage, n * 2);
    ops->gelu_backward_bf16(ddx16, dg16, dx16, n);
    float *y = down(ops, dy, n * 4), *d = down(ops, ddx, n * 4);
    bfloat16 *y16 = down(ops, dy16, n * 2), *d16 = down(ops, ddx16, n * 2);
    char name[200];
    size_t bad = count_unrounded(y16, y, n);
    snprintf(name, sizeof name, "%s: gelu_forward_bf16 = bf16(gelu_forward) bit for bit (n %zu)", label, n);
    test_check(name, bad == 0, "%zu of %zu differ", bad, n);
    bad = count_unrounded(d16, d, n);
    snprintf(name, sizeof name, "%s: gelu_backward_bf16 = bf16(gelu_backward), written over what was there", label);
    test_check(name, bad == 0, "%zu of %zu differ", bad, n);
    free(x), free(g), free(x16), free(g16), free(garbage), free(y), free(d), free(y16), free(d16);
    ops->free(dx), ops->free(dg), ops->free(dy), ops->free(ddx), ops->free(dx16), ops->free(dg16), ops->free(dy16), ops->free(ddx16);
}

static void check_layernorm(const ops_backend *ops, const char *label, int with_keep) {
    const int B = 3, T = 7, C = 77;
    size_t n = (size_t)B * T * C, rows = (size_t)B * T;
    float *x = test_rnd(n, -2.0f, 2.0f, 31), *w = test_rnd(C, 0.5f, 1.5f, 32), *b = test_rnd(C, -0.5f, 0.5f, 33);
    float keep[3] = {0.0f, 1.25f, 1.25f}, *branch, *g;
    bfloat16 *branch16, *g16;
    bf16_inputs(n, -3.0f, 3.0f, 34, &branch, &branch16);
    bf16_inputs(n, -1.0f, 1.0f, 35, &g, &g16);
    float *din0 = test_rnd(n, -1.0f, 1.0f, 36), *dw0 = test_rnd(C, -1.0f, 1.0f, 37), *db0 = test_rnd(C, -1.0f, 1.0f, 38);
    float *dx = up(ops, x, n * 4), *dw = up(ops, w, C * 4), *db = up(ops, b, C * 4), *dbr = up(ops, branch, n * 4);
    float *dkeep = with_keep ? up(ops, keep, sizeof keep) : NULL, *dg = up(ops, g, n * 4);
    bfloat16 *dbr16 = up(ops, branch16, n * 2), *dg16 = up(ops, g16, n * 2);
    // fp32 twins: residual_forward, layernorm_forward; then the fused bf16 op
    float *res = ops->alloc(n * 4, "res"), *ln = ops->alloc(n * 4, "ln"), *mean = ops->alloc(rows * 4, "mean"),
          *rstd = ops->alloc(rows * 4, "rstd");
    float *res2 = ops->alloc(n * 4, "res2"), *mean2 = ops->alloc(rows * 4, "mean2"), *rstd2 = ops->alloc(rows * 4, "rstd2");
    bfloat16 *ln16 = ops->alloc(n * 2, "ln16");
    ops->residual_forward(res, dx, dbr, dkeep, B, (size_t)T * C);
    ops->layernorm_forward(ln, mean, rstd, res, dw, db, B * T, C);
    ops->residual_layernorm_forward_bf16(res2, ln16, mean2, rstd2, dx, dbr16, dkeep, dw, db, B, T, C);
    float *h_res = down(ops, res, n * 4), *h_ln = down(ops, ln, n * 4), *h_mean = down(ops, mean, rows * 4);
    float *h_rstd = down(ops, rstd, rows * 4), *h_res2 = down(ops, res2, n * 4), *h_mean2 = down(ops, mean2, rows * 4);
    float *h_rstd2 = down(ops, rstd2, rows * 4);
    bfloat16 *h_ln16 = down(ops, ln16, n * 2);
    size_t bad_res = count_different(h_res, h_res2, n), bad_ln = count_unrounded(h_ln16, h_ln, n);
    size_t bad_stats = count_different(h_mean, h_mean2, rows) + count_different(h_rstd, h_rstd2, rows);
    char name[220];
    snprintf(name, sizeof name, "%s: residual_layernorm_forward_bf16 = residual_forward then bf16(layernorm_forward), bit for bit (%s)",
             label, with_keep ? "drop-path scales 0, 1.25" : "no drop path");
    test_check(name, bad_res == 0 && bad_ln == 0 && bad_stats == 0, "residual %zu, ln %zu, mean/rstd %zu of %zu differ", bad_res,
               bad_ln, bad_stats, n);
    if (!with_keep) { // branch NULL: the LayerNorm of x alone, rounded (res not written: NULL)
        float *ln_x = ops->alloc(n * 4, "ln of x"), *mean_x = ops->alloc(rows * 4, "mean of x"), *rstd_x = ops->alloc(rows * 4, "rstd of x");
        float *mean_x2 = ops->alloc(rows * 4, "mean of x 2"), *rstd_x2 = ops->alloc(rows * 4, "rstd of x 2");
        bfloat16 *ln_x16 = ops->alloc(n * 2, "ln16 of x");
        ops->layernorm_forward(ln_x, mean_x, rstd_x, dx, dw, db, B * T, C);
        ops->residual_layernorm_forward_bf16(NULL, ln_x16, mean_x2, rstd_x2, dx, NULL, NULL, dw, db, B, T, C);
        float *h1 = down(ops, ln_x, n * 4), *hm1 = down(ops, mean_x, rows * 4), *hr1 = down(ops, rstd_x, rows * 4);
        float *hm2 = down(ops, mean_x2, rows * 4), *hr2 = down(ops, rstd_x2, rows * 4);
        bfloat16 *h16 = down(ops, ln_x16, n * 2);
        size_t bad_x = count_unrounded(h16, h1, n) + count_different(hm1, hm2, rows) + count_different(hr1, hr2, rows);
        snprintf(name, sizeof name, "%s: residual_layernorm_forward_bf16 with no branch = bf16(layernorm_forward(x)), bit for bit", label);
        test_check(name, bad_x == 0, "%zu of %zu values differ", bad_x, n + 2 * rows);
        free(h1), free(hm1), free(hr1), free(hm2), free(hr2), free(h16);
        ops->free(ln_x), ops->free(mean_x), ops->free(rstd_x), ops->free(mean_x2), ops->free(rstd_x2), ops->free(ln_x16);
    }
    // backward: layernorm_backward on the widened gradient against the bf16 op, both accumulating
    float *a_din = up(ops, din0, n * 4), *a_dw = up(ops, dw0, C * 4), *a_db = up(ops, db0, C * 4);
    float *b_din = up(ops, din0, n * 4), *b_dw = up(ops, dw0, C * 4), *b_db = up(ops, db0, C * 4);
    ops->layernorm_backward(a_din, a_dw, a_db, dg, res, dw, mean, rstd, B * T, C);
    ops->layernorm_backward_bf16(b_din, b_dw, b_db, dg16, res, dw, mean, rstd, B * T, C);
    float *ha = down(ops, a_din, n * 4), *hb = down(ops, b_din, n * 4), *haw = down(ops, a_dw, C * 4), *hbw = down(ops, b_dw, C * 4);
    float *hab = down(ops, a_db, C * 4), *hbb = down(ops, b_db, C * 4);
    size_t bad = count_different(ha, hb, n) + count_different(haw, hbw, C) + count_different(hab, hbb, C);
    snprintf(name, sizeof name, "%s: layernorm_backward_bf16 = layernorm_backward of the widened gradient, accumulating, bit for bit (%s)",
             label, with_keep ? "after drop path" : "no drop path");
    test_check(name, bad == 0, "%zu of %zu values differ", bad, n + 2 * (size_t)C);
    free(x), free(w), free(b), free(branch), free(branch16), free(g), free(g16), free(din0), free(dw0), free(db0);
    free(h_res), free(h_ln), free(h_mean), free(h_rstd), free(h_res2), free(h_mean2), free(h_rstd2), free(h_ln16);
    free(ha), free(hb), free(haw), free(hbw), free(hab), free(hbb);
    float *dev[] = {dx, dw, db, dbr, dkeep, dg, res, ln, mean, rstd, res2, mean2, rstd2, a_din, a_dw, a_db, b_din, b_dw, b_db};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++) ops->free(dev[k]);
    ops->free(dbr16), ops->free(dg16), ops->free(ln16);
}

void dense_bf16_check_backend(const ops_backend *ops, const char *label) {
    ops->set_matmul_precision(MATMUL_FP32);
    check_conversions(ops, label);
    check_gelu(ops, label);
    check_layernorm(ops, label, 0);
    check_layernorm(ops, label, 1);
}
