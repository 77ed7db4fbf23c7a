// objectives/probe_select.c — the probes' validation split and validation choice (see
// probe_select.h).
#include "probe_select.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "knn_probe.h"
#include "linear_probe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_split_make(probe_split *s, int n, int want_bank, int want_val, int min_bank, uint32_t seed, char *err,
                     size_t errlen) {
    memset(s, 0, sizeof *s);
    if (want_bank <= 0 || want_bank > n) want_bank = n;
    if (want_val < 1) {
        snprintf(err, errlen, "eval.probe_val_images=%d: the probes choose their layer on validation images (valid: >= 1)", want_val);
        return -1;
    }
    int carved = n - want_bank < want_val;
    int lo = carved ? 0 : want_bank, pool = n - lo; // candidate rows [lo, n)
    int V = carved ? (n / 5 > 1 ? n / 5 : 1) : want_val;
    if (V > want_val) V = want_val;
    int B = carved ? (want_bank < n - V ? want_bank : n - V) : want_bank;
    if (B < min_bank || V > pool) {
        snprintf(err, errlen, "eval.probe_val_images: %d training images leave %d for the probe's bank after %d for validation; it "
                 "needs at least %d (valid: more training images (data.limit), a smaller eval.knn_k, or fewer validation images)",
                 n, B, V, min_bank);
        return -1;
    }
    int *scratch = xmalloc((size_t)(pool > 0 ? pool : 1) * sizeof(int), "probe validation draw");
    rng_stream r = rng_stream_make(seed, RNG_SUBSET, 1, 0, 0);
    rng_sorted_subset(&r, pool, V, scratch);
    s->val = xmalloc((size_t)V * sizeof(int), "probe validation rows");
    s->bank = xmalloc((size_t)B * sizeof(int), "probe bank rows");
    for (int i = 0; i < V; i++) s->val[i] = lo + scratch[i];
    free(scratch);
    s->nval = V;
    s->carved = carved;
    for (int row = 0, v = 0; row < n && s->nbank < B; row++) {
        if (v < V && s->val[v] == row) {
            v++;
            continue;
        }
        s->bank[s->nbank++] = row;
    }
    return 0;
}

void probe_split_free(probe_split *s) {
    free(s->bank);
    free(s->val);
    memset(s, 0, sizeof *s);
}

int probe_choose(const float *val, int L, int F) {
    int best = -1;
    for (int l = 0; l < L; l++)
        for (int f = 0; f < F; f++) {
            int i = l * F + f;
            if (isnan(val[i])) continue;
            if (best < 0 || val[i] >= val[best]) best = i; // scan order: ties to the deeper layer, then the later feature
        }
    return best;
}

const char *const probe_feature_name[PROBE_FEATURES] = {"mean", "cls"};

static void layers_init(probe_layers *out, int L, int F) {
    if (L < 1 || L > PROBE_MAX_LAYERS || F < 1 || F > PROBE_FEATURES) die_fail("internal: probe of %d layers, %d features", L, F);
    out->L = L, out->F = F;
    for (int f = 0; f < PROBE_FEATURES; f++)
        for (int l = 0; l < PROBE_MAX_LAYERS; l++)
            out->top1[f][l] = out->top5[f][l] = out->val_top1[f][l] = out->lambda[f][l] = out->iters[f][l] = NAN;
}

// The validation choice over (layer, feature) and its numbers.
static void layers_choose(probe_layers *out) {
    float grid[PROBE_MAX_LAYERS * PROBE_FEATURES];
    for (int l = 0; l < out->L; l++)
        for (int f = 0; f < PROBE_FEATURES; f++) grid[l * PROBE_FEATURES + f] = out->val_top1[f][l];
    int i = probe_choose(grid, out->L, PROBE_FEATURES);
    if (i < 0) die_fail("internal: the probe has no validation accuracy to choose by");
    out->layer = i / PROBE_FEATURES, out->feature = i % PROBE_FEATURES;
    out->chosen_val_top1 = out->val_top1[out->feature][out->layer];
    out->chosen_top1 = out->top1[out->feature][out->layer];
}

void probe_layers_knn(float **const bank[], const int32_t *ybank, int nbank, float **const val[], const int32_t *yval,
                      int nval, float **const test[], const int32_t *ytest, int ntest, int L, int F, int d, int C, int k,
                      float temperature, probe_layers *out) {
    layers_init(out, L, F);
    for (int f = 0; f < F; f++)
        for (int l = 0; l < L; l++) {
            double t5;
            out->top1[f][l] = (float)knn_probe_accuracy(bank[f][l], ybank, nbank, test[f][l], ytest, ntest, d, C, k, temperature, &t5, NULL);
            out->top5[f][l] = (float)t5;
            out->val_top1[f][l] = (float)knn_probe_accuracy(bank[f][l], ybank, nbank, val[f][l], yval, nval, d, C, k, temperature, NULL, NULL);
        }
    layers_choose(out);
}

void probe_layers_linear(float **const fit[], const int32_t *yfit, int nfit, float **const val[], const int32_t *yval,
                         int nval, float **const test[], const int32_t *ytest, int ntest, int L, int F, int d, int C,
                         probe_layers *out) {
    layers_init(out, L, F);
    for (int l = 0; l < L; l++)
        for (int f = 0; f < F; f++) {
            linear_probe_result res = linear_probe_run(fit[f][l], yfit, nfit, val[f][l], yval, nval, test[f][l], ytest, ntest, d, C);
            out->top1[f][l] = (float)res.top1;
            out->val_top1[f][l] = (float)res.val_top1;
            out->lambda[f][l] = (float)res.lambda;
            out->iters[f][l] = (float)res.iters;
        }
    layers_choose(out);
}
