// objectives/supervised/objective.c — objective.name=supervised: classification with the
// model's classifier head, label-smoothed cross entropy in training, top-1/top-5 and the loss
// (no smoothing) on the test set each epoch, and, at the end of a run, accuracy, TTA and
// throughput at each eval.resolutions size (CAPE Figs. 2-4, Table 1).
#include "../objective.h"
#include "supervised.h"
#include "../eval_shard.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    supervised train_loss, eval_loss; // with objective.label_smoothing / without
    int32_t *labels;                  // (max_batch) backend copy of the batch's labels
    float *tta_host, *tta;            // (max_batch, K): logits summed over r-delta, r, r+delta (host, backend)
} supervised_state;

static void supervised_configure_model(const objective_settings *s, model_config *mc) {
    mc->request.token_head = 0;
    mc->request.head_name = "head";
}

static void supervised_obj_create(objective *o) {
    int max_batch = o->max_batch;
    supervised_state *st = xcalloc(1, sizeof *st, "supervised objective");
    int K = o->model->cfg.num_classes;
    supervised_create(&st->train_loss, o->ops, max_batch, K, (float)o->s.label_smoothing);
    supervised_create(&st->eval_loss, o->ops, max_batch, K, 0.0f);
    st->labels = o->ops->alloc((size_t)max_batch * sizeof(int32_t), "batch labels");
    st->tta_host = xmalloc((size_t)max_batch * K * sizeof(float), "TTA logits");
    st->tta = o->ops->alloc((size_t)max_batch * K * sizeof(float), "TTA logits");
    o->state = st;
}

static void supervised_obj_free(objective *o) {
    supervised_state *st = o->state;
    if (!st) return;
    supervised_free(&st->train_loss);
    supervised_free(&st->eval_loss);
    o->ops->free(st->labels);
    o->ops->free(st->tta);
    free(st->tta_host);
    free(st);
}

static const int32_t *upload_labels(objective *o, const int32_t *labels, int B) {
    supervised_state *st = o->state;
    o->ops->upload(st->labels, labels, (size_t)B * sizeof(int32_t));
    return st->labels;
}

static double supervised_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    supervised_state *st = o->state;
    const int32_t *y = upload_labels(o, labels, B);
    const float *logits = model_forward(o->model, B, 1, rng);
    return supervised_forward(&st->train_loss, logits, y, B);
}

static void supervised_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    supervised_state *st = o->state;
    const int32_t *y = upload_labels(o, labels, B);
    const float *logits = model_forward(o->model, B, 1, rng);
    supervised_forward_to(&st->train_loss, logits, y, B, loss);
}

static void supervised_train_backward(objective *o, int B) {
    supervised_state *st = o->state;
    supervised_backward(&st->train_loss, model_dlogits(o->model), st->labels, B);
    model_backward(o->model, B);
}

// Top-1, top-5 and loss on the test set at the training size; its batches shared by the ranks
// of a run across processes (eval_shard.h: per batch the loss sum and the two counts).
static eval_scores supervised_evaluate(objective *o, objective_env *env) {
    supervised_state *st = o->state;
    eval_shard sh;
    eval_shard_begin(&sh, env, env->test_n, env->eval_batch, 3);
    for (int k = 0, start = 0; start < env->test_n; k++, start += env->eval_batch) {
        if (!eval_shard_mine(&sh, k)) continue;
        int B = env->test_n - start < env->eval_batch ? env->test_n - start : env->eval_batch;
        env->load_test(env, start, B, o->s.train_size);
        const int32_t *y = upload_labels(o, env->labels, B);
        const float *logits = model_forward(o->model, B, 0, (rng_addr){0});
        double *row = eval_shard_row(&sh, k); // loss sum, top-1 count, top-5 count
        long top1 = 0, top5 = 0;
        row[0] = supervised_forward(&st->eval_loss, logits, y, B) * B;
        supervised_count_topk(&st->eval_loss, logits, y, B, &top1, &top5);
        row[1] = (double)top1, row[2] = (double)top5;
    }
    double sum[3];
    eval_shard_end(&sh, sum);
    eval_scores e = {{sum[1] / env->test_n, sum[2] / env->test_n}, sum[0] / env->test_n};
    return e;
}

