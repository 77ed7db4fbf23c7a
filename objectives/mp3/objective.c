// objectives/mp3/objective.c — objective.name=mp3 (docs/methods.md "MP3"): the model gets the
// position head and masked attention over one random context per image; the loss is the
// position cross entropy (mp3.c). Each epoch: position top-1 at the training eta over all and
// over non-blank patches; at the end of a run: the position-accuracy curve over test eta
// (paper Fig. 3) and reassembled samples (Fig. 2).
#include "../objective.h"
#include "mp3.h"
#include "../eval_shard.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// RNG epoch slots of evaluation contexts: EVAL_CONTEXT + the test eta's index (curve),
// EVAL_CONTEXT_TRAIN_ETA (per-epoch accuracy), EVAL_CONTEXT + 0x100 + index (samples).
#define EVAL_CONTEXT 0xE0000000u
#define EVAL_CONTEXT_TRAIN_ETA (EVAL_CONTEXT + 0xFFu)

// Test masking ratios of the position-accuracy curve (paper Fig. 3) and of the reassembled
// samples (Fig. 2).
static const double position_test_etas[] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
static const double sample_test_etas[] = {0.0, 0.25, 0.5, 0.75};

typedef struct {
    mp3 loss;
    int context_patches; // per image at objective.eta
} mp3_state;

static const char *mp3_objective_config_error(const objective_settings *s) {
    const char *why = mp3_config_error(s->pe_kind, s->ref_fraction);
    if (why) return why;
    if (s->linear_probe)
        return "eval.linear_probe=true: an MP3 pretraining run learns without position information and is evaluated by "
               "finetuning (and the kNN probe, eval.knn); probe the finetuned model's run instead (valid with mp3: false)";
    return NULL;
}

// Keys from the context only; reference tokens when objective.ref_fraction > 0.
static void mp3_configure_model(const objective_settings *s, model_config *mc) {
    mc->request.token_head = 1; // row t0 + n of the (B, T, N) logits predicts n; cls rows are ignored
    mc->request.head_name = "pos_head";
    if (mc->patch > 0 && mc->image_size % mc->patch == 0) {
        int rows, cols;
        model_grid_at(mc, mc->image_size, &rows, &cols);
        int N = rows * cols;
        mc->request.context_tokens = (mc->cls ? 1 : 0) + mp3_context_patches(N, s->eta);
        mc->request.ref_tokens = mp3_reference_patches(N, s->ref_fraction);
    }
}

static void mp3_obj_create(objective *o) {
    mp3_state *st = xcalloc(1, sizeof *st, "mp3 objective");
    model *m = o->model;
    st->context_patches = m->cfg.request.context_tokens - m->t0;
    mp3_create(&st->loss, o->ops, o->max_batch, m->N, m->t0);
    o->state = st;
}

static void mp3_obj_free(objective *o) {
    mp3_state *st = o->state;
    if (!st) return;
    mp3_free(&st->loss);
    free(st);
}

// The step's contexts, drawn on the host into the staging input (B, t0 + Mp); Mp is fixed by
// objective.eta, so the upload has the same size every step. Waits first for the previous
// step's uploads to have read the staging (a replay's included).
static void mp3_train_stage(objective *o, int B, rng_addr rng) {
    mp3_state *st = o->state;
    model *m = o->model;
    o->ops->upload_wait();
    mp3_sample_context(model_context(m), B, m->N, m->t0, st->context_patches, o->s.seed, rng.epoch, rng.step, rng.index);
}

// The masked forward on the staged contexts: position logits (B, T, N), backend.
static const float *mp3_train_logits(objective *o, int B, rng_addr rng) {
    mp3_state *st = o->state;
    model *m = o->model;
    model_set_context(m, m->t0 + st->context_patches);
    return model_forward(m, B, 1, rng);
}

static double mp3_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    mp3_train_stage(o, B, rng);
    return mp3_forward(&((mp3_state *)o->state)->loss, mp3_train_logits(o, B, rng), B);
}

// The contexts were staged by mp3_train_stage: nothing is drawn here.
static void mp3_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    mp3_forward_to(&((mp3_state *)o->state)->loss, mp3_train_logits(o, B, rng), B, loss);
}

static void mp3_train_backward(objective *o, int B) {
    mp3_state *st = o->state;
    mp3_backward(&st->loss, model_dlogits(o->model), B);
    model_backward(o->model, B);
}

