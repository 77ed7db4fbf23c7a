// tests/parity/cases_reduce.c — parity cases of the reductions (core/cpu/reduce_cpu.c,
// core/cuda/reduce_cuda.cu): sum and sum_to (|d| <= 1e-12·Σ|x|: both sum exact float values in
// double, in different fixed orders; bitwise run to run; n = 0 gives 0), class_rank and argmax_rows
// (the same integers on rows with many ties and rows holding NaN / ±Inf; awkward N).
#include "parity.h"
#include "../testing.h"
#include <math.h>

static parity_tol sum_tol(const float *x, size_t n) {
    double mag = 0;
    for (size_t i = 0; i < n; i++) mag += fabs((double)x[i]);
    return (parity_tol){1e-12 * mag, 0, 0};
}

static void sum_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    size_t n = (size_t)p[0];
    float *x = pr_in(r, n, -2, 3);
    double *dst = pr_buf(r, sizeof(double)), to;
    o->sum_to(dst, x, n, 4.0);
    o->download(&to, dst, sizeof to);
    parity_tol t = sum_tol(pr_host_of(r, x), n);
    pr_out_value(r, "sum", o->sum(x, n), t);
    pr_out_value(r, "sum_to / 4", to, (parity_tol){t.atol / 4, 0, 0});
}

// p: N, K. Logits on a coarse grid (ties in every row), some rows holding NaN or ±Inf.
static void rank_argmax_case(parity_run *r, const int *p) {
    int N = p[0], K = p[1];
    size_t n = (size_t)N * K;
    float *z = pr_host(r, n * sizeof(float));
    int *target = pr_host(r, (size_t)N * sizeof(int));
    test_fill_uniform(z, n, 0.0f, 5.0f, 9010 + N);
    for (size_t i = 0; i < n; i++) z[i] = floorf(z[i]);
    int nonfinite_rows = 0;
    for (int row = 0; row < N; row++) {
        target[row] = (row * 5 + 3) % K;
        if (row % 11 == 4) z[(size_t)row * K + (row * 3) % K] = NAN;
        if (row % 13 == 6) z[(size_t)row * K + (row * 7) % K] = (row % 2) ? INFINITY : -INFINITY;
        nonfinite_rows += row % 11 == 4 || row % 13 == 6;
    }
    pr_require(r, "rows holding NaN or Inf", nonfinite_rows > 0);
    float *dz = pr_in_host(r, z, n);
    int *dt = pr_in_ints(r, target, (size_t)N);
    int *rank = pr_buf(r, (size_t)N * sizeof(int)), *arg = pr_buf(r, (size_t)N * sizeof(int));
    pr_ops(r)->class_rank(rank, dz, dt, N, K);
    pr_ops(r)->argmax_rows(arg, dz, N, K);
    pr_out_ints(r, "class_rank (rank K on non-finite rows)", rank, (size_t)N);
    pr_out_ints(r, "argmax_rows (ties to the lowest, -1 on non-finite rows)", arg, (size_t)N);
}

const parity_case parity_cases_reduce[] = {
    {"sum sum_to", "n 5", sum_case, {5}, .repeat = 1},
    {"sum sum_to", "n 257: two blocks, the second holding one element", sum_case, {257}, .repeat = 1},
    {"sum sum_to", "n 1000003", sum_case, {1000003}, .repeat = 1},
    {"sum sum_to", "n 0", sum_case, {0}, .repeat = 0},
    {"class_rank argmax_rows", "37x19", rank_argmax_case, {37, 19}, .repeat = 0},
    {"class_rank argmax_rows", "1000x10", rank_argmax_case, {1000, 10}, .repeat = 0},
    {"class_rank argmax_rows", "4099x64", rank_argmax_case, {4099, 64}, .repeat = 0},
};
const int parity_cases_reduce_count = (int)(sizeof parity_cases_reduce / sizeof parity_cases_reduce[0]);
