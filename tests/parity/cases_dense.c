// tests/parity/cases_dense.c — parity cases of the dense ops (core/cpu/dense_cpu.c,
// core/cuda/dense_cuda.cu): linear (with and without bias, backward with every gradient, then the
// bias alone: NULL gradients stay as they are), LayerNorm (its backward on statistics formed on the
// host, so it is checked alone), GELU, ReLU, residual with drop path, drop-path scales, dropout (its
// mask at an element offset, and with the step clock), zero, scale, and n = 0 calls that must write
// nothing. Sizes are awkward on purpose (37 rows, 45 -> 29 features, n not a multiple of a block).
// Tolerances (CUDA against the CPU): matrix products and column sums parity_gemm_tol /
// parity_sum_tol for their K-term sums; elementwise PARITY_EW; random masks and ReLU bit for bit.
#include "parity.h"
#include "../../core/rng.h"
#include <math.h>

// p: N, IC, OC
static void linear_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], IC = p[1], OC = p[2];
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = pr_in(r, nin, -1, 1), *w = pr_in(r, nw, -1, 1), *b = pr_in(r, OC, -1, 1), *dout = pr_in(r, nout, -1, 1);
    float *din = pr_in(r, nin, -1, 1), *dw = pr_in(r, nw, -1, 1), *db = pr_in(r, OC, -1, 1);
    float *out = pr_buf(r, nout * sizeof(float)), *out0 = pr_buf(r, nout * sizeof(float));
    o->linear_forward(out, in, w, b, N, IC, OC);
    o->linear_forward(out0, in, w, NULL, N, IC, OC);
    o->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    pr_out(r, "out", out, nout, parity_gemm_tol(IC));
    pr_out(r, "out, no bias", out0, nout, parity_gemm_tol(IC));
    pr_out(r, "dbias +=", db, OC, parity_sum_tol(N));
    o->linear_backward(NULL, NULL, db, dout, in, w, N, IC, OC); // bias only: din, dweight untouched
    pr_out(r, "din += (then untouched)", din, nin, parity_gemm_tol(OC));
    pr_out(r, "dweight += (then untouched)", dw, nw, parity_gemm_tol(N));
    pr_out(r, "dbias, bias-only backward", db, OC, parity_sum_tol(2.0 * N));
}

void parity_layernorm_stats(const float *x, int N, int C, float *mean, float *rstd) {
    for (int i = 0; i < N; i++) {
        const float *row = x + (size_t)i * C;
        double s = 0, ss = 0;
        for (int c = 0; c < C; c++) s += row[c];
        double mu = s / C;
        for (int c = 0; c < C; c++) ss += (row[c] - mu) * (row[c] - mu);
        mean[i] = (float)mu;
        rstd[i] = (float)(1.0 / sqrt(ss / C + LAYERNORM_EPS));
    }
}

// p: N, C. The backward reads statistics formed on the host from the inputs (the same on every
// backend), so it is checked apart from the forward's.
static void layernorm_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], C = p[1];
    size_t n = (size_t)N * C;
    float *in = pr_in(r, n, -2, 2), *w = pr_in(r, C, 0.5f, 1.5f), *b = pr_in(r, C, -1, 1), *dout = pr_in(r, n, -1, 1);
    float *din = pr_in(r, n, -1, 1), *dw = pr_in(r, C, -1, 1), *db = pr_in(r, C, -1, 1);
    float *out = pr_buf(r, n * sizeof(float)), *mean = pr_buf(r, (size_t)N * sizeof(float));
    float *rstd = pr_buf(r, (size_t)N * sizeof(float));
    o->layernorm_forward(out, mean, rstd, in, w, b, N, C);
    parity_tol t = {1e-5, 1e-4, 0};
    pr_out(r, "out", out, n, t);
    pr_out(r, "mean", mean, N, t);
    pr_out(r, "rstd", rstd, N, t);
    float *hm = pr_host(r, (size_t)N * sizeof(float)), *hr = pr_host(r, (size_t)N * sizeof(float));
    parity_layernorm_stats(pr_host_of(r, in), N, C, hm, hr);
    float *m2 = pr_in_host(r, hm, N), *r2 = pr_in_host(r, hr, N);
    o->layernorm_backward(din, dw, db, dout, in, w, m2, r2, N, C);
    pr_out(r, "dweight +=", dw, C, parity_sum_tol(N));
    o->layernorm_backward(NULL, NULL, db, dout, in, w, m2, r2, N, C);
    pr_out(r, "din += (then untouched)", din, n, t);
    pr_out(r, "dbias += twice (the second bias-only)", db, C, parity_sum_tol(2.0 * N));
}

