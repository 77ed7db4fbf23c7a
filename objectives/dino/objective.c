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
// The step runs on the backend (core/ops_list.h: unit_rows_*, dino_teacher_probs,
// dino_loss_group, dino_center_update, ema_update): nothing comes back to the host inside it.
// Its per-step values (τ_t by epoch, the EMA momentum, the prototypes' freeze gate) are
// uploaded into backend memory before the step with its views (train_stage_views), and the step
// 0 teacher := student copy is issued there too; the loss's mean stays on the backend
// (train_forward_to), the students' groups and their backward run in train_backward, the EMA
// after AdamW in train_after_update. train.graph=off runs the same ops (train_views, after_step)
// and reads the loss once. train.graph=on replays the step as a CUDA graph, local crops too:
// every view is drawn before the step (the global ones into the staging inputs, the local ones
// into backend memory, local_views, which each group's forward copies: model_images_from); the
// student's switch to dino.local_size and back restores each size's grid tables by a backend
// copy (model_keep_resolution); each group's drop path draws in its own epoch slot of the step's
// address, which the RNG clock keeps (RNG_EPOCH_SLOT_MASK).
// Each evaluation (every epoch): the collapse diagnostics on fixed views (the test images at
// the training size, no augmentation, through both models): the teacher's mean entropy
// H(P_t) and KL(P_t ‖ P_s) (DINO §5.3), the /eval metrics and /final teacher_entropy,
// teacher_student_kl; the series /dino/teacher_entropy, /dino/teacher_student_kl and a collapse
// verdict (/final dino_collapsed) at the end. The trainer's kNN and linear probe read the
// student's backbone features ([CLS]).
#include "../objective.h"
#include "dino.h"
#include "head.h"
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
    float *center;                 // backend (K)
    float *q;                      // backend (2B or eval rows, K): teacher probabilities
    double *loss_sum;              // backend (2): the step's Σ of terms, and its mean over pairs (dino_loss_group)
    double *loss_mean;             // backend (1): train_views' loss, read once per step
    double *tau, *eval_tau;        // backend (1): τ_t of the step, of an evaluation
    float *ema_coef, *gate;        // backend (2): EMA (m, 1 - m) of the step; freeze gate (1, 0 or 1)
    double *loss_out;              // the step's loss (train_forward_to's; backend)
    float *local_host;             // pinned host (local_crops, max_batch, C, S_l, S_l): the step's local crops
    float *local_views;            // backend, the same: uploaded before the step, read by its groups
    size_t local_floats;           // floats of one local view of one image (C·S_l·S_l)
    rng_addr rng;                  // the step's RNG address (train_forward_to)
    float *center_host, *q_host, *s_host; // host (K), (max_batch, K) x 2: checkpoints, diagnostics
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
    const ops_backend *ops = o->ops;
    if (d->local_crops > 0) { // every local crop of a step, staged before it
        st->local_floats = (size_t)m->cfg.channels * d->local_size * d->local_size;
        size_t bytes = (size_t)d->local_crops * R * st->local_floats * sizeof(float);
        st->local_host = xmalloc_pages(bytes, "DINO local crops (host staging)");
        ops->pin_host(st->local_host, bytes); // page-locked: uploaded asynchronously before the step
        st->local_views = ops->alloc(bytes, "DINO local crops");
        model_keep_resolution(m, d->local_size); // the grid tables of both sizes, restored by a backend copy
        model_keep_resolution(m, m->cfg.image_size);
    }
    st->center = ops->alloc(K * sizeof(float), "DINO centre");
    st->q = ops->alloc(R * K * sizeof(float), "DINO teacher probabilities");
    st->loss_sum = ops->alloc(2 * sizeof(double), "DINO loss sum");
    st->loss_mean = ops->alloc(sizeof(double), "DINO loss");
    st->tau = ops->alloc(sizeof(double), "DINO teacher temperature");
    st->eval_tau = ops->alloc(sizeof(double), "DINO teacher temperature (evaluation)");
    st->ema_coef = ops->alloc(2 * sizeof(float), "DINO EMA coefficients");
    st->gate = ops->alloc(2 * sizeof(float), "DINO prototype freeze gate");
    st->center_host = xmalloc(K * sizeof(float), "DINO centre (host)");
    st->q_host = xmalloc(R * K * sizeof(float), "DINO teacher probabilities (host)");
    st->s_host = xmalloc(R * K * sizeof(float), "DINO student logits (host)");
    st->host_param = xmalloc(n * sizeof(float), "DINO teacher (host copy)");
}

static void dino_obj_free(objective *o) {
    dino_state *st = o->state;
    if (!st) return;
    dino_head_free(&st->sh);
    dino_head_free(&st->th);
    if (st->teacher_made) model_free(&st->teacher);
    void *dev[] = {st->center, st->q, st->loss_sum, st->loss_mean, st->tau, st->eval_tau, st->ema_coef, st->gate,
                   st->local_views};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) o->ops->free(dev[i]); // NULL is fine
    if (st->local_host) o->ops->unpin_host(st->local_host);
    free(st->local_host), free(st->center_host), free(st->q_host), free(st->s_host), free(st->host_param), free(st->diag);
    free(st);
    o->state = NULL;
}

