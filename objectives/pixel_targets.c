// objectives/pixel_targets.c — per-patch normalised pixel targets (see pixel_targets.h).
#include "pixel_targets.h"
#include "../core/common.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

void pixel_patch_targets(float *out, float *mean, float *scale, const float *image, int C, int S, int p) {
    int g = S / p, N = g * g, D = C * p * p;
    for (int n = 0; n < N; n++) {
        int gy = n / g, gx = n % g;
        float *o = out + (size_t)n * D;
        int k = 0;
        for (int c = 0; c < C; c++)
            for (int y = 0; y < p; y++)
                for (int x = 0; x < p; x++) o[k++] = image[((size_t)c * S + gy * p + y) * S + gx * p + x];
        double sum = 0.0, sq = 0.0;
        for (int i = 0; i < D; i++) sum += o[i];
        double mu = sum / D;
        for (int i = 0; i < D; i++) sq += (o[i] - mu) * (o[i] - mu);
        double sd = sqrt((D > 1 ? sq / (D - 1) : 0.0) + 1e-6);
        for (int i = 0; i < D; i++) o[i] = (float)((o[i] - mu) / sd);
        if (mean) mean[n] = (float)mu;
        if (scale) scale[n] = (float)sd;
    }
}

void pixel_sample(const float *image, const float *pixel_mean, const float *pixel_std, const float *const *pred, int C,
                  int S, int p, float *original, float *view, float *rebuilt) {
    int g = S / p, N = g * g, D = C * p * p;
    size_t plane = (size_t)S * S, img = (size_t)C * plane;
    for (size_t k = 0; k < img; k++) original[k] = image[k] * pixel_std[k / plane] + pixel_mean[k / plane];
    float *targets = xmalloc((size_t)N * D * sizeof(float), "sample patches");
    float *mean = xmalloc((size_t)N * sizeof(float), "patch means"), *scale = xmalloc((size_t)N * sizeof(float), "patch scales");
    pixel_patch_targets(targets, mean, scale, original, C, S, p);
    for (size_t k = 0; k < img; k++) rebuilt[k] = original[k], view[k] = 0.5f;
    for (int n = 0; n < N; n++) {
        int gy = n / g, gx = n % g;
        const float *q = pred[n];
        for (int c = 0, k = 0; c < C; c++)
            for (int y = 0; y < p; y++)
                for (int x = 0; x < p; x++, k++) {
                    size_t at = ((size_t)c * S + gy * p + y) * S + gx * p + x;
                    if (q) rebuilt[at] = q[k] * scale[n] + mean[n];
                    else view[at] = original[at];
                }
    }
    free(targets), free(mean), free(scale);
}
