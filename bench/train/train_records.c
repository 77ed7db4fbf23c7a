// bench/train/train_records.c — what every finished run records beyond its training curves and
// its objective's own records: attention statistics, the layer-wise kNN probe (MP3 Fig. 9) and
// the linear probe (objectives/linear_probe.h); both probes choose their layer and feature on
// validation images carved from the training images (objectives/probe_select.h), never on test.
// Called by train.c's finish_file. Model outputs are downloaded from the backend.
#include "train_data.h"
#include "../../core/common.h"
#include "../../objectives/attention_stats.h"
#include "../../objectives/knn_probe.h"
#include "../../objectives/linear_probe.h"
#include "../../objectives/probe_select.h"
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

// Mean-pooled patch features (cls excluded) after every block, no augmentation: feats[l] (n, d)
// for rows rows[0..n) of ds (NULL: the first n), and the cls token's (cls[l], when cls is not
// NULL and the model has one). Full attention, or, with probe = 1, what the objective's
// probe_prepare sets (GVP: the content stream with its causal mask).
static void block_features(run *r, const dataset *ds, const int *rows, int n, float **feats, float **cls, int probe) {
    model *m = &r->model;
    objective *o = &r->obj;
    probe = probe && o->kind->probe_prepare;
    int d = m->cfg.dim, T = m->T, t0 = m->t0, L = m->cfg.depth;
    int chunk = model_batch_capacity(m, T);
    if (chunk > r->eval_batch) chunk = r->eval_batch;
    model_set_context(m, T);
    float *x = xmalloc((size_t)chunk * T * d * sizeof(float), "block outputs (host)");
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        for (int b = 0; b < B; b++) r->batch_index[b] = rows ? rows[start + b] : start + b;
        load_batch(r, ds, r->batch_index, B, NULL, 0, 0, r->train_size);
        if (probe) o->kind->probe_prepare(o, B, (uint32_t)start);
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
                if (cls && t0) memcpy(cls[l] + (size_t)(start + b) * d, x + (size_t)b * T * d, (size_t)d * sizeof(float));
            }
        }
    }
    if (probe) o->kind->probe_prepare(o, 0, 0);
    free(x);
}

// Labels of rows rows[0..n) of ds: (n), the caller frees them.
static int32_t *row_labels(const dataset *ds, const int *rows, int n) {
    int32_t *y = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t), "probe labels");
    for (int i = 0; i < n; i++) y[i] = ds->labels[rows[i]];
    return y;
}

// The probes' validation split of the (labelled) training images (objectives/probe_select.h).
static probe_split probe_split_of(run *r, int want_bank, int min_bank) {
    probe_split sp;
    char err[512];
    if (probe_split_make(&sp, r->train.n, want_bank, r->trainer.probe_val_images, min_bank,
                         r->trainer.subset_seed, err, sizeof err) != 0)
        die_input("%s", err);
    return sp;
}

void probes_check(run *r) {
    const train_settings *ts = &r->trainer;
    if (ts->knn) {
        probe_split sp = probe_split_of(r, ts->knn_train_limit, ts->knn_k);
        probe_split_free(&sp);
    }
    if (ts->linear_probe) {
        probe_split sp = probe_split_of(r, ts->probe_train_limit, 5);
        probe_split_free(&sp);
    }
}

// Features of every block for the probes, feats[f][l] (rows, d) for f < F (0 mean-pooled
// patches, 1 cls when the model has a cls token), l < L, of the split's bank and validation rows
// and the first ntest test rows; probe = 1 reads the objective's probe stream (linear probe).
typedef struct {
    float **f[3][PROBE_FEATURES]; // [bank/validation/test][feature][layer]
    int F;
} probe_feats;

