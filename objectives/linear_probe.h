// objectives/linear_probe.h — the linear probe of frozen features (MAE's and GVP's evaluation
// protocol; docs/methods.md "Evaluation protocols"): multinomial logistic regression in double with
// a fixed, documented optimiser, its L2 strength chosen on a held-out part of the training set.
// Protocol (linear_probe_run):
//   1. Features standardised per dimension with the mean and standard deviation of the probe's
//      training images (a constant dimension keeps scale 1), as MAE's BatchNorm without affine.
//   2. Held-out part: every 5th training image (index % 5 == 4); the others fit.
//   3. For each λ of LINEAR_PROBE_LAMBDAS, fit on the fit part; the λ with the highest held-out
//      top-1 wins (ties to the larger λ).
//   4. Refit on every training image with that λ; top-1 on the validation images (when given:
//      the caller's split, objectives/probe_select.h, which chooses layer and feature by it)
//      and on the test images.
// Objective: (1/n) Σ_i −log softmax(W x_i + b)[y_i] + (λ/2)·‖W‖² (the bias not penalised),
// W (K, d), b (K), from zero. Optimiser: L-BFGS (the last LINEAR_PROBE_MEMORY curvature pairs,
// two-loop recursion, H0 = s'y/y'y; the first step along -g scaled to a largest entry of 1)
// with a backtracking Armijo line search (c1 1e-4, halving from step 1), until the largest
// gradient entry is below LINEAR_PROBE_TOL, no step decreases the objective any more, or
// LINEAR_PROBE_MAX_ITERS iterations. (FISTA with the constant step 1/L, used before, needed
// far more than its 2000 iterations on real block features: correlated, standardised
// dimensions make the problem ill-conditioned, and the probe then measured the iteration cap
// rather than the features; mean-pooled features suffered most.) Products through OpenBLAS
// dgemm: deterministic for a given thread count.
#pragma once
#include <stdint.h>

#define LINEAR_PROBE_TOL 1e-7
#define LINEAR_PROBE_MAX_ITERS 5000
#define LINEAR_PROBE_MEMORY 10
#define LINEAR_PROBE_N_LAMBDAS 6
extern const double LINEAR_PROBE_LAMBDAS[LINEAR_PROBE_N_LAMBDAS]; // 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1

// Fits W (K, d) and b (K) (overwritten; start from zero) on X (n, d), y (n) in [0, K). Returns
// the objective at the solution; *iters (may be NULL) the iterations it took.
double linear_probe_fit(const double *X, const int32_t *y, int n, int d, int K, double lambda, double *W, double *b,
                        int *iters);
// The objective above at (W, b).
double linear_probe_objective(const double *X, const int32_t *y, int n, int d, int K, double lambda, const double *W,
                              const double *b);
// Top-1 accuracy of argmax(W x + b) (ties to the lower class) on X (n, d), y (n).
double linear_probe_accuracy(const double *X, const int32_t *y, int n, int d, int K, const double *W, const double *b);

typedef struct {
    double top1;       // test top-1 of the refit probe
    double val_top1;   // validation top-1 of the refit probe (NaN without validation images)
    double lambda;     // the chosen λ
    double heldout[LINEAR_PROBE_N_LAMBDAS]; // held-out top-1 of each λ
    int iters;         // iterations of the refit (LINEAR_PROBE_MAX_ITERS: stopped unconverged)
} linear_probe_result;
// The whole protocol on float features train (ntrain, d), val (nval, d) (may be NULL with
// nval 0) and test (ntest, d). ntrain >= 5. Standardised with the training rows' statistics.
linear_probe_result linear_probe_run(const float *train, const int32_t *train_labels, int ntrain, const float *val,
                                     const int32_t *val_labels, int nval, const float *test, const int32_t *test_labels,
                                     int ntest, int d, int K);