// Accuracy of the trained model on the test set resized to each eval.resolutions size (CAPE
// Fig. 2-4): /resolution/{size, top1, top5, loss, images_per_s} and, with eval.tta_delta, the
// top-1 of logits averaged over size-delta, size, size+delta (Table 1) in /resolution/tta_top1;
// the same in /final as top1@S, top5@S, images_per_s@S, tta_top1@S, and top1_drop@S = top-1 at
// the training size (the last evaluation) minus top1@S; tta_top1 = tta_top1@(training size)
// when that size is evaluated. images/s counts forward passes only (batch eval.batch, no data
// loading or resizing), at this run's thread count.
static void record_resolutions(objective *o, objective_env *env, double top1_train_size) {
    const objective_settings *s = &o->s;
    if (s->n_eval_sizes == 0) return;
    supervised_state *st = o->state;
    model *m = o->model;
    const record_sink *rec = env->rec;
    int n = s->n_eval_sizes, K = m->cfg.num_classes, delta = s->tta_delta, test_n = env->test_n;
    float size[OBJECTIVE_MAX_SIZES], top1[OBJECTIVE_MAX_SIZES], top5[OBJECTIVE_MAX_SIZES], loss[OBJECTIVE_MAX_SIZES],
        ips[OBJECTIVE_MAX_SIZES], tta[OBJECTIVE_MAX_SIZES];
    float *logits_host = delta > 0 ? xmalloc((size_t)env->eval_batch * K * sizeof(float), "logits (host)") : NULL;
    for (int e = 0; e < n; e++) {
        int S = s->eval_sizes[e];
        long c1 = 0, c5 = 0, t1 = 0, t5 = 0;
        double loss_sum = 0.0, forward_s = 0.0;
        for (int start = 0; start < test_n; start += env->eval_batch) {
            int B = test_n - start < env->eval_batch ? test_n - start : env->eval_batch;
            if (delta > 0) memset(st->tta_host, 0, (size_t)B * K * sizeof(float));
            const int32_t *y = NULL; // the batch's labels on the backend, the same at every shift
            for (int shift = delta > 0 ? -1 : 0; shift <= (delta > 0 ? 1 : 0); shift++) {
                env->load_test(env, start, B, S + shift * delta);
                if (!y) y = upload_labels(o, env->labels, B);
                double t = now_seconds();
                const float *logits = model_forward(m, B, 0, (rng_addr){0});
                if (shift == 0) {
                    o->ops->synchronize();
                    forward_s += now_seconds() - t;
                }
                if (delta > 0) {
                    o->ops->download(logits_host, logits, (size_t)B * K * sizeof(float));
                    for (size_t k = 0; k < (size_t)B * K; k++) st->tta_host[k] += logits_host[k];
                }
                if (shift != 0) continue;
                loss_sum += supervised_forward(&st->eval_loss, logits, y, B) * B;
                supervised_count_topk(&st->eval_loss, logits, y, B, &c1, &c5);
            }
            if (delta > 0) {
                o->ops->upload(st->tta, st->tta_host, (size_t)B * K * sizeof(float));
                supervised_count_topk(&st->eval_loss, st->tta, y, B, &t1, &t5);
            }
        }
        size[e] = (float)S, top1[e] = (float)c1 / test_n, top5[e] = (float)c5 / test_n;
        loss[e] = (float)(loss_sum / test_n), ips[e] = (float)(forward_s > 0 ? test_n / forward_s : 0.0);
        tta[e] = delta > 0 ? (float)t1 / test_n : NAN;
        char name[64];
        snprintf(name, sizeof name, "top1@%d", S), record_double(rec, "/final", name, top1[e]);
        snprintf(name, sizeof name, "top5@%d", S), record_double(rec, "/final", name, top5[e]);
        snprintf(name, sizeof name, "images_per_s@%d", S), record_double(rec, "/final", name, ips[e]);
        snprintf(name, sizeof name, "top1_drop@%d", S), record_double(rec, "/final", name, top1_train_size - top1[e]);
        if (delta > 0) snprintf(name, sizeof name, "tta_top1@%d", S), record_double(rec, "/final", name, tta[e]);
        if (delta > 0 && S == s->train_size) record_double(rec, "/final", "tta_top1", tta[e]);
        printf("test at %dx%d px: top1 %.2f%% top5 %.2f%%, %.0f images/s", S, S, 100.0 * top1[e], 100.0 * top5[e], ips[e]);
        if (delta > 0) printf("; TTA over %d/%d/%d px: top1 %.2f%%", S - delta, S, S + delta, 100.0 * tta[e]);
        printf("\n");
    }
    free(logits_host);
    int dims[1] = {n};
    record_f32(rec, "/resolution/size", 1, dims, size);
    record_f32(rec, "/resolution/top1", 1, dims, top1);
    record_f32(rec, "/resolution/top5", 1, dims, top5);
    record_f32(rec, "/resolution/loss", 1, dims, loss);
    record_f32(rec, "/resolution/images_per_s", 1, dims, ips);
    if (delta > 0) record_f32(rec, "/resolution/tta_top1", 1, dims, tta);
    record_int(rec, "/resolution", "train_size", s->train_size);
    record_int(rec, "/resolution", "tta_delta", delta);
    record_int(rec, "/resolution", "images", test_n);
    model_set_resolution(m, s->train_size);
}

