// models/model_tables.c — a model's memory as tables: the declarations of parameters (with how
// they start and whether they decay), activations (with or without a gradient, images first or
// whole), inputs (backend + host staging), each binding a named pointer (llm.c style) that
// model_resolve_bindings points into the arenas once they exist; a sub-model (MAE's decoder)
// declares into its owner's tables under its prefix; uploads of staged inputs; and clearing the
// activation gradients a backward of B images reads.
#include "model.h"
#include "model_parts.h"
#include "../core/common.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

// A named pointer (or two) to fill once the arenas exist.
enum { BIND_PARAM, BIND_ACT, BIND_INPUT };
typedef struct model_binding {
    int table;          // BIND_*
    int index;          // in params / acts / inputs
    int grad_index;     // BIND_ACT: in act_grads, -1 without a gradient
    float **value;      // param / act / backend input
    float **other;      // grad / act grad / host staging
} model_binding;

static void bind(model *m, int table, int index, int grad_index, float **value, float **other) {
    if (!value && !other) return;
    if (m->binding_count == m->binding_capacity) {
        m->binding_capacity = m->binding_capacity ? 2 * m->binding_capacity : 256;
        m->bindings = xrealloc(m->bindings, (size_t)m->binding_capacity * sizeof *m->bindings, "model bindings");
    }
    m->bindings[m->binding_count++] = (model_binding){table, index, grad_index, value, other};
}

// A sub-model's (MAE's decoder's) name in its owner's tables: the prefix, then its own name.
static const char *owner_name(const model *m, const char *name, char *full) {
    int n = snprintf(full, TENSOR_NAME_MAX, "%s%s", m->prefix, name);
    if (n >= TENSOR_NAME_MAX) die_fail("internal: tensor name %s%s longer than %d", m->prefix, name, TENSOR_NAME_MAX - 1);
    return full;
}

int model_add_param(model *m, const char *name, param_init init, int decay, int d0, int d1, float **value, float **grad) {
    char full[TENSOR_NAME_MAX];
    if (m->owner) return model_add_param(m->owner, owner_name(m, name, full), init, decay, d0, d1, value, grad);
    int shape[2] = {d0, d1};
    int index = tensor_table_add(&m->params, name, decay, d1 > 0 ? 2 : 1, shape);
    m->params.items[index].init = init;
    bind(m, BIND_PARAM, index, -1, value, grad);
    return index;
}

void model_set_init_bound(model *m, int param_index, float bound) {
    while (m->owner) m = m->owner;
    if (param_index < 0 || param_index >= m->params.count || m->params.items[param_index].init != INIT_UNIFORM)
        die_fail("internal: model_set_init_bound on a parameter that is not INIT_UNIFORM");
    m->params.items[param_index].init_bound = bound;
}

// An activation of act_n floats (0: none, a gradient buffer only) with a gradient of grad_n
// floats (0: none; only those slots are zeroed each step). batch_major > 0: the gradient is
// (batch_major, ...) images first. Returns the index in acts, or in act_grads without an activation.
static int add_act_sized(model *m, const char *name, size_t act_n, size_t grad_n, int batch_major, float **value,
                         float **grad) {
    char full[TENSOR_NAME_MAX];
    if (m->owner) return add_act_sized(m->owner, owner_name(m, name, full), act_n, grad_n, batch_major, value, grad);
    int index = act_n ? tensor_table_add_flat(&m->acts, name, 0, act_n) : -1;
    int grad_index = grad_n ? tensor_table_add_flat(&m->act_grads, name, 0, grad_n) : -1;
    if (grad_index >= 0) m->act_grads.items[grad_index].batch_major = batch_major;
    bind(m, BIND_ACT, index, grad_index, value, grad);
    return index >= 0 ? index : grad_index;
}
int model_add_act(model *m, const char *name, size_t n, float **value, float **grad) {
    return add_act_sized(m, name, n, grad ? n : 0, 0, value, grad);
}
int model_add_batch_act(model *m, const char *name, size_t n, float **value, float **grad) {
    if (m->max_batch < 1 || n % (size_t)m->max_batch != 0)
        die_fail("internal: activation %s: %zu floats is not a multiple of the batch %d", name, n, m->max_batch);
    return add_act_sized(m, name, n, grad ? n : 0, m->max_batch, value, grad);
}
// A gradient buffer with no activation of its own: whole, or images first like model_add_batch_act.
int model_add_grad_only(model *m, const char *name, size_t n, float **grad) { return add_act_sized(m, name, 0, n, 0, NULL, grad); }
int model_add_batch_grad_only(model *m, const char *name, size_t n, float **grad) {
    if (m->max_batch < 1 || n % (size_t)m->max_batch != 0)
        die_fail("internal: activation gradient %s: %zu floats is not a multiple of the batch %d", name, n, m->max_batch);
    return add_act_sized(m, name, 0, n, m->max_batch, NULL, grad);
}

