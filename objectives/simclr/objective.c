// objectives/simclr/objective.c — objective.name=simclr (docs/methods.md "Contrastive: SimCLR";
// the lecture's NT-Xent): each training image gives two views (datasets/views.h, SimCLR's
// preset at the training size, colour strength simclr.color_strength), drawn by the objective
// itself through the trainer's own-views hook (objective_kind.train_views) at (seed, RNG_VIEWS,
// epoch, step, image), so a resumed run draws the same. The 2B views go through the backbone in
// one forward; the feature f is the cls token (simclr.pool=cls) or the mean of the patch tokens
// (simclr.pool=mean, a model without cls); the projection head g (projection.h) gives z =
// W2 ReLU(W1 f + b1) + b2; NT-Xent (the ntxent ops, core/ops_list.h) over the 2B z: cosine
// similarity, temperature simclr.temperature, the mean over all 2B anchors of
// -log exp(sim(z_i, z_pos(i))/tau) / Σ_{k != i} exp(sim(z_i, z_k)/tau). View 1 of image b is
// row B + b, the positive of view 0 (row b).
// Each epoch: the same loss on fixed views of the test set (cut into chunks of train.batch
// images, each chunk's 2C views their own NT-Xent, views drawn at (seed, RNG_VIEWS, EVAL_DRAW,
// chunk start, image)) and the contrastive top-1: how often the positive is the most similar of
// the other 2C - 1 views. The backbone feature (not z) is what the kNN and linear probes read
// (eval.knn, eval.linear_probe). Refused with train.accumulate > 1 and several ranks (the loss
// couples the whole batch; bench/train/train_step.c).
// train.graph=on: the step runs without host reads and replays (bench/train/step_device.h): the
// views are drawn on the host into the pinned staging input before each step
// (train_stage_views), the loss's mean stays on the backend (train_forward_to), and the backward
// is the one train_views runs (train_backward), so the step is bitwise the step of train_views.
#include "../objective.h"
#include "simclr.h"
#include "projection.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_DRAW 0xE0000000u // RNG epoch slot of the evaluation views

typedef struct {
    view_set set;              // two SimCLR views at the training size
    int P, Nmax;               // projection width, the most views of a forward (max_batch)
    float *losses, *zn, *probs; // backend (Nmax), (Nmax, P), (Nmax, Nmax)
    int *nearest, *nearest_host; // backend, host (Nmax): argmax of each anchor's similarities
    int *index;                // host (max_batch) test image indices
    const float *z;            // the last forward's projections (N, P), backend
} simclr_state;

static const char *simclr_config_error(const objective_settings *s) {
    const simclr_settings *own = OBJECTIVE_OWN(s, const simclr_settings);
    if (own->pool == SIMCLR_POOL_CLS && !s->cls)
        return "simclr.pool=cls takes the cls token as the backbone feature, and model.cls=false has none (valid: "
               "model.cls=true, or simclr.pool=mean with model.cls=false)";
    if (own->pool == SIMCLR_POOL_MEAN && s->cls)
        return "simclr.pool=mean takes the mean of the patch tokens, the model's feature without a cls token; "
               "model.cls=true would pool the cls token (valid: simclr.pool=mean with model.cls=false, or simclr.pool=cls)";
    if (s->batch == 1)
        return "train.batch=1: NT-Xent contrasts each view with the other images' views of the batch (valid with "
               "objective.name=simclr: train.batch >= 2)";
    return NULL;
}

// The classifier head is g's first Linear (H = hidden_dim outputs on the cls or mean feature);
// the extension adds the ReLU and the second Linear.
static void simclr_configure_model(const objective_settings *s, model_config *mc) {
    const simclr_settings *own = OBJECTIVE_OWN(s, const simclr_settings);
    mc->request.head_name = "proj.0";
    mc->num_classes = own->hidden_dim;
    mc->request.proj_outputs = own->proj_dim;
    mc->request.extension = &simclr_projection_extension;
}

static void simclr_obj_create(objective *o) {
    const simclr_settings *own = OBJECTIVE_OWN(&o->s, const simclr_settings);
    simclr_state *st = xcalloc(1, sizeof *st, "SimCLR objective");
    const ops_backend *ops = o->ops;
    view_set_simclr(&st->set, o->model->cfg.image_size, (float)own->color_strength);
    st->P = own->proj_dim, st->Nmax = o->max_batch;
    size_t N = (size_t)st->Nmax;
    st->losses = ops->alloc(N * sizeof(float), "NT-Xent per-view losses");
    st->zn = ops->alloc(N * st->P * sizeof(float), "NT-Xent normalised projections");
    st->probs = ops->alloc(N * N * sizeof(float), "NT-Xent similarity softmax");
    st->nearest = ops->alloc(N * sizeof(int), "NT-Xent nearest views");
    st->nearest_host = xmalloc(N * sizeof(int), "NT-Xent nearest views (host)");
    st->index = xmalloc(N * sizeof(int), "SimCLR test indices");
    o->state = st;
}