static void supervised_record_final(objective *o, objective_env *env, const eval_scores *last) {
    record_resolutions(o, env, last ? last->metric[0] : NAN);
}

static int supervised_train_keys(const objective *o) { return o->model->T; }

static const metric_info supervised_metrics[] = {
    {"top1", "%", 100, 1, 1, NULL, 2, 0, 0, METRIC_SAMPLED},
    {"top5", "%", 100, 1, 1, NULL, 2, 1, 0, METRIC_SAMPLED},
    {"tta_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},   // eval.tta_delta (per size: tta_top1@S)
    {"top1_drop", "%", 100, -1, 1, NULL, 2, 3, 0, METRIC_SAMPLED}, // top1 at the training size - at size S
    {"top1_rate*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED}, // speech: eval.speech_rates
    {"top1_dur*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},  // speech: eval.speech_durations
    {NULL},
};

// The crosscheck plan: the PyTorch trainer classifies with the same label smoothing.
static void supervised_plan(const objective_settings *s, const model *m, long steps, int steps_per_epoch, int B, tensorfile *tf) {
    (void)m, (void)steps, (void)steps_per_epoch, (void)B;
    objective_plan_scalar(tf, "label_smoothing", s->label_smoothing);
}

static const objective_crosscheck supervised_crosscheck = {.metrics = {"top1", "top1@", NULL}, .plan = supervised_plan};

const objective_kind objective_supervised = {
    .name = "supervised",
    .description = "classification with cross-entropy on the labels",
    .metric_names = {"top1", "top5"},
    .metrics = supervised_metrics,
    .needs_labels = 1,
    .speech_ok = 1,
    .multi_size = 1,
    .timm_vit = 1,
    .crosscheck = &supervised_crosscheck,
    .progress = "epoch %d/%d  loss %.4f  test top1 %.2f%% top5 %.2f%%  (%.0f s)",
    .final_line = "final: top1=%.2f%% top5=%.2f%% time=%.0fs\n",
    .configure_model = supervised_configure_model,
    .create = supervised_obj_create,
    .free = supervised_obj_free,
    .train_forward = supervised_train_forward,
    .train_forward_to = supervised_train_forward_to,
    .train_backward = supervised_train_backward,
    .evaluate = supervised_evaluate,
    .sharded_eval = 1,
    .record_final = supervised_record_final,
    .train_keys = supervised_train_keys,
};