static int epoch_of(const objective *o, long step) {
    return o->s.steps_per_epoch > 0 ? (int)(step / o->s.steps_per_epoch) : 0;
}

static double teacher_temp(const dino_state *st, int epoch) {
    return dino_teacher_temp(st->cfg.warmup_teacher_temp, st->cfg.teacher_temp, st->cfg.teacher_temp_warmup, epoch);
}

// Views first .. first + n - 1 of the batch (the same size, `per` floats each per image) into
// dst (n, B, per).
static void draw_views(const dino_state *st, const objective_batch *bt, int first, int n, size_t per, float *dst) {
    for (int j = 0; j < n; j++)
        views_make_batch(bt->data, bt->indices, bt->B, &st->views, first + j, bt->rng.seed, bt->rng.epoch, bt->rng.step,
                         dst + (size_t)j * bt->B * per, NULL);
}

// The step's per-step values into backend memory (τ_t of its epoch, the EMA momentum of AdamW
// step `step`, the prototypes' freeze gate) and, at step 0, teacher := student: issued before
// the step (a replay reads them at the addresses it captured).
static void stage_step_values(objective *o, uint32_t epoch, long step) {
    dino_state *st = o->state;
    const ops_backend *ops = o->ops;
    const dino_settings *d = &st->cfg;
    model *m = o->model, *t = &st->teacher;
    if (step == 0) ops->copy(t->param, m->param, m->params.total * sizeof(float)); // teacher = student at the start
    double tau_t = teacher_temp(st, (int)epoch), mom = dino_cosine(d->momentum, 1.0, step, o->s.total_steps);
    float coef[2] = {(float)mom, (float)(1.0 - mom)}, gate[2] = {1.0f, (int)epoch < d->freeze_last_layer ? 0.0f : 1.0f};
    ops->upload(st->tau, &tau_t, sizeof tau_t);
    ops->upload(st->ema_coef, coef, sizeof coef);
    ops->upload(st->gate, gate, sizeof gate);
    st->steps_done = step + 1;
}

// The step's values and all its views of the batch, before every step (train_stage_views): the 2
// global ones into the teacher's staging input and the same into the student's, the local crops
// (views 2 .. V - 1) into local_views, from which the step's groups copy them.
static void dino_train_stage_views(objective *o, const objective_batch *bt) {
    dino_state *st = o->state;
    model *m = o->model, *t = &st->teacher;
    stage_step_values(o, bt->rng.epoch, (long)bt->rng.epoch * o->s.steps_per_epoch + bt->rng.step);
    int global = st->views.config[0].size; // the model's training size
    size_t per = (size_t)m->cfg.channels * global * global;
    model_set_resolution(t, global);
    model_set_resolution(m, global);
    draw_views(st, bt, 0, 2, per, model_images(t)); // model_images waits until the last uploads read the staging
    memcpy(model_images(m), model_images(t), (size_t)2 * bt->B * per * sizeof(float));
    int locals = st->cfg.local_crops;
    if (locals > 0) {
        draw_views(st, bt, 2, locals, st->local_floats, st->local_host);
        o->ops->upload(st->local_views, st->local_host, (size_t)locals * bt->B * st->local_floats * sizeof(float));
    }
}

// The teacher on the 2 global views (no gradient, no drop path) and its probabilities q; both
// heads' prototypes normalised from the current parameters; the step's loss is written to
// `loss` (backend) by train_backward. The teacher's is the step's first forward: it records the
// upload timing mark armed on the student (posbench bench --breakdown), so the forward phase is
// the teacher's and the students' groups (forwards and backwards) fall in the backward phase.
static void dino_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    (void)labels;
    dino_state *st = o->state;
    model *t = &st->teacher;
    st->loss_out = loss, st->rng = rng;
    t->upload_mark = o->model->upload_mark, o->model->upload_mark = 0; // the step's first forward: bench --breakdown's mark
    o->ops->zero((float *)st->loss_sum, 2 * sizeof(double) / sizeof(float));
    dino_head_weights(&st->sh);
    dino_head_weights(&st->th);
    const float *ta0 = model_forward(t, 2 * B, 0, rng);
    o->ops->dino_teacher_probs(st->q, dino_head_forward(&st->th, ta0, 2 * B), st->center, 2 * B, st->K, st->tau);
}

// One student group: forward of views first .. first + n - 1 (staged), its loss terms against
// the teacher's 2 global views added to loss_sum and their gradient (times 1/pairs), backward.
static void student_group(objective *o, int B, int first, int n) {
    dino_state *st = o->state;
    model *m = o->model;
    int R = n * B, V = 2 + st->cfg.local_crops;
    rng_addr rng = st->rng; // the group's drop-path (and CAPE) draws: its own epoch slot (RNG_EPOCH_SLOT_MASK),
    rng.epoch += (uint32_t)(first / 2) << 24; // which the step's RNG clock keeps
    const float *out = dino_head_forward(&st->sh, model_forward(m, R, 1, rng), R);
    o->ops->dino_loss_group(st->loss_sum, st->sh.dout, st->q, 2, out, first, n, B, st->K, st->cfg.student_temp,
                            1.0 / dino_pairs(2, V));
    model_zero_act_grads_batch(m, R);
    dino_head_backward(&st->sh, R);
}

