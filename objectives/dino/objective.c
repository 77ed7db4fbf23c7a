// objectives/dino/objective.c — objective.name=dino: self-distillation with no labels (Caron et
// al. 2021; docs/dino.md; METHODS.md "Self-distillation: DINO"). The student is the trainer's
// model with DINO's head (head.h); the teacher is a second model of the same config on the
// same backend, set equal to the student at step 0 and afterwards an EMA of it (after every
// AdamW step, through backend ops: θ_t ← m·θ_t + (1 - m)·θ_s, m cosine from dino.momentum to
// 1), never trained. Each step draws DINO's multi-crop views of the raw images
// (datasets/views.h view_set_dino: 2 global crops at the training size, dino.local_crops local
// crops at dino.local_size); the teacher sees the 2 global crops, the student all of them.
// Loss: the mean over pairs (teacher view a, student view b ≠ a) of the cross entropy
// H(P_t(a), P_s(b)) averaged over the batch, P_s = softmax(g_s/τ_s), P_t = softmax((g_t - c)/τ_t)
// (dino_math.c); the centre c follows the teacher's batch mean after the loss; AdamW's weight
// decay follows a cosine from dino.weight_decay to dino.weight_decay_end; the prototypes'
// weights get no gradient during the first dino.freeze_last_layer epochs.
// Per group of same-size views (the 2 global, then the local ones two at a time) the student
// runs one forward and one backward, the parameter gradients accumulating: this is the exact
// gradient of the whole loss, because the loss is a sum over student views of terms that each
// depend on that view's outputs and on the teacher's outputs alone, and the teacher's outputs
// are fixed (computed first, no gradient through them), so ∂loss/∂θ_s = Σ_groups of the
// group's terms' gradient.
// Each evaluation (every epoch): the collapse diagnostics on fixed views (the test images at
// the training size, no augmentation, through both models): the teacher's mean entropy
// H(P_t) and KL(P_t ‖ P_s) (DINO §5.3), the /eval metrics and /final teacher_entropy,
// teacher_student_kl; the series /dino/teacher_entropy, /dino/teacher_student_kl and a collapse
// verdict (/final dino_collapsed) at the end. The trainer's kNN and linear probe read the
// student's backbone features ([CLS]).
#include "../objective.h"
#include "dino.h"
#include "head.h"
#include "ema.h"
#include "../../core/common.h"
#include "../../datasets/views.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIAG_COLS = 3 }; // a diagnostics row: steps taken, teacher entropy, KL(P_t ‖ P_s)

typedef struct {
    dino_settings cfg;
    model teacher;                 // same config, same backend; gradients never computed
    int teacher_made;
    dino_head sh, th;              // the student's and the teacher's head buffers
    view_set views;                // 2 global + cfg.local_crops local views
    int K;
    float *center;                 // (K) host
    float *t_logits, *q;           // (2B or eval rows, K) host: teacher logits, teacher probabilities
    float *dstudent;               // (max_batch, K) host: the loss's gradient for a group of student views
    float *ema_scaled;             // backend (params.total): (1 - m)·θ_s
    float *host_param;             // (params.total) host copy for checkpoints
    double *diag;                  // (diag_n, DIAG_COLS) one row per evaluation
    int diag_n, diag_cap;
    long steps_done;
} dino_state;

static const dino_settings *own(const objective_settings *s) { return OBJECTIVE_OWN(s, const dino_settings); }

static const char *dino_config_error(const objective_settings *s) {
    const dino_settings *d = own(s);
    static char msg[512];
    if (s->patch > 0 && d->local_crops > 0 && d->local_size % s->patch != 0) {
        snprintf(msg, sizeof msg, "dino.local_size=%d: local crops are cut into model.patch=%d patches, so their side "
                 "must be a multiple of it (valid: e.g. %d)", d->local_size, s->patch, s->patch * (d->local_size / s->patch > 0 ? d->local_size / s->patch : 1));
        return msg;
    }
    if (s->train_size > 0 && d->local_crops > 0 && d->local_size > s->train_size) {
        snprintf(msg, sizeof msg, "dino.local_size=%d: local crops are smaller than the global ones at the training size "
                 "%d px (valid: a multiple of model.patch up to %d)", d->local_size, s->train_size, s->train_size);
        return msg;
    }
    if (d->warmup_teacher_temp <= 0 || d->teacher_temp <= 0 || d->student_temp <= 0)
        return "dino.student_temp, dino.teacher_temp and dino.warmup_teacher_temp divide the logits (valid: > 0)";
    return NULL;
}

