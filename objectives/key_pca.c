// objectives/key_pca.c — PCA through LAPACK's dsyevd and the RGB mapping of its projections
// (key_pca.h).
#include "key_pca.h"
#include "../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// LAPACK's symmetric eigensolver (divide and conquer), exported by OpenBLAS with the Fortran
// calling convention (Debian ships no lapacke.h for it): the two character arguments' hidden
// lengths come last, as gfortran passes them.
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
                    const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);

// Eigen decomposition of the symmetric a (d, d), overwritten by its eigenvectors (column k of
// the column-major result, a[i + k*d], for eigenvalue w[k], ascending). 0, or LAPACK's info.
static int eigen_symmetric(double *a, int d, double *w) {
    int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
    double work_query = 0.0;
    dsyevd_("V", "U", &d, a, &d, w, &work_query, &lwork, &iwork_query, &liwork, &info, 1, 1);
    if (info != 0) return info;
    lwork = (int)work_query, liwork = iwork_query;
    double *work = xmalloc((size_t)lwork * sizeof(double), "dsyevd workspace");
    int *iwork = xmalloc((size_t)liwork * sizeof(int), "dsyevd integer workspace");
    dsyevd_("V", "U", &d, a, &d, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    free(work);
    free(iwork);
    return info;
}

int key_pca(const float *X, int n, int d, float *components, float *proj, double *variance, char *err, size_t errlen) {
    if (n < 1 || d < 1) {
        snprintf(err, errlen, "key_pca: %d samples of dimension %d (need at least 1 of each)", n, d);
        return -1;
    }
    double *mean = xcalloc((size_t)d, sizeof(double), "PCA mean");
    double *xc = xmalloc((size_t)n * d * sizeof(double), "PCA centred samples");
    double *cov = xmalloc((size_t)d * d * sizeof(double), "PCA covariance");
    double *w = xmalloc((size_t)d * sizeof(double), "PCA eigenvalues");
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++) mean[c] += X[(size_t)i * d + c];
    for (int c = 0; c < d; c++) mean[c] /= n;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++) xc[(size_t)i * d + c] = X[(size_t)i * d + c] - mean[c];
    double denom = n > 1 ? n - 1 : 1;
#pragma omp parallel for schedule(static)
    for (int a = 0; a < d; a++) // each entry one sum in row order: independent of threads
        for (int b = a; b < d; b++) {
            double s = 0.0;
            for (int i = 0; i < n; i++) s += xc[(size_t)i * d + a] * xc[(size_t)i * d + b];
            cov[(size_t)a * d + b] = cov[(size_t)b * d + a] = s / denom;
        }
    double total = 0.0;
    for (int c = 0; c < d; c++) total += cov[(size_t)c * d + c];
    int info = eigen_symmetric(cov, d, w);
    if (info != 0) {
        snprintf(err, errlen, "key_pca: LAPACK dsyevd failed (info %d) on a %d x %d covariance", info, d, d);
        free(mean), free(xc), free(cov), free(w);
        return -1;
    }
    int K = d < KEY_PCA_COMPONENTS ? d : KEY_PCA_COMPONENTS;
    double *v[KEY_PCA_COMPONENTS] = {0}; // the components, sign fixed
    double *vecs = xmalloc((size_t)K * d * sizeof(double), "PCA components");
    for (int k = 0; k < K; k++) {
        const double *col = cov + (size_t)(d - 1 - k) * d; // the k-th largest eigenvalue's vector
        int at = 0;
        for (int c = 1; c < d; c++)
            if (fabs(col[c]) > fabs(col[at])) at = c;
        double sign = col[at] < 0.0 ? -1.0 : 1.0;
        v[k] = vecs + (size_t)k * d;
        for (int c = 0; c < d; c++) v[k][c] = sign * col[c];
    }
    if (components)
        for (int k = 0; k < KEY_PCA_COMPONENTS; k++)
            for (int c = 0; c < d; c++) components[(size_t)k * d + c] = k < K ? (float)v[k][c] : 0.0f;
    if (variance)
        for (int k = 0; k < KEY_PCA_COMPONENTS; k++) variance[k] = k < K && total > 0.0 ? w[d - 1 - k] / total : 0.0;
    if (proj)
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            for (int k = 0; k < KEY_PCA_COMPONENTS; k++) {
                double s = 0.0;
                for (int c = 0; k < K && c < d; c++) s += xc[(size_t)i * d + c] * v[k][c];
                proj[(size_t)i * KEY_PCA_COMPONENTS + k] = (float)s;
            }
    free(vecs), free(mean), free(xc), free(cov), free(w);
    return 0;
}

void key_pca_rgb(const float *proj, int n, float *rgb) {
    for (int k = 0; k < KEY_PCA_COMPONENTS; k++) {
        float lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            float x = proj[(size_t)i * KEY_PCA_COMPONENTS + k];
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
        for (int i = 0; i < n; i++) {
            float x = proj[(size_t)i * KEY_PCA_COMPONENTS + k];
            rgb[(size_t)i * 3 + k] = hi > lo ? (x - lo) / (hi - lo) : 0.5f;
        }
    }
}