// The students: the global group (the teacher's images), then the local crops two views at a
// time (copied from local_views at dino.local_size); the prototypes' gradient, the centre after the loss, and
// the loss (the mean over pairs) into train_forward_to's `loss`.
static void dino_train_backward(objective *o, int B) {
    dino_state *st = o->state;
    model *m = o->model;
    int V = 2 + st->cfg.local_crops, global = st->views.config[0].size;
    dino_head_zero_dW(&st->sh);
    model_set_resolution(m, global);
    student_group(o, B, 0, 2);
    for (int first = 2; first < V; first += 2) {
        int n = V - first < 2 ? V - first : 2;
        model_set_resolution(m, st->views.config[first].size); // a kept size: its tables restored by a backend copy
        model_images_from(m, st->local_views + (size_t)(first - 2) * B * st->local_floats);
        student_group(o, B, first, n);
    }
    model_set_resolution(m, global);
    dino_head_finish_dW(&st->sh, st->gate);
    o->ops->dino_center_update(st->center, st->th.out, 2 * B, st->K, st->cfg.center_momentum); // after the loss
    o->ops->copy(st->loss_out, st->loss_sum + 1, sizeof(double));
}

// train.graph=off: the same ops, the loss read once.
static double dino_train_views(objective *o, const objective_batch *bt) {
    dino_state *st = o->state;
    double loss;
    dino_train_stage_views(o, bt);
    dino_train_forward_to(o, bt->B, NULL, bt->rng, st->loss_mean);
    dino_train_backward(o, bt->B);
    o->ops->download(&loss, st->loss_mean, sizeof loss);
    return loss;
}

static double dino_weight_decay_at(const objective *o, long step) {
    const dino_settings *d = own(&o->s);
    return dino_cosine(d->weight_decay, d->weight_decay_end, step, o->s.total_steps);
}

// θ_t ← m·θ_t + (1 - m)·θ_s over the whole arena (its padding stays 0), m staged with the step;
// skip: the step's STEP_SKIP (the step without host reads), NULL after an AdamW step taken.
static void teacher_ema(objective *o, const float *skip) {
    dino_state *st = o->state;
    o->ops->ema_update(st->teacher.param, o->model->param, o->model->params.total, st->ema_coef, skip);
}

static void dino_after_step(objective *o, long step) {
    (void)step; // its momentum was staged with the step (stage_step_values)
    teacher_ema(o, NULL);
}

static void dino_train_after_update(objective *o, const float *scalars) { teacher_ema(o, scalars + STEP_SKIP); }

// The collapse diagnostics on the test images at the training size (fixed views).
static eval_scores dino_evaluate(objective *o, objective_env *env) {
    dino_state *st = o->state;
    model *m = o->model, *t = &st->teacher;
    int K = st->K, n = env->test_n, chunk = env->eval_batch < o->max_batch ? env->eval_batch : o->max_batch;
    int size = o->s.train_size;
    double tau_t = teacher_temp(st, st->steps_done > 0 ? epoch_of(o, st->steps_done - 1) : 0);
    double H = 0.0, D = 0.0;
    o->ops->upload(st->eval_tau, &tau_t, sizeof tau_t);
    dino_head_weights(&st->sh);
    dino_head_weights(&st->th);
    for (int start = 0; start < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk;
        env->load_test(env, start, B, size);
        model_set_resolution(t, size);
        memcpy(model_images(t), model_images(m), (size_t)B * model_input_floats(m) * sizeof(float));
        rng_addr rng = {.seed = o->s.seed, .index = (uint32_t)start};
        const float *t_logits = dino_head_forward(&st->th, model_forward(t, B, 0, rng), B);
        o->ops->dino_teacher_probs(st->q, t_logits, st->center, B, K, st->eval_tau);
        const float *out = dino_head_forward(&st->sh, model_forward(m, B, 0, rng), B);
        o->ops->download(st->q_host, st->q, (size_t)B * K * sizeof(float));
        o->ops->download(st->s_host, out, (size_t)B * K * sizeof(float));
        double h, kl;
        dino_diagnostics(st->q_host, st->s_host, B, K, st->cfg.student_temp, &h, &kl);
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
    o->ops->download(st->center_host, st->center, (size_t)st->K * sizeof(float));
    tf_add_f32(tf, "dino.center", st->center_host, (size_t)st->K);
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
    o->ops->upload(st->center, cv, (size_t)st->K * sizeof(float));
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
    .train_stage_views = dino_train_stage_views,
    .train_forward_to = dino_train_forward_to,
    .train_backward = dino_train_backward,
    .train_after_update = dino_train_after_update,
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
