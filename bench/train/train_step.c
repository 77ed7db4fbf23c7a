// bench/train/train_step.c — one optimisation step (train_step.h). train.accumulate=1: forward,
// backward and AdamW on the whole batch, exactly as always. train.accumulate=N: the batch
// (loaded whole, with its augmentations) is cut in order into N equal micro-batches; micro-batch
// i is images [i b, (i + 1) b) of it, b = batch / N, and every draw the whole batch's step would
// make for those images (masks, CAPE positions, reference tokens, drop path, dropout) is made for
// them (rng.index = i b: objectives/objective.h, model_drop_path_scales, model_dropout_forward:
// a dropout mask element is drawn by its place in the whole batch's tensor), so the batch, its
// masks and its augmentations are those of train.accumulate=1. Each micro-batch's gradient is computed
// into the zeroed gradient arena; their sum, in micro-batch order ((g_0 + g_1) + g_2 ...), is
// scaled by 1/N (each micro-batch's loss is its own mean) and drives one AdamW step. The logged
// loss is the mean of the micro-batches' means. An objective whose loss is a mean over a number
// of terms that varies per image (objective_kind.train_loss_terms: GVP's predicted patches with
// random or mixed segmentation) would be misweighted by 1/N: instead micro-batch i's gradient is
// scaled by its share w_i = count_i / count_total of the whole batch's terms right after its
// backward (before the sum, in float), no 1/N after, and the logged loss is Σ w_i loss_i, the
// whole batch's mean; the counts come from the whole batch (every rank loads it), so every rank
// has the same w_i. Without the hook the 1/N path is unchanged, bit for bit. Across N ranks
// (core/comm.h) rank r computes micro-batch r alone (scaled by w_r where weighted) and the
// communicator adds the N gradients in rank order in float: the same additions as one process,
// so the same bits (then the same scale and AdamW step on every rank).
// CUDA ranks sum on the device through NCCL when every rank can load it (comm_nccl_attach; a
// communicator with sum_f32_device takes this rank path even with one rank: the NCCL smoke
// test), else through host copies and MPI.
// An objective that draws its own views (objective_kind.train_views) gets the step's raw images
// instead of a loaded batch, the gradients zeroed before its forwards (own_views_step); it is
// refused with N > 1 (its loss couples the whole batch). Its optional hooks weight_decay_at and
// after_step run around that step's AdamW update (objectives/objective.h). Under train.graph=on
// one with train_stage_views (SimCLR) takes the step without host reads: its views staged from
// the raw images, no batch loaded (train_step_device).
#include "train_step.h"
#include "graph_replay.h"
#include "train_data.h"
#include "../../core/comm.h"
#include "../../core/common.h"
#include "../../core/optimizer.h"
#include "../../core/rng.h"
#include "../../datasets/dataset.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// train.graph=on: the step without host reads (step_device.h) where the objective and the run
// allow it, captured and replayed as a CUDA graph where graph_replay_refusal allows; stderr says
// once what is off and why.
static void device_step_setup(run *r) {
    if (!r->trainer.graph) return;
    const objective_kind *k = r->obj.kind;
    const model *m = &r->model;
    graph_replay_inputs in = graph_replay_inputs_of(k, &r->obj.s, &m->cfg, r->accumulate, r->comm->size, r->n_univit);
    const char *why = graph_device_step_refusal(&in);
    int root = r->comm->rank == 0;
    if (why) {
        if (root) fprintf(stderr, "posbench: train.graph=on: the step reads its loss and norm on the host as with off: %s\n", why);
        return;
    }
    const char *no_replay = graph_replay_refusal(&in);
    r->device_step = xmalloc(sizeof *r->device_step, "the step without host reads");
    step_device_create(r->device_step, m->ops, no_replay == NULL, no_replay);
    m->ops->pin_host(r->labels, (size_t)r->batch * sizeof(int32_t)); // uploaded by the step (a replay's memcpy node)
    if (no_replay && root)
        fprintf(stderr, "posbench: train.graph=on: no host reads inside a step; not replayed as a graph: %s\n", no_replay);
}

