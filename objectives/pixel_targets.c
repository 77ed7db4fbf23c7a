// objectives/pixel_targets.c — per-patch normalised pixel targets (see pixel_targets.h).
#include "pixel_targets.h"
#include <math.h>
#include <stddef.h>

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
