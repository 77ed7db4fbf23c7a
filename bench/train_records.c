// bench/train_records.c — what a finished run records beyond its training curves: MP3 position
// accuracy at each test eta (Fig. 3) and reassembled samples (Fig. 2), attention statistics,
// the layer-wise kNN probe (Fig. 9), and accuracy, TTA and throughput at each evaluation image
// size (CAPE Figs. 2-4, Table 1). Called by train.c's finish_file.
#include "train_internal.h"
#include "../core/common.h"
#include "../objectives/attention_stats.h"
#include "../objectives/knn_probe.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Test masking ratios of the position-accuracy curve (paper Fig. 3) and of the reassembled
// samples (Fig. 2); the RNG epoch slot of an evaluation context is EVAL_CONTEXT + the eta's index.
static const double position_test_etas[] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
static const double sample_test_etas[] = {0.0, 0.25, 0.5, 0.75};


// MP3 position accuracy of the first `limit` test images (0 = all) at test masking ratio eta;
// image i's context comes from (seed, RNG_MASK, context_epoch, 0, i), the same every epoch, and
// its reference tokens (a model with them) from (seed, RNG_REFERENCE, EVAL_CONTEXT, 0, i), the
// same at every eta; reference patches are not counted (their position is in their input).
eval_result position_accuracy(run *r, double eta, uint32_t context_epoch, int limit) {
    vit *m = &r->model;
    int n = limit > 0 && limit < r->test.n ? limit : r->test.n, Mp = mp3_context_patches(m->N, eta), M = m->t0 + Mp;
    int chunk = vit_batch_capacity(m, M);
    if (chunk > r->eval_batch) chunk = r->eval_batch;
    int *pred = xmalloc((size_t)chunk * m->N * sizeof(int), "predicted positions");
    long correct = 0, total = 0, correct_nb = 0, total_nb = 0;
    double loss_sum = 0.0;
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        for (int b = 0; b < B; b++) r->batch_index[b] = start + b;
        load_batch(r, &r->test, r->batch_index, B, NULL, 0, 0, r->train_size);
        mp3_sample_context(vit_context(m), B, m->N, m->t0, Mp, r->seed, context_epoch, 0, (uint32_t)start);
        vit_set_context(m, M);
        rng_addr refs = {.seed = r->seed, .epoch = EVAL_CONTEXT, .index = (uint32_t)start};
        const float *logits = vit_forward(m, B, 0, refs);
        loss_sum += mp3_forward(&r->position, logits, B) * B;
        mp3_predict(logits, B, m->N, m->t0, pred);
        mp3_count_correct(pred, vit_images(m), B, m->cfg.channels, m->cfg.image_size, m->cfg.patch, vit_reference_tokens(m),
                          vit_reference_width(m), m->t0, &correct, &total,
                          &correct_nb, &total_nb);
    }
    free(pred);
    vit_set_context(m, m->T);
    return (eval_result){(double)correct / total, total_nb ? (double)correct_nb / total_nb : NAN, loss_sum / n};
}

