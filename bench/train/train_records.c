// bench/train/train_records.c — what every finished run records beyond its training curves and
// its objective's own records: attention statistics, the layer-wise kNN probe (MP3 Fig. 9) and
// the linear probe (objectives/linear_probe.h).
// Called by train.c's finish_file. Model outputs are downloaded from the backend.
#include "train_internal.h"
#include "../../core/common.h"
#include "../../objectives/attention_stats.h"
#include "../../objectives/knn_probe.h"
#include "../../objectives/linear_probe.h"
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
// for the first n images of ds, and the cls token's (cls[l], when cls is not NULL and the model
// has one). Full attention, or, with probe = 1, what the objective's probe_prepare sets (GVP:
// the content stream with its causal mask).
static void block_features(run *r, const dataset *ds, int n, float **feats, float **cls, int probe) {
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
        for (int b = 0; b < B; b++) r->batch_index[b] = start + b;
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

// The kNN probe of every block's mean-pooled features of the model as it is now: top1[l],
// top5[l] for l < depth, the first ntrain training images as memory bank, the first ntest test
// images as queries.
static void knn_blocks(run *r, int ntrain, int ntest, int k, float *top1, float *top5) {
    model *m = &r->model;
    int L = m->cfg.depth, d = m->cfg.dim;
    float **train = xmalloc((size_t)L * sizeof *train, "kNN features"), **test = xmalloc((size_t)L * sizeof *test, "kNN features");
    for (int l = 0; l < L; l++) {
        train[l] = xmalloc((size_t)ntrain * d * sizeof(float), "kNN training features");
        test[l] = xmalloc((size_t)ntest * d * sizeof(float), "kNN test features");
    }
    block_features(r, &r->train, ntrain, train, NULL, 0);
    block_features(r, &r->test, ntest, test, NULL, 0);
    for (int l = 0; l < L; l++) {
        double t5;
        top1[l] = (float)knn_probe_accuracy(train[l], r->train.labels, ntrain, test[l], r->test.labels, ntest, d,
                                            r->train.num_classes, k, (float)cfg_float(r->cfg, "eval.knn_temperature"), &t5, NULL);
        top5[l] = (float)t5;
        free(train[l]);
        free(test[l]);
    }
    free(train);
    free(test);
}

// The first n examples of ds as the model's input sees them without augmentation (pixels
// normalised per channel, or a clip's MFCC frames), flattened: (n, C·H·W).
static float *raw_inputs(run *r, const dataset *ds, int n) {
    size_t D = (size_t)ds->channels * ds->height * ds->width;
    float *x = xmalloc((size_t)n * D * sizeof(float), "kNN raw inputs");
    int32_t *labels = xmalloc((size_t)r->eval_batch * sizeof(int32_t), "kNN raw labels");
    int *index = xmalloc((size_t)r->eval_batch * sizeof(int), "kNN raw indices");
    for (int start = 0; start < n; start += r->eval_batch) {
        int B = n - start < r->eval_batch ? n - start : r->eval_batch;
        for (int b = 0; b < B; b++) index[b] = start + b;
        dataset_make_batch(ds, index, B, NULL, 0, 0, 0, x + (size_t)start * D, labels);
    }
    free(labels);
    free(index);
    return x;
}

// Layer-wise kNN probe (paper Fig. 9): the (labelled) training images as memory bank, the
// test images as queries; /knn/top1 and /knn/top5 per block, the best layer in /final. With
// the two controls Fig. 9 is read against: the same probe on the raw input (/knn pixels_top1,
// /final knn_pixels_top1) and on this network at its random initialisation, model_init_params
// with the run's seed, the weights a run without `init:` starts from (/knn/init_top1 per
// block, /final knn_init_top1 of its best block); the trained weights are restored after.
void record_knn(run *r) {
    const config *c = r->cfg;
    model *m = &r->model;
    int L = m->cfg.depth;
    int ntrain = (int)cfg_int(c, "eval.knn_train_limit"), ntest = (int)cfg_int(c, "eval.knn_test_limit");
    if (ntrain <= 0 || ntrain > r->train.n) ntrain = r->train.n;
    if (ntest <= 0 || ntest > r->test.n) ntest = r->test.n;
    int k = (int)cfg_int(c, "eval.knn_k");
    if (k > ntrain) die_input("eval.knn_k=%d is more than the %d training images of the probe", k, ntrain);
    float top1[64], top5[64], init1[64], init5[64];
    knn_blocks(r, ntrain, ntest, k, top1, top5);
    size_t bytes = m->params.total * sizeof(float);
    float *trained = xmalloc(bytes, "trained parameters (host)");
    m->ops->download(trained, m->param, bytes);
    model_init_params(m, r->seed);
    knn_blocks(r, ntrain, ntest, k, init1, init5);
    m->ops->upload(m->param, trained, bytes);
    free(trained);
    float *ptrain = raw_inputs(r, &r->train, ntrain), *ptest = raw_inputs(r, &r->test, ntest);
    double pixels5, pixels1 = knn_probe_accuracy(ptrain, r->train.labels, ntrain, ptest, r->test.labels, ntest,
                                                 r->train.channels * r->train.height * r->train.width, r->train.num_classes, k,
                                                 (float)cfg_float(c, "eval.knn_temperature"), &pixels5, NULL);
    free(ptrain);
    free(ptest);
    int best = 0, init_best = 0;
    for (int l = 0; l < L; l++) {
        if (top1[l] > top1[best]) best = l;
        if (init1[l] > init1[init_best]) init_best = l;
        printf("kNN probe after block %d: top1 %.4f top5 %.4f (at initialisation: top1 %.4f)\n", l + 1, top1[l], top5[l], init1[l]);
    }
    printf("kNN probe on the raw input: top1 %.4f top5 %.4f\n", pixels1, pixels5);
    int dims[1] = {L};
    results_dataset_f32(r->res, "/knn/top1", 1, dims, top1);
    results_dataset_f32(r->res, "/knn/top5", 1, dims, top5);
    results_dataset_f32(r->res, "/knn/init_top1", 1, dims, init1);
    results_dataset_f32(r->res, "/knn/init_top5", 1, dims, init5);
    results_attr_int(r->res, "/knn", "train_images", ntrain);
    results_attr_int(r->res, "/knn", "test_images", ntest);
    results_attr_double(r->res, "/knn", "pixels_top1", pixels1);
    results_attr_double(r->res, "/knn", "pixels_top5", pixels5);
    results_attr_double(r->res, "/final", "knn_top1", top1[best]);
    results_attr_int(r->res, "/final", "knn_best_layer", best + 1);
    results_attr_double(r->res, "/final", "knn_top1_last", top1[L - 1]);
    results_attr_double(r->res, "/final", "knn_init_top1", init1[init_best]);
    results_attr_double(r->res, "/final", "knn_pixels_top1", pixels1);
}

// The linear probe (objectives/linear_probe.h) of the features after the last block, or of every
// block (eval.probe_layers=all): mean-pooled patch tokens and, with a cls token, the cls token,
// each its own probe; the first eval.probe_train_limit (labelled) training images fit it (every
// 5th held out to choose the L2 strength), the first eval.probe_test_limit test images score it.
// /probe/{layer, top1_mean, lambda_mean, iters_mean, top1_cls, lambda_cls, iters_cls} (iters: the
// refit's L-BFGS iterations; at the cap a warning says it stopped unconverged) and /final/probe_top1 (the last
// block: cls when there is one, else mean), probe_top1_mean, probe_top1_cls, and with every
// block probe_best_top1 and probe_best_layer.
void record_linear_probe(run *r) {
    const config *c = r->cfg;
    model *m = &r->model;
    int L = m->cfg.depth, d = m->cfg.dim, K = r->train.num_classes, has_cls = m->t0 > 0;
    int all = !strcmp(cfg_str(c, "eval.probe_layers"), "all"), first = all ? 0 : L - 1;
    int ntrain = (int)cfg_int(c, "eval.probe_train_limit"), ntest = (int)cfg_int(c, "eval.probe_test_limit");
    if (ntrain <= 0 || ntrain > r->train.n) ntrain = r->train.n;
    if (ntest <= 0 || ntest > r->test.n) ntest = r->test.n;
    if (ntrain < 5) die_input("eval.probe_train_limit: the linear probe needs at least 5 training images, the run has %d", ntrain);
    float **feats[2][2]; // [train/test][mean/cls][layer]
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) {
            feats[s][k] = xmalloc((size_t)L * sizeof(float *), "probe features");
            for (int l = 0; l < L; l++)
                feats[s][k][l] = k == 1 && !has_cls ? NULL : xmalloc((size_t)(s ? ntest : ntrain) * d * sizeof(float), "probe features");
        }
    block_features(r, &r->train, ntrain, feats[0][0], has_cls ? feats[0][1] : NULL, 1);
    block_features(r, &r->test, ntest, feats[1][0], has_cls ? feats[1][1] : NULL, 1);
    int n = L - first;
    float *layer = xmalloc((size_t)n * 7 * sizeof(float), "probe results");
    float *top1_mean = layer + n, *lambda_mean = layer + 2 * n, *top1_cls = layer + 3 * n, *lambda_cls = layer + 4 * n;
    float *iters_mean = layer + 5 * n, *iters_cls = layer + 6 * n;
    int best = L - 1;
    double best_top1 = -1.0;
    for (int l = first; l < L; l++) {
        int i = l - first;
        layer[i] = (float)(l + 1);
        for (int k = 0; k < (has_cls ? 2 : 1); k++) {
            linear_probe_result res = linear_probe_run(feats[0][k][l], r->train.labels, ntrain, feats[1][k][l], r->test.labels,
                                                       ntest, d, K);
            (k ? top1_cls : top1_mean)[i] = (float)res.top1;
            (k ? lambda_cls : lambda_mean)[i] = (float)res.lambda;
            (k ? iters_cls : iters_mean)[i] = (float)res.iters;
            if (res.iters >= LINEAR_PROBE_MAX_ITERS)
                fprintf(stderr, "posbench: warning: the linear probe of block %d (%s) stopped after %d iterations unconverged; "
                        "its top-1 understates the features\n", l + 1, k ? "cls" : "mean-pooled", res.iters);
            if (res.top1 > best_top1) best_top1 = res.top1, best = l;
        }
        if (!has_cls) top1_cls[i] = lambda_cls[i] = iters_cls[i] = NAN;
        printf("linear probe after block %d: top1 %.4f (mean-pooled patches, lambda %g)", l + 1, top1_mean[i], lambda_mean[i]);
        if (has_cls) printf(", %.4f (cls, lambda %g)", top1_cls[i], lambda_cls[i]);
        printf("\n");
    }
    int dims[1] = {n};
    results_dataset_f32(r->res, "/probe/layer", 1, dims, layer);
    results_dataset_f32(r->res, "/probe/top1_mean", 1, dims, top1_mean);
    results_dataset_f32(r->res, "/probe/lambda_mean", 1, dims, lambda_mean);
    results_dataset_f32(r->res, "/probe/iters_mean", 1, dims, iters_mean);
    if (has_cls) {
        results_dataset_f32(r->res, "/probe/top1_cls", 1, dims, top1_cls);
        results_dataset_f32(r->res, "/probe/lambda_cls", 1, dims, lambda_cls);
        results_dataset_f32(r->res, "/probe/iters_cls", 1, dims, iters_cls);
    }
    results_attr_int(r->res, "/probe", "train_images", ntrain);
    results_attr_int(r->res, "/probe", "heldout_images", ntrain / 5);
    results_attr_int(r->res, "/probe", "test_images", ntest);
    results_attr_str(r->res, "/probe", "stream", r->obj.kind->probe_stream ? r->obj.kind->probe_stream : "all tokens, full attention");
    results_attr_str(r->res, "/probe", "features", "block outputs (before the final LayerNorm), standardised; mean-pooled patch tokens and the cls token, one probe each");
    results_attr_str(r->res, "/probe", "optimiser", "multinomial logistic regression in double, L-BFGS (memory 10, backtracking Armijo line search), until max |gradient| < 1e-7, no further decrease or 5000 iterations; L2 strength from {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1} by held-out top-1 on every 5th training image, then refit on all");
    int last = n - 1;
    results_attr_double(r->res, "/final", "probe_top1", has_cls ? top1_cls[last] : top1_mean[last]);
    results_attr_double(r->res, "/final", "probe_top1_mean", top1_mean[last]);
    if (has_cls) results_attr_double(r->res, "/final", "probe_top1_cls", top1_cls[last]);
    if (all) {
        results_attr_double(r->res, "/final", "probe_best_top1", best_top1);
        results_attr_int(r->res, "/final", "probe_best_layer", best + 1);
    }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) {
            for (int l = 0; l < L; l++) free(feats[s][k][l]);
            free(feats[s][k]);
        }
    free(layer);
}