void train_step_setup(run *r) {
    const comm *cm = r->comm;
    r->accumulate = r->trainer.accumulate; // a divisor of train.batch (train_settings_resolve)
    if (cm->size > 1 && r->accumulate != cm->size)
        die_input("train.accumulate=%d under %d ranks: a run across N processes trains micro-batch r on rank r "
                  "(valid: train.accumulate=1 or %d)", r->accumulate, cm->size, cm->size);
    if (r->obj.kind->train_views && (r->accumulate > 1 || cm->size > 1)) {
        char what[96];
        if (cm->size > 1) snprintf(what, sizeof what, "a run across %d ranks (train.accumulate=%d)", cm->size, r->accumulate);
        else snprintf(what, sizeof what, "train.accumulate=%d", r->accumulate);
        die_input("%s: objective.name=%s draws its own views and its loss couples the whole batch, so the batch is not "
                  "cut into micro-batches (valid: train.accumulate=1 in one process)", what, r->obj.kind->name);
    }
    if (cm->size > 1 && strcmp(r->model.ops->name, "cuda") == 0) { // CUDA ranks: the gradient summed on the device
        char why[512];
        const comm *nccl = comm_nccl_attach(cm, why, sizeof why); // every rank or none
        if (nccl) r->comm = cm = nccl;
        else if (cm->rank == 0)
            fprintf(stderr, "posbench: note: the CUDA ranks sum their gradients through host memory and MPI: %s\n", why);
    }
    device_step_setup(r);
    if (r->accumulate == 1 && !cm->sum_f32_device) return;
    size_t n = r->model.params.total;
    if (cm->size == 1 && !cm->sum_f32_device) r->grad_acc = r->model.ops->alloc(n * sizeof(float), "summed micro-batch gradients");
    else if (!cm->sum_f32_device) r->grad_host = xmalloc(n * sizeof(float), "this rank's gradient (summed over the ranks)");
    r->batch_labels = xmalloc((size_t)r->batch * sizeof(int32_t), "the batch's labels");
    r->micro_loss = xmalloc((size_t)r->accumulate * sizeof(double), "micro-batch losses");
    if (r->obj.kind->train_loss_terms) {
        r->micro_weight = xmalloc((size_t)r->accumulate * sizeof(double), "micro-batch loss weights");
        r->image_terms = xmalloc((size_t)r->batch * sizeof(long), "the batch's loss terms per image");
    }
}

void train_step_free(run *r) {
    if (r->device_step) {
        const step_device *sd = r->device_step;
        if (sd->wanted && !sd->replaying && sd->issued > STEP_DEVICE_WARMUP && r->comm->rank == 0) // the backend said no
            fprintf(stderr, "posbench: train.graph=on: no host reads inside a step; not replayed as a graph: %s\n", sd->why);
        r->model.ops->unpin_host(r->labels);
        step_device_free(r->device_step);
        free(r->device_step);
        r->device_step = NULL;
    }
    if (r->grad_acc) r->model.ops->free(r->grad_acc);
    free(r->grad_host);
    free(r->batch_inputs);
    free(r->batch_labels);
    free(r->micro_loss);
    free(r->micro_weight);
    free(r->image_terms);
    r->grad_acc = NULL, r->grad_host = NULL, r->batch_inputs = NULL, r->batch_labels = NULL, r->micro_loss = NULL;
    r->micro_weight = NULL, r->image_terms = NULL;
}

static void load_step_batch(run *r, int epoch, int in_epoch) {
    const train_settings *ts = &r->trainer;
    augment_config aug = {.crop_pad = ts->crop_pad, .hflip = ts->hflip};
    aug.time_shift_ms = ts->time_shift_ms; // speech-commands only
    aug.background_frequency = ts->background_frequency;
    aug.background_volume = ts->background_volume;
    int size = r->n_univit > 0 ? resize_draw_size(r->univit, r->n_univit, r->seed, (uint32_t)epoch, (uint32_t)in_epoch)
                               : r->train_size;
    load_batch(r, &r->train, r->order + (size_t)in_epoch * r->batch, r->batch, &aug, (uint32_t)epoch, (uint32_t)in_epoch, size);
}

