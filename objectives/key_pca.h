// objectives/key_pca.h — principal components of a set of feature vectors (the lecture's "PCA
// (Keys) across layers": the attention keys of every patch of a few images, one layer at a
// time) and their projections mapped to RGB (docs/views.md).
// The decomposition is LAPACK's dsyevd (OpenBLAS's LAPACK) of the covariance matrix, computed
// in double: no hand-written eigen solver.
#pragma once
#include <stddef.h>

#define KEY_PCA_COMPONENTS 3

// X (n, d) rows = samples. Centres the rows on their mean, forms the covariance
// C = Xc^T Xc / max(n - 1, 1) (d, d) in double (each entry a sum in row order), and takes the
// eigenvectors of its K = min(KEY_PCA_COMPONENTS, d) largest eigenvalues (dsyevd: ascending;
// taken from the largest down). Sign convention: each component is flipped so that its entry of
// largest magnitude is positive (the first such entry on a tie), so the result is deterministic.
// Outputs (any may be NULL): components (KEY_PCA_COMPONENTS, d) unit vectors, rows past K zero;
// proj (n, KEY_PCA_COMPONENTS) = Xc · component (columns past K zero); variance
// (KEY_PCA_COMPONENTS) each component's share of the total variance (trace of C; 0 when the
// total is 0). Returns 0, or -1 with why in err (LAPACK's info, or n < 1 / d < 1).
int key_pca(const float *X, int n, int d, float *components, float *proj, double *variance, char *err, size_t errlen);

// Projections (n, KEY_PCA_COMPONENTS) to colours rgb (n, 3) in [0, 1]: component k -> channel k
// (red, green, blue), min-max scaled over the n rows per component; a component that is
// constant over the rows (or absent) maps to 0.5.
void key_pca_rgb(const float *proj, int n, float *rgb);
