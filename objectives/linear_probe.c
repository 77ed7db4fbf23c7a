// objectives/linear_probe.c — multinomial logistic regression probe (see linear_probe.h).
#include "linear_probe.h"
#include "../core/common.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double LINEAR_PROBE_LAMBDAS[LINEAR_PROBE_N_LAMBDAS] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1};

// logits (n, K) = X W^T + b.
static void logits_of(double *Z, const double *X, int n, int d, int K, const double *W, const double *b) {
    for (int i = 0; i < n; i++) memcpy(Z + (size_t)i * K, b, (size_t)K * sizeof(double));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, K, d, 1.0, X, d, W, d, 1.0, Z, K);
}

// Softmax rows of Z in place; returns Σ_i -log p[i, y_i].
static double softmax_nll(double *Z, const int32_t *y, int n, int K) {
    double nll = 0.0;
    for (int i = 0; i < n; i++) {
        double *z = Z + (size_t)i * K, mx = z[0], sum = 0.0;
        for (int k = 1; k < K; k++) mx = z[k] > mx ? z[k] : mx;
        for (int k = 0; k < K; k++) sum += exp(z[k] - mx);
        nll += log(sum) + mx - z[y[i]];
        for (int k = 0; k < K; k++) z[k] = exp(z[k] - mx) / sum;
    }
    return nll;
}

double linear_probe_objective(const double *X, const int32_t *y, int n, int d, int K, double lambda, const double *W,
                              const double *b) {
    double *Z = xmalloc((size_t)n * K * sizeof(double), "probe logits");
    logits_of(Z, X, n, d, K, W, b);
    double f = softmax_nll(Z, y, n, K) / n, w2 = 0.0;
    for (size_t j = 0; j < (size_t)K * d; j++) w2 += W[j] * W[j];
    free(Z);
    return f + 0.5 * lambda * w2;
}

// Gradient at (W, b) into gW (K, d), gb (K) (Z scratch (n, K)); returns the objective.
static double gradient(const double *X, const int32_t *y, int n, int d, int K, double lambda, const double *W,
                       const double *b, double *gW, double *gb, double *Z) {
    logits_of(Z, X, n, d, K, W, b);
    double f = softmax_nll(Z, y, n, K) / n, w2 = 0.0;
    for (int i = 0; i < n; i++) Z[(size_t)i * K + y[i]] -= 1.0; // P - Y
    for (int k = 0; k < K; k++) gb[k] = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < K; k++) gb[k] += Z[(size_t)i * K + k];
    for (int k = 0; k < K; k++) gb[k] /= n;
    for (size_t j = 0; j < (size_t)K * d; j++) gW[j] = lambda * W[j], w2 += W[j] * W[j];
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, d, n, 1.0 / n, Z, K, X, d, 1.0, gW, d);
    return f + 0.5 * lambda * w2;
}

static double dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t j = 0; j < n; j++) s += a[j] * b[j];
    return s;
}

static double max_abs(const double *a, size_t n) {
    double m = 0.0;
    for (size_t j = 0; j < n; j++) m = fabs(a[j]) > m ? fabs(a[j]) : m;
    return m;
}