static void simclr_obj_free(objective *o) {
    simclr_state *st = o->state;
    if (!st) return;
    const ops_backend *ops = o->ops;
    ops->free(st->losses), ops->free(st->zn), ops->free(st->probs), ops->free(st->nearest);
    free(st->nearest_host), free(st->index);
    free(st);
}

static double temperature(const objective *o) { return OBJECTIVE_OWN(&o->s, const simclr_settings)->temperature; }

// The 2B staged views through the backbone and g; NT-Xent per view into st->losses (2B).
static void forward_losses(objective *o, int B, int training, rng_addr rng) {
    simclr_state *st = o->state;
    model *m = o->model;
    int N = 2 * B;
    model_forward(m, N, training, rng);
    st->z = simclr_projection_forward(m, N); // (2B, P)
    o->ops->ntxent_forward(st->losses, st->zn, st->probs, st->z, N, st->P, (float)temperature(o));
}

// forward_losses and their mean, read on the host.
static double forward_loss(objective *o, int B, int training, rng_addr rng) {
    forward_losses(o, B, training, rng);
    return o->ops->sum(((simclr_state *)o->state)->losses, (size_t)(2 * B)) / (2 * B);
}

// The step's two views per image into the staging input (2B images); the model's staging waits
// for the previous step's uploads before it is written (model_images).
static void simclr_train_stage_views(objective *o, const objective_batch *batch) {
    simclr_stage_views(o->model, batch->data, batch->indices, batch->B, &((simclr_state *)o->state)->set,
                       batch->rng.seed, batch->rng.epoch, batch->rng.step);
}

// The step without host reads (train.graph=on): the staged views' mean loss written to `loss`
// (ops->sum_to: the same sum and division as forward_loss), nothing drawn here.
static void simclr_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    (void)labels;
    forward_losses(o, B, 1, rng);
    o->ops->sum_to(loss, ((simclr_state *)o->state)->losses, (size_t)(2 * B), (double)(2 * B));
}

// NT-Xent's gradient (the mean over the 2B views) through g and the backbone; the caller zeroed
// the activation gradients of the 2B inputs.
static void simclr_train_backward(objective *o, int B) {
    simclr_state *st = o->state;
    model *m = o->model;
    int N = 2 * B;
    o->ops->ntxent_backward(simclr_projection_dz(m), st->z, st->zn, st->probs, N, st->P, (float)temperature(o),
                            1.0f / (float)N);
    simclr_projection_backward(m, N);
    model_backward(m, N);
}

static double simclr_train_views(objective *o, const objective_batch *batch) {
    simclr_train_stage_views(o, batch);
    double loss = forward_loss(o, batch->B, 1, batch->rng);
    if (!isfinite(loss)) return loss;
    model_zero_act_grads_batch(o->model, 2 * batch->B);
    simclr_train_backward(o, batch->B);
    return loss;
}

// Anchors (of N = 2B) whose most similar other view is their positive.
static int positives_nearest(objective *o, int N) {
    simclr_state *st = o->state;
    o->ops->argmax_rows(st->nearest, st->probs, N, N);
    o->ops->download(st->nearest_host, st->nearest, (size_t)N * sizeof(int));
    int hits = 0;
    for (int i = 0; i < N; i++) hits += st->nearest_host[i] == (i + N / 2) % N;
    return hits;
}

// NT-Xent and contrastive top-1 on fixed views of the test set, chunks of train.batch images
// (a last chunk of one image, whose views have no negative, is left out).
static eval_scores simclr_evaluate(objective *o, objective_env *env) {
    simclr_state *st = o->state;
    int n = env->test_n, chunk = o->s.batch > 0 && o->s.batch * 2 <= o->max_batch ? o->s.batch : o->max_batch / 2;
    double loss_sum = 0.0;
    long views = 0, hits = 0;
    for (int start = 0; start + 1 < n; start += chunk) {
        int B = n - start < chunk ? n - start : chunk, N = 2 * B;
        for (int b = 0; b < B; b++) st->index[b] = start + b;
        simclr_stage_views(o->model, env->test_data, st->index, B, &st->set, o->s.seed, EVAL_DRAW, (uint32_t)start);
        double mean = forward_loss(o, B, 0, (rng_addr){.seed = o->s.seed, .epoch = EVAL_DRAW, .index = (uint32_t)start});
        loss_sum += mean * N;
        hits += positives_nearest(o, N);
        views += N;
    }
    double loss = views > 0 ? loss_sum / views : NAN;
    return (eval_scores){{views > 0 ? (double)hits / views : NAN, loss}, loss};
}