static void dino_configure_model(const objective_settings *s, model_config *mc) {
    const dino_settings *d = own(s);
    mc->request.token_head = 0;
    mc->num_classes = d->hidden_dim; // the classifier is the head's first Linear(d, hidden)
    mc->request.head_name = "dino_head.mlp0";
    mc->request.extension = &dino_head_extension;
    mc->request.head_bottleneck = d->bottleneck_dim;
    mc->request.head_prototypes = d->out_dim;
}

// Per image beyond the student's 2 global views (batch_factor 2): the teacher's forward of
// them, and the student's forward and backward (3 x forward) of each local crop.
static double dino_train_extra_flops(const objective_settings *s, const model_config *mc) {
    const dino_settings *d = own(s);
    model_config local = *mc;
    local.image_size = d->local_size;
    return 2.0 * model_forward_flops(mc) + 3.0 * d->local_crops * model_forward_flops(&local);
}

static void dino_obj_create(objective *o) {
    dino_state *st = xcalloc(1, sizeof *st, "dino objective");
    o->state = st;
    st->cfg = *own(&o->s);
    model *m = o->model;
    const dino_settings *d = &st->cfg;
    if (d->local_crops > 0) {
        const char *why = model_resolution_error(&m->cfg, d->local_size, "dino.local_size");
        if (why) die_input("%s", why);
    }
    model_create(&st->teacher, &m->cfg, o->ops, o->max_batch, o->s.seed);
    st->teacher_made = 1;
    st->K = d->out_dim;
    dino_head_init(&st->sh, m, o->max_batch);
    dino_head_init(&st->th, &st->teacher, o->max_batch);
    view_set_dino(&st->views, m->cfg.image_size, d->local_size > 0 ? d->local_size : m->cfg.image_size, d->local_crops);
    size_t K = (size_t)st->K, R = (size_t)o->max_batch, n = m->params.total;
    st->center = xcalloc(K, sizeof(float), "DINO centre");
    st->t_logits = xmalloc(R * K * sizeof(float), "DINO teacher logits");
    st->q = xmalloc(R * K * sizeof(float), "DINO teacher probabilities");
    st->dstudent = xmalloc(R * K * sizeof(float), "DINO student logit gradients");
    st->ema_scaled = o->ops->alloc(n * sizeof(float), "DINO EMA scratch");
    st->host_param = xmalloc(n * sizeof(float), "DINO teacher (host copy)");
}

static void dino_obj_free(objective *o) {
    dino_state *st = o->state;
    if (!st) return;
    dino_head_free(&st->sh);
    dino_head_free(&st->th);
    if (st->teacher_made) model_free(&st->teacher);
    if (st->ema_scaled) o->ops->free(st->ema_scaled);
    free(st->center), free(st->t_logits), free(st->q), free(st->dstudent), free(st->host_param), free(st->diag);
    free(st);
    o->state = NULL;
}

static int epoch_of(const objective *o, long step) {
    return o->s.steps_per_epoch > 0 ? (int)(step / o->s.steps_per_epoch) : 0;
}

static double teacher_temp(const dino_state *st, int epoch) {
    return dino_teacher_temp(st->cfg.warmup_teacher_temp, st->cfg.teacher_temp, st->cfg.teacher_temp_warmup, epoch);
}