// L-BFGS (two-loop recursion over the last LINEAR_PROBE_MEMORY pairs) with a backtracking
// Armijo line search; the parameters are one vector x = [W (K, d), b (K)].
double linear_probe_fit(const double *X, const int32_t *y, int n, int d, int K, double lambda, double *W, double *b,
                        int *iters) {
    if (n < 1 || d < 1 || K < 2 || !(lambda > 0.0)) die_fail("linear_probe_fit: n %d, d %d, K %d, lambda %g", n, d, K, lambda);
    for (int i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K) die_fail("linear_probe_fit: label %d of row %d outside [0, %d)", y[i], i, K);
    enum { M = LINEAR_PROBE_MEMORY };
    size_t P = (size_t)K * (d + 1), Kd = (size_t)K * d;
    double *x = xcalloc(P, sizeof(double), "probe weights"), *g = xmalloc(P * sizeof(double), "probe gradient");
    double *xn = xmalloc(P * sizeof(double), "probe trial point"), *gn = xmalloc(P * sizeof(double), "probe trial gradient");
    double *dir = xmalloc(P * sizeof(double), "probe direction"), *S = xmalloc(M * P * sizeof(double), "probe L-BFGS pairs");
    double *Y = xmalloc(M * P * sizeof(double), "probe L-BFGS pairs"), rho[M], alpha[M];
    double *Z = xmalloc((size_t)n * K * sizeof(double), "probe logits");
    double f = gradient(X, y, n, d, K, lambda, x, x + Kd, g, g + Kd, Z);
    int it = 0, pairs = 0, newest = -1;
    for (; it < LINEAR_PROBE_MAX_ITERS && max_abs(g, P) >= LINEAR_PROBE_TOL; it++) {
        // direction = -H g: the two-loop recursion, newest pair first, H0 = (s'y / y'y) I
        memcpy(dir, g, P * sizeof(double));
        for (int k = 0; k < pairs; k++) {
            int j = (newest - k + M) % M;
            alpha[j] = rho[j] * dot(S + (size_t)j * P, dir, P);
            for (size_t q = 0; q < P; q++) dir[q] -= alpha[j] * Y[(size_t)j * P + q];
        }
        double gamma = pairs ? 1.0 / (rho[newest] * dot(Y + (size_t)newest * P, Y + (size_t)newest * P, P)) : 1.0 / fmax(1.0, max_abs(g, P));
        for (size_t q = 0; q < P; q++) dir[q] *= gamma;
        for (int k = pairs - 1; k >= 0; k--) {
            int j = (newest - k + M) % M;
            double beta = rho[j] * dot(Y + (size_t)j * P, dir, P);
            for (size_t q = 0; q < P; q++) dir[q] += (alpha[j] - beta) * S[(size_t)j * P + q];
        }
        for (size_t q = 0; q < P; q++) dir[q] = -dir[q];
        double slope = dot(g, dir, P);
        if (!(slope < 0.0)) { // not a descent direction (rounding): restart from the gradient
            pairs = 0;
            for (size_t q = 0; q < P; q++) dir[q] = -g[q] / fmax(1.0, max_abs(g, P));
            slope = dot(g, dir, P);
        }
        double step = 1.0, fn = 0.0;
        int accepted = 0;
        for (int tries = 0; tries < 60 && !accepted; tries++, step *= 0.5) {
            for (size_t q = 0; q < P; q++) xn[q] = x[q] + step * dir[q];
            fn = gradient(X, y, n, d, K, lambda, xn, xn + Kd, gn, gn + Kd, Z);
            accepted = fn <= f + 1e-4 * step * slope;
        }
        if (!accepted) break; // no decrease left at double precision: as converged as it gets
        double sy = 0.0;
        for (size_t q = 0; q < P; q++) sy += (xn[q] - x[q]) * (gn[q] - g[q]);
        if (sy > 1e-300) { // a curvature pair (always, the objective being strictly convex, unless rounding)
            newest = (newest + 1) % M, pairs = pairs < M ? pairs + 1 : M, rho[newest] = 1.0 / sy;
            for (size_t q = 0; q < P; q++) S[(size_t)newest * P + q] = xn[q] - x[q], Y[(size_t)newest * P + q] = gn[q] - g[q];
        }
        memcpy(x, xn, P * sizeof(double));
        memcpy(g, gn, P * sizeof(double));
        f = fn;
    }
    memcpy(W, x, Kd * sizeof(double));
    memcpy(b, x + Kd, (size_t)K * sizeof(double));
    if (iters) *iters = it;
    free(x), free(g), free(xn), free(gn), free(dir), free(S), free(Y), free(Z);
    return linear_probe_objective(X, y, n, d, K, lambda, W, b);
}

double linear_probe_accuracy(const double *X, const int32_t *y, int n, int d, int K, const double *W, const double *b) {
    double *Z = xmalloc((size_t)n * K * sizeof(double), "probe logits");
    logits_of(Z, X, n, d, K, W, b);
    long correct = 0;
    for (int i = 0; i < n; i++) {
        const double *z = Z + (size_t)i * K;
        int best = 0;
        for (int k = 1; k < K; k++) best = z[k] > z[best] ? k : best;
        correct += isfinite(z[best]) && best == y[i];
    }
    free(Z);
    return (double)correct / n;
}

