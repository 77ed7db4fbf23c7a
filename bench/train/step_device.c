// bench/train/step_device.c — the training step without host reads (step_device.h).
#include "step_device.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void step_device_create(step_device *sd, const ops_backend *ops, int graph, const char *refused_why) {
    memset(sd, 0, sizeof *sd);
    sd->ops = ops;
    sd->wanted = sd->graph = graph;
    if (!graph) snprintf(sd->why, sizeof sd->why, "%s", refused_why ? refused_why : "train.graph=off");
    sd->values = ops->alloc((size_t)(1 + STEP_DEVICE_CAP) * 2 * sizeof(double), "the steps' losses and norms");
    sd->scalars = ops->alloc(STEP_SCALARS * sizeof(float), "the optimizer's per-step values");
    sd->clock = ops->alloc(2 * sizeof(uint32_t), "the step's random address (epoch, step)");
    ops->set_rng_clock(sd->clock);
    // One buffer of whole pages, so its page-locking never meets another pinned range.
    size_t scalar_bytes = (size_t)STEP_DEVICE_CAP * STEP_HOST_SCALARS * sizeof(float);
    size_t bytes = scalar_bytes + (size_t)STEP_DEVICE_CAP * 2 * sizeof(uint32_t);
    sd->host_slots = xmalloc_pages(bytes, "the step's host slots");
    ops->pin_host(sd->host_slots, bytes);
    sd->host_scalars = sd->host_slots;
    sd->host_clock = (uint32_t *)((char *)sd->host_slots + scalar_bytes);
    sd->host_values = xmalloc((size_t)STEP_DEVICE_CAP * 2 * sizeof(double), "the steps' losses and norms (host)");
}

void step_device_free(step_device *sd) {
    if (!sd->ops) return;
    sd->ops->set_rng_clock(NULL);
    sd->ops->free(sd->values);
    sd->ops->free(sd->scalars);
    sd->ops->free(sd->clock);
    sd->ops->unpin_host(sd->host_slots);
    free(sd->host_slots);
    free(sd->host_values);
    memset(sd, 0, sizeof *sd);
}

// Forward (loss into values[0]), gradient clearing, backward, norm (values[1]), clipping, AdamW,
// the objective's ops after it (DINO's EMA teacher): the ops a capture records.
static void issue_step(step_device *sd, const step_target *t, const int32_t *labels, rng_addr rng, const int marks[4]) {
    const ops_backend *ops = sd->ops;
    model *m = t->m;
    t->obj->kind->train_forward_to(t->obj, t->B, labels, rng, sd->values);
    if (marks) ops->timer_mark(marks[0]);
    ops->zero(m->grad, m->params.total);
    int factor = t->obj->kind->batch_factor > 1 ? t->obj->kind->batch_factor : 1; // model inputs per image (SimCLR: 2)
    model_zero_act_grads_batch(m, t->B * factor);
    if (marks) ops->timer_mark(marks[1]);
    t->obj->kind->train_backward(t->obj, t->B);
    if (marks) ops->timer_mark(marks[2]);
    optim_step_device(ops, &m->params, m->param, m->grad, t->adam_m, t->adam_v, t->oc, sd->values, sd->values + 1,
                      sd->scalars);
    if (t->obj->kind->train_after_update) t->obj->kind->train_after_update(t->obj, sd->scalars);
    if (marks) ops->timer_mark(marks[3]);
}

float step_device_run(step_device *sd, const step_target *t, const int32_t *labels, rng_addr rng, long step,
                      const int marks[4]) {
    const ops_backend *ops = sd->ops;
    if (step_device_full(sd)) die_fail("internal: step_device_run with %d steps unread", sd->pending);
    const objective_kind *k = t->obj->kind;
    if (!k->train_forward_to) die_fail("internal: objective.name=%s has no train_forward_to", k->name);
    if (t->views && (!k->train_stage_views || ((k->weight_decay_at || k->after_step) && !k->train_after_update)))
        die_fail("internal: objective.name=%s draws its own views without train_stage_views, or has hooks around AdamW "
                 "without train_after_update", k->name);
    float *host = sd->host_scalars + (size_t)sd->pending * STEP_HOST_SCALARS; // read by its upload; reused after a read
    optim_config oc = *t->oc; // the objective's weight-decay schedule (DINO), else train.weight_decay: scalars[STEP_WD]
    if (k->weight_decay_at) oc.weight_decay = (float)k->weight_decay_at(t->obj, step);
    float lr = optim_step_values(&oc, step, host);
    ops->upload(sd->scalars, host, STEP_HOST_SCALARS * sizeof(float));
    uint32_t *clock = sd->host_clock + (size_t)sd->pending * 2; // where dropout and drop path draw
    clock[0] = rng.epoch, clock[1] = rng.step;
    ops->upload(sd->clock, clock, 2 * sizeof(uint32_t));
    if (t->views) k->train_stage_views(t->obj, t->views); // the step's views, into the staging
    else if (k->train_stage) k->train_stage(t->obj, t->B, rng); // the host's draws, into the staging
    if (sd->replaying) {
        ops->graph_replay();
    } else {
        int capture = sd->graph && sd->issued >= STEP_DEVICE_WARMUP;
        if (capture && !ops->graph_begin(sd->why, sizeof sd->why)) capture = sd->graph = 0;
        issue_step(sd, t, labels, rng, capture ? NULL : marks);
        if (capture && ops->graph_end(sd->why, sizeof sd->why)) {
            sd->replaying = 1;
            ops->graph_replay();
        } else if (capture) { // nothing of the captured step ran: run it now, and every later step, eagerly
            sd->graph = 0;
            issue_step(sd, t, labels, rng, marks);
        }
    }
    ops->copy(sd->values + 2 * (1 + sd->pending), sd->values, 2 * sizeof(double));
    sd->pending++;
    sd->issued++;
    return lr;
}

int step_device_full(const step_device *sd) { return sd->pending >= STEP_DEVICE_CAP; }

int step_device_read(step_device *sd, double *loss, double *norm) {
    int n = sd->pending;
    if (n == 0) return 0;
    sd->ops->download(sd->host_values, sd->values + 2, (size_t)n * 2 * sizeof(double));
    for (int i = 0; i < n; i++) loss[i] = sd->host_values[2 * i], norm[i] = sd->host_values[2 * i + 1];
    sd->pending = 0;
    return n;
}
