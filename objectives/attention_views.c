// objectives/attention_views.c — [CLS] attention maps, blank patches and the foreground share
// of the [CLS] attention (attention_views.h).
#include "attention_views.h"
#include <stddef.h>

void views_cls_attention(const float *probs, int B, int H, int T, int t0, float *out) {
    int P = T - t0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const float *row = probs + ((size_t)b * H + h) * T * T; // query 0: the cls token
            for (int j = 0; j < P; j++) out[((size_t)b * H + h) * P + j] = row[t0 + j];
        }
}

double views_foreground_mask(const float *images, int B, int C, int S, int p, const float *mean, const float *std,
                             float *pixels, float *mask) {
    int g = S / p;
    long nonblank = 0;
    for (int b = 0; b < B; b++) {
        for (int k = 0; k < g * g; k++) mask[(size_t)b * g * g + k] = 0.0f;
        for (int c = 0; c < C; c++)
            for (int y = 0; y < S; y++)
                for (int x = 0; x < S; x++) {
                    size_t i = (((size_t)b * C + c) * S + y) * S + x;
                    float v = images[i] * std[c] + mean[c];
                    pixels[i] = v;
                    if (y < g * p && x < g * p && (double)v * 255.0 >= VIEWS_BLANK_BELOW)
                        mask[(size_t)b * g * g + (size_t)(y / p) * g + x / p] = 1.0f;
                }
        for (int k = 0; k < g * g; k++) nonblank += mask[(size_t)b * g * g + k] > 0.0f;
    }
    return B > 0 && g > 0 ? (double)nonblank / ((double)B * g * g) : 0.0;
}

double views_foreground_share(const float *cls, const float *mask, int B, int H, int P, float *per_head) {
    double all = 0.0;
    for (int h = 0; h < H; h++) {
        double share = 0.0;
        for (int b = 0; b < B; b++) {
            const float *row = cls + ((size_t)b * H + h) * P;
            double on = 0.0, mass = 0.0;
            for (int j = 0; j < P; j++) {
                mass += row[j];
                if (mask[(size_t)b * P + j] > 0.0f) on += row[j];
            }
            share += mass > 0.0 ? on / mass : 0.0;
        }
        per_head[h] = (float)(B > 0 ? share / B : 0.0);
        all += B > 0 ? share / B : 0.0;
    }
    return H > 0 ? all / H : 0.0;
}
