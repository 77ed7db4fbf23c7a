// tests/parity/cases_dino.c — parity cases of DINO's ops (core/cpu/dino_cpu.c,
// core/cuda/dino_cuda.cu): the unit-row normalisation (F.normalize's clamp and the weight norm's
// plain division) and its backward in place, the teacher probabilities with the temperature read
// from backend memory, the loss of one student group (a teacher view among the students and one
// that is not; rows past a warp) with its gradient, the centre and the EMA with its coefficients
// in backend memory (and its skip flag: nothing changes). The kernels sum each row in a fixed tree, the CPU in index order, so sums
// differ by rounding: PARITY_EW, bitwise run to run.
#include "parity.h"
#include <math.h>

// p: R, n, clamp
static void unit_rows_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int R = p[0], n = p[1];
    size_t rn = (size_t)R * n;
    float *x = pr_in(r, rn, -1, 1), *dy = pr_in(r, rn, -1, 1);
    float *y = pr_buf(r, rn * sizeof(float)), *norms = pr_buf(r, (size_t)R * sizeof(float));
    o->unit_rows_forward(y, norms, x, R, n, p[2]);
    o->unit_rows_backward(dy, dy, y, norms, R, n); // in place, as the head's weight norm runs it
    pr_out(r, "unit rows", y, rn, PARITY_EW);
    pr_out(r, "norms", norms, (size_t)R, PARITY_EW);
    pr_out(r, "dx (in place over dy)", dy, rn, PARITY_EW);
}

// p: B, K, S, first_view (two teacher views)
static void loss_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], K = p[1], S = p[2], first = p[3], T = 2;
    size_t nt = (size_t)T * B * K, ns = (size_t)S * B * K;
    float *teacher = pr_in(r, nt, -1, 1), *center = pr_in(r, (size_t)K, -0.1f, 0.1f), *student = pr_in(r, ns, -1, 1);
    float *q = pr_buf(r, nt * sizeof(float)), *ds = pr_buf(r, ns * sizeof(float));
    double tau_h = 0.04, loss_h[2] = {0.5, 0.0}; // loss[0] accumulates onto a previous group's 0.5
    double *tau = pr_buf(r, sizeof(double)), *loss = pr_buf(r, 2 * sizeof(double));
    o->upload(tau, &tau_h, sizeof tau_h);
    o->upload(loss, loss_h, sizeof loss_h);
    o->dino_teacher_probs(q, teacher, center, T * B, K, tau);
    o->dino_loss_group(loss, ds, q, T, student, first, S, B, K, 0.1, 1.0 / 14);
    o->dino_center_update(center, teacher, T * B, K, 0.9);
    o->download(loss_h, loss, sizeof loss_h);
    pr_out(r, "teacher probabilities", q, nt, PARITY_EW);
    pr_out(r, "dstudent", ds, ns, PARITY_EW);
    pr_out_value(r, "loss[0] (sum of the terms, onto 0.5)", loss_h[0], (parity_tol){1e-9 * fabs(loss_h[0]), 0, 0});
    pr_out_value(r, "loss[1] (times the scale)", loss_h[1], (parity_tol){1e-9 * fabs(loss_h[1]), 0, 0});
    pr_out(r, "centre", center, (size_t)K, PARITY_EW);
}

// p: n, skip flag (1: a step whose loss was not finite; the teacher stays)
static void ema_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *t = pr_in(r, n, -1, 1), *s = pr_in(r, n, -1, 1);
    const float coef_h[2] = {0.996f, (float)(1.0 - 0.996)}, skip_h = (float)p[1];
    float *coef = pr_in_host(r, coef_h, 2), *skip = pr_in_host(r, &skip_h, 1);
    pr_ops(r)->ema_update(t, s, n, coef, skip);
    pr_out(r, p[1] ? "teacher, unchanged" : "teacher", t, n, PARITY_BITWISE); // rounded products and sum: exact on both
}

const parity_case parity_cases_dino[] = {
    {"unit_rows_forward unit_rows_backward", "37x45, clamped (F.normalize)", unit_rows_case, {37, 45, 1}, .repeat = 1},
    {"unit_rows_forward unit_rows_backward", "300x256, weight norm", unit_rows_case, {300, 256, 0}, .repeat = 1},
    {"dino_teacher_probs dino_loss_group dino_center_update", "B 5, K 70, global views (0, 1)", loss_case, {5, 70, 2, 0},
     .repeat = 1},
    {"dino_teacher_probs dino_loss_group dino_center_update", "B 40, K 1000, local views (2, 3)", loss_case,
     {40, 1000, 2, 2}, .repeat = 1},
    {"ema_update", "n 100003", ema_case, {100003, 0}, .repeat = 1},
    {"ema_update", "n 1000, skipped", ema_case, {1000, 1}, .repeat = 0},
};
const int parity_cases_dino_count = (int)(sizeof parity_cases_dino / sizeof parity_cases_dino[0]);