// Position accuracy of the first `limit` test images (0 = all) at test masking ratio eta;
// image i's context comes from (seed, RNG_MASK, context_epoch, 0, i), the same every epoch, and
// its reference tokens (a model with them) from (seed, RNG_REFERENCE, EVAL_CONTEXT, 0, i), the
// same at every eta; reference patches are not counted (their position is in their input).
// Where the model's patches lie in its input: p × p patches of (C, S, S) images, or frames
// (one row each) of a (L, F) sequence.
static mp3_layout layout_of(const model *m) {
    const model_config *c = &m->cfg;
    if (c->features > 0) return (mp3_layout){1, m->image_size, c->features, 1, c->features};
    return (mp3_layout){c->channels, m->image_size, m->image_size, c->patch, c->patch};
}

static eval_scores position_accuracy(objective *o, objective_env *env, double eta, uint32_t context_epoch, int limit,
                                     mp3_counts *counts) {
    mp3_state *st = o->state;
    model *m = o->model;
    int n = limit > 0 && limit < env->test_n ? limit : env->test_n, Mp = mp3_context_patches(m->N, eta), M = m->t0 + Mp;
    int chunk = model_batch_capacity(m, M);
    if (chunk > env->eval_batch) chunk = env->eval_batch;
    // Per batch (eval_shard.h: the ranks share the batches): the loss sum, then the counts.
    enum { COUNTS = 4 + MP3_MAX_DISTANCE, WIDTH = 1 + COUNTS };
    eval_shard sh;
    eval_shard_begin(&sh, env, n, chunk, WIDTH);
    for (int b = 0, start = 0; start < n; b++, start += chunk) {
        if (!eval_shard_mine(&sh, b)) continue;
        int B = n - start < chunk ? n - start : chunk;
        env->load_test(env, start, B, o->s.train_size);
        mp3_sample_context(model_context(m), B, m->N, m->t0, Mp, o->s.seed, context_epoch, 0, (uint32_t)start);
        model_set_context(m, M);
        rng_addr refs = {.seed = o->s.seed, .epoch = EVAL_CONTEXT, .index = (uint32_t)start};
        const float *logits = model_forward(m, B, 0, refs);
        double *row = eval_shard_row(&sh, b);
        row[0] = mp3_forward(&st->loss, logits, B) * B;
        const int *pred = mp3_predict(&st->loss, logits, B);
        mp3_layout L = layout_of(m);
        mp3_counts kb = {0};
        mp3_count_positions(pred, model_images(m), B, &L, model_reference_tokens(m), model_reference_width(m), m->t0, &kb);
        row[1] = (double)kb.correct, row[2] = (double)kb.total, row[3] = (double)kb.correct_nonblank;
        row[4] = (double)kb.total_nonblank;
        for (int d = 0; d < MP3_MAX_DISTANCE; d++) row[5 + d] = (double)kb.distance_nonblank[d];
    }
    model_set_context(m, m->T);
    double sum[WIDTH];
    eval_shard_end(&sh, sum);
    double loss_sum = sum[0];
    mp3_counts k = {.correct = (long)sum[1], .total = (long)sum[2], .correct_nonblank = (long)sum[3],
                    .total_nonblank = (long)sum[4]};
    for (int d = 0; d < MP3_MAX_DISTANCE; d++) k.distance_nonblank[d] = (long)sum[5 + d];
    if (counts) *counts = k;
    return (eval_scores){{(double)k.correct / k.total, k.total_nonblank ? (double)k.correct_nonblank / k.total_nonblank : NAN},
                         loss_sum / n};
}

static eval_scores mp3_evaluate(objective *o, objective_env *env) {
    return position_accuracy(o, env, o->s.eta, EVAL_CONTEXT_TRAIN_ETA, o->s.position_limit, NULL);
}

// How far the wrong answers are at test eta 0 (non-blank patches): /position/error_distance
// (D) counts predictions d cells from the true one (Chebyshev on the patch grid; d = 0 correct),
// and /final pos_err_near_eta0 the fraction of the wrong ones that are one cell away: near 1
// means the model knows roughly where a patch goes but not exactly (under-training, or
// neighbours that look alike); small means it does not know.
static void record_error_distance(objective *o, const record_sink *rec, const mp3_counts *k) {
    model *m = o->model;
    int D = (m->rows > m->cols ? m->rows : m->cols);
    if (D > MP3_MAX_DISTANCE) D = MP3_MAX_DISTANCE;
    float hist[MP3_MAX_DISTANCE];
    long wrong = k->total_nonblank - k->distance_nonblank[0];
    for (int d = 0; d < D; d++) hist[d] = (float)k->distance_nonblank[d];
    int dims[1] = {D};
    record_f32(rec, "/position/error_distance", 1, dims, hist);
    if (wrong == 0) return;
    double near = (double)k->distance_nonblank[1] / wrong;
    record_double(rec, "/final", "pos_err_near_eta0", near);
    printf("position errors at test eta 0 (non-blank patches): %ld of %ld wrong, %.1f%% of them one cell away\n", wrong,
           k->total_nonblank, 100.0 * near);
}