// The whole batch at once (train.accumulate=1): the step as it always was.
static double whole_batch_step(run *r, int epoch, int in_epoch, double *grad_norm, float *lr) {
    model *m = &r->model;
    load_step_batch(r, epoch, in_epoch);
    rng_addr rng = {.seed = r->seed, .epoch = (uint32_t)epoch, .step = (uint32_t)in_epoch};
    double loss = r->obj.kind->train_forward(&r->obj, r->batch, r->labels, rng);
    if (!isfinite(loss)) return loss;
    m->ops->zero(m->grad, m->params.total);
    model_zero_act_grads_batch(m, r->batch);
    r->obj.kind->train_backward(&r->obj, r->batch);
    *grad_norm = optim_step(m->ops, &m->params, m->param, m->grad, r->adam_m, r->adam_v, &r->optim, r->step, lr);
    return loss;
}

// An objective with its own views (objective_kind.train_views): the step's raw images, the
// gradients zeroed first; it runs its forwards and backwards, the AdamW step follows here.
static double own_views_step(run *r, int epoch, int in_epoch, double *grad_norm, float *lr) {
    objective_batch batch = {.data = &r->train, .indices = r->order + (size_t)in_epoch * r->batch, .B = r->batch,
                             .rng = {.seed = r->seed, .epoch = (uint32_t)epoch, .step = (uint32_t)in_epoch}};
    return objective_views_step(&r->obj, &batch, r->adam_m, r->adam_v, &r->optim, r->step, grad_norm, lr);
}

// Each micro-batch's share of the whole batch's loss terms (objective_kind.train_loss_terms)
// into r->micro_weight: count_i / count_total, from the whole batch (still in the staging
// input), so every rank computes the same weights. 0: the objective does not count (every
// micro-batch weighs 1/N, applied once to the summed gradient, as always).
static int micro_weights(run *r, int epoch, int in_epoch) {
    const objective_kind *k = r->obj.kind;
    if (!k->train_loss_terms) return 0;
    int N = r->accumulate, b = r->batch / N;
    rng_addr rng = {.seed = r->seed, .epoch = (uint32_t)epoch, .step = (uint32_t)in_epoch};
    k->train_loss_terms(&r->obj, r->batch, r->batch_labels, rng, r->image_terms);
    long total = 0;
    for (int i = 0; i < N; i++) {
        long count = 0;
        for (int j = 0; j < b; j++) count += r->image_terms[(size_t)i * b + j];
        r->micro_weight[i] = (double)count;
        total += count;
    }
    if (total <= 0) die_fail("internal: objective.name=%s counted %ld loss terms in a batch of %d", k->name, total, r->batch);
    for (int i = 0; i < N; i++) r->micro_weight[i] /= (double)total;
    return 1;
}

// Micro-batch i's gradient into m->grad (zeroed first; left zero when its loss is not finite),
// scaled by its weight when the objective counts its loss terms (micro_weights).
static double micro_batch(run *r, int epoch, int in_epoch, int i, size_t per_input, int weighted) {
    model *m = &r->model;
    int b = r->batch / r->accumulate;
    memcpy(model_images(m), r->batch_inputs + (size_t)i * b * per_input, (size_t)b * per_input * sizeof(float));
    memcpy(r->labels, r->batch_labels + (size_t)i * b, (size_t)b * sizeof(int32_t));
    rng_addr rng = {.seed = r->seed, .epoch = (uint32_t)epoch, .step = (uint32_t)in_epoch, .index = (uint32_t)(i * b)};
    double loss = r->obj.kind->train_forward(&r->obj, b, r->labels, rng);
    m->ops->zero(m->grad, m->params.total);
    if (!isfinite(loss)) return loss;
    model_zero_act_grads_batch(m, b);
    r->obj.kind->train_backward(&r->obj, b);
    if (weighted) m->ops->scale(m->grad, m->params.total, (float)r->micro_weight[i]);
    return loss;
}