static void gelu_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *in = pr_in(r, n, -4, 4), *dout = pr_in(r, n, -1, 1), *din = pr_in(r, n, -1, 1);
    float *out = pr_buf(r, n * sizeof(float));
    pr_ops(r)->gelu_forward(out, in, n);
    pr_ops(r)->gelu_backward(din, dout, in, n);
    pr_out(r, "out", out, n, PARITY_EW);
    pr_out(r, "din +=", din, n, PARITY_EW);
}

static void relu_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *in = pr_in(r, n, -1, 1), *dout = pr_in(r, n, -1, 1), *din = pr_in(r, n, -1, 1);
    float *out = pr_buf(r, n * sizeof(float));
    pr_ops(r)->relu_forward(out, in, n);
    pr_ops(r)->relu_backward(din, dout, in, n);
    pr_out(r, "out", out, n, PARITY_BITWISE);
    pr_out(r, "din +=", din, n, PARITY_BITWISE);
}

static const rng_addr DROPPATH_ADDR = {.seed = 42, .purpose = RNG_DROPPATH, .epoch = 3, .step = 17, .index = 5};
static const rng_addr DROPOUT_ADDR = {.seed = 7, .purpose = RNG_DROPOUT, .epoch = 1, .step = 123, .index = 2};

// p: samples, p·100
static void drop_path_case(parity_run *r, const int *p) {
    float *keep = pr_buf(r, (size_t)p[0] * sizeof(float));
    pr_ops(r)->drop_path_scales(keep, p[0], (float)p[1] / 100.0f, DROPPATH_ADDR);
    pr_out(r, "keep scales (the CPU's draws)", keep, (size_t)p[0], PARITY_BITWISE);
}

// p: B, S. The keep scales drawn at p = 0.5 by the backend itself.
static void residual_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0];
    size_t S = (size_t)p[1], n = (size_t)B * S;
    float *keep = pr_buf(r, (size_t)B * sizeof(float));
    o->drop_path_scales(keep, B, 0.5f, DROPPATH_ADDR);
    float *x = pr_in(r, n, -1, 1), *br = pr_in(r, n, -1, 1), *dout = pr_in(r, n, -1, 1);
    float *dx = pr_in(r, n, -1, 1), *dbr = pr_in(r, n, -1, 1);
    float *out = pr_buf(r, n * sizeof(float)), *out1 = pr_buf(r, n * sizeof(float));
    o->residual_forward(out, x, br, keep, B, S);
    o->residual_forward(out1, x, br, NULL, B, S);
    o->residual_backward(dx, dbr, dout, keep, B, S);
    pr_out(r, "out with drop path", out, n, PARITY_EW);
    pr_out(r, "out", out1, n, PARITY_EW);
    pr_out(r, "dbranch += with drop path", dbr, n, PARITY_EW);
    o->residual_backward(NULL, dbr, dout, NULL, B, S);
    pr_out(r, "dx += (then NULL: untouched)", dx, n, PARITY_EW);
    pr_out(r, "dbranch += twice", dbr, n, PARITY_EW);
}

// p: n, first, len (a micro-batch's slice: its mask is the whole tensor's slice), clock (1: the
// epoch and step read from a backend clock set by set_rng_clock, the address's own left zero)
static void dropout_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    size_t n = (size_t)p[0], first = (size_t)p[1], len = (size_t)p[2];
    rng_addr a = DROPOUT_ADDR;
    uint32_t *clock = NULL;
    if (p[3]) {
        static const uint32_t epoch_step[2] = {1, 123};
        clock = pr_buf(r, sizeof epoch_step);
        o->upload(clock, epoch_step, sizeof epoch_step);
        o->set_rng_clock(clock);
        a.epoch = a.step = 0;
    }
    float *in = pr_in(r, n, -1, 1), *dout = pr_in(r, n, -1, 1), *din = pr_in(r, n, -1, 1);
    float *out = pr_buf(r, n * sizeof(float)), *mask = pr_buf(r, n * sizeof(float));
    float *out2 = pr_buf(r, len * sizeof(float)), *mask2 = pr_buf(r, len * sizeof(float));
    o->dropout_forward(out, mask, in, n, 0.25f, a, 0);
    o->dropout_forward(out2, mask2, in + first, len, 0.25f, a, first);
    o->dropout_backward(din, dout, mask, n);
    if (clock) o->set_rng_clock(NULL);
    pr_out(r, "mask (the CPU's draws)", mask, n, PARITY_BITWISE);
    pr_out(r, "out", out, n, PARITY_EW);
    pr_out(r, "mask of the slice at element offset", mask2, len, PARITY_BITWISE);
    pr_out(r, "out of the slice", out2, len, PARITY_EW);
    pr_out(r, "din +=", din, n, PARITY_EW);
}

