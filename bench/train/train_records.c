// bench/train/train_records.c — what every finished run records beyond its training curves and
// its objective's own records: attention statistics and the layer-wise kNN probe (MP3 Fig. 9).
// Called by train.c's finish_file. Model outputs are downloaded from the backend.
#include "train_internal.h"
#include "../../core/common.h"
#include "../../objectives/attention_stats.h"
#include "../../objectives/knn_probe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Attention statistics of the trained model on a fixed batch: the first (up to) 64 test images
// (none for a backbone without attention probabilities).
void record_attention(run *r) {
    model *m = &r->model;
    if (!model_has_attention(m)) return; // blocks without attention (gmlp, amlp) have none to record
    model_set_context(m, m->T);
    int B = r->test.n < 64 ? r->test.n : 64, L = m->cfg.depth, H = m->cfg.heads, gh = m->rows, gw = m->cols;
    if (B > model_batch_capacity(m, m->T)) B = model_batch_capacity(m, m->T); // MP3 arenas are sized for the context
    for (int b = 0; b < B; b++) r->batch_index[b] = b;
    load_batch(r, &r->test, r->batch_index, B, NULL, 0, 0, r->train_size);
    model_keep_attention_probs(m, 1); // the statistics read the probabilities (CUDA: materialised)
    model_forward(m, B, 0, (rng_addr){0});
    int rh = 2 * gh - 1, rw = 2 * gw - 1, N = gh * gw; // a sequence is a 1 x L grid
    float *entropy = xmalloc((size_t)L * H * sizeof(float), "attention entropy");
    float *distance = xmalloc((size_t)L * H * sizeof(float), "attention distance");
    float *relmap = xmalloc((size_t)L * H * rh * rw * sizeof(float), "relative attention maps");
    float *cls_map = xmalloc((size_t)L * H * N * sizeof(float), "cls attention maps");
    size_t probs_n = (size_t)B * H * m->T * m->T;
    float *probs = xmalloc(probs_n * sizeof(float), "attention probabilities (host)");
    for (int l = 0; l < L; l++) {
        attention_stats st = {.H = H, .gh = gh, .gw = gw, .t0 = m->t0, .entropy = entropy + l * H,
                              .mean_distance = distance + l * H, .relmap = relmap + (size_t)l * H * rh * rw,
                              .cls_map = cls_map + (size_t)l * H * N};
        m->ops->download(probs, model_attention_probs(m, l), probs_n * sizeof(float));
        attention_stats_layer(&st, probs, B);
    }
    free(probs);
    model_keep_attention_probs(m, 0);
    int lh[2] = {L, H}, rel_dims[4] = {L, H, rh, rw}, cls_dims[4] = {L, H, gh, gw};
    results_dataset_f32(r->res, "/attention/entropy", 2, lh, entropy);
    results_dataset_f32(r->res, "/attention/mean_distance", 2, lh, distance);
    results_dataset_f32(r->res, "/attention/relmap", 4, rel_dims, relmap);
    if (m->t0) results_dataset_f32(r->res, "/attention/cls_map", 4, cls_dims, cls_map);
    results_attr_int(r->res, "/attention", "images", B);
    free(entropy);
    free(distance);
    free(relmap);
    free(cls_map);
}

void record_spatial_weights(run *r) {
    model *m = &r->model;
    if (!m->arch->spatial_weights) return;
    model_set_context(m, m->T);
    r->batch_index[0] = 0; // one test input at the training size: the W of that grid
    load_batch(r, &r->test, r->batch_index, 1, NULL, 0, 0, r->train_size);
    model_forward(m, 1, 0, (rng_addr){0});
    int L = m->cfg.depth, T = m->T;
    float *W = xmalloc((size_t)L * T * T * sizeof(float), "spatial weights (host)");
    for (int l = 0; l < L; l++) m->ops->download(W + (size_t)l * T * T, model_spatial_weights(m, l), (size_t)T * T * sizeof(float));
    int dims[3] = {L, T, T};
    results_dataset_f32(r->res, "/spatial/W", 3, dims, W);
    results_attr_int(r->res, "/spatial", "rows", m->rows);
    results_attr_int(r->res, "/spatial", "cols", m->cols);
    results_attr_int(r->res, "/spatial", "t0", m->t0);
    free(W);
}