// Views first .. first + n - 1 of the batch (the same size) into the staging input of m.
static void make_views(model *m, const dino_state *st, const objective_batch *bt, int first, int n) {
    int size = st->views.config[first].size;
    model_set_resolution(m, size);
    size_t per = (size_t)m->cfg.channels * size * size;
    for (int j = 0; j < n; j++)
        views_make_batch(bt->data, bt->indices, bt->B, &st->views, first + j, bt->rng.seed, bt->rng.epoch, bt->rng.step,
                         model_images(m) + (size_t)j * bt->B * per, NULL);
}

// One student group: forward of views first .. first + n - 1 (staged), its loss terms against
// the teacher's 2 global views and their gradient (times 1/pairs), backward. Returns the terms' sum.
static double student_group(objective *o, const objective_batch *bt, int first, int n, double tau_s, double scale) {
    dino_state *st = o->state;
    model *m = o->model;
    int B = bt->B, R = n * B;
    rng_addr rng = bt->rng; // the group's drop-path (and CAPE) draws: its own epoch slot, (first/2) << 24 above the epoch
    rng.epoch += (uint32_t)(first / 2) << 24;
    const float *a0 = model_forward(m, R, 1, rng);
    const float *out = dino_head_forward(&st->sh, a0, R);
    double terms = dino_loss_group(st->q, 2, out, first, n, B, st->K, tau_s, scale, st->dstudent);
    model_zero_act_grads_batch(m, R);
    dino_head_backward(&st->sh, st->dstudent, R);
    return terms;
}

static double dino_train_views(objective *o, const objective_batch *bt) {
    dino_state *st = o->state;
    model *m = o->model, *t = &st->teacher;
    const dino_settings *d = &st->cfg;
    int B = bt->B, K = st->K, V = 2 + d->local_crops, global = st->views.config[0].size; // the model's training size
    long step = (long)bt->rng.epoch * o->s.steps_per_epoch + bt->rng.step;
    if (step == 0) o->ops->copy(t->param, m->param, m->params.total * sizeof(float)); // teacher = student at the start
    dino_head_weights(&st->sh);
    dino_head_weights(&st->th);
    double tau_t = teacher_temp(st, (int)bt->rng.epoch), tau_s = d->student_temp, scale = 1.0 / dino_pairs(2, V);
    // the teacher on the 2 global crops (no gradient, no drop path)
    make_views(t, st, bt, 0, 2);
    const float *ta0 = model_forward(t, 2 * B, 0, bt->rng);
    memcpy(st->t_logits, dino_head_forward(&st->th, ta0, 2 * B), (size_t)2 * B * K * sizeof(float));
    dino_teacher_probs(st->q, st->t_logits, st->center, 2 * B, K, tau_t);
    // the student: the global group (the teacher's images), then the local crops two views at a time
    model_set_resolution(m, global);
    memcpy(model_images(m), model_images(t), (size_t)2 * B * m->cfg.channels * global * global * sizeof(float));
    dino_head_zero_dW(&st->sh);
    double loss = student_group(o, bt, 0, 2, tau_s, scale);
    for (int first = 2; first < V; first += 2) {
        int n = V - first < 2 ? V - first : 2;
        make_views(m, st, bt, first, n);
        loss += student_group(o, bt, first, n, tau_s, scale);
    }
    model_set_resolution(m, global);
    dino_head_finish_dW(&st->sh, (int)bt->rng.epoch < d->freeze_last_layer);
    dino_center_update(st->center, st->t_logits, 2 * B, K, d->center_momentum); // after the loss
    return loss * scale;
}

static double dino_weight_decay_at(const objective *o, long step) {
    const dino_settings *d = own(&o->s);
    return dino_cosine(d->weight_decay, d->weight_decay_end, step, o->s.total_steps);
}

// θ_t ← m·θ_t + (1 - m)·θ_s over the whole arena (its padding stays 0): ema.h.
static void dino_after_step(objective *o, long step) {
    dino_state *st = o->state;
    model *s = o->model, *t = &st->teacher;
    double mom = dino_cosine(st->cfg.momentum, 1.0, step, o->s.total_steps);
    size_t n = s->params.total;
    dino_ema(o->ops, t->param, s->param, st->ema_scaled, n, mom);
    st->steps_done = step + 1;
}