// Position top-1 at each test eta (paper Fig. 3), over all and over non-blank patches.
static void record_position_curve(objective *o, objective_env *env) {
    int E = (int)(sizeof position_test_etas / sizeof position_test_etas[0]), limit = o->s.position_limit;
    float eta[16], top1[16], nonblank[16], loss[16];
    mp3_counts at_eta0;
    for (int e = 0; e < E; e++) {
        eval_scores acc = position_accuracy(o, env, position_test_etas[e], EVAL_CONTEXT + (uint32_t)e, limit, e == 0 ? &at_eta0 : NULL);
        eta[e] = (float)position_test_etas[e], top1[e] = (float)acc.metric[0], nonblank[e] = (float)acc.metric[1];
        loss[e] = (float)acc.loss;
        printf("position accuracy at test eta %.1f: %.2f%% (non-blank patches %.2f%%)\n", position_test_etas[e], 100.0 * acc.metric[0],
               100.0 * acc.metric[1]);
    }
    const record_sink *rec = env->rec;
    int dims[1] = {E};
    record_f32(rec, "/position/test_eta", 1, dims, eta);
    record_f32(rec, "/position/top1", 1, dims, top1);
    record_f32(rec, "/position/top1_nonblank", 1, dims, nonblank);
    record_f32(rec, "/position/loss", 1, dims, loss);
    record_int(rec, "/position", "images", limit > 0 && limit < env->test_n ? limit : env->test_n);
    record_double(rec, "/final", "pos_top1_eta0", top1[0]);
    record_double(rec, "/final", "pos_top1_nonblank_eta0", nonblank[0]);
    record_error_distance(o, rec, &at_eta0);
}

// The first eval.samples test images, their context and their reassembly from the predicted
// positions at a few test etas (paper Fig. 2), in pixel units [0, 1]; positions that are
// masked (context view) or that no patch landed on (reassembly) are 0.5 grey.
static void record_samples(objective *o, objective_env *env) {
    mp3_state *st = o->state;
    model *m = o->model;
    int S = o->s.samples;
    if (S > env->test_n) S = env->test_n;
    if (S > model_batch_capacity(m, m->T)) S = model_batch_capacity(m, m->T);
    if (S <= 0) return;
    mp3_layout L = layout_of(m);
    int C = L.C, N = m->N, t0 = m->t0;
    size_t image_floats = (size_t)C * L.H * L.W, plane = (size_t)L.H * L.W;
    float *original = xmalloc((size_t)S * image_floats * sizeof(float), "sample images");
    float *context = xmalloc((size_t)S * image_floats * sizeof(float), "sample context views");
    float *rebuilt = xmalloc((size_t)S * image_floats * sizeof(float), "sample reassemblies");
    int dims[4] = {S, C, L.H, L.W};
    const float *mean = env->pixel_mean, *std = env->pixel_std;
    int E = (int)(sizeof sample_test_etas / sizeof sample_test_etas[0]);
    int *patches = xmalloc((size_t)N * sizeof(int), "context patches");
    for (int e = 0; e < E; e++) {
        int Mp = mp3_context_patches(N, sample_test_etas[e]);
        env->load_test(env, 0, S, o->s.train_size);
        int *ctx = model_context(m);
        mp3_sample_context(ctx, S, N, t0, Mp, o->s.seed, EVAL_CONTEXT + 0x100u + (uint32_t)e, 0, 0);
        model_set_context(m, t0 + Mp);
        const float *logits = model_forward(m, S, 0, (rng_addr){0});
        const int *pred = mp3_predict(&st->loss, logits, S);
        for (int b = 0; b < S; b++) {
            float *img = model_images(m) + (size_t)b * image_floats; // back to pixel units in place (host staging)
            for (size_t k = 0; k < image_floats; k++) {
                int c = (int)(k / plane);
                img[k] = img[k] * std[c] + mean[c];
            }
            memcpy(original + (size_t)b * image_floats, img, image_floats * sizeof(float));
            for (int k = 0; k < Mp; k++) patches[k] = ctx[(size_t)b * (t0 + Mp) + t0 + k] - t0;
            mp3_context_image(img, patches, Mp, &L, 0.5f, context + (size_t)b * image_floats);
            mp3_reassemble(img, pred + (size_t)b * N, &L, 0.5f, rebuilt + (size_t)b * image_floats);
        }
        char name[64];
        snprintf(name, sizeof name, "/samples/eta_%.2f_context", sample_test_etas[e]);
        record_f32(env->rec, name, 4, dims, context);
        snprintf(name, sizeof name, "/samples/eta_%.2f_reassembled", sample_test_etas[e]);
        record_f32(env->rec, name, 4, dims, rebuilt);
    }
    record_f32(env->rec, "/samples/original", 4, dims, original);
    model_set_context(m, m->T);
    free(patches);
    free(original);
    free(context);
    free(rebuilt);
}