static void probe_feats_make(run *r, probe_feats *pf, const probe_split *sp, int ntest, int probe) {
    model *m = &r->model;
    int L = m->cfg.depth, d = m->cfg.dim, rows[3] = {sp->nbank, sp->nval, ntest};
    pf->F = m->t0 ? 2 : 1;
    for (int s = 0; s < 3; s++)
        for (int f = 0; f < PROBE_FEATURES; f++) {
            pf->f[s][f] = NULL;
            if (f >= pf->F) continue;
            pf->f[s][f] = xmalloc((size_t)L * sizeof(float *), "probe features");
            for (int l = 0; l < L; l++) pf->f[s][f][l] = xmalloc((size_t)(rows[s] ? rows[s] : 1) * d * sizeof(float), "probe features");
        }
    block_features(r, &r->train, sp->bank, sp->nbank, pf->f[0][0], pf->f[0][1], probe);
    block_features(r, &r->train, sp->val, sp->nval, pf->f[1][0], pf->f[1][1], probe);
    block_features(r, &r->test, NULL, ntest, pf->f[2][0], pf->f[2][1], probe);
}

static void probe_feats_free(probe_feats *pf, int L) {
    for (int s = 0; s < 3; s++)
        for (int f = 0; f < pf->F; f++) {
            for (int l = 0; l < L; l++) free(pf->f[s][f][l]);
            free(pf->f[s][f]);
        }
}

// The kNN probe of every block's features of the model as it is now (probe_layers_knn): the
// split's bank as memory, its validation rows choose, the first ntest test images score.
static void knn_blocks(run *r, const probe_split *sp, int ntest, int k, probe_layers *out) {
    model *m = &r->model;
    int L = m->cfg.depth;
    probe_feats pf;
    probe_feats_make(r, &pf, sp, ntest, 0);
    int32_t *ybank = row_labels(&r->train, sp->bank, sp->nbank), *yval = row_labels(&r->train, sp->val, sp->nval);
    probe_layers_knn(pf.f[0], ybank, sp->nbank, pf.f[1], yval, sp->nval, pf.f[2], r->test.labels, ntest, L, pf.F, m->cfg.dim,
                     r->train.num_classes, k, r->trainer.knn_temperature, out);
    probe_feats_free(&pf, L);
    free(ybank);
    free(yval);
}

// Rows rows[0..n) of ds (NULL: the first n) as the model's input sees them without augmentation
// (pixels normalised per channel, or a clip's MFCC frames), flattened: (n, C·H·W).
static float *raw_inputs(run *r, const dataset *ds, const int *rows, int n) {
    size_t D = (size_t)ds->channels * ds->height * ds->width;
    float *x = xmalloc((size_t)n * D * sizeof(float), "kNN raw inputs");
    int32_t *labels = xmalloc((size_t)r->eval_batch * sizeof(int32_t), "kNN raw labels");
    int *index = xmalloc((size_t)r->eval_batch * sizeof(int), "kNN raw indices");
    for (int start = 0; start < n; start += r->eval_batch) {
        int B = n - start < r->eval_batch ? n - start : r->eval_batch;
        for (int b = 0; b < B; b++) index[b] = rows ? rows[start + b] : start + b;
        dataset_make_batch(ds, index, B, NULL, 0, 0, 0, x + (size_t)start * D, labels);
    }
    free(labels);
    free(index);
    return x;
}

