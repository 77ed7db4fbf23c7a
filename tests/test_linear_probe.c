// tests/test_linear_probe.c — the linear probe (objectives/linear_probe.c): its fit against an
// independent double-precision solution (tests/linear_probe_reference.py: torch L-BFGS in
// float64 on the same objective) on small separable problems; the optimality conditions at
// the solution; the protocol (standardisation makes a rescaled, shifted feature irrelevant;
// λ from the grid; held-out and test top-1 on separable data; determinism).
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../core/tensorfile.h"
#include "../objectives/linear_probe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// n points in K well separated Gaussian clusters in d dimensions (cluster k centred at 3·e_k,
// unit noise scaled by `noise`), labels k = i mod K.
static void clusters(double *X, int32_t *y, int n, int d, int K, double noise, unsigned tag) {
    rng_stream s = rng_stream_make(tag, RNG_TEST, 0, 0, 0);
    for (int i = 0; i < n; i++) {
        y[i] = i % K;
        for (int j = 0; j < d; j++) X[(size_t)i * d + j] = (j == y[i] % d ? 3.0 : 0.0) + noise * rng_normal(&s);
    }
}

#define scalar test_tf_scalar

// squeeze > 0: column j scaled by 10^(-squeeze·j/(d-1)) and a shared factor added to every
// column: an ill-conditioned problem like real block features (FISTA at step 1/L stopped far
// from its optimum there after 2000 iterations).
static void reference_case(const char *dir, const char *label, int n, int d, int K, double noise, double lambda, double squeeze) {
    double *X = xmalloc((size_t)n * d * sizeof(double), "X"), *W = xmalloc((size_t)K * d * sizeof(double), "W"), b[16];
    int32_t *y = xmalloc((size_t)n * sizeof(int32_t), "y");
    clusters(X, y, n, d, K, noise, 11);
    if (squeeze > 0) {
        rng_stream s = rng_stream_make(14, RNG_TEST, 0, 0, 0);
        for (int i = 0; i < n; i++) {
            double shared = 5.0 * rng_normal(&s);
            for (int j = 0; j < d; j++) X[(size_t)i * d + j] = (X[(size_t)i * d + j] + shared) * pow(10.0, -squeeze * j / (d - 1));
        }
    }
    int iters = 0;
    double f = linear_probe_fit(X, y, n, d, K, lambda, W, b, &iters);
    // Optimality: the gradient vanishes (checked from the objective by central differences).
    double worst = 0.0;
    for (int j = 0; j < K * d; j++) {
        double keep = W[j], h = 1e-5;
        W[j] = keep + h;
        double fp = linear_probe_objective(X, y, n, d, K, lambda, W, b);
        W[j] = keep - h;
        double fm = linear_probe_objective(X, y, n, d, K, lambda, W, b);
        W[j] = keep;
        worst = fmax(worst, fabs(fp - fm) / (2 * h));
    }
    char name[200];
    snprintf(name, sizeof name, "linear probe fit [%s]: converged, gradient ~ 0 at the solution", label);
    test_check(name, iters < LINEAR_PROBE_MAX_ITERS && worst < 1e-6, "%d iterations, objective %.12g, max |df/dW| %.2g",
               iters, f, worst);
    double acc = linear_probe_accuracy(X, y, n, d, K, W, b);
    snprintf(name, sizeof name, "linear probe fit [%s]: separable training set classified exactly", label);
    if (squeeze == 0) test_check(name, acc == 1.0, "top-1 %.4f", acc);
    tensorfile tf;
    tf_init(&tf);
    int xd[2] = {n, d}, yd[1] = {n}, wd[2] = {K, d}, bd[1] = {K}, one[1] = {1};
    tf_add(&tf, "input.X", TF_F64, 2, xd, X);
    tf_add(&tf, "input.y", TF_I32, 1, yd, y);
    scalar(&tf, "config.K", K);
    scalar(&tf, "config.lambda", lambda);
    tf_add(&tf, "output.W", TF_F64, 2, wd, W);
    tf_add(&tf, "output.b", TF_F64, 1, bd, b);
    tf_add(&tf, "output.objective", TF_F64, 1, one, &f);
    test_python_check(dir, "tests/linear_probe_reference.py", "probe-ref", label, &tf);
    tf_free(&tf);
    free(X), free(W), free(y);
}

static void test_against_reference(void) {
    char dir[] = "/tmp/posbench-probe.XXXXXX";
    if (!test_torch_dir("probe-ref", dir)) return;
    reference_case(dir, "3 classes, d 4, lambda 1e-2", 300, 4, 3, 0.5, 1e-2, 0);
    reference_case(dir, "5 classes, d 8, lambda 1e-3", 400, 8, 5, 0.4, 1e-3, 0);
    reference_case(dir, "2 classes, d 3, lambda 1e-1", 200, 3, 2, 0.6, 1e-1, 0);
    reference_case(dir, "ill-conditioned: 4 classes, d 16, scales 1 to 0.01, a shared factor, lambda 1e-4", 600, 16, 4, 1.0, 1e-4, 2.0);
    test_torch_dir_remove(dir);
}

