// objectives/linear_probe.c — multinomial logistic regression probe (see linear_probe.h).
#include "linear_probe.h"
#include "../core/common.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double LINEAR_PROBE_LAMBDAS[LINEAR_PROBE_N_LAMBDAS] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1};

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

// σ_max([X 1])² by power iteration on [X 1]^T [X 1] from the all-ones vector.
static double top_eigenvalue(const double *X, int n, int d) {
    double *v = xmalloc((size_t)(d + 1) * sizeof(double), "power iteration"), *u = xmalloc((size_t)n * sizeof(double), "power iteration");
    for (int j = 0; j <= d; j++) v[j] = 1.0 / sqrt(d + 1.0);
    double lam = 0.0;
    for (int it = 0; it < 100; it++) {
        for (int i = 0; i < n; i++) u[i] = v[d];
        cblas_dgemv(CblasRowMajor, CblasNoTrans, n, d, 1.0, X, d, v, 1, 1.0, u, 1); // u = [X 1] v
        double s = 0.0;
        for (int i = 0; i < n; i++) s += u[i];
        cblas_dgemv(CblasRowMajor, CblasTrans, n, d, 1.0, X, d, u, 1, 0.0, v, 1);   // v = [X 1]^T u
        v[d] = s;
        double norm = 0.0;
        for (int j = 0; j <= d; j++) norm += v[j] * v[j];
        norm = sqrt(norm);
        lam = norm; // ‖A^T A v‖ with ‖v‖ = 1 -> the top eigenvalue
        if (norm == 0.0) break;
        for (int j = 0; j <= d; j++) v[j] /= norm;
    }
    free(v);
    free(u);
    return lam;
}

double linear_probe_fit(const double *X, const int32_t *y, int n, int d, int K, double lambda, double *W, double *b,
                        int *iters) {
    if (n < 1 || d < 1 || K < 2 || !(lambda > 0.0)) die_fail("linear_probe_fit: n %d, d %d, K %d, lambda %g", n, d, K, lambda);
    for (int i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K) die_fail("linear_probe_fit: label %d of row %d outside [0, %d)", y[i], i, K);
    size_t P = (size_t)K * (d + 1); // W then b, one vector
    double *x = xcalloc(P, sizeof(double), "probe weights"), *prev = xcalloc(P, sizeof(double), "probe weights");
    double *yv = xcalloc(P, sizeof(double), "probe momentum point"), *g = xmalloc(P * sizeof(double), "probe gradient");
    double *Z = xmalloc((size_t)n * K * sizeof(double), "probe logits");
    double step = 1.0 / (0.5 * top_eigenvalue(X, n, d) / n + lambda), t = 1.0;
    int it = 0;
    for (; it < LINEAR_PROBE_MAX_ITERS; it++) {
        gradient(X, y, n, d, K, lambda, yv, yv + (size_t)K * d, g, g + (size_t)K * d, Z);
        double gmax = 0.0;
        for (size_t j = 0; j < P; j++) gmax = fabs(g[j]) > gmax ? fabs(g[j]) : gmax;
        if (gmax < LINEAR_PROBE_TOL) {
            memcpy(x, yv, P * sizeof(double));
            break;
        }
        memcpy(prev, x, P * sizeof(double));
        double restart = 0.0;
        for (size_t j = 0; j < P; j++) {
            x[j] = yv[j] - step * g[j];
            restart += g[j] * (x[j] - prev[j]);
        }
        if (restart > 0.0) t = 1.0; // the momentum points uphill: restart it
        double t_next = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t)), beta = (t - 1.0) / t_next;
        for (size_t j = 0; j < P; j++) yv[j] = x[j] + beta * (x[j] - prev[j]);
        t = t_next;
    }
    memcpy(W, x, (size_t)K * d * sizeof(double));
    memcpy(b, x + (size_t)K * d, (size_t)K * sizeof(double));
    if (iters) *iters = it;
    free(x), free(prev), free(yv), free(g), free(Z);
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

linear_probe_result linear_probe_run(const float *train, const int32_t *train_labels, int ntrain, const float *test,
                                     const int32_t *test_labels, int ntest, int d, int K) {
    if (ntrain < 5 || ntest < 1) die_fail("linear_probe_run: %d training and %d test rows", ntrain, ntest);
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
    linear_probe_fit(X, train_labels, ntrain, d, K, res.lambda, W, b, NULL);
    res.top1 = linear_probe_accuracy(Xt, test_labels, ntest, d, K, W, b);
    free(mean), free(scale), free(X), free(Xt), free(Xf), free(Xh), free(yf), free(yh), free(W), free(b);
    return res;
}