// Layer-wise kNN probe (paper Fig. 9): part of the (labelled) training images as memory bank,
// another part (disjoint, eval.probe_val_images, objectives/probe_select.h) as validation, the
// test images as queries; mean-pooled and (with a cls token) cls features. Per block:
// /knn/top1, top5 (mean-pooled, test), top1_cls, top5_cls (cls, test), val_top1, val_top1_cls
// (validation). The layer and feature are chosen by validation top-1 only (/knn attrs layer,
// feature, val_top1); /final knn_top1 is the test top-1 of that choice (knn_best_layer: its
// layer, knn_val_top1: its validation top-1). With the two controls Fig. 9 is read against: the
// same probe on the raw input (/knn pixels_top1, /final knn_pixels_top1; no choice to make) and
// on this network at its random initialisation, model_init_params with the run's seed, the
// weights a run without `init:` starts from (/knn/init_top1 per block (mean), init_top1_cls,
// init_val_top1, init_val_top1_cls; /final knn_init_top1 at its own validation choice); the
// trained weights are restored after.
void record_knn(run *r) {
    const train_settings *ts = &r->trainer;
    model *m = &r->model;
    int L = m->cfg.depth;
    int ntrain = ts->knn_train_limit, ntest = ts->knn_test_limit;
    if (ntest <= 0 || ntest > r->test.n) ntest = r->test.n;
    int k = ts->knn_k;
    probe_split sp = probe_split_of(r, ntrain, k);
    probe_layers kn, init;
    knn_blocks(r, &sp, ntest, k, &kn);
    size_t bytes = m->params.total * sizeof(float);
    float *trained = xmalloc(bytes, "trained parameters (host)");
    m->ops->download(trained, m->param, bytes);
    model_init_params(m, r->seed);
    knn_blocks(r, &sp, ntest, k, &init);
    m->ops->upload(m->param, trained, bytes);
    free(trained);
    float *ptrain = raw_inputs(r, &r->train, sp.bank, sp.nbank), *ptest = raw_inputs(r, &r->test, NULL, ntest);
    int32_t *ybank = row_labels(&r->train, sp.bank, sp.nbank);
    double pixels5, pixels1 = knn_probe_accuracy(ptrain, ybank, sp.nbank, ptest, r->test.labels, ntest,
                                                 r->train.channels * r->train.height * r->train.width, r->train.num_classes, k,
                                                 ts->knn_temperature, &pixels5, NULL);
    free(ptrain);
    free(ptest);
    free(ybank);
    for (int l = 0; l < L; l++) {
        printf("kNN probe after block %d: top1 %.2f%% top5 %.2f%% validation %.2f%% (at initialisation: top1 %.2f%%)", l + 1,
               100.0 * kn.top1[0][l], 100.0 * kn.top5[0][l], 100.0 * kn.val_top1[0][l], 100.0 * init.top1[0][l]);
        if (m->t0) printf("; cls: top1 %.2f%% validation %.2f%%", 100.0 * kn.top1[1][l], 100.0 * kn.val_top1[1][l]);
        printf("\n");
    }
    printf("kNN probe chosen on %d validation images: block %d, %s features: validation top1 %.2f%%, test top1 %.2f%%\n", sp.nval,
           kn.layer + 1, probe_feature_name[kn.feature], 100.0 * kn.chosen_val_top1, 100.0 * kn.chosen_top1);
    printf("kNN probe on the raw input: top1 %.2f%% top5 %.2f%%\n", 100.0 * pixels1, 100.0 * pixels5);
    int dims[1] = {L};
    results_dataset_f32(r->res, "/knn/top1", 1, dims, kn.top1[0]);
    results_dataset_f32(r->res, "/knn/top5", 1, dims, kn.top5[0]);
    results_dataset_f32(r->res, "/knn/val_top1", 1, dims, kn.val_top1[0]);
    results_dataset_f32(r->res, "/knn/init_top1", 1, dims, init.top1[0]);
    results_dataset_f32(r->res, "/knn/init_top5", 1, dims, init.top5[0]);
    results_dataset_f32(r->res, "/knn/init_val_top1", 1, dims, init.val_top1[0]);
    if (m->t0) {
        results_dataset_f32(r->res, "/knn/top1_cls", 1, dims, kn.top1[1]);
        results_dataset_f32(r->res, "/knn/top5_cls", 1, dims, kn.top5[1]);
        results_dataset_f32(r->res, "/knn/val_top1_cls", 1, dims, kn.val_top1[1]);
        results_dataset_f32(r->res, "/knn/init_top1_cls", 1, dims, init.top1[1]);
        results_dataset_f32(r->res, "/knn/init_val_top1_cls", 1, dims, init.val_top1[1]);
    }
    results_attr_int(r->res, "/knn", "train_images", sp.nbank);
    results_attr_int(r->res, "/knn", "val_images", sp.nval);
    results_attr_int(r->res, "/knn", "val_carved", sp.carved);
    results_attr_int(r->res, "/knn", "test_images", ntest);
    results_attr_int(r->res, "/knn", "layer", kn.layer + 1);
    results_attr_str(r->res, "/knn", "feature", probe_feature_name[kn.feature]);
    results_attr_double(r->res, "/knn", "val_top1", kn.chosen_val_top1);
    results_attr_str(r->res, "/knn", "selection", "layer and feature (mean-pooled or cls) with the best top-1 on the validation images "
                     "(training images outside the bank; eval.probe_val_images); ties to the deeper layer, then cls; the test images "
                     "only score the choice");
    results_attr_double(r->res, "/knn", "pixels_top1", pixels1);
    results_attr_double(r->res, "/knn", "pixels_top5", pixels5);
    results_attr_double(r->res, "/final", "knn_top1", kn.chosen_top1);
    results_attr_int(r->res, "/final", "knn_best_layer", kn.layer + 1);
    results_attr_double(r->res, "/final", "knn_val_top1", kn.chosen_val_top1);
    results_attr_double(r->res, "/final", "knn_top1_last", kn.top1[0][L - 1]);
    results_attr_double(r->res, "/final", "knn_init_top1", init.chosen_top1);
    results_attr_double(r->res, "/final", "knn_pixels_top1", pixels1);
    probe_split_free(&sp);
}

