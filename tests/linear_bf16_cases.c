// tests/linear_bf16_cases.c — the bf16-input linear ops' outputs for the parity tests
// (linear_bf16_cases.h).
#include "linear_bf16_cases.h"
#include "testing.h"
#include "../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int shapes[LINEAR_BF16_CASES][4] = {
    {37, 77, 29, 1}, // N, IC, OC, bias: odd sizes
    {24, 64, 192, 0},
    {5, 16, 48, 1},
};

static void *up(const ops_backend *ops, const void *host, size_t bytes) {
    void *d = ops->alloc(bytes ? bytes : 1, "linear bf16 test buffer");
    if (bytes) ops->upload(d, host, bytes);
    return d;
}
static void *down(const ops_backend *ops, const void *dev, size_t bytes) {
    void *h = xmalloc(bytes ? bytes : 1, "linear bf16 test host buffer");
    if (bytes) ops->download(h, dev, bytes);
    return h;
}

// n values uniform in [lo, hi) rounded to bf16: the stored bits and their exact fp32 values.
static bfloat16 *bf16_values(size_t n, float lo, float hi, unsigned tag, float **f32) {
    *f32 = test_rnd(n, lo, hi, tag);
    bfloat16 *h = xmalloc(n * sizeof(bfloat16), "bf16 values");
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float((*f32)[i]), (*f32)[i] = bf16_to_float(h[i]);
    return h;
}

static bfloat16 *rounded(const float *x, size_t n) {
    bfloat16 *h = xmalloc(n * sizeof(bfloat16), "rounded outputs");
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float(x[i]);
    return h;
}

linear_bf16_outputs linear_bf16_run(const ops_backend *ops, int k, int use_twins, int precision) {
    linear_bf16_outputs o = {.N = shapes[k][0], .IC = shapes[k][1], .OC = shapes[k][2], .has_bias = shapes[k][3]};
    int N = o.N, IC = o.IC, OC = o.OC;
    size_t nx = (size_t)N * IC, ny = (size_t)N * OC, nw = (size_t)OC * IC;
    unsigned t = 100u * (unsigned)k;
    float *x, *g16f;
    bfloat16 *x16 = bf16_values(nx, -2.0f, 2.0f, t + 1, &x), *g16 = bf16_values(ny, -1.0f, 1.0f, t + 2, &g16f);
    float *w = test_rnd(nw, -0.3f, 0.3f, t + 3), *b = test_rnd((size_t)OC, -1.0f, 1.0f, t + 4);
    float *g = test_rnd(ny, -1.0f, 1.0f, t + 5); // an fp32 output gradient (not bf16-exact)
    float *din0 = test_rnd(nx, -1.0f, 1.0f, t + 6), *dw0 = test_rnd(nw, -1.0f, 1.0f, t + 7);
    float *db0 = test_rnd((size_t)OC, -1.0f, 1.0f, t + 8), *zeros = test_zeros(nx);
    float *d_x = up(ops, x, nx * 4), *d_w = up(ops, w, nw * 4), *d_b = o.has_bias ? up(ops, b, (size_t)OC * 4) : NULL;
    float *d_g = up(ops, g, ny * 4), *d_g16f = up(ops, g16f, ny * 4);
    bfloat16 *d_x16 = up(ops, x16, nx * 2), *d_g16 = up(ops, g16, ny * 2);
    float *d_y = ops->alloc(ny * 4, "y"), *d_din = up(ops, din0, nx * 4), *d_dw = up(ops, dw0, nw * 4);
    float *d_db = up(ops, db0, (size_t)OC * 4), *d_dw16 = up(ops, dw0, nw * 4), *d_db16 = up(ops, db0, (size_t)OC * 4);
    float *d_din_zero = up(ops, zeros, nx * 4); // the twins' input gradient from zero (din16's reference)
    // din written (GRAD_WRITE) over NaN by the bf16 op; the twin accumulates it onto zeros
    float *nans = xmalloc((nx ? nx : 1) * 4, "NaN din"), *d_din_w;
    for (size_t i = 0; i < nx; i++) nans[i] = NAN;
    d_din_w = up(ops, use_twins ? zeros : nans, nx * 4);
    bfloat16 *d_y16 = ops->alloc(ny * 2, "y16"), *d_din16 = ops->alloc(nx * 2, "din16");
    bfloat16 *garbage = xmalloc(nx * 2, "garbage");
    for (size_t i = 0; i < nx; i++) garbage[i] = 0x7f7f; // large: an accumulating din16 would show
    ops->upload(d_din16, garbage, nx * 2);
    if (use_twins) {
        ops->set_matmul_precision(MATMUL_BF16);
        ops->linear_forward(d_y, d_x, d_w, d_b, N, IC, OC);
        ops->linear_backward(d_din, d_dw, d_db, d_g, d_x, d_w, N, IC, OC);
        ops->linear_backward(d_din_zero, d_dw16, d_db16, d_g16f, d_x, d_w, N, IC, OC);
        ops->linear_backward(d_din_w, NULL, NULL, d_g, d_x, d_w, N, IC, OC);
    } else {
        ops->set_matmul_precision(precision);
        ops->linear_forward_bf16(d_y, NULL, d_x16, d_w, d_b, N, IC, OC);
        ops->linear_forward_bf16(NULL, d_y16, d_x16, d_w, d_b, N, IC, OC);
        ops->linear_backward_bf16(d_din, NULL, d_dw, d_db, d_g, NULL, d_x16, d_w, N, IC, OC, GRAD_ACCUMULATE);
        ops->linear_backward_bf16(NULL, d_din16, d_dw16, d_db16, NULL, d_g16, d_x16, d_w, N, IC, OC, GRAD_WRITE);
        ops->linear_backward_bf16(d_din_w, NULL, NULL, NULL, d_g, NULL, d_x16, d_w, N, IC, OC, GRAD_WRITE);
    }
    ops->set_matmul_precision(MATMUL_FP32);
    o.y = down(ops, d_y, ny * 4);
    o.din = down(ops, d_din, nx * 4), o.din_w = down(ops, d_din_w, nx * 4);
    o.dw = down(ops, d_dw, nw * 4), o.db = down(ops, d_db, (size_t)OC * 4);
    o.dw16 = down(ops, d_dw16, nw * 4), o.db16 = down(ops, d_db16, (size_t)OC * 4);
    if (use_twins) {
        float *din_zero = down(ops, d_din_zero, nx * 4);
        o.y16 = rounded(o.y, ny), o.din16 = rounded(din_zero, nx);
        free(din_zero);
    } else {
        o.y16 = down(ops, d_y16, ny * 2), o.din16 = down(ops, d_din16, nx * 2);
    }
    free(x), free(g16f), free(x16), free(g16), free(w), free(b), free(g), free(din0), free(dw0), free(db0), free(zeros);
    free(garbage), free(nans);
    void *dev[] = {d_x,  d_w,    d_b,    d_g,        d_g16f, d_x16,   d_g16,  d_y, d_din,
                   d_dw, d_db,   d_dw16, d_db16,     d_din_zero, d_y16, d_din16, d_din_w};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) ops->free(dev[i]);
    return o;
}