// Mean-pooled patch features (cls excluded) after every block, full attention, no augmentation:
// feats[l] (n, d) for the first n images of ds.
static void block_features(run *r, const dataset *ds, int n, float **feats) {
    model *m = &r->model;
    int d = m->cfg.dim, T = m->T, t0 = m->t0, L = m->cfg.depth;
    int chunk = model_batch_capacity(m, T);
    if (chunk > r->eval_batch) chunk = r->eval_batch;
    model_set_context(m, T);
    float *x = xmalloc((size_t)chunk * T * d * sizeof(float), "block outputs (host)");
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        for (int b = 0; b < B; b++) r->batch_index[b] = start + b;
        load_batch(r, ds, r->batch_index, B, NULL, 0, 0, r->train_size);
        model_forward(m, B, 0, (rng_addr){0});
        for (int l = 0; l < L; l++) {
            m->ops->download(x, model_block_output(m, l), (size_t)B * T * d * sizeof(float)); // (B, T, d)
#pragma omp parallel for schedule(static)
            for (int b = 0; b < B; b++) {
                float *f = feats[l] + (size_t)(start + b) * d;
                for (int c = 0; c < d; c++) {
                    double sum = 0.0;
                    for (int t = t0; t < T; t++) sum += x[((size_t)b * T + t) * d + c];
                    f[c] = (float)(sum / (T - t0));
                }
            }
        }
    }
    free(x);
}

// Layer-wise kNN probe (paper Fig. 9): the (labelled) training images as memory bank, the
// test images as queries; /knn/top1 and /knn/top5 per block, the best layer in /final.
void record_knn(run *r) {
    const config *c = r->cfg;
    model *m = &r->model;
    int L = m->cfg.depth, d = m->cfg.dim;
    int ntrain = (int)cfg_int(c, "eval.knn_train_limit"), ntest = (int)cfg_int(c, "eval.knn_test_limit");
    if (ntrain <= 0 || ntrain > r->train.n) ntrain = r->train.n;
    if (ntest <= 0 || ntest > r->test.n) ntest = r->test.n;
    int k = (int)cfg_int(c, "eval.knn_k");
    if (k > ntrain) die_input("eval.knn_k=%d is more than the %d training images of the probe", k, ntrain);
    float **train = xmalloc((size_t)L * sizeof *train, "kNN features"), **test = xmalloc((size_t)L * sizeof *test, "kNN features");
    for (int l = 0; l < L; l++) {
        train[l] = xmalloc((size_t)ntrain * d * sizeof(float), "kNN training features");
        test[l] = xmalloc((size_t)ntest * d * sizeof(float), "kNN test features");
    }
    block_features(r, &r->train, ntrain, train);
    block_features(r, &r->test, ntest, test);
    float top1[64], top5[64];
    int best = 0;
    for (int l = 0; l < L; l++) {
        double t5;
        top1[l] = (float)knn_probe_accuracy(train[l], r->train.labels, ntrain, test[l], r->test.labels, ntest, d,
                                            r->train.num_classes, k, (float)cfg_float(c, "eval.knn_temperature"), &t5, NULL);
        top5[l] = (float)t5;
        if (top1[l] > top1[best]) best = l;
        printf("kNN probe after block %d: top1 %.4f top5 %.4f\n", l + 1, top1[l], top5[l]);
        free(train[l]);
        free(test[l]);
    }
    free(train);
    free(test);
    int dims[1] = {L};
    results_dataset_f32(r->res, "/knn/top1", 1, dims, top1);
    results_dataset_f32(r->res, "/knn/top5", 1, dims, top5);
    results_attr_int(r->res, "/knn", "train_images", ntrain);
    results_attr_int(r->res, "/knn", "test_images", ntest);
    results_attr_double(r->res, "/final", "knn_top1", top1[best]);
    results_attr_int(r->res, "/final", "knn_best_layer", best + 1);
    results_attr_double(r->res, "/final", "knn_top1_last", top1[L - 1]);
}

