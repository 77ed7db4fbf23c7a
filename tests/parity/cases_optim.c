// tests/parity/cases_optim.c — parity cases of the optimizer (core/cpu/optim_cpu.c,
// core/cuda/optim_cuda.cu): the sum of squares (relative 1e-12: both sum exact float squares in
// double; bitwise run to run), AdamW over two consecutive steps, AdamW over an arena's segments
// (one without decay), and the step without host reads: optim_prepare's norm, clipping factor and
// skip flag, then adamw_update_multi_scalars with those scalars (a finite loss and a NaN one, which
// must leave everything as it was). Elementwise arithmetic: PARITY_EW.
#include "parity.h"
#include <math.h>

static void sum_squares_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *x = pr_in(r, n, -3, 3);
    const float *h = pr_host_of(r, x);
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (double)h[i] * h[i];
    pr_out_value(r, "sum of squares", pr_ops(r)->sum_squares(x, n), (parity_tol){1e-12 * ss, 0, 0});
}

// p: n, the first step t
static void adamw_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *w = pr_in(r, n, -1, 1), *g = pr_in(r, n, -1, 1), *m = pr_in(r, n, -0.1f, 0.1f), *v = pr_in(r, n, 0, 1e-2f);
    for (int t = p[1]; t < p[1] + 2; t++) pr_ops(r)->adamw_update(w, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, t);
    pr_out(r, "params", w, n, PARITY_EW);
    pr_out(r, "first moments", m, n, PARITY_EW);
    pr_out(r, "second moments", v, n, PARITY_EW);
}

static const adamw_segment SEGMENTS[3] = {{0, 40001, 1}, {40001, 3, 0}, {40004, 59999, 1}};
enum { ARENA = 100003 };

static void adamw_multi_case(parity_run *r, const int *p) {
    (void)p;
    float *w = pr_in(r, ARENA, -1, 1), *g = pr_in(r, ARENA, -1, 1), *m = pr_in(r, ARENA, -0.1f, 0.1f);
    float *v = pr_in(r, ARENA, 0, 1e-2f);
    pr_ops(r)->adamw_update_multi(w, g, m, v, SEGMENTS, 3, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, 3);
    pr_out(r, "params", w, ARENA, PARITY_EW);
    pr_out(r, "first moments", m, ARENA, PARITY_EW);
    pr_out(r, "second moments", v, ARENA, PARITY_EW);
}

// p: clip·100 (0: none), loss finite (1) or NaN (0)
static void step_scalars_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    float *w = pr_in(r, ARENA, -1, 1), *g = pr_in(r, ARENA, -1, 1), *m = pr_in(r, ARENA, -0.1f, 0.1f);
    float *v = pr_in(r, ARENA, 0, 1e-2f);
    double loss_h = p[1] ? 2.5 : NAN, norm_h;
    double *loss = pr_buf(r, sizeof(double)), *norm = pr_buf(r, sizeof(double));
    o->upload(loss, &loss_h, sizeof loss_h);
    float host_scalars[STEP_SCALARS] = {[STEP_LR] = 1e-3f, [STEP_BC1] = 1 - powf(0.9f, 3), [STEP_BC2] = 1 - powf(0.999f, 3),
                                       [STEP_WD] = 0.05f};
    float *scalars = pr_in_host(r, host_scalars, STEP_SCALARS);
    o->optim_prepare(norm, scalars, loss, g, ARENA, (float)p[0] / 100.0f);
    o->adamw_update_multi_scalars(w, g, m, v, SEGMENTS, 3, scalars, 0.9f, 0.999f, 1e-8f);
    o->download(&norm_h, norm, sizeof norm_h);
    pr_out_value(r, "gradient norm", norm_h, (parity_tol){1e-12 * norm_h, 0, 0});
    pr_out(r, "scalars (lr, bias corrections, weight decay, clipping factor, skip)", scalars, STEP_SCALARS, PARITY_EW);
    pr_out(r, "params", w, ARENA, PARITY_EW);
    pr_out(r, "first moments", m, ARENA, PARITY_EW);
    pr_out(r, "second moments", v, ARENA, PARITY_EW);
}

const parity_case parity_cases_optim[] = {
    {"sum_squares", "n 5", sum_squares_case, {5}, .repeat = 1},
    {"sum_squares", "n 1000003", sum_squares_case, {1000003}, .repeat = 1},
    {"adamw_update", "100003, steps 1-2", adamw_case, {100003, 1}, .repeat = 0},
    {"adamw_update", "100003, steps 7-8", adamw_case, {100003, 7}, .repeat = 0},
    {"adamw_update_multi", "3 segments of 100003, one without decay", adamw_multi_case, {0}, .repeat = 0},
    {"optim_prepare adamw_update_multi_scalars", "clip 1: clipped (the norm is ~180)", step_scalars_case, {100, 1}, .repeat = 0},
    {"optim_prepare adamw_update_multi_scalars", "no clip", step_scalars_case, {0, 1}, .repeat = 0},
    {"optim_prepare adamw_update_multi_scalars", "loss NaN: skipped, nothing changes", step_scalars_case, {100, 0}, .repeat = 0},
};
const int parity_cases_optim_count = (int)(sizeof parity_cases_optim / sizeof parity_cases_optim[0]);
