// objectives/attention_stats.c — entropy, mean distance, relative and cls maps of attention.
#include "attention_stats.h"
#include "../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void attention_stats_layer(attention_stats *s, const float *probs, int B) {
    int H = s->H, gh = s->gh, gw = s->gw, t0 = s->t0, N = gh * gw, T = N + t0;
    int rh = 2 * gh - 1, rw = 2 * gw - 1;
    double *count = xcalloc((size_t)rh * rw, sizeof(double), "relmap counts");
    for (int dy = -(gh - 1); dy <= gh - 1; dy++)       // (image, query) pairs per offset
        for (int dx = -(gw - 1); dx <= gw - 1; dx++)
            count[(dy + gh - 1) * rw + dx + gw - 1] = (double)B * (gh - abs(dy)) * (gw - abs(dx));
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; h++) {
        double entropy = 0.0, distance = 0.0;
        double *rel = xcalloc((size_t)rh * rw, sizeof(double), "relmap sums");
        double *cls = xcalloc((size_t)N, sizeof(double), "cls map sums");
        for (int b = 0; b < B; b++) {
            const float *P = probs + ((size_t)b * H + h) * T * T;
            for (int i = 0; i < N; i++) {
                const float *row = P + (size_t)(t0 + i) * T;
                int qy = i / gw, qx = i % gw;
                double e = 0.0, mass = 0.0, dist = 0.0;
                for (int j = 0; j < T; j++) // p = 0 adds nothing; NaN p makes e NaN (never skipped)
                    if (!(row[j] <= 0.0f)) e -= row[j] * log(row[j]);
                for (int j = 0; j < N; j++) {
                    int ky = j / gw, kx = j % gw;
                    double p = row[t0 + j];
                    mass += p;
                    dist += p * sqrt((double)(ky - qy) * (ky - qy) + (double)(kx - qx) * (kx - qx));
                    rel[(ky - qy + gh - 1) * rw + kx - qx + gw - 1] += p;
                }
                entropy += e;
                distance += mass == 0.0 ? 0.0 : dist / mass; // NaN mass: NaN (mass > 0 would give 0)
            }
            if (t0)
                for (int j = 0; j < N; j++) cls[j] += P[t0 + j]; // row 0: the cls query
        }
        s->entropy[h] = (float)(entropy / ((double)B * N));
        s->mean_distance[h] = (float)(distance / ((double)B * N));
        for (int k = 0; k < rh * rw; k++) s->relmap[(size_t)h * rh * rw + k] = (float)(rel[k] / count[k]);
        if (t0 && s->cls_map)
            for (int j = 0; j < N; j++) s->cls_map[(size_t)h * N + j] = (float)(cls[j] / B);
        free(rel);
        free(cls);
    }
    free(count);
}