static void mp3_record_final(objective *o, objective_env *env, const eval_scores *last) {
    record_position_curve(o, env);
    record_samples(o, env);
}

static int mp3_train_keys(const objective *o) { return o->model->t0 + ((const mp3_state *)o->state)->context_patches; }

static const metric_info mp3_metrics[] = {
    {"pos_top1", "%", 100, 1, 0, NULL, 2, 2, 0, METRIC_SAMPLED},
    {"pos_top1_nonblank", "%", 100, 1, 0, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"pos_top1_eta0", "%", 100, 1, 0, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"pos_top1_nonblank_eta0", "%", 100, 1, 0, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"pos_err_near_eta0", "", 1, 0, 0, NULL, -1, 50, 0, METRIC_SAMPLED},
    {NULL},
};

// The crosscheck plan: every step's context tokens of each image, as mp3_train_forward draws
// them ("context" i32 (steps, B, M): cls first, then the sorted context patches as token indices;
// M = cls + round((1 - eta) N)), and config.mp3 = 1, eta, position_limit, label_smoothing.
static void mp3_plan(const objective_settings *s, const model *m, long steps, int steps_per_epoch, int B, tensorfile *tf) {
    int t0 = m->t0, Mp = mp3_context_patches(m->N, s->eta), M = t0 + Mp;
    int32_t *context = xmalloc((size_t)steps * B * M * sizeof(int32_t) + 1, "plan contexts");
    int *ctx = xmalloc((size_t)B * M * sizeof(int), "plan context");
    for (long step = 0; step < steps; step++) {
        int epoch = (int)(step / steps_per_epoch), in_epoch = (int)(step % steps_per_epoch);
        mp3_sample_context(ctx, B, m->N, t0, Mp, s->seed, (uint32_t)epoch, (uint32_t)in_epoch, 0);
        for (size_t k = 0; k < (size_t)B * M; k++) context[(size_t)step * B * M + k] = ctx[k];
    }
    int xdims[3] = {(int)steps, B, M};
    tf_add(tf, "context", TF_I32, 3, xdims, context);
    free(ctx), free(context);
    objective_plan_scalar(tf, "label_smoothing", s->label_smoothing);
    objective_plan_scalar(tf, "mp3", 1), objective_plan_scalar(tf, "eta", s->eta);
    objective_plan_scalar(tf, "position_limit", s->position_limit);
}

static const char *mp3_crosscheck_error(const objective_settings *s) {
    static char msg[160];
    if (s->ref_fraction <= 0) return NULL;
    snprintf(msg, sizeof msg, "objective.ref_fraction=%g: the PyTorch trainer has no MP3 reference points (use 0)", s->ref_fraction);
    return msg;
}

static const objective_crosscheck mp3_crosscheck = {
    .metrics = {"pos_top1_nonblank_eta0", "pos_top1_eta0", NULL}, .config_error = mp3_crosscheck_error, .plan = mp3_plan};

const objective_kind objective_mp3 = {
    .reference_tokens = 1,
    .one_size_why = "(it predicts one of the positions of the training grid)",
    .name = "mp3",
    .description = "masked position prediction pretraining",
    .metric_names = {"pos_top1", "pos_top1_nonblank"},
    .metrics = mp3_metrics,
    .crosscheck = &mp3_crosscheck,
    .progress = "epoch %d/%d  loss %.4f  test position top1 %.2f%% non-blank %.2f%%  (%.0f s)",
    .final_line = "final: pos_top1=%.2f%% pos_top1_nonblank=%.2f%% time=%.0fs\n",
    .config_error = mp3_objective_config_error,
    .configure_model = mp3_configure_model,
    .create = mp3_obj_create,
    .free = mp3_obj_free,
    .train_forward = mp3_train_forward,
    .train_forward_to = mp3_train_forward_to,
    .train_stage = mp3_train_stage,
    .train_backward = mp3_train_backward,
    .evaluate = mp3_evaluate,
    .sharded_eval = 1,
    .record_final = mp3_record_final,
    .train_keys = mp3_train_keys,
};