static void test_protocol(void) {
    const int n = 500, nt = 200, d = 6, K = 4;
    double *X = xmalloc((size_t)(n + nt) * d * sizeof(double), "X");
    int32_t *y = xmalloc((size_t)(n + nt) * sizeof(int32_t), "y");
    clusters(X, y, n + nt, d, K, 0.5, 12);
    float *F = xmalloc((size_t)(n + nt) * d * sizeof(float), "F"), *G = xmalloc((size_t)(n + nt) * d * sizeof(float), "G");
    for (size_t i = 0; i < (size_t)(n + nt) * d; i++) F[i] = (float)X[i];
    for (size_t i = 0; i < (size_t)(n + nt); i++)
        for (int j = 0; j < d; j++) // dimension 5 (pure noise) rescaled and shifted: standardised away
            G[i * d + j] = j == 5 ? 1000.0f * F[i * d + j] + 50.0f : F[i * d + j];
    linear_probe_result a = linear_probe_run(F, y, n, NULL, NULL, 0, F + (size_t)n * d, y + n, nt, d, K);
    linear_probe_result a2 = linear_probe_run(F, y, n, NULL, NULL, 0, F + (size_t)n * d, y + n, nt, d, K);
    linear_probe_result g = linear_probe_run(G, y, n, NULL, NULL, 0, G + (size_t)n * d, y + n, nt, d, K);
    linear_probe_result v = linear_probe_run(F, y, n, F + (size_t)n * d, y + n, nt, F + (size_t)n * d, y + n, nt, d, K);
    test_check("linear probe protocol: validation rows are scored by the refit probe (the test rows as validation: the same top-1), "
               "and without them val_top1 is NaN", v.val_top1 == v.top1 && v.top1 == a.top1 && isnan(a.val_top1),
               "validation %.4f, test %.4f, without %.4f", v.val_top1, v.top1, a.val_top1);
    int in_grid = 0;
    for (int l = 0; l < LINEAR_PROBE_N_LAMBDAS; l++) in_grid |= a.lambda == LINEAR_PROBE_LAMBDAS[l];
    test_check("linear probe protocol: separable clusters give test top-1 1 and held-out top-1 1 at the chosen lambda",
               a.top1 == 1.0 && in_grid && a.heldout[0] == 1.0, "test %.4f, lambda %g, held-out %.3f %.3f %.3f %.3f %.3f",
               a.top1, a.lambda, a.heldout[0], a.heldout[1], a.heldout[2], a.heldout[3], a.heldout[4]);
    test_check("linear probe protocol: ties go to the larger lambda", a.lambda == LINEAR_PROBE_LAMBDAS[LINEAR_PROBE_N_LAMBDAS - 1] ||
               a.heldout[LINEAR_PROBE_N_LAMBDAS - 1] < 1.0, "lambda %g", a.lambda);
    test_check("linear probe protocol: deterministic (two runs bit for bit)", !memcmp(&a, &a2, sizeof a), "top-1 %.6f / %.6f", a.top1, a2.top1);
    test_check("linear probe protocol: a rescaled and shifted feature is standardised away",
               g.top1 == a.top1 && g.lambda == a.lambda, "top-1 %.4f vs %.4f, lambda %g vs %g", g.top1, a.top1, g.lambda, a.lambda);
    // A harder problem (overlapping clusters): the held-out choice matters and accuracy < 1.
    clusters(X, y, n + nt, d, K, 2.0, 13);
    for (size_t i = 0; i < (size_t)(n + nt) * d; i++) F[i] = (float)X[i];
    linear_probe_result h = linear_probe_run(F, y, n, NULL, NULL, 0, F + (size_t)n * d, y + n, nt, d, K);
    int best = 1;
    for (int l = 0; l < LINEAR_PROBE_N_LAMBDAS; l++)
        if (h.heldout[l] > h.heldout[0] && LINEAR_PROBE_LAMBDAS[l] != h.lambda) best &= h.heldout[l] <= h.heldout[0];
    double chosen = 0.0;
    for (int l = 0; l < LINEAR_PROBE_N_LAMBDAS; l++) if (LINEAR_PROBE_LAMBDAS[l] == h.lambda) chosen = h.heldout[l];
    for (int l = 0; l < LINEAR_PROBE_N_LAMBDAS; l++) best &= h.heldout[l] <= chosen;
    test_check("linear probe protocol: overlapping clusters: the chosen lambda has the best held-out top-1, test top-1 in (0.4, 1)",
               best && h.top1 > 0.4 && h.top1 < 1.0, "test %.4f lambda %g held-out %.3f %.3f %.3f %.3f %.3f", h.top1, h.lambda,
               h.heldout[0], h.heldout[1], h.heldout[2], h.heldout[3], h.heldout[4]);
    free(X), free(y), free(F), free(G);
}

int main(void) {
    test_against_reference();
    test_protocol();
    return test_exit_code();
}
