// tests/test_probe_select.c — the probes' validation split and choice (objectives/probe_select.h):
// the split's two cases (bank kept as the first rows / carved), disjointness, determinism and
// its seed, the refusal of a bank that is too small, probe_choose's tie rule, and the property
// the split exists for: when validation and test disagree on the best layer, both the kNN and
// the linear probe report the validation choice and its test accuracy, not the test maximum.
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../objectives/probe_select.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int disjoint_sorted(const probe_split *s, int n) {
    char *seen = calloc((size_t)n, 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < s->nval; i++) ok = s->val[i] >= 0 && s->val[i] < n && !seen[s->val[i]]++ && (i == 0 || s->val[i] > s->val[i - 1]);
    for (int i = 0; ok && i < s->nbank; i++) ok = s->bank[i] >= 0 && s->bank[i] < n && !seen[s->bank[i]]++ && (i == 0 || s->bank[i] > s->bank[i - 1]);
    free(seen);
    return ok;
}

static void test_split(void) {
    char err[512];
    probe_split a, a2, b, c;
    int rc = probe_split_make(&a, 100, 60, 30, 20, 7, err, sizeof err);
    int ok = rc == 0 && a.nbank == 60 && a.nval == 30 && !a.carved && disjoint_sorted(&a, 100);
    for (int i = 0; ok && i < 60; i++) ok = a.bank[i] == i;
    for (int i = 0; ok && i < 30; i++) ok = a.val[i] >= 60;
    test_check("probe split A: the bank is the first 60 rows as before, 30 validation rows drawn from the 40 beyond it", ok,
               "rc %d, bank %d, val %d, carved %d", rc, a.nbank, a.nval, a.carved);
    probe_split_make(&a2, 100, 60, 30, 20, 7, err, sizeof err);
    probe_split_make(&b, 100, 60, 30, 20, 8, err, sizeof err);
    test_check("probe split: deterministic for a seed, another seed draws other validation rows",
               !memcmp(a.val, a2.val, 30 * sizeof(int)) && memcmp(a.val, b.val, 30 * sizeof(int)), "val[0..2] %d %d %d / %d %d %d",
               a.val[0], a.val[1], a.val[2], b.val[0], b.val[1], b.val[2]);
    rc = probe_split_make(&c, 100, 90, 30, 20, 7, err, sizeof err);
    int low = 0;
    for (int i = 0; rc == 0 && i < c.nval; i++) low |= c.val[i] < 90;
    test_check("probe split B: too few rows beyond the bank: min(30, 100/5) = 20 validation rows from all 100, disjoint, the bank the first 80 others",
               rc == 0 && c.carved && c.nval == 20 && c.nbank == 80 && disjoint_sorted(&c, 100) && low, "rc %d, bank %d, val %d, carved %d",
               rc, c.nbank, c.nval, c.carved);
    probe_split_free(&a), probe_split_free(&a2), probe_split_free(&b), probe_split_free(&c);
    probe_split d;
    rc = probe_split_make(&d, 10, 10, 1000, 20, 0, err, sizeof err);
    test_check("probe split: a bank below the probe's minimum is refused naming eval.probe_val_images", rc == -1 && strstr(err, "eval.probe_val_images"),
               "rc %d: %s", rc, err);
    rc = probe_split_make(&d, 10, 10, 0, 1, 0, err, sizeof err);
    test_check("probe split: no validation images is refused", rc == -1 && strstr(err, "eval.probe_val_images"), "rc %d: %s", rc, err);
}

static void test_choose(void) {
    const float v[6] = {0.5f, 0.25f, 0.5f, NAN, 0.25f, 0.5f}; // (3 layers, 2 features)
    const float nan2[2] = {NAN, NAN};
    test_check("probe_choose: ties to the deeper layer, then cls; NaN skipped", probe_choose(v, 3, 2) == 5 && probe_choose(v, 2, 2) == 2 &&
               probe_choose(nan2, 1, 2) == -1, "%d %d %d", probe_choose(v, 3, 2), probe_choose(v, 2, 2), probe_choose(nan2, 1, 2));
}

