// objectives/probe_select.h — how the kNN and linear probes choose their layer and feature
// without looking at the test images: a validation split carved from the training images,
// disjoint from the probe's memory bank (kNN) or fit set (linear probe), and the choice of the
// (layer, feature) with the best validation top-1. The test images only score the choice.
// Split (probe_split_make), n training rows, want_bank the probe's training limit, want_val
// eval.probe_val_images:
//   A. n - want_bank >= want_val: the bank is rows [0, want_bank), as without validation, and
//      the validation rows are want_val rows drawn from [want_bank, n);
//   B. otherwise (carved): V = min(want_val, max(1, n / 5)) rows drawn from [0, n) are
//      validation, the bank is the first min(want_bank, n - V) of the other rows in order.
//   Draws: rng_sorted_subset over the candidate rows with the stream
//   rng_stream_make(seed, RNG_SUBSET, 1, 0, 0) (seed: data.subset_seed, so the split is the same
//   for every train.seed; epoch 1 keeps it apart from the labelled subset's epoch 0). Validation
//   rows are kept in ascending order. A bank below min_bank rows is refused (exit 2).
// Scoring (probe_layers_knn, probe_layers_linear): every (layer, feature) scored on the
// validation rows and on the test rows by the same probe; the choice reads the validation
// numbers only, the headline (test_top1) is the test top-1 of the choice.
// Choice (probe_choose): the (layer, feature) with the highest validation top-1; ties go to the
// deeper layer, then to the later feature (cls over mean-pooled): the blocks and feature a probe
// reads when it is not chosen (the last block's cls token).
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int *bank, nbank; // (nbank) training rows of the bank / fit set, ascending
    int *val, nval;   // (nval) validation rows, ascending, disjoint from bank
    int carved;       // 1: case B (the validation rows came out of the bank's range)
} probe_split;

// 0, or -1 with err naming the key and what would be valid.
int probe_split_make(probe_split *s, int n, int want_bank, int want_val, int min_bank, uint32_t seed, char *err,
                     size_t errlen);
void probe_split_free(probe_split *s);

enum { PROBE_MAX_LAYERS = 64, PROBE_FEATURES = 2 }; // features: 0 mean-pooled patches, 1 cls
extern const char *const probe_feature_name[PROBE_FEATURES];

typedef struct {
    int L, F;                                                  // layers scored, features (1 or 2)
    float top1[PROBE_FEATURES][PROBE_MAX_LAYERS];              // test top-1 [feature][layer] (NaN: absent)
    float top5[PROBE_FEATURES][PROBE_MAX_LAYERS];              // test top-5 (kNN; NaN for the linear probe)
    float val_top1[PROBE_FEATURES][PROBE_MAX_LAYERS];          // validation top-1
    float lambda[PROBE_FEATURES][PROBE_MAX_LAYERS];            // linear probe: chosen L2 strength (NaN for kNN)
    float iters[PROBE_FEATURES][PROBE_MAX_LAYERS];             // linear probe: refit iterations (NaN for kNN)
    int layer, feature;                                        // the validation choice (layer in [0, L))
    double chosen_val_top1, chosen_top1;                       // its validation and test top-1
} probe_layers;

// Features: feats[f][l] (rows, d) for f < F, l < L, of the bank / fit rows, the validation rows
// and the test rows with their labels (each in [0, C)). kNN: k neighbours, temperature.
void probe_layers_knn(float **const bank[], const int32_t *ybank, int nbank, float **const val[], const int32_t *yval,
                      int nval, float **const test[], const int32_t *ytest, int ntest, int L, int F, int d, int C, int k,
                      float temperature, probe_layers *out);
// Linear probe (objectives/linear_probe.h) of every (layer, feature), fit on the bank rows.
void probe_layers_linear(float **const fit[], const int32_t *yfit, int nfit, float **const val[], const int32_t *yval,
                         int nval, float **const test[], const int32_t *ytest, int ntest, int L, int F, int d, int C,
                         probe_layers *out);

// val (L, F) row-major, NaN entries skipped (a feature the model does not have). Returns
// layer * F + feature of the choice, or -1 when every entry is NaN.
int probe_choose(const float *val, int L, int F);