// Attention statistics of the trained model on a fixed batch: the first (up to) 64 test images.
void record_attention(run *r) {
    vit *m = &r->model;
    vit_set_context(m, m->T);
    int B = r->test.n < 64 ? r->test.n : 64, L = m->cfg.depth, H = m->cfg.heads, g = m->grid;
    if (B > vit_batch_capacity(m, m->T)) B = vit_batch_capacity(m, m->T); // MP3 arenas are sized for the context
    for (int b = 0; b < B; b++) r->batch_index[b] = b;
    load_batch(r, &r->test, r->batch_index, B, NULL, 0, 0, r->train_size);
    vit_forward(m, B, 0, (rng_addr){0});
    int rh = 2 * g - 1, N = g * g;
    float *entropy = xmalloc((size_t)L * H * sizeof(float), "attention entropy");
    float *distance = xmalloc((size_t)L * H * sizeof(float), "attention distance");
    float *relmap = xmalloc((size_t)L * H * rh * rh * sizeof(float), "relative attention maps");
    float *cls_map = xmalloc((size_t)L * H * N * sizeof(float), "cls attention maps");
    for (int l = 0; l < L; l++) {
        attention_stats st = {.H = H, .gh = g, .gw = g, .t0 = m->t0, .entropy = entropy + l * H,
                              .mean_distance = distance + l * H, .relmap = relmap + (size_t)l * H * rh * rh,
                              .cls_map = cls_map + (size_t)l * H * N};
        attention_stats_layer(&st, m->act + m->acts.items[m->block_acts[l].att].offset, B);
    }
    int lh[2] = {L, H}, rel_dims[4] = {L, H, rh, rh}, cls_dims[4] = {L, H, g, g};
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

// MP3: position top-1 at each test eta (paper Fig. 3), over all and over non-blank patches.
void record_position_curve(run *r, double *top1_eta0, double *nonblank_eta0) {
    int E = (int)(sizeof position_test_etas / sizeof position_test_etas[0]), limit = (int)cfg_int(r->cfg, "eval.position_limit");
    float eta[16], top1[16], nonblank[16], loss[16];
    for (int e = 0; e < E; e++) {
        eval_result acc = position_accuracy(r, position_test_etas[e], EVAL_CONTEXT + (uint32_t)e, limit);
        eta[e] = (float)position_test_etas[e], top1[e] = (float)acc.top1, nonblank[e] = (float)acc.top5, loss[e] = (float)acc.loss;
        printf("position accuracy at test eta %.1f: %.4f (non-blank patches %.4f)\n", position_test_etas[e], acc.top1, acc.top5);
    }
    int dims[1] = {E};
    results_dataset_f32(r->res, "/position/test_eta", 1, dims, eta);
    results_dataset_f32(r->res, "/position/top1", 1, dims, top1);
    results_dataset_f32(r->res, "/position/top1_nonblank", 1, dims, nonblank);
    results_dataset_f32(r->res, "/position/loss", 1, dims, loss);
    results_attr_int(r->res, "/position", "images", limit > 0 && limit < r->test.n ? limit : r->test.n);
    *top1_eta0 = top1[0], *nonblank_eta0 = nonblank[0];
}

// MP3: the first eval.samples test images, their context and their reassembly from the
// predicted positions at a few test etas (paper Fig. 2), in pixel units [0, 1]; positions
// that are masked (context view) or that no patch landed on (reassembly) are 0.5 grey.
void record_samples(run *r) {
    vit *m = &r->model;
    int S = (int)cfg_int(r->cfg, "eval.samples");
    if (S > r->test.n) S = r->test.n;
    if (S <= 0) return;
    int C = m->cfg.channels, size = m->cfg.image_size, p = m->cfg.patch, N = m->N, t0 = m->t0;
    size_t image_floats = (size_t)C * size * size;
    float *original = xmalloc((size_t)S * image_floats * sizeof(float), "sample images");
    float *context = xmalloc((size_t)S * image_floats * sizeof(float), "sample context views");
    float *rebuilt = xmalloc((size_t)S * image_floats * sizeof(float), "sample reassemblies");
    int *pred = xmalloc((size_t)S * N * sizeof(int), "sample predictions");
    int dims[4] = {S, C, size, size};
    for (int b = 0; b < S; b++) r->batch_index[b] = b;
    const float *mean = r->test.mean, *std = r->test.std;
    int E = (int)(sizeof sample_test_etas / sizeof sample_test_etas[0]);
    for (int e = 0; e < E; e++) {
        int Mp = mp3_context_patches(N, sample_test_etas[e]);
        load_batch(r, &r->test, r->batch_index, S, NULL, 0, 0, r->train_size);
        int *ctx = vit_context(m);
        mp3_sample_context(ctx, S, N, t0, Mp, r->seed, EVAL_CONTEXT + 0x100u + (uint32_t)e, 0, 0);
        vit_set_context(m, t0 + Mp);
        const float *logits = vit_forward(m, S, 0, (rng_addr){0});
        mp3_predict(logits, S, N, t0, pred);
        int *patches = xmalloc((size_t)Mp * sizeof(int), "context patches");
        for (int b = 0; b < S; b++) {
            float *img = vit_images(m) + (size_t)b * image_floats; // back to pixel units in place
            for (size_t k = 0; k < image_floats; k++) {
                int c = (int)(k / ((size_t)size * size));
                img[k] = img[k] * std[c] + mean[c];
            }
            memcpy(original + (size_t)b * image_floats, img, image_floats * sizeof(float));
            for (int k = 0; k < Mp; k++) patches[k] = ctx[(size_t)b * (t0 + Mp) + t0 + k] - t0;
            mp3_context_image(img, patches, Mp, C, size, p, 0.5f, context + (size_t)b * image_floats);
            mp3_reassemble(img, pred + (size_t)b * N, C, size, p, 0.5f, rebuilt + (size_t)b * image_floats);
        }
        free(patches);
        char name[64];
        snprintf(name, sizeof name, "/samples/eta_%.2f_context", sample_test_etas[e]);
        results_dataset_f32(r->res, name, 4, dims, context);
        snprintf(name, sizeof name, "/samples/eta_%.2f_reassembled", sample_test_etas[e]);
        results_dataset_f32(r->res, name, 4, dims, rebuilt);
    }
    results_dataset_f32(r->res, "/samples/original", 4, dims, original);
    vit_set_context(m, m->T);
    free(original);
    free(context);
    free(rebuilt);
    free(pred);
}

// Mean-pooled patch features (cls excluded) after every block, full attention, no augmentation:
// feats[l] (n, d) for the first n images of ds.
static void block_features(run *r, const dataset *ds, int n, float **feats) {
    vit *m = &r->model;
    int d = m->cfg.dim, T = m->T, t0 = m->t0, L = m->cfg.depth;
    int chunk = vit_batch_capacity(m, T);
    if (chunk > r->eval_batch) chunk = r->eval_batch;
    vit_set_context(m, T);
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        for (int b = 0; b < B; b++) r->batch_index[b] = start + b;
        load_batch(r, ds, r->batch_index, B, NULL, 0, 0, r->train_size);
        vit_forward(m, B, 0, (rng_addr){0});
        for (int l = 0; l < L; l++) {
            const float *x = vit_block_output(m, l); // (B, T, d)
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
}

// Layer-wise kNN probe (paper Fig. 9): the (labelled) training images as memory bank, the
// test images as queries; /knn/top1 and /knn/top5 per block, the best layer in /final.
void record_knn(run *r) {
    const config *c = r->cfg;
    vit *m = &r->model;
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

// Accuracy of the trained model on the test set resized to each eval.resolutions size (CAPE
// Fig. 2-4): /resolution/{size, top1, top5, loss, images_per_s} and, with eval.tta_delta, the
// top-1 of logits averaged over size-delta, size, size+delta (Table 1) in /resolution/tta_top1;
// the same in /final as top1@S, top5@S, images_per_s@S, tta_top1@S, and top1_drop@S = top-1 at
// the training size (the last evaluation) minus top1@S; tta_top1 = tta_top1@(training size)
// when that size is evaluated. images/s counts forward passes only (batch eval.batch, no data
// loading or resizing), at this run's thread count.
void record_resolutions(run *r, double top1_train_size) {
    if (r->n_eval == 0) return;
    vit *m = &r->model;
    int n = r->n_eval, K = m->cfg.num_classes, delta = r->tta_delta;
    float size[CFG_LIST_MAX], top1[CFG_LIST_MAX], top5[CFG_LIST_MAX], loss[CFG_LIST_MAX], ips[CFG_LIST_MAX], tta[CFG_LIST_MAX];
    for (int e = 0; e < n; e++) {
        int S = r->eval_sizes[e];
        long c1 = 0, c5 = 0, t1 = 0, t5 = 0;
        double loss_sum = 0.0, forward_s = 0.0;
        for (int start = 0; start < r->test.n; start += r->eval_batch) {
            int B = r->test.n - start < r->eval_batch ? r->test.n - start : r->eval_batch;
            for (int b = 0; b < B; b++) r->batch_index[b] = start + b;
            if (delta > 0) memset(r->tta_logits, 0, (size_t)B * K * sizeof(float));
            for (int shift = delta > 0 ? -1 : 0; shift <= (delta > 0 ? 1 : 0); shift++) {
                load_batch(r, &r->test, r->batch_index, B, NULL, 0, 0, S + shift * delta);
                double t = now_seconds();
                const float *logits = vit_forward(m, B, 0, (rng_addr){0});
                if (shift == 0) forward_s += now_seconds() - t;
                if (delta > 0)
                    for (size_t k = 0; k < (size_t)B * K; k++) r->tta_logits[k] += logits[k];
                if (shift != 0) continue;
                loss_sum += supervised_forward(&r->eval_objective, logits, r->labels, B) * B;
                supervised_topk(logits, r->labels, B, K, &c1, &c5);
            }
            if (delta > 0) supervised_topk(r->tta_logits, r->labels, B, K, &t1, &t5);
        }
        size[e] = (float)S, top1[e] = (float)c1 / r->test.n, top5[e] = (float)c5 / r->test.n;
        loss[e] = (float)(loss_sum / r->test.n), ips[e] = (float)(forward_s > 0 ? r->test.n / forward_s : 0.0);
        tta[e] = delta > 0 ? (float)t1 / r->test.n : NAN;
        char name[64];
        snprintf(name, sizeof name, "top1@%d", S), results_attr_double(r->res, "/final", name, top1[e]);
        snprintf(name, sizeof name, "top5@%d", S), results_attr_double(r->res, "/final", name, top5[e]);
        snprintf(name, sizeof name, "images_per_s@%d", S), results_attr_double(r->res, "/final", name, ips[e]);
        snprintf(name, sizeof name, "top1_drop@%d", S), results_attr_double(r->res, "/final", name, top1_train_size - top1[e]);
        if (delta > 0) snprintf(name, sizeof name, "tta_top1@%d", S), results_attr_double(r->res, "/final", name, tta[e]);
        if (delta > 0 && S == r->train_size) results_attr_double(r->res, "/final", "tta_top1", tta[e]);
        printf("test at %dx%d px: top1 %.4f top5 %.4f, %.0f images/s", S, S, top1[e], top5[e], ips[e]);
        if (delta > 0) printf("; TTA over %d/%d/%d px: top1 %.4f", S - delta, S, S + delta, tta[e]);
        printf("\n");
    }
    int dims[1] = {n};
    results_dataset_f32(r->res, "/resolution/size", 1, dims, size);
    results_dataset_f32(r->res, "/resolution/top1", 1, dims, top1);
    results_dataset_f32(r->res, "/resolution/top5", 1, dims, top5);
    results_dataset_f32(r->res, "/resolution/loss", 1, dims, loss);
    results_dataset_f32(r->res, "/resolution/images_per_s", 1, dims, ips);
    if (delta > 0) results_dataset_f32(r->res, "/resolution/tta_top1", 1, dims, tta);
    results_attr_int(r->res, "/resolution", "train_size", r->train_size);
    results_attr_int(r->res, "/resolution", "tta_delta", delta);
    results_attr_int(r->res, "/resolution", "images", r->test.n);
    vit_set_resolution(m, r->train_size);
}