int model_add_input(model *m, const char *name, size_t n, float **backend, float **host) {
    char full[TENSOR_NAME_MAX];
    if (m->owner) return model_add_input(m->owner, owner_name(m, name, full), n, backend, host);
    int index = tensor_table_add_flat(&m->inputs, name, 0, n);
    bind(m, BIND_INPUT, index, -1, backend, host);
    return index;
}

// Points every bound name into the arenas.
void model_resolve_bindings(model *m) {
    for (int i = 0; i < m->binding_count; i++) {
        const model_binding *b = &m->bindings[i];
        float *value = NULL, *other = NULL;
        if (b->table == BIND_PARAM) {
            value = m->param + m->params.items[b->index].offset;
            other = m->grad + m->params.items[b->index].offset;
        } else if (b->table == BIND_ACT) {
            value = b->index >= 0 ? m->act + m->acts.items[b->index].offset : NULL;
            other = b->grad_index >= 0 ? m->dact + m->act_grads.items[b->grad_index].offset : NULL;
        } else {
            value = m->input + m->inputs.items[b->index].offset;
            other = m->staging + m->inputs.items[b->index].offset;
        }
        if (b->value) *b->value = value;
        if (b->other) *b->other = other;
    }
}

void model_upload(model *m, const float *host, size_t n) {
    if (m->owner) {
        model_upload(m->owner, host, n);
        return;
    }
    for (int i = 0; i < m->inputs.count; i++) {
        const tensor_info *info = &m->inputs.items[i];
        if (m->staging + info->offset != host) continue;
        if (n > info->numel) die_fail("internal: upload of %zu floats into input %s of %zu", n, info->name, info->numel);
        m->ops->upload(m->input + info->offset, host, n * sizeof(float));
        return;
    }
    die_fail("internal: model_upload of a host pointer that is not a staged input");
}

void model_grad_written(model *m, const char *name) {
    char full[TENSOR_NAME_MAX];
    if (m->owner) {
        model_grad_written(m->owner, owner_name(m, name, full));
        return;
    }
    int index = tensor_table_find(&m->act_grads, name);
    if (index < 0) die_fail("internal: model_grad_written(%s): no such activation gradient", name);
    m->act_grads.items[index].written = 1;
}

// Floats of act-grad tensor t a backward of B images reads: the first B images of a batch-major
// one, every other one whole.
static size_t grad_floats_for_batch(const tensor_info *t, int B) {
    return t->batch_major > 0 && B < t->batch_major ? t->numel / (size_t)t->batch_major * (size_t)B : t->numel;
}

// Clears those floats of the act-grad tensors for which pick(t) holds, in table (= offset)
// order, as ranges merged across the < 16-float alignment padding between picked neighbours
// (padding is never read; a tensor not picked ends the range).
static void zero_act_grads_where(model *m, int B, int (*pick)(const tensor_info *t, const void *ctx), const void *ctx) {
    size_t lo = 0, hi = 0;
    for (int i = 0; i < m->act_grads.count; i++) {
        const tensor_info *t = &m->act_grads.items[i];
        if (!pick(t, ctx)) {
            if (hi > lo) m->ops->zero(m->dact + lo, hi - lo);
            lo = hi = 0;
            continue;
        }
        if (t->offset > hi + 16 || hi == 0) {
            if (hi > lo) m->ops->zero(m->dact + lo, hi - lo);
            lo = t->offset;
        }
        hi = t->offset + grad_floats_for_batch(t, B);
    }
    if (hi > lo) m->ops->zero(m->dact + lo, hi - lo);
}

// The step's clearing: every tensor an op adds to. Marked written (model_grad_written; which ones
// and why: the backbone's declare_acts, models/backbones/vit.c) are the gradients an op writes
// before anything reads or adds to them, or that the backward clears itself where it uses them;
// everything else is accumulated into by its first writer and is cleared here: model.c's own
// (embedding, tokens, final norm, features, logits: the objectives' loss backwards and the fp32
// ops all add) and gMLP's (fp32 ops only) among them.
static int accumulated(const tensor_info *t, const void *ctx) {
    (void)ctx;
    return !t->written;
}

void model_zero_act_grads(model *m) { zero_act_grads_where(m, INT_MAX, accumulated, NULL); }

void model_zero_act_grads_batch(model *m, int B) { zero_act_grads_where(m, B, accumulated, NULL); }

typedef struct {
    const model *m;
    float *const *grads;
    int count;
} grads_pick;

static int is_one_of(const tensor_info *t, const void *ctx) {
    const grads_pick *p = ctx;
    for (int k = 0; k < p->count; k++)
        if (p->grads[k] == p->m->dact + t->offset) return 1;
    return 0;
}

void model_zero_act_grads_of(model *m, float *const *grads, int count, int B) {
    while (m->owner) m = m->owner; // a sub-model's tensors live in its owner's table
    grads_pick p = {m, grads, count};
    zero_act_grads_where(m, B, is_one_of, &p);
}

size_t model_activation_bytes(const model *m) { return (m->acts.total + m->act_grads.total + m->inputs.total) * sizeof(float); }