// One linear probe of the probed blocks [first, L) (every (block, feature) scored; the choice by
// validation): features read with the objective's probe view (masked = 1: probe_prepare) or
// with full attention.
static void linear_probe_pass(run *r, const probe_split *sp, const int32_t *yfit, const int32_t *yval, int ntest, int first,
                              int masked, probe_layers *out) {
    model *m = &r->model;
    int L = m->cfg.depth;
    probe_feats pf;
    probe_feats_make(r, &pf, sp, ntest, masked);
    float **fit[PROBE_FEATURES], **val[PROBE_FEATURES], **test[PROBE_FEATURES]; // the probed layers [first, L)
    for (int f = 0; f < pf.F; f++) fit[f] = pf.f[0][f] + first, val[f] = pf.f[1][f] + first, test[f] = pf.f[2][f] + first;
    probe_layers_linear(fit, yfit, sp->nbank, val, yval, sp->nval, test, r->test.labels, ntest, L - first, pf.F, m->cfg.dim,
                        r->train.num_classes, out);
    probe_feats_free(&pf, L);
}

// The last block's feature with the best validation top-1 (probe_top1's), chosen among that
// block's probes only; n probed blocks.
static int probe_last_feature(const probe_layers *lp, int n) {
    const float last_val[PROBE_FEATURES] = {lp->val_top1[0][n - 1], lp->val_top1[1][n - 1]};
    return probe_choose(last_val, 1, PROBE_FEATURES);
}
static double probe_last_top1(const probe_layers *lp, int n) { return lp->top1[probe_last_feature(lp, n)][n - 1]; }