void linear_bf16_outputs_free(linear_bf16_outputs *o) {
    free(o->y), free(o->din), free(o->din_w), free(o->dw), free(o->db), free(o->dw16), free(o->db16), free(o->y16);
    free(o->din16);
}

// Differing elements of two fp32 (or widened bf16) arrays; the worst excess into *worst.
static size_t differ(const float *a, const float *b, size_t n, double atol, double rtol, double *worst) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (atol < 0) {
            bad += memcmp(&a[i], &b[i], sizeof(float)) != 0;
            continue;
        }
        double err = fabs((double)a[i] - b[i]), lim = atol + rtol * fabs((double)b[i]);
        if (!(err <= lim)) bad++, *worst = fmax(*worst, err - lim);
    }
    return bad;
}

size_t linear_bf16_compare(const linear_bf16_outputs *a, const linear_bf16_outputs *b, double atol, double rtol,
                           char *why, size_t len) {
    size_t nx = (size_t)a->N * a->IC, ny = (size_t)a->N * a->OC, nw = (size_t)a->OC * a->IC, nb = (size_t)a->OC;
    double worst = 0;
    size_t bad[9] = {
        differ(a->y, b->y, ny, atol, rtol, &worst),       test_bf16_differ(a->y16, b->y16, ny, atol, rtol, &worst),
        differ(a->din, b->din, nx, atol, rtol, &worst),   differ(a->dw, b->dw, nw, atol, rtol, &worst),
        differ(a->db, b->db, nb, atol, rtol, &worst),     test_bf16_differ(a->din16, b->din16, nx, atol, rtol, &worst),
        differ(a->dw16, b->dw16, nw, atol, rtol, &worst), differ(a->db16, b->db16, nb, atol, rtol, &worst),
        differ(a->din_w, b->din_w, nx, atol, rtol, &worst),
    };
    static const char *names[9] = {"y",     "y16",   "din", "dweight", "dbias", "din16", "dweight (bf16 dout)", "dbias (bf16 dout)",
                                   "din written over NaN"};
    size_t total = 0;
    snprintf(why, len, "every output equal");
    for (int i = 0; i < 9; i++) {
        if (bad[i] && !total) snprintf(why, len, "%s: %zu differ (worst excess %.3g)", names[i], bad[i], worst);
        total += bad[i];
    }
    return total;
}