// Features of row i for "layer" l: class y along axis y (informative), along the other axis
// (flipped: it looks like the other class), or noise. (rows, d = 4)
static float *features(const int32_t *y, int n, const int *rows, const char *how, unsigned tag) {
    float *x = xmalloc((size_t)n * 4 * sizeof(float), "test features");
    rng_stream s = rng_stream_make(11, RNG_TEST, 0, 0, tag);
    for (int i = 0; i < n; i++) {
        int label = y[rows ? rows[i] : i];
        for (int j = 0; j < 4; j++) x[i * 4 + j] = 0.3f * rng_normal(&s);
        if (how[0] == 'i') x[i * 4 + label] += 2.0f;
        if (how[0] == 'f') x[i * 4 + 1 - label] += 2.0f;
    }
    return x;
}

static void test_disagreement(void) {
    const int n = 300, nt = 100;
    int32_t *y = xmalloc((size_t)n * sizeof(int32_t), "labels"), *yt = xmalloc((size_t)nt * sizeof(int32_t), "labels");
    for (int i = 0; i < n; i++) y[i] = (i * 7 + i / 3) % 2;
    for (int i = 0; i < nt; i++) yt[i] = (i * 5 + i / 4) % 2;
    probe_split sp;
    char err[256];
    if (probe_split_make(&sp, n, 200, 100, 20, 3, err, sizeof err) != 0) {
        test_fail("probe choice on validation", "%s", err);
        return;
    }
    int32_t *yb = xmalloc((size_t)sp.nbank * sizeof(int32_t), "labels"), *yv = xmalloc((size_t)sp.nval * sizeof(int32_t), "labels");
    for (int i = 0; i < sp.nbank; i++) yb[i] = y[sp.bank[i]];
    for (int i = 0; i < sp.nval; i++) yv[i] = y[sp.val[i]];
    // Layer 0: validation informative, test flipped. Layer 1: validation flipped, test informative.
    // cls (feature 1): noise everywhere. So validation says layer 0, test says layer 1.
    const char *how[2][2][3] = {{{"i", "i", "f"}, {"i", "f", "i"}}, {{"n", "n", "n"}, {"n", "n", "n"}}}; // [feature][layer][bank/val/test]
    float *store[2][2][3], *ptr[3][2][2], **fp[3][2];
    for (int f = 0; f < 2; f++)
        for (int l = 0; l < 2; l++) {
            unsigned tag = (unsigned)(f * 8 + l * 3);
            store[f][l][0] = ptr[0][f][l] = features(y, sp.nbank, sp.bank, how[f][l][0], tag);
            store[f][l][1] = ptr[1][f][l] = features(y, sp.nval, sp.val, how[f][l][1], tag + 1);
            store[f][l][2] = ptr[2][f][l] = features(yt, nt, NULL, how[f][l][2], tag + 2);
        }
    for (int s = 0; s < 3; s++)
        for (int f = 0; f < 2; f++) fp[s][f] = ptr[s][f];
    probe_layers kn, lp;
    probe_layers_knn(fp[0], yb, sp.nbank, fp[1], yv, sp.nval, fp[2], yt, nt, 2, 2, 4, 2, 10, 0.07f, &kn);
    probe_layers_linear(fp[0], yb, sp.nbank, fp[1], yv, sp.nval, fp[2], yt, nt, 2, 2, 4, 2, &lp);
    const probe_layers *p[2] = {&kn, &lp};
    const char *name[2] = {"kNN", "linear"};
    for (int q = 0; q < 2; q++) {
        char what[200];
        snprintf(what, sizeof what, "%s probe: validation says block 1, test says block 2: it reports block 1 (mean) and block 1's test top-1", name[q]);
        test_check(what, p[q]->layer == 0 && p[q]->feature == 0 && p[q]->chosen_top1 == p[q]->top1[0][0] && p[q]->chosen_top1 < 0.2 &&
                   p[q]->top1[0][1] > 0.8 && p[q]->chosen_val_top1 > 0.8 && p[q]->val_top1[0][1] < 0.2,
                   "chosen block %d %s: validation %.3f, test %.3f; block 2 mean: validation %.3f, test %.3f", p[q]->layer + 1,
                   probe_feature_name[p[q]->feature], p[q]->chosen_val_top1, p[q]->chosen_top1, p[q]->val_top1[0][1], p[q]->top1[0][1]);
    }
    for (int f = 0; f < 2; f++)
        for (int l = 0; l < 2; l++)
            for (int s = 0; s < 3; s++) free(store[f][l][s]);
    free(y), free(yt), free(yb), free(yv);
    probe_split_free(&sp);
}

int main(void) {
    test_split();
    test_choose();
    test_disagreement();
    return test_exit_code();
}