// The linear probe (objectives/linear_probe.h) of the features after the last block, or of every
// block (eval.probe_layers=all): mean-pooled patch tokens and, with a cls token, the cls token,
// each its own probe. The training images are split (objectives/probe_select.h): the first
// eval.probe_train_limit of the bank fit it (every 5th of them held out to choose the L2
// strength), eval.probe_val_images others choose the layer and feature, the first
// eval.probe_test_limit test images score it. /probe/{layer, top1_mean, val_top1_mean,
// lambda_mean, iters_mean, top1_cls, val_top1_cls, lambda_cls, iters_cls} (iters: the refit's
// L-BFGS iterations; at the cap a warning says it stopped unconverged), /probe attrs chosen_layer,
// chosen_feature, val_top1; /final probe_top1 (test top-1 of the feature of the last block with
// the best validation top-1), probe_val_top1, probe_top1_mean, probe_top1_cls (the last block's
// test top-1 per feature, records), and with every block probe_best_top1 (test top-1 of the
// (layer, feature) with the best validation top-1), probe_best_layer and probe_best_val_top1.
// An objective with its own probe view (objective.h probe_prepare: GVP's causal mask) is probed
// twice, with that view and with full attention: probe_* report the protocol its setting names
// (probe_full_default), /final probe_causal_top1 and probe_full_top1 (with every block also
// probe_causal_best_top1 and probe_full_best_top1) both, /probe stream_other says what the
// other read. Nothing is chosen by test accuracy.
void record_linear_probe(run *r) {
    const train_settings *ts = &r->trainer;
    model *m = &r->model;
    int L = m->cfg.depth, has_cls = m->t0 > 0;
    int all = ts->probe_all_layers, first = all ? 0 : L - 1;
    int ntrain = ts->probe_train_limit, ntest = ts->probe_test_limit;
    if (ntest <= 0 || ntest > r->test.n) ntest = r->test.n;
    probe_split sp = probe_split_of(r, ntrain, 5);
    int32_t *yfit = row_labels(&r->train, sp.bank, sp.nbank), *yval = row_labels(&r->train, sp.val, sp.nval);
    int n = L - first;
    // An objective with its own probe view (GVP's causal mask) is probed both ways; its setting
    // (probe_full_default) says which protocol the probe_* metrics report.
    const objective_kind *ok = r->obj.kind;
    int two = ok->probe_prepare != NULL, masked = two && !(ok->probe_full_default && ok->probe_full_default(&r->obj));
    probe_layers lp, other;
    linear_probe_pass(r, &sp, yfit, yval, ntest, first, masked, &lp);
    if (two) linear_probe_pass(r, &sp, yfit, yval, ntest, first, !masked, &other);
    float layer[PROBE_MAX_LAYERS];
    for (int i = 0; i < n; i++) {
        layer[i] = (float)(first + i + 1);
        for (int f = 0; f < (has_cls ? 2 : 1); f++)
            if (lp.iters[f][i] >= LINEAR_PROBE_MAX_ITERS)
                warn_msg("the linear probe of block %d (%s) stopped after %.0f iterations unconverged; "
                        "its top-1 understates the features", first + i + 1, f ? "cls" : "mean-pooled", lp.iters[f][i]);
        printf("linear probe after block %d: top1 %.2f%% validation %.2f%% (mean-pooled patches, lambda %g)", first + i + 1,
               100.0 * lp.top1[0][i], 100.0 * lp.val_top1[0][i], lp.lambda[0][i]);
        if (has_cls) printf(", %.2f%% validation %.2f%% (cls, lambda %g)", 100.0 * lp.top1[1][i], 100.0 * lp.val_top1[1][i], lp.lambda[1][i]);
        printf("\n");
    }
    printf("linear probe chosen on %d validation images: block %d, %s features: validation top1 %.2f%%, test top1 %.2f%%\n", sp.nval,
           first + lp.layer + 1, probe_feature_name[lp.feature], 100.0 * lp.chosen_val_top1, 100.0 * lp.chosen_top1);
    int dims[1] = {n};
    results_dataset_f32(r->res, "/probe/layer", 1, dims, layer);
    results_dataset_f32(r->res, "/probe/top1_mean", 1, dims, lp.top1[0]);
    results_dataset_f32(r->res, "/probe/val_top1_mean", 1, dims, lp.val_top1[0]);
    results_dataset_f32(r->res, "/probe/lambda_mean", 1, dims, lp.lambda[0]);
    results_dataset_f32(r->res, "/probe/iters_mean", 1, dims, lp.iters[0]);
    if (has_cls) {
        results_dataset_f32(r->res, "/probe/top1_cls", 1, dims, lp.top1[1]);
        results_dataset_f32(r->res, "/probe/val_top1_cls", 1, dims, lp.val_top1[1]);
        results_dataset_f32(r->res, "/probe/lambda_cls", 1, dims, lp.lambda[1]);
        results_dataset_f32(r->res, "/probe/iters_cls", 1, dims, lp.iters[1]);
    }
    results_attr_int(r->res, "/probe", "train_images", sp.nbank);
    results_attr_int(r->res, "/probe", "heldout_images", sp.nbank / 5);
    results_attr_int(r->res, "/probe", "val_images", sp.nval);
    results_attr_int(r->res, "/probe", "val_carved", sp.carved);
    results_attr_int(r->res, "/probe", "test_images", ntest);
    results_attr_int(r->res, "/probe", "chosen_layer", first + lp.layer + 1);
    results_attr_str(r->res, "/probe", "chosen_feature", probe_feature_name[lp.feature]);
    results_attr_double(r->res, "/probe", "val_top1", lp.chosen_val_top1);
    const char *stream = ok->probe_stream ? ok->probe_stream(&r->obj, masked) : NULL;
    results_attr_str(r->res, "/probe", "stream", stream ? stream : "all tokens, full attention");
    results_attr_str(r->res, "/probe", "features", "block outputs (before the final LayerNorm), standardised; mean-pooled patch tokens and the cls token, one probe each");
    results_attr_str(r->res, "/probe", "selection", "layer and feature (mean-pooled or cls) with the best top-1 on the validation images "
                     "(training images outside the fit set; eval.probe_val_images); ties to the deeper layer, then cls; the test images "
                     "only score the choice");
    results_attr_str(r->res, "/probe", "optimiser", "multinomial logistic regression in double, L-BFGS (memory 10, backtracking Armijo line search), until max |gradient| < 1e-7, no further decrease or 5000 iterations; L2 strength from {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1} by held-out top-1 on every 5th fit image, then refit on all fit images");
    int last_feature = probe_last_feature(&lp, n);
    results_attr_double(r->res, "/final", "probe_top1", lp.top1[last_feature][n - 1]);
    results_attr_double(r->res, "/final", "probe_val_top1", lp.val_top1[last_feature][n - 1]);
    results_attr_double(r->res, "/final", "probe_top1_mean", lp.top1[0][n - 1]);
    if (has_cls) results_attr_double(r->res, "/final", "probe_top1_cls", lp.top1[1][n - 1]);
    if (all) {
        results_attr_double(r->res, "/final", "probe_best_top1", lp.chosen_top1);
        results_attr_int(r->res, "/final", "probe_best_layer", first + lp.layer + 1);
        results_attr_double(r->res, "/final", "probe_best_val_top1", lp.chosen_val_top1);
    }
    if (two) { // both protocols, labelled: the mask of pretraining kept, and full attention
        const probe_layers *causal = masked ? &lp : &other, *full = masked ? &other : &lp;
        results_attr_double(r->res, "/final", "probe_causal_top1", probe_last_top1(causal, n));
        results_attr_double(r->res, "/final", "probe_full_top1", probe_last_top1(full, n));
        if (all) {
            results_attr_double(r->res, "/final", "probe_causal_best_top1", causal->chosen_top1);
            results_attr_double(r->res, "/final", "probe_full_best_top1", full->chosen_top1);
        }
        results_attr_str(r->res, "/probe", "stream_other", ok->probe_stream ? ok->probe_stream(&r->obj, !masked) : "");
        printf("linear probe, both protocols (test top1 of the %s): causal mask as in pretraining %.2f%%, full attention %.2f%%\n",
               all ? "block and feature chosen on validation" : "last block's feature chosen on validation",
               100.0 * (all ? causal->chosen_top1 : probe_last_top1(causal, n)), 100.0 * (all ? full->chosen_top1 : probe_last_top1(full, n)));
    }
    free(yfit);
    free(yval);
    probe_split_free(&sp);
}