// The collapse diagnostics on the test images at the training size (fixed views).
static eval_scores dino_evaluate(objective *o, objective_env *env) {
    dino_state *st = o->state;
    model *m = o->model, *t = &st->teacher;
    int K = st->K, n = env->test_n, chunk = env->eval_batch < o->max_batch ? env->eval_batch : o->max_batch;
    int size = o->s.train_size;
    double tau_t = teacher_temp(st, st->steps_done > 0 ? epoch_of(o, st->steps_done - 1) : 0);
    double H = 0.0, D = 0.0;
    dino_head_weights(&st->sh);
    dino_head_weights(&st->th);
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        env->load_test(env, start, B, size);
        model_set_resolution(t, size);
        memcpy(model_images(t), model_images(m), (size_t)B * model_input_floats(m) * sizeof(float));
        rng_addr rng = {.seed = o->s.seed, .index = (uint32_t)start};
        memcpy(st->t_logits, dino_head_forward(&st->th, model_forward(t, B, 0, rng), B), (size_t)B * K * sizeof(float));
        dino_teacher_probs(st->q, st->t_logits, st->center, B, K, tau_t);
        const float *out = dino_head_forward(&st->sh, model_forward(m, B, 0, rng), B);
        double h, kl;
        dino_diagnostics(st->q, out, B, K, st->cfg.student_temp, &h, &kl);
        H += h * B, D += kl * B;
    }
    double entropy = H / n, kl = D / n;
    if (st->diag_n == 0 || st->diag[(size_t)(st->diag_n - 1) * DIAG_COLS] != (double)st->steps_done) {
        if (st->diag_n == st->diag_cap) {
            st->diag_cap = st->diag_cap ? 2 * st->diag_cap : 16;
            st->diag = xrealloc(st->diag, (size_t)st->diag_cap * DIAG_COLS * sizeof(double), "DINO diagnostics");
        }
        double *row = st->diag + (size_t)st->diag_n++ * DIAG_COLS;
        row[0] = (double)st->steps_done, row[1] = entropy, row[2] = kl;
    }
    return (eval_scores){{entropy, kl}, entropy + kl}; // loss: H(P_t, P_s) = H(P_t) + KL
}

static void dino_record_final(objective *o, objective_env *env, const eval_scores *last) {
    dino_state *st = o->state;
    int n = st->diag_n, dims[1] = {n};
    float *series = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(float), "DINO diagnostics series");
    const char *paths[3] = {"/dino/steps", "/dino/teacher_entropy", "/dino/teacher_student_kl"};
    for (int c = 0; c < DIAG_COLS && n > 0; c++) {
        for (int i = 0; i < n; i++) series[i] = (float)st->diag[(size_t)i * DIAG_COLS + c];
        record_f32(env->rec, paths[c], 1, dims, series);
    }
    free(series);
    int kind = dino_collapse_kind(last->metric[0], last->metric[1], st->K);
    record_int(env->rec, "/dino", "collapse", kind); // 0 none, 1 one dimension dominates, 2 uniform
    record_double(env->rec, "/dino", "log_k", log((double)st->K));
    record_int(env->rec, "/dino", "out_dim", st->K);
    record_int(env->rec, "/dino", "local_crops", st->cfg.local_crops);
    record_int(env->rec, "/final", "dino_collapsed", kind != 0);
    if (kind) printf("dino: the run collapsed (%s): teacher entropy %.4g of log K = %.4g, KL(P_t || P_s) %.4g\n",
                     kind == 1 ? "one dimension dominates" : "uniform output", last->metric[0], log((double)st->K), last->metric[1]);
}

static void dino_checkpoint_add(objective *o, tensorfile *tf) {
    dino_state *st = o->state;
    size_t n = st->teacher.params.total;
    o->ops->download(st->host_param, st->teacher.param, n * sizeof(float));
    tf_add_f32(tf, "dino.teacher", st->host_param, n);
    tf_add_f32(tf, "dino.center", st->center, (size_t)st->K);
    int dims[2] = {st->diag_n, DIAG_COLS};
    tf_add(tf, "dino.diagnostics", TF_F64, 2, dims, st->diag_n ? (const void *)st->diag : (const void *)"");
    // The schedules (momentum, weight decay, teacher temperature, last-layer freeze) are
    // functions of the step alone, which the checkpoint's state.step holds.
}