static void simclr_record_final(objective *o, objective_env *env, const eval_scores *last) {
    const simclr_settings *own = OBJECTIVE_OWN(&o->s, const simclr_settings);
    record_double(env->rec, "/simclr", "temperature", own->temperature);
    record_double(env->rec, "/simclr", "color_strength", own->color_strength);
    record_int(env->rec, "/simclr", "hidden_dim", own->hidden_dim);
    record_int(env->rec, "/simclr", "proj_dim", own->proj_dim);
    record_int(env->rec, "/simclr", "views_per_image", 2);
    record_int(env->rec, "/simclr", "eval_chunk_images", o->s.batch);
}

static int simclr_train_keys(const objective *o) { return o->model->T0; }

static const metric_info simclr_metrics[] = {
    {"contrastive_top1", "%", 100, 1, 0, NULL, 2, 50, 0, METRIC_SAMPLED},
    {"contrastive_loss", "", 1, -1, 0, NULL, 4, 51, 0, METRIC_SAMPLED},
    {NULL},
};

static const cfg_key simclr_keys[] = {
    {"simclr.temperature", CFG_FLOAT, "0.1", 0.01, 10, NULL, 1, "SimCLR: NT-Xent temperature tau (cosine similarity / tau); the paper uses 0.1 to 0.5"},
    {"simclr.color_strength", CFG_FLOAT, "0.5", 0.01, 2.5, NULL, 1, "SimCLR: colour distortion strength s of the views: ColorJitter(0.8s, 0.8s, 0.8s, 0.2s) (SimCLR: 1 on ImageNet, 0.5 on CIFAR; saturation and hue change nothing on grayscale images)"},
    {"simclr.hidden_dim", CFG_INT, "128", 1, 65536, NULL, 1, "SimCLR: hidden width of the projection head Linear -> ReLU -> Linear"},
    {"simclr.proj_dim", CFG_INT, "64", 1, 4096, NULL, 1, "SimCLR: output width of the projection head (the L2-normalised z of NT-Xent)"},
    {"simclr.pool", CFG_CHOICE, "cls", 0, 0, "cls|mean", 1, "SimCLR: backbone feature the projection head reads: the cls token (model.cls=true) or the mean of the patch tokens (model.cls=false)"},
    {NULL},
};

static void simclr_read_settings(const key_reader *r, void *own) {
    _Static_assert(sizeof(simclr_settings) <= OBJECTIVE_OWN_BYTES, "raise OBJECTIVE_OWN_BYTES (objective.h)");
    simclr_settings *s = own;
    s->temperature = key_float(r, "simclr.temperature");
    s->color_strength = key_float(r, "simclr.color_strength");
    s->hidden_dim = (int)key_int(r, "simclr.hidden_dim");
    s->proj_dim = (int)key_int(r, "simclr.proj_dim");
    s->pool = strcmp(key_str(r, "simclr.pool"), "mean") ? SIMCLR_POOL_CLS : SIMCLR_POOL_MEAN;
}

const objective_kind objective_simclr = {
    .images_only = 1,
    .name = "simclr",
    .description = "contrastive pretraining: two augmented views per image, projection head, NT-Xent; simclr.* keys",
    .metric_names = {"contrastive_top1", "contrastive_loss"},
    .metrics = simclr_metrics,
    .keys = simclr_keys,
    .read_settings = simclr_read_settings,
    .progress = "epoch %d/%d  loss %.4f  test contrastive top-1 %.4f (NT-Xent %.4f)  (%.0f s)",
    .final_line = "final: contrastive_top1=%.4f contrastive_loss=%.4f time=%.0fs\n",
    .config_error = simclr_config_error,
    .configure_model = simclr_configure_model,
    .create = simclr_obj_create,
    .free = simclr_obj_free,
    .train_views = simclr_train_views,
    .train_stage_views = simclr_train_stage_views,
    .train_forward_to = simclr_train_forward_to,
    .train_backward = simclr_train_backward,
    .batch_factor = 2,
    .evaluate = simclr_evaluate,
    .record_final = simclr_record_final,
    .train_keys = simclr_train_keys,
};