// Standardised double copy of rows (n, d) with the given mean and scale.
static double *standardised(const float *rows, int n, int d, const double *mean, const double *scale) {
    double *X = xmalloc((size_t)n * d * sizeof(double), "probe features");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) X[(size_t)i * d + j] = ((double)rows[(size_t)i * d + j] - mean[j]) / scale[j];
    return X;
}

linear_probe_result linear_probe_run(const float *train, const int32_t *train_labels, int ntrain, const float *val,
                                     const int32_t *val_labels, int nval, const float *test, const int32_t *test_labels,
                                     int ntest, int d, int K) {
    if (ntrain < 5 || ntest < 1 || nval < 0 || (nval > 0 && (!val || !val_labels)))
        die_fail("linear_probe_run: %d training, %d validation and %d test rows", ntrain, nval, ntest);
    linear_probe_result res = {0};
    double *mean = xcalloc((size_t)d, sizeof(double), "probe mean"), *scale = xcalloc((size_t)d, sizeof(double), "probe scale");
    for (int i = 0; i < ntrain; i++)
        for (int j = 0; j < d; j++) mean[j] += train[(size_t)i * d + j];
    for (int j = 0; j < d; j++) mean[j] /= ntrain;
    for (int i = 0; i < ntrain; i++)
        for (int j = 0; j < d; j++) scale[j] += (train[(size_t)i * d + j] - mean[j]) * (train[(size_t)i * d + j] - mean[j]);
    for (int j = 0; j < d; j++) scale[j] = scale[j] > 0.0 ? sqrt(scale[j] / ntrain) : 1.0;
    double *X = standardised(train, ntrain, d, mean, scale), *Xt = standardised(test, ntest, d, mean, scale);
    int nfit = 0, nheld = 0;
    double *Xf = xmalloc((size_t)ntrain * d * sizeof(double), "probe fit part"), *Xh = xmalloc((size_t)ntrain * d * sizeof(double), "probe held-out part");
    int32_t *yf = xmalloc((size_t)ntrain * sizeof(int32_t), "probe fit labels"), *yh = xmalloc((size_t)ntrain * sizeof(int32_t), "probe held-out labels");
    for (int i = 0; i < ntrain; i++) {
        int held = i % 5 == 4;
        memcpy((held ? Xh + (size_t)nheld * d : Xf + (size_t)nfit * d), X + (size_t)i * d, (size_t)d * sizeof(double));
        if (held) yh[nheld++] = train_labels[i];
        else yf[nfit++] = train_labels[i];
    }
    double *W = xmalloc((size_t)K * d * sizeof(double), "probe W"), *b = xmalloc((size_t)K * sizeof(double), "probe b");
    int best = 0;
    for (int l = 0; l < LINEAR_PROBE_N_LAMBDAS; l++) {
        linear_probe_fit(Xf, yf, nfit, d, K, LINEAR_PROBE_LAMBDAS[l], W, b, NULL);
        res.heldout[l] = linear_probe_accuracy(Xh, yh, nheld, d, K, W, b);
        if (res.heldout[l] >= res.heldout[best]) best = l; // ties to the larger lambda
    }
    res.lambda = LINEAR_PROBE_LAMBDAS[best];
    linear_probe_fit(X, train_labels, ntrain, d, K, res.lambda, W, b, &res.iters);
    res.top1 = linear_probe_accuracy(Xt, test_labels, ntest, d, K, W, b);
    res.val_top1 = NAN;
    if (nval > 0) {
        double *Xv = standardised(val, nval, d, mean, scale);
        res.val_top1 = linear_probe_accuracy(Xv, val_labels, nval, d, K, W, b);
        free(Xv);
    }
    free(mean), free(scale), free(X), free(Xt), free(Xf), free(Xh), free(yf), free(yh), free(W), free(b);
    return res;
}