// zero the first p[0] - 3 of p[0] floats; scale all by 0.37
static void zero_scale_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *x = pr_in(r, n, -1, 1), *y = pr_in(r, n, -2, 2);
    pr_ops(r)->zero(x, n - 3);
    pr_ops(r)->scale(y, n, 0.37f);
    pr_out(r, "zeroed but the last 3", x, n, PARITY_BITWISE);
    pr_out(r, "scaled", y, n, PARITY_EW);
}

// n = 0 / N = 0 calls launch nothing invalid and write nothing.
static void empty_case(parity_run *r, const int *p) {
    (void)p;
    const ops_backend *o = pr_ops(r);
    size_t n = 64;
    float *d = pr_in(r, n, -1, 1), *e = pr_in(r, n, -1, 1);
    static const int two[2] = {1, 2};
    int *t = pr_in_ints(r, two, 2);
    rng_addr a = {.seed = 1, .purpose = RNG_DROPOUT};
    o->zero(d, 0);
    o->linear_forward(d, e, e, e, 0, 4, 4);
    o->linear_backward(d, d, d, e, e, e, 0, 4, 4);
    o->layernorm_forward(d, d, d, e, e, e, 0, 8);
    o->layernorm_backward(d, NULL, NULL, e, e, e, e, e, 0, 8);
    o->gelu_forward(d, e, 0);
    o->gelu_backward(d, e, e, 0);
    o->residual_forward(d, e, e, NULL, 0, 8);
    o->residual_backward(d, d, e, NULL, 4, 0);
    o->drop_path_scales(d, 0, 0.5f, a);
    o->dropout_forward(d, d, e, 0, 0.5f, a, 0);
    o->dropout_backward(d, e, e, 0);
    o->softmax_xent_forward(d, d, e, t, 0, 5, 0.1f);
    o->softmax_xent_backward(d, e, t, 0, 5, 0.1f, 1.0f);
    o->mse_forward(d, e, e, 0, 8);
    o->mse_backward(d, e, e, 0, 8, 1.0f);
    o->scale(d, 0, 2.0f);
    o->adamw_update(d, e, d, d, 0, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, 1);
    pr_out(r, "untouched", d, n, PARITY_BITWISE);
    pr_out_value(r, "sum_squares of nothing", o->sum_squares(e, 0), PARITY_BITWISE);
}

#define BF16 .precision = MATMUL_BF16
const parity_case parity_cases_dense[] = {
    {"linear_forward linear_backward", "37x45 -> 29", linear_case, {37, 45, 29}, .repeat = 1},
    {"linear_forward linear_backward", "1000x64 -> 96: column sums over 3 full row chunks and a partial one", linear_case,
     {1000, 64, 96}, .repeat = 1},
    {"linear_forward linear_backward", "4096x384 -> 1152", linear_case, {4096, 384, 1152}, .repeat = 1, .large = 1},
    {"linear_forward linear_backward", "37x45 -> 29, bf16", linear_case, {37, 45, 29}, BF16, .repeat = 1},
    {"linear_forward linear_backward", "4096x384 -> 1152, bf16", linear_case, {4096, 384, 1152}, BF16, .large = 1},
    {"layernorm_forward layernorm_backward", "37x19", layernorm_case, {37, 19}, .repeat = 1},
    {"layernorm_forward layernorm_backward", "37x768", layernorm_case, {37, 768}, .repeat = 1},
    {"layernorm_forward layernorm_backward", "1000x768: parameter gradients over 4 row chunks", layernorm_case, {1000, 768},
     .repeat = 1},
    {"gelu_forward gelu_backward", "100003", gelu_case, {100003}, .repeat = 0},
    {"relu_forward relu_backward", "100003", relu_case, {100003}, .repeat = 0},
    {"drop_path_scales", "4099 samples, p 0.3", drop_path_case, {4099, 30}, .repeat = 0},
    {"drop_path_scales", "4099 samples, p 0 (all kept)", drop_path_case, {4099, 0}, .repeat = 0},
    {"residual_forward residual_backward drop_path_scales", "7x1001", residual_case, {7, 1001}, .repeat = 0},
    {"dropout_forward dropout_backward", "100003, p 0.25; slice 30001 at 50001", dropout_case, {100003, 50001, 30001, 0}, .repeat = 0},
    {"dropout_forward set_rng_clock", "10007, p 0.25, epoch and step from the backend clock; slice 301 at 7", dropout_case,
     {10007, 7, 301, 1}, .repeat = 0},
    {"zero scale", "1003", zero_scale_case, {1003}, .repeat = 0},
    {"zero", "n = 0 / N = 0 calls of the dense ops, losses and optimizer", empty_case, {0}, .repeat = 0},
};
const int parity_cases_dense_count = (int)(sizeof parity_cases_dense / sizeof parity_cases_dense[0]);