static const char *dino_checkpoint_restore(objective *o, const tensorfile *tf) {
    dino_state *st = o->state;
    static char msg[256];
    size_t n = st->teacher.params.total;
    const tf_entry *t = tf_find(tf, "dino.teacher"), *c = tf_find(tf, "dino.center"), *d = tf_find(tf, "dino.diagnostics");
    if (!t || t->dtype != TF_F32 || t->count != n || !c || c->dtype != TF_F32 || c->count != (size_t)st->K || !d ||
        d->dtype != TF_F64 || d->ndim != 2 || d->dims[1] != DIAG_COLS) {
        snprintf(msg, sizeof msg, "entries dino.teacher (%zu floats), dino.center (%d) or dino.diagnostics are missing or "
                 "have the wrong size", n, st->K);
        return msg;
    }
    const float *tv = t->data, *cv = c->data;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(tv[i])) return "entry dino.teacher holds a value that is not finite";
    for (int k = 0; k < st->K; k++)
        if (!isfinite(cv[k])) return "entry dino.center holds a value that is not finite";
    o->ops->upload(st->teacher.param, tv, n * sizeof(float));
    memcpy(st->center, cv, (size_t)st->K * sizeof(float));
    st->diag_n = st->diag_cap = d->dims[0];
    free(st->diag);
    st->diag = xmalloc((size_t)(st->diag_n > 0 ? st->diag_n : 1) * DIAG_COLS * sizeof(double), "DINO diagnostics");
    if (st->diag_n) memcpy(st->diag, d->data, (size_t)st->diag_n * DIAG_COLS * sizeof(double));
    if (st->diag_cap < 1) st->diag_cap = 1;
    st->steps_done = st->diag_n ? (long)st->diag[(size_t)(st->diag_n - 1) * DIAG_COLS] : 0;
    return NULL;
}

static int dino_train_keys(const objective *o) { return o->model->T; }

static const metric_info dino_metrics[] = {
    {"teacher_entropy", "nats", 1, 0, 0, "teacher entropy (nats)", 3, 40, 0, METRIC_SAMPLED},
    {"teacher_student_kl", "nats", 1, 0, 0, "KL(P_t||P_s) (nats)", 3, 41, 0, METRIC_SAMPLED},
    {"dino_collapsed", "", 1, -1, 0, "collapsed", 0, 42, 1, METRIC_SAMPLED},
    {NULL},
};

static const cfg_key dino_keys[] = {
    {"dino.hidden_dim", CFG_INT, "512", 1, 65536, NULL, 1, "DINO: hidden width of the head's 3-layer MLP (the paper: 2048)"},
    {"dino.bottleneck_dim", CFG_INT, "256", 1, 65536, NULL, 1, "DINO: the head's bottleneck before L2 normalisation (the paper: 256)"},
    {"dino.out_dim", CFG_INT, "4096", 2, 1048576, NULL, 1, "DINO: prototypes K of the weight-normalised last layer (the paper: 65536 on ImageNet)"},
    {"dino.local_crops", CFG_INT, "6", 0, 14, NULL, 1, "DINO: local crops per image (scale 0.05-0.4, seen by the student only)"},
    {"dino.local_size", CFG_INT, "12", 1, 4096, NULL, 1, "DINO: side of the local crops in px (a multiple of model.patch, at most the training size; 96 of 224 in the paper)"},
    {"dino.freeze_last_layer", CFG_INT, "1", 0, 1000000, NULL, 1, "DINO: epochs during which the prototypes' weights get no gradient"},
    {"dino.momentum", CFG_FLOAT, "0.996", 0, 1, NULL, 1, "DINO: the teacher's EMA momentum at step 0, cosine to 1 at the end"},
    {"dino.student_temp", CFG_FLOAT, "0.1", 1e-6, 100, NULL, 1, "DINO: student temperature tau_s"},
    {"dino.teacher_temp", CFG_FLOAT, "0.07", 1e-6, 100, NULL, 1, "DINO: teacher temperature tau_t after the warmup"},
    {"dino.warmup_teacher_temp", CFG_FLOAT, "0.04", 1e-6, 100, NULL, 1, "DINO: teacher temperature at epoch 1, linear to dino.teacher_temp"},
    {"dino.teacher_temp_warmup", CFG_INT, "30", 0, 1000000, NULL, 1, "DINO: epochs of the teacher temperature warmup (numpy linspace over them)"},
    {"dino.center_momentum", CFG_FLOAT, "0.9", 0, 1, NULL, 1, "DINO: centre EMA momentum (0: the centre is the last batch's mean; 1: never updated, no centring)"},
    {"dino.weight_decay", CFG_FLOAT, "0.04", 0, 10, NULL, 1, "DINO: AdamW weight decay at step 0, cosine to dino.weight_decay_end (replaces train.weight_decay)"},
    {"dino.weight_decay_end", CFG_FLOAT, "0.4", 0, 10, NULL, 1, "DINO: AdamW weight decay at the end"},
    {NULL},
};