double train_step(run *r, int epoch, int in_epoch, double *grad_norm, float *lr) {
    if (r->obj.kind->train_views) return own_views_step(r, epoch, in_epoch, grad_norm, lr);
    const comm *cm = r->comm;
    if (r->accumulate == 1 && !cm->sum_f32_device) return whole_batch_step(r, epoch, in_epoch, grad_norm, lr);
    model *m = &r->model;
    const ops_backend *ops = m->ops;
    int N = r->accumulate;
    size_t n = m->params.total;
    load_step_batch(r, epoch, in_epoch); // the whole batch, then cut (the micro-batches share its size)
    size_t per_input = model_input_floats(m), floats = (size_t)r->batch * per_input;
    if (floats > r->batch_inputs_cap) {
        free(r->batch_inputs);
        r->batch_inputs = xmalloc(floats * sizeof(float), "the batch's inputs, cut into micro-batches");
        r->batch_inputs_cap = floats;
    }
    memcpy(r->batch_inputs, model_images(m), floats * sizeof(float));
    memcpy(r->batch_labels, r->labels, (size_t)r->batch * sizeof(int32_t));
    for (int i = 0; i < N; i++) r->micro_loss[i] = 0.0;
    int weighted = micro_weights(r, epoch, in_epoch);
    if (cm->size == 1 && !cm->sum_f32_device) {
        for (int i = 0; i < N; i++) {
            r->micro_loss[i] = micro_batch(r, epoch, in_epoch, i, per_input, weighted);
            if (i == 0) ops->copy(r->grad_acc, m->grad, n * sizeof(float));
            else ops->residual_forward(r->grad_acc, r->grad_acc, m->grad, NULL, 1, n); // acc + g_i, in float
        }
        ops->copy(m->grad, r->grad_acc, n * sizeof(float));
    } else { // rank r: micro-batch r; the communicator adds the ranks' gradients in rank order
        r->micro_loss[cm->rank] = micro_batch(r, epoch, in_epoch, cm->rank, per_input, weighted);
        if (cm->sum_f32_device) { // NCCL: on the device (core/cuda/comm_nccl.cu), the same bits
            cm->sum_f32_device(m->grad, n);
        } else {
            ops->download(r->grad_host, m->grad, n * sizeof(float));
            cm->sum_f32(r->grad_host, n);
            ops->upload(m->grad, r->grad_host, n * sizeof(float));
        }
        cm->sum_f64(r->micro_loss, (size_t)N); // the others' slots are 0: every rank gets every loss exactly
    }
    double loss = 0.0;
    if (weighted) { // the whole batch's mean: each micro-batch's mean weighted by its share of the terms
        for (int i = 0; i < N; i++) loss += r->micro_weight[i] * r->micro_loss[i];
    } else {
        for (int i = 0; i < N; i++) loss += r->micro_loss[i];
        loss /= N;
    }
    if (!isfinite(loss)) return loss;
    if (!weighted) ops->scale(m->grad, n, 1.0f / (float)N); // weighted: each micro-batch's gradient already scaled
    *grad_norm = optim_step(ops, &m->params, m->param, m->grad, r->adam_m, r->adam_v, &r->optim, r->step, lr);
    return loss;
}

float train_step_device(run *r, int epoch, int in_epoch, long step) {
    model *m = &r->model;
    rng_addr rng = {.seed = r->seed, .epoch = (uint32_t)epoch, .step = (uint32_t)in_epoch};
    // own views (SimCLR): the objective stages them from the step's raw images; no batch is loaded
    objective_batch views = {.data = &r->train, .indices = r->order + (size_t)in_epoch * r->batch, .B = r->batch, .rng = rng};
    int own = r->obj.kind->train_views != NULL;
    if (!own) load_step_batch(r, epoch, in_epoch);
    step_target t = {.obj = &r->obj, .m = m, .adam_m = r->adam_m, .adam_v = r->adam_v, .oc = &r->optim, .B = r->batch,
                     .views = own ? &views : NULL};
    return step_device_run(r->device_step, &t, r->labels, rng, step, NULL);
}
