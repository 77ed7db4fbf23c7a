// objectives/knn_probe.c — weighted kNN accuracy: normalise, sgemm a block of test rows against
// all training rows, keep the k best per test row, vote with exp(sim / T).
#include "knn_probe.h"
#include "../core/common.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// dst (n, D) = rows of src (n, D) divided by their L2 norm (computed in double); zero rows stay 0.
static void normalise_rows(float *dst, const float *src, int n, int D) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        const float *x = src + (size_t)i * D;
        float *y = dst + (size_t)i * D;
        double ss = 0.0;
        for (int d = 0; d < D; d++) ss += (double)x[d] * (double)x[d];
        float scale = ss > 0.0 ? (float)(1.0 / sqrt(ss)) : 0.0f;
        for (int d = 0; d < D; d++) y[d] = x[d] * scale;
    }
}

static void check_finite(const float *x, int n, int D, const char *which) {
    for (int i = 0; i < n; i++)
        for (int d = 0; d < D; d++)
            if (!isfinite(x[(size_t)i * D + d]))
                die_fail("knn probe: %s feature row %d has a non-finite value (%g at column %d)", which,
                         i, (double)x[(size_t)i * D + d], d);
}

static void check_labels(const int32_t *labels, int n, int num_classes, const char *which) {
    for (int i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= num_classes)
            die_fail("knn probe: %s label %d of row %d is outside [0, %d)", which, (int)labels[i], i,
                     num_classes);
}

// The k best (similarity desc, index asc) of one row of similarities sim (ntrain), scanned in
// index order: a later index enters only with a strictly higher similarity than the k-th, and
// is placed after every kept entry with an equal or higher similarity. best_sim/best_idx (k).
static void select_top_k(const float *sim, int ntrain, int k, float *best_sim, int *best_idx) {
    int n = 0;
    for (int j = 0; j < ntrain; j++) {
        float s = sim[j];
        if (n == k && !(s > best_sim[k - 1])) continue;
        int pos = n < k ? n++ : k - 1; // slot freed at the end (the k-th drops out when full)
        while (pos > 0 && best_sim[pos - 1] < s) {
            best_sim[pos] = best_sim[pos - 1];
            best_idx[pos] = best_idx[pos - 1];
            pos--;
        }
        best_sim[pos] = s;
        best_idx[pos] = j;
    }
}

// Position of class y when classes are ranked by score desc, ties to the lower class.
static int class_rank(const double *score, int num_classes, int y) {
    int rank = 0;
    for (int c = 0; c < num_classes; c++)
        if (score[c] > score[y] || (score[c] == score[y] && c < y)) rank++;
    return rank;
}

double knn_probe_accuracy(const float *train, const int32_t *train_labels, int ntrain,
                          const float *test, const int32_t *test_labels, int ntest, int D,
                          int num_classes, int k, float temperature, double *top5,
                          int32_t *pred) {
    if (ntrain < 1 || ntest < 1 || D < 1 || num_classes < 1)
        die_fail("knn probe: needs ntrain >= 1, ntest >= 1, D >= 1, num_classes >= 1 "
                 "(got ntrain=%d ntest=%d D=%d num_classes=%d)", ntrain, ntest, D, num_classes);
    if (!train || !train_labels || !test || !test_labels)
        die_fail("knn probe: NULL feature or label array");
    if (k < 1 || k > ntrain)
        die_input("knn probe: k=%d is outside [1, %d] (the number of training examples)", k, ntrain);
    if (!(temperature > 0.0f) || !isfinite(temperature))
        die_input("knn probe: temperature %g must be finite and > 0", (double)temperature);
    check_labels(train_labels, ntrain, num_classes, "training");
    check_labels(test_labels, ntest, num_classes, "test");
    check_finite(train, ntrain, D, "training");
    check_finite(test, ntest, D, "test");

    int block = ntest < KNN_PROBE_BLOCK ? ntest : KNN_PROBE_BLOCK;
    float *trn = xmalloc((size_t)ntrain * D * sizeof(float), "knn normalised training features"); // (ntrain, D)
    float *tst = xmalloc((size_t)block * D * sizeof(float), "knn normalised test block");        // (block, D)
    float *sim = xmalloc((size_t)block * ntrain * sizeof(float), "knn similarity block");        // (block, ntrain)
    normalise_rows(trn, train, ntrain, D);
    double inv_t = 1.0 / (double)temperature;
    long hits1 = 0, hits5 = 0; // integer counts: the sum is exact in any order

    for (int b0 = 0; b0 < ntest; b0 += block) {
        int nb = ntest - b0 < block ? ntest - b0 : block;
        normalise_rows(tst, test + (size_t)b0 * D, nb, D);
        // sim (nb, ntrain) = tst (nb, D) · trn (ntrain, D)^T
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nb, ntrain, D, 1.0f, tst, D, trn, D,
                    0.0f, sim, ntrain);
#pragma omp parallel reduction(+ : hits1, hits5)
        {
            float *best_sim = xmalloc((size_t)k * sizeof(float), "knn neighbour similarities"); // (k)
            int *best_idx = xmalloc((size_t)k * sizeof(int), "knn neighbour indices");       // (k)
            double *score = xmalloc((size_t)num_classes * sizeof(double), "knn class scores"); // (C)
#pragma omp for schedule(static)
            for (int i = 0; i < nb; i++) {
                select_top_k(sim + (size_t)i * ntrain, ntrain, k, best_sim, best_idx);
                memset(score, 0, (size_t)num_classes * sizeof(double));
                double top = best_sim[0];
                for (int j = 0; j < k; j++) // neighbours in rank order: a fixed summation order
                    score[train_labels[best_idx[j]]] += exp(((double)best_sim[j] - top) * inv_t);
                int argmax = 0;
                for (int c = 1; c < num_classes; c++)
                    if (score[c] > score[argmax]) argmax = c;
                int rank = class_rank(score, num_classes, test_labels[b0 + i]);
                hits1 += rank < 1;
                hits5 += rank < 5;
                if (pred) pred[b0 + i] = argmax;
            }
            free(best_sim);
            free(best_idx);
            free(score);
        }
    }
    free(trn);
    free(tst);
    free(sim);
    if (top5) *top5 = (double)hits5 / ntest;
    return (double)hits1 / ntest;
}