static void dino_read_settings(const key_reader *r, void *own_bytes) {
    _Static_assert(sizeof(dino_settings) <= OBJECTIVE_OWN_BYTES, "raise OBJECTIVE_OWN_BYTES (objective.h)");
    dino_settings *d = own_bytes;
    d->hidden_dim = (int)key_int(r, "dino.hidden_dim");
    d->bottleneck_dim = (int)key_int(r, "dino.bottleneck_dim");
    d->out_dim = (int)key_int(r, "dino.out_dim");
    d->local_crops = (int)key_int(r, "dino.local_crops");
    d->local_size = (int)key_int(r, "dino.local_size");
    d->freeze_last_layer = (int)key_int(r, "dino.freeze_last_layer");
    d->teacher_temp_warmup = (int)key_int(r, "dino.teacher_temp_warmup");
    d->momentum = (float)key_float(r, "dino.momentum");
    d->student_temp = (float)key_float(r, "dino.student_temp");
    d->teacher_temp = (float)key_float(r, "dino.teacher_temp");
    d->warmup_teacher_temp = (float)key_float(r, "dino.warmup_teacher_temp");
    d->center_momentum = (float)key_float(r, "dino.center_momentum");
    d->weight_decay = (float)key_float(r, "dino.weight_decay");
    d->weight_decay_end = (float)key_float(r, "dino.weight_decay_end");
}

const objective_kind objective_dino = {
    .images_only = 1,
    .one_size_why = "(it sets its own view sizes: data.resolution for the global crops, dino.local_size for the local ones)",
    .name = "dino",
    .description = "self-distillation pretraining: multi-crop views, a student and its EMA teacher, centred cross-entropy; dino.* keys",
    .metric_names = {"teacher_entropy", "teacher_student_kl"},
    .metrics = dino_metrics,
    .keys = dino_keys,
    .read_settings = dino_read_settings,
    .progress = "epoch %d/%d  loss %.4f  teacher entropy %.4f nats, KL(P_t||P_s) %.4f nats  (%.0f s)",
    .final_line = "final: teacher_entropy=%.4f teacher_student_kl=%.4f time=%.0fs\n",
    .config_error = dino_config_error,
    .configure_model = dino_configure_model,
    .create = dino_obj_create,
    .free = dino_obj_free,
    .train_views = dino_train_views,
    .batch_factor = 2,
    .train_extra_flops = dino_train_extra_flops,
    .weight_decay_at = dino_weight_decay_at,
    .after_step = dino_after_step,
    .checkpoint_add = dino_checkpoint_add,
    .checkpoint_restore = dino_checkpoint_restore,
    .evaluate = dino_evaluate,
    .record_final = dino_record_final,
    .train_keys = dino_train_keys,
};
