// models/model.c — the steps every backbone shares: tensor declarations and the arenas they
// bind to (the parameters' initial values: models/init.c), resolution changes, the embedding with its position encoding,
// the final norm and head, and forward/backward around the backbone's blocks. Position
// encodings are reached only through their hooks (models/posenc/encoding.h), blocks only
// through theirs (models/backbone.h), memory only through the op backend.
#include "model.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "posenc/tables.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A named pointer (or two) to fill once the arenas exist.
enum { BIND_PARAM, BIND_ACT, BIND_INPUT };
typedef struct model_binding {
    int table;          // BIND_*
    int index;          // in params / acts / inputs
    int grad_index;     // BIND_ACT: in act_grads, -1 without a gradient
    float **value;      // param / act / backend input
    float **other;      // grad / act grad / host staging
} model_binding;

static int max_size(const model_config *c) { return c->max_image_size > c->image_size ? c->max_image_size : c->image_size; }

void model_grid_at(const model_config *c, int size, int *rows, int *cols) {
    *rows = model_config_is_sequence(c) ? 1 : size / c->patch;
    *cols = model_config_is_sequence(c) ? size : size / c->patch;
}

// Values per embedded token: a patch's pixels, or a frame's features.
static int token_inputs(const model_config *c) { return c->features > 0 ? c->features : c->channels * c->patch * c->patch; }
// pe.content_scale: the embedded content is multiplied before the encoding (0 and 1 = unscaled).
static int content_scaled(const model_config *c) { return c->content_scale != 0.0f && c->content_scale != 1.0f; }

const char *model_resolution_error(const model_config *c, int size, const char *key) {
    static char msg[256];
    if (c->patch < 1 || size < c->patch || size % c->patch != 0) {
        snprintf(msg, sizeof msg, "%s: image size %d is not a multiple of model.patch=%d (valid: %d, %d, %d, ...)", key,
                 size, c->patch, c->patch, 2 * c->patch, 3 * c->patch);
        return msg;
    }
    if (size > max_size(c)) {
        snprintf(msg, sizeof msg, "%s: image size %d is larger than the %d the model was built for", key, size, max_size(c));
        return msg;
    }
    int rows, cols;
    model_grid_at(c, size, &rows, &cols);
    if (c->request.ref_tokens > rows * cols) {
        snprintf(msg, sizeof msg, "%s: size %d has %d tokens, fewer than the %d reference tokens", key, size,
                 rows * cols, c->request.ref_tokens);
        return msg;
    }
    return NULL;
}

const char *model_config_error(const model_config *c) {
    static char msg[256];
    const backbone_kind *arch = backbone_find(c->arch);
    if (!arch) {
        snprintf(msg, sizeof msg, "model.arch=%s is not a backbone (valid: %s)", c->arch, BACKBONE_CHOICES);
        return msg;
    }
    if (c->embed_init < MODEL_EMBED_INIT_TIMM || c->embed_init > MODEL_EMBED_INIT_NORMAL002) {
        snprintf(msg, sizeof msg, "model.embed_init is not one of %s", MODEL_EMBED_INIT_CHOICES);
        return msg;
    }
    if (c->trunc_normal < MODEL_TRUNC_TIMM || c->trunc_normal > MODEL_TRUNC_STD2) {
        snprintf(msg, sizeof msg, "model.trunc_normal is not one of %s", MODEL_TRUNC_CHOICES);
        return msg;
    }
    if (c->linear_init < MODEL_LINEAR_INIT_TIMM || c->linear_init > MODEL_LINEAR_INIT_XAVIER) {
        snprintf(msg, sizeof msg, "model.linear_init is not one of %s", MODEL_LINEAR_INIT_CHOICES);
        return msg;
    }
    if (c->features > 0 && (c->patch != 1 || c->channels != 1)) {
        snprintf(msg, sizeof msg, "model.patch=%d: a sequence input (%d features per frame) has one token per frame, so "
                 "model.patch must be 1", c->patch, c->features);
        return msg;
    }
    if (c->vocab > 0 && (c->patch != 1 || c->channels != 1 || c->features > 0)) {
        snprintf(msg, sizeof msg, "model.patch=%d: a token input (vocabulary %d) has one token per id, so model.patch "
                 "must be 1", c->patch, c->vocab);
        return msg;
    }
    if (c->request.query_stream && model_config_is_sequence(c))
        return "the two-stream model (objective.name=gvp) predicts image patches' pixels; a sequence input (speech frames) is "
               "not supported (valid with gvp: image data)";
    if (c->patch < 1 || c->image_size % c->patch != 0) {
        snprintf(msg, sizeof msg, "model.patch=%d does not divide the image size %d (valid: a divisor of %d)",
                 c->patch, c->image_size, c->image_size);
        return msg;
    }
    if (c->heads < 1 || c->dim % c->heads != 0) {
        snprintf(msg, sizeof msg, "model.heads=%d does not divide model.dim=%d", c->heads, c->dim);
        return msg;
    }
    if (c->dim < 1 || c->depth < 1 || c->mlp_ratio < 1 || c->num_classes < 1 || c->channels < 1)
        return "model.dim, model.depth, model.mlp_ratio must be >= 1";
    if (c->drop_path < 0.0f || c->drop_path >= 1.0f) return "model.drop_path must be in [0, 1)";
    if (c->dropout < 0.0f || c->dropout >= 1.0f) return "model.dropout must be in [0, 1)";
    if (c->max_image_size % c->patch != 0) {
        snprintf(msg, sizeof msg, "largest image size %d is not a multiple of model.patch=%d", c->max_image_size, c->patch);
        return msg;
    }
    const posenc_kind *pe = posenc_for_model(c);
    if (!pe) {
        snprintf(msg, sizeof msg, "pe.kind=%s is not a position encoding (valid: %s)", c->pe_kind, posenc_names());
        return msg;
    }
    const char *why = pe->config_error ? pe->config_error(c) : NULL;
    if (why) return why;
    why = arch->config_error ? arch->config_error(c) : NULL; // what the blocks cannot do, with their reason
    if (why) return why;
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    int N = rows * cols, T = N + (c->cls ? 1 : 0);
    if (c->request.ref_tokens < 0 || c->request.ref_tokens > N) {
        snprintf(msg, sizeof msg, "%d reference tokens: must be in [0, %d] (the patches of one image)", c->request.ref_tokens, N);
        return msg;
    }
    if (c->request.ref_tokens > 0 && !pe->reference_table) {
        snprintf(msg, sizeof msg, "reference tokens (objective.ref_fraction > 0) keep a position encoding that every token "
                 "could have: pe.kind must be one of %s", posenc_reference_names());
        return msg;
    }
    if (c->request.context_tokens < 0 || c->request.context_tokens > T) {
        snprintf(msg, sizeof msg, "masked attention with %d key tokens: must be in [1, %d]", c->request.context_tokens, T);
        return msg;
    }
    if (c->request.context_tokens > 0 && !arch->masked_attention) {
        snprintf(msg, sizeof msg, "model.arch=%s has no attention to mask (the objective needs masked attention)", arch->name);
        return msg;
    }
    if (c->request.keep_tokens < 0 || c->request.keep_tokens > T || (c->request.keep_tokens > 0 && (c->request.query_stream || c->request.ref_tokens > 0 ||
                                                                             c->request.context_tokens > 0 || !c->request.token_head))) {
        snprintf(msg, sizeof msg, "internal: keep_tokens=%d needs a token head, no other masking and at most %d", c->request.keep_tokens, T);
        return msg;
    }
    if (c->request.keep_tokens > 0 && (!arch->masked_attention || pe->qk_forward || pe->bias_forward)) {
        snprintf(msg, sizeof msg, "MAE's encoder sees only the kept patches, so the blocks must not tie weights to token "
                 "positions: model.arch=%s pe.kind=%s (valid with mae: model.arch=vit, pe.kind none, abs, sin1d, sin2d, cape)",
                 arch->name, pe->name);
        return msg;
    }
    if (c->request.decoder_depth > 0 && !c->request.extension) return "internal: model.decoder_depth without its extension (models/decoder.h)";
    why = c->request.extension && c->request.extension->config_error ? c->request.extension->config_error(c) : NULL;
    if (why) return why;
    if (c->request.query_stream && (!pe->reference_table || c->request.context_tokens != T || c->request.ref_tokens > 0)) {
        snprintf(msg, sizeof msg, "the two-stream model (objective.name=gvp) gives each query token the position encoding "
                 "of its target: pe.kind must be one of %s (pe.kind=%s)", posenc_reference_names(), pe->name);
        return msg;
    }
    return NULL;
}

// --- what a position encoding sees (model_view.h) ---
model_view model_view_of(const model *m) {
    return (model_view){.cfg = &m->cfg, .ops = m->ops, .state = m->pe_state, .max_batch = m->max_batch, .t0 = m->t0,
                        .N = m->N, .T = m->T, .rows = m->rows, .cols = m->cols, .grid = m->grid, .rows0 = m->rows0,
                        .cols0 = m->cols0, .T0 = m->T0, .rows_max = m->rows_max, .cols_max = m->cols_max,
                        .N_max = m->N_max, .T_max = m->T_max, .M_alloc = m->M_alloc, .cls_index = m->batch.cls_index,
                        .x0 = m->activations.x0};
}

void *model_pe_state(const model *m) { return m->pe_state; }

// --- declarations and the named pointers they bind ---

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

// The patch (frame) projection Linear(fan_in, d) by model.embed_init (model.h).
static void declare_patch_embed(model *m, int fan_in, int d) {
    model_weights *w = &m->weights, *dw = &m->weight_grads;
    float default_bound = 1.0f / sqrtf((float)fan_in); // PyTorch's Linear / Conv2d default
    switch (m->cfg.embed_init) {
    case MODEL_EMBED_INIT_NORMAL002:
        model_add_param(m, "patch_embed.weight", INIT_TRUNC_NORMAL, 1, d, fan_in, &w->patch_w, &dw->patch_w);
        model_add_param(m, "patch_embed.bias", INIT_ZERO, 0, d, 0, &w->patch_b, &dw->patch_b);
        return;
    case MODEL_EMBED_INIT_TIMM:
    case MODEL_EMBED_INIT_XAVIER: {
        float weight_bound = m->cfg.embed_init == MODEL_EMBED_INIT_XAVIER ? sqrtf(6.0f / (float)(fan_in + d)) : default_bound;
        int wi = model_add_param(m, "patch_embed.weight", INIT_UNIFORM, 1, d, fan_in, &w->patch_w, &dw->patch_w);
        model_set_init_bound(m, wi, weight_bound);
        int bi = model_add_param(m, "patch_embed.bias", INIT_UNIFORM, 0, d, 0, &w->patch_b, &dw->patch_b);
        model_set_init_bound(m, bi, default_bound);
        return;
    }
    default: die_fail("internal: model.embed_init %d", m->cfg.embed_init);
    }
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
static void resolve_bindings(model *m) {
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

static int token_outputs(const model *m) { return m->cfg.request.token_outputs > 0 ? m->cfg.request.token_outputs : m->N; }

static void declare_params(model *m) {
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    model_weights *w = &m->weights, *dw = &m->weight_grads;
    int d = c->dim, pd = token_inputs(c);
    if (c->vocab > 0) {
        model_add_param(m, "token_embed.weight", INIT_TRUNC_NORMAL, 1, c->vocab, d, &w->token_w, &dw->token_w);
    } else {
        declare_patch_embed(m, pd, d);
    }
    if (c->cls) model_add_param(m, "cls_token", INIT_TRUNC_NORMAL, 0, d, 0, &w->cls_token, &dw->cls_token);
    if (c->request.query_stream) model_add_param(m, "query_token", INIT_TRUNC_NORMAL, 0, d, 0, &w->query_token, &dw->query_token);
    if (m->pe->declare_params) m->pe->declare_params(m);
    m->arch->declare_params(m);
    model_add_param(m, "norm.weight", INIT_ONE, 0, d, 0, &w->norm_w, &dw->norm_w);
    model_add_param(m, "norm.bias", INIT_ZERO, 0, d, 0, &w->norm_b, &dw->norm_b);
    const char *head = c->request.head_name ? c->request.head_name : "head";
    int outputs = c->request.token_head ? token_outputs(m) : c->num_classes;
    snprintf(name, sizeof name, "%s.weight", head);
    model_add_param(m, name, INIT_LINEAR, 1, outputs, d, &w->head_w, &dw->head_w);
    snprintf(name, sizeof name, "%s.bias", head);
    model_add_param(m, name, INIT_ZERO, 0, outputs, 0, &w->head_b, &dw->head_b);
    if (c->request.extension) c->request.extension->declare_params(m); // after the head: existing tensors keep their streams
}

static void declare_acts(model *m) {
    const model_config *c = &m->cfg;
    model_activations *a = &m->activations, *da = &m->activation_grads;
    model_batch *in = &m->batch, *host = &m->batch_host;
    // Sized for the largest input: every (B, T, ...) activation of a smaller one is a prefix.
    size_t B = (size_t)m->max_batch, T = (size_t)m->T_max, N = (size_t)m->N_max, d = (size_t)c->dim;
    size_t BT = B * T, BTd = BT * d, BM = B * (size_t)m->M_alloc, S = (size_t)max_size(c);
    size_t BTs = B * (size_t)model_tokens_max(m); // = BT without query tokens
    size_t input_n = c->vocab > 0 ? B * S : c->features > 0 ? B * S * c->features : B * c->channels * S * S;
    model_add_input(m, "images", input_n, &in->images, &host->images);
    // Token index 0 for every image (the cls gather): zeros, as the inputs are allocated.
    model_add_input(m, "cls_index", B, &in->cls_index, &host->cls_index);
    if (c->request.context_tokens > 0) model_add_input(m, "context", BM, &in->context, &host->context);
    if (!model_config_is_sequence(c)) model_add_act(m, "patches", B * N * token_inputs(c), &a->patches, NULL);
    model_add_batch_act(m, "patch_embed", B * N * d, &a->embed, &da->embed);
    int R = c->request.ref_tokens;
    size_t BR = B * (size_t)(m->t0 + R); // cls (always) + R patches per image
    if (R > 0) {
        model_add_input(m, "ref_index", BR, &in->ref_index, &host->ref_index);
        model_add_act(m, "ref_rows", BR * d, &a->ref_rows, m->pe->table_grad ? &da->ref_rows : NULL);
    }
    if (m->pe->declare_acts) m->pe->declare_acts(m);
    model_add_batch_act(m, "tokens", BTd, &a->x0, &da->x0);
    if (c->dropout > 0) {
        model_add_batch_act(m, "tokens.dropout", BTd, &a->x0_drop, &da->x0_drop);
        model_add_act(m, "tokens.dropout_mask", BTd, &a->x0_mask, NULL);
    }
    if (c->request.keep_tokens > 0) {
        model_add_input(m, "keep", B * (size_t)c->request.keep_tokens, &in->keep_index, &host->keep_index);
        model_add_act(m, "tokens.kept", B * (size_t)c->request.keep_tokens * d, &a->x_keep, &da->x_keep);
    }
    if (c->request.query_stream) {
        model_add_act(m, "tokens.streams", BTs * d, &a->streams, &da->streams);
        model_add_act(m, "query.w_rows", B * N * d, &a->query_w_rows, NULL);
        model_add_act(m, "query.pe_rows", B * N * d, &a->query_pe_rows, NULL);
        model_add_grad_only(m, "query.rows", B * N * d, &da->query_rows);
        model_add_input(m, "groups", BTs, &in->groups, &host->groups);
        model_add_input(m, "query.index", B * N, &in->query_index, &host->query_index);
        model_add_input(m, "query.pe_index", B * N, &in->query_pe_index, &host->query_pe_index);
        model_add_input(m, "query.w_index", B * N, &in->query_w_index, &host->query_w_index);
    }
    m->arch->declare_acts(m);
    model_add_act(m, "norm", BTs * d, &a->final, &da->final);
    model_add_act(m, "norm.mean", BTs, &a->final_mean, NULL);
    model_add_act(m, "norm.rstd", BTs, &a->final_rstd, NULL);
    model_add_act(m, "features", B * d, &a->features, &da->features);
    model_add_act(m, "logits", c->request.token_head ? BTs * token_outputs(m) : B * c->num_classes, &a->logits, &da->logits);
    if (c->request.extension) c->request.extension->declare_acts(m);
}

// The two-stream model's fixed indices, staged and uploaded once (one grid): the content
// tokens as the context of every image (identity), the query rows' token indices T + n, their
// encoding rows t0 + n and zeros (every row a copy of w).
static void stage_query_indices(model *m) {
    int B = m->max_batch, N = m->N, T = m->T;
    int *ctx = (int *)m->batch_host.context, *qi = (int *)m->batch_host.query_index;
    int *pi = (int *)m->batch_host.query_pe_index, *wi = (int *)m->batch_host.query_w_index;
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) ctx[(size_t)b * T + t] = t;
        for (int n = 0; n < N; n++) {
            qi[(size_t)b * N + n] = T + n;
            pi[(size_t)b * N + n] = m->t0 + n;
            wi[(size_t)b * N + n] = 0;
        }
    }
    model_upload(m, m->batch_host.context, (size_t)B * T);
    model_upload(m, m->batch_host.query_index, (size_t)B * N);
    model_upload(m, m->batch_host.query_pe_index, (size_t)B * N);
    model_upload(m, m->batch_host.query_w_index, (size_t)B * N);
}

// The current input size and the token grid that follows from it.
static void set_size(model *m, int size) {
    m->image_size = size;
    model_grid_at(&m->cfg, size, &m->rows, &m->cols);
    m->grid = model_config_is_sequence(&m->cfg) ? 0 : m->rows;
    m->N = m->rows * m->cols;
    m->T = m->N + m->t0;
}

void model_set_resolution(model *m, int size) {
    if (size == m->image_size) return;
    const char *why = model_resolution_error(&m->cfg, size, "image size");
    if (why) die_input("%s", why);
    if (m->cfg.request.query_stream) die_input("the two-stream model (objective.name=gvp) runs at one image size, not %d", size);
    if (m->M != m->T) die_fail("internal: model_set_resolution during masked attention");
    set_size(m, size);
    m->M = m->T;
    if (m->pe->set_grid) m->pe->set_grid(m);
    if (m->arch->set_grid) m->arch->set_grid(m);
}

void model_create(model *m, const model_config *cfg, const ops_backend *ops, int max_batch, uint32_t seed) {
    memset(m, 0, sizeof *m);
    const char *why = model_config_error(cfg);
    if (why) die_input("%s", why);
    m->cfg = *cfg;
    m->ops = ops;
    m->content_rms = m->posenc_rms = NAN;
    m->max_batch = max_batch;
    m->t0 = cfg->cls ? 1 : 0;
    m->arch = backbone_find(cfg->arch);
    m->pe = posenc_for_model(cfg);
    set_size(m, max_size(cfg));
    m->rows_max = m->rows, m->cols_max = m->cols, m->grid_max = m->grid, m->N_max = m->N, m->T_max = m->T;
    set_size(m, cfg->image_size);
    m->rows0 = m->rows, m->cols0 = m->cols, m->grid0 = m->grid, m->T0 = m->T;
    m->M_alloc = cfg->request.context_tokens > 0 ? cfg->request.context_tokens : m->T_max;
    if (cfg->request.keep_tokens > 0) { // MAE: the blocks' arena holds the kept tokens, and at least one whole image
        m->keep_alloc = cfg->request.keep_tokens;
        while ((long)max_batch * m->keep_alloc * m->keep_alloc < (long)m->T_max * m->T_max) m->keep_alloc++;
        m->M_alloc = m->keep_alloc;
    }
    m->M = m->T;
    m->Tq_max = cfg->request.query_stream ? m->N_max : 0;
    tensor_table_init(&m->params);
    tensor_table_init(&m->acts);
    tensor_table_init(&m->act_grads);
    tensor_table_init(&m->inputs);
    m->arch_state = m->arch->state_size ? xcalloc(1, m->arch->state_size, "backbone state") : NULL;
    m->pe_state = m->pe->state_size ? xcalloc(1, m->pe->state_size, "position encoding state") : NULL;
    if (m->pe->create) m->pe->create(m);
    declare_params(m);
    declare_acts(m);
    m->param = ops->alloc(m->params.total * sizeof(float), "parameters");
    m->grad = ops->alloc(m->params.total * sizeof(float), "gradients");
    m->act = ops->alloc(m->acts.total * sizeof(float), "activations");
    m->dact = ops->alloc(m->act_grads.total * sizeof(float), "activation gradients");
    m->input = ops->alloc(m->inputs.total * sizeof(float), "model inputs");
    m->staging = xmalloc_aligned(m->inputs.total * sizeof(float), "model inputs (host staging)");
    ops->pin_host(m->staging, m->inputs.total * sizeof(float)); // page-locked: faster uploads
    resolve_bindings(m);
    m->ref_scratch = cfg->request.ref_tokens > 0 ? xmalloc((size_t)m->N_max * sizeof(int), "reference draw") : NULL;
    if (m->pe->set_grid) m->pe->set_grid(m);
    if (m->arch->set_grid) m->arch->set_grid(m);
    if (cfg->request.query_stream) stage_query_indices(m);
    if (cfg->request.extension && cfg->request.extension->ready) cfg->request.extension->ready(m);
    model_init_params(m, seed);
}

void model_free(model *m) {
    if (m->cfg.request.extension && m->cfg.request.extension->free) m->cfg.request.extension->free(m);
    if (m->pe && m->pe->free) m->pe->free(m);
    if (m->arch && m->arch->free) m->arch->free(m);
    free(m->pe_state);
    free(m->arch_state);
    m->ops->free(m->param);
    m->ops->free(m->grad);
    m->ops->free(m->act);
    m->ops->free(m->dact);
    m->ops->free(m->input);
    m->ops->unpin_host(m->staging);
    free(m->staging);
    free(m->bindings);
    free(m->ref_scratch);
    tensor_table_free(&m->params);
    tensor_table_free(&m->acts);
    tensor_table_free(&m->act_grads);
    tensor_table_free(&m->inputs);
    memset(m, 0, sizeof *m);
}

float *model_images(model *m) { return m->batch_host.images; }
size_t model_input_floats(const model *m) {
    const model_config *c = &m->cfg;
    return c->vocab > 0      ? (size_t)m->image_size
           : c->features > 0 ? (size_t)m->image_size * c->features
                             : (size_t)c->channels * m->image_size * m->image_size;
}
float *model_dlogits(model *m) { return m->activation_grads.logits; }
const int *model_reference_tokens(const model *m) { return (const int *)m->batch_host.ref_index; }
int model_reference_width(const model *m) { return m->cfg.request.ref_tokens > 0 ? m->t0 + m->cfg.request.ref_tokens : 0; }
void model_zero_act_grads(model *m) { m->ops->zero(m->dact, m->act_grads.total); }

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
        if (pick && !pick(t, ctx)) {
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

void model_zero_act_grads_batch(model *m, int B) {
    if (B >= m->max_batch) {
        model_zero_act_grads(m);
        return;
    }
    zero_act_grads_where(m, B, NULL, NULL);
}

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

int *model_context(model *m) {
    if (!m->batch_host.context) die_fail("internal: model_context on a model built without context_tokens");
    return (int *)m->batch_host.context;
}

int *model_groups(model *m) {
    if (!m->batch_host.groups) die_fail("internal: model_groups on a model built without query_stream");
    return (int *)m->batch_host.groups;
}

void model_set_streams(model *m, int query_stream, int mask_mode) {
    if ((query_stream || mask_mode != ATTN_MASK_NONE) && !m->cfg.request.query_stream)
        die_fail("internal: model_set_streams on a model built without query_stream");
    m->Tq = query_stream ? m->N : 0;
    m->mask_mode = mask_mode;
}

int *model_keep(model *m) {
    if (!m->batch_host.keep_index) die_fail("internal: model_keep on a model built without keep_tokens");
    return (int *)m->batch_host.keep_index;
}

void model_set_keep(model *m, int keep) {
    if (keep < 0 || keep > m->cfg.request.keep_tokens || (keep > 0 && m->keep == 0 && m->M != m->T))
        die_fail("internal: model_set_keep(%d) on a model built for %d kept tokens", keep, m->cfg.request.keep_tokens);
    m->keep = keep;
    m->M = keep > 0 ? keep : m->T;
}

int model_batch_capacity(const model *m, int M) {
    if (m->keep_alloc > 0) { // MAE: activations of keep_alloc tokens per image, probabilities of keep_alloc²
        long rows = model_tokens(m), cap = (long)m->max_batch * m->keep_alloc * m->keep_alloc / (rows * (long)M);
        return cap < m->max_batch ? (int)cap : m->max_batch;
    }
    long cap = (long)m->max_batch * m->M_alloc / M;
    return cap < m->max_batch ? (int)cap : m->max_batch;
}

void model_set_context(model *m, int M) {
    if (M < 1 || M > m->T) die_fail("internal: model_set_context M=%d outside [1, %d]", M, m->T);
    if (M < m->T && !m->batch.context) die_fail("internal: masked attention on a model built without context_tokens");
    m->M = M;
}

const float *model_block_output(const model *m, int layer) { return m->arch->block_output(m, layer); }
int model_has_attention(const model *m) { return m->arch->attention_probs != NULL; }
void model_keep_attention_probs(model *m, int on) {
    if (m->arch->keep_attention_probs) m->arch->keep_attention_probs(m, on);
}
const float *model_attention_probs(const model *m, int layer) {
    return m->arch->attention_probs ? m->arch->attention_probs(m, layer) : NULL;
}

const float *model_attention_qkv(const model *m, int layer) {
    return m->arch->attention_qkv ? m->arch->attention_qkv(m, layer) : NULL;
}
const float *model_spatial_weights(const model *m, int layer) {
    return m->arch->spatial_weights ? m->arch->spatial_weights(m, layer) : NULL;
}

size_t model_activation_bytes(const model *m) { return (m->acts.total + m->act_grads.total + m->inputs.total) * sizeof(float); }

// --- forward and backward of the shared steps ---

// Draws this forward's reference tokens (cls, when there is one, and R patches) and adds
// their encoding rows: x0[b, ref[b, r]] += table[ref[b, r]]. The rows are gathered from the
// table viewed as one image of B·R keys.
static void reference_positions_forward(model *m, int B) {
    int R = m->t0 + m->cfg.request.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)m->batch.ref_index; // (B, R)
    float *rows = m->activations.ref_rows;           // (B, R, d)
    m->ops->gather_tokens_forward(rows, m->pe->reference_table(m), ref, 1, m->T, B * R, d);
    m->ops->gather_tokens_backward(m->activations.x0, rows, ref, B, m->T, R, d);
}

// A learned table (abs): the reference rows' gradient back to the (possibly resized) table; a
// token drawn by several images accumulates in image order. Fixed tables learn nothing.
static void reference_positions_backward(model *m, int B) {
    if (!m->pe->table_grad) return;
    int R = m->t0 + m->cfg.request.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)m->batch.ref_index;
    float *drows = m->activation_grads.ref_rows; // (B, R, d), overwritten
    m->ops->gather_tokens_forward(drows, m->activation_grads.x0, ref, B, m->T, R, d);
    m->ops->gather_tokens_backward(m->pe->table_grad(m), drows, ref, 1, m->T, B * R, d);
}

// The host's part of a forward: this forward's reference tokens and the encoding's draws go
// into the staging inputs, and every per-step input (images, context, references, positions)
// is uploaded.
static void upload_step_inputs(model *m, int B, int training, rng_addr rng) {
    const model_config *c = &m->cfg;
    model_upload(m, m->batch_host.images, (size_t)B * model_input_floats(m));
    if (m->M < m->T && m->keep == 0) model_upload(m, m->batch_host.context, (size_t)B * m->M);
    if (m->mask_mode != ATTN_MASK_NONE) model_upload(m, m->batch_host.groups, (size_t)B * model_tokens(m));
    if (m->keep > 0) model_upload(m, m->batch_host.keep_index, (size_t)B * m->keep);
    if (c->request.ref_tokens > 0) {
        int *ref = (int *)m->batch_host.ref_index; // (B, t0 + R)
        posenc_reference_tokens(ref, B, m->N, m->t0, c->request.ref_tokens, rng.seed, rng.epoch, rng.step, rng.index, m->ref_scratch);
        model_upload(m, m->batch_host.ref_index, (size_t)B * (m->t0 + c->request.ref_tokens));
    } else if (m->pe->prepare_inputs) {
        m->pe->prepare_inputs(m, B, training, rng);
    }
    if (m->upload_mark > 0) m->ops->timer_mark(m->upload_mark);
}

static rng_addr site(rng_addr base, uint32_t purpose, uint32_t index) {
    base.purpose = purpose;
    base.index = index;
    return base;
}

void model_drop_path_scales(model *m, float *keep, int B, float p, rng_addr rng, uint32_t site_index) {
    uint32_t first = p > 0.0f ? rng.index : 0; // an evaluation's rng.index is its test offset; p = 0 there
    rng_addr at = site(rng, RNG_DROPPATH, site_index);
    if (first == 0) {
        m->ops->drop_path_scales(keep, B, p, at);
        return;
    }
    // Images first .. first + B - 1 of the step's batch: draw the batch's first + B scales and
    // move the last B to the front ([first, first + B) and [0, B) are disjoint: first = i * B).
    if (first % (uint32_t)B != 0 || first + (uint32_t)B > (uint32_t)m->max_batch)
        die_fail("internal: drop path of images %u..%u (micro-batches of %d in a batch of at most %d)", first,
                 first + (uint32_t)B - 1, B, m->max_batch);
    m->ops->drop_path_scales(keep, (int)first + B, p, at);
    m->ops->copy(keep, keep + first, (size_t)B * sizeof(float));
}

void model_dropout_forward(model *m, float *out, float *mask, const float *in, int B, size_t per_image, float p,
                           rng_addr rng, uint32_t site_index) {
    // Image b of this forward is image rng.index + b of the step's batch; its elements are
    // elements (rng.index + b) per_image .. of the whole batch's tensor (0 outside training).
    uint64_t first = (uint64_t)rng.index * per_image;
    m->ops->dropout_forward(out, mask, in, (size_t)B * per_image, p, site(rng, RNG_DROPOUT, site_index), first);
}

// GVP's two streams (B, T + N, d): the content rows x (B, T, d), then query row n = w + the
// encoding's row of patch n (reference_table, the (T, d) table of the grid).
static const float *two_streams_forward(model *m, const float *x, int B) {
    const ops_backend *ops = m->ops;
    const model_activations *a = &m->activations;
    int d = m->cfg.dim, T = m->T, N = m->N, Ts = model_tokens(m);
    ops->scatter_tokens_forward(a->streams, x, (const int *)m->batch.context, B, Ts, T, d);
    ops->gather_tokens_forward(a->query_pe_rows, m->pe->reference_table(m), (const int *)m->batch.query_pe_index, 1, T,
                               B * N, d);
    ops->gather_tokens_forward(a->query_w_rows, m->weights.query_token, (const int *)m->batch.query_w_index, 1, 1, B * N, d);
    ops->scatter_tokens_forward(a->streams, a->query_pe_rows, (const int *)m->batch.query_index, B, Ts, N, d);
    ops->gather_tokens_backward(a->streams, a->query_w_rows, (const int *)m->batch.query_index, B, Ts, N, d); // += w
    return a->streams;
}

// Its backward: the content rows' gradient into dx (B, T, d) (overwritten), the query rows'
// into w and, for a learned table, into the table's gradient (before the embedding adds its own).
static void two_streams_backward(model *m, float *dx, int B) {
    const ops_backend *ops = m->ops;
    const model_activations *da = &m->activation_grads;
    int d = m->cfg.dim, T = m->T, N = m->N, Ts = model_tokens(m);
    ops->gather_tokens_forward(dx, da->streams, (const int *)m->batch.context, B, Ts, T, d);
    ops->gather_tokens_forward(da->query_rows, da->streams, (const int *)m->batch.query_index, B, Ts, N, d);
    ops->gather_tokens_backward(m->weight_grads.query_token, da->query_rows, (const int *)m->batch.query_w_index, 1, 1,
                                B * N, d);
    if (m->pe->table_grad)
        ops->gather_tokens_backward(m->pe->table_grad(m), da->query_rows, (const int *)m->batch.query_pe_index, 1, T,
                                    B * N, d);
}

void model_measure_embedding(model *m) { m->measure_embedding = 1; }

// model_measure_embedding's measurement, right after the embedding of a forward of B images:
// content = embed (B, N, d); added = x0's patch rows (B, t0 + n, d) minus content.
static void measure_embedding(model *m, int B) {
    int d = m->cfg.dim, N = m->N, T = m->T;
    size_t content_n = (size_t)B * N * d, x0_n = (size_t)B * T * d;
    float *content = xmalloc(content_n * sizeof(float), "embedding measurement");
    float *x0 = xmalloc(x0_n * sizeof(float), "embedding measurement");
    m->ops->download(content, m->activations.embed, content_n * sizeof(float));
    m->ops->download(x0, m->activations.x0, x0_n * sizeof(float));
    double content_ss = 0.0, added_ss = 0.0;
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++) {
            const float *c = content + ((size_t)b * N + n) * d, *x = x0 + ((size_t)b * T + m->t0 + n) * d;
            for (int k = 0; k < d; k++) {
                double added = (double)x[k] - (double)c[k];
                content_ss += (double)c[k] * c[k];
                added_ss += added * added;
            }
        }
    m->content_rms = sqrt(content_ss / (double)content_n);
    m->posenc_rms = sqrt(added_ss / (double)content_n);
    m->measure_embedding = 0;
    free(content), free(x0);
}

const float *model_forward(model *m, int B, int training, rng_addr rng) {
    const ops_backend *ops = m->ops;
    const model_config *c = &m->cfg;
    const model_weights *w = &m->weights;
    const model_activations *a = &m->activations;
    int d = c->dim, T = m->T, N = m->N;
    int pd = token_inputs(c);
    if (B > model_batch_capacity(m, m->M))
        die_fail("model_forward: batch %d with %d key tokens > allocated %d", B, m->M, model_batch_capacity(m, m->M));
    float dropout = training ? c->dropout : 0.0f;
    m->training_dropout = dropout > 0.0f;

    // Embed: (B, C, S, S) -> patches (B, N, C·p·p) -> (B, N, d); a sequence (B, N, F) is
    // already one row per token; token ids (B, N) pick rows of the table (vocab, d).
    upload_step_inputs(m, B, training, rng);
    if (c->vocab > 0) {
        ops->gather_tokens_forward(a->embed, w->token_w, (const int *)m->batch.images, 1, c->vocab, B * N, d);
    } else {
        const float *rows = m->batch.images;
        if (c->features == 0) {
            ops->patchify(a->patches, m->batch.images, B, c->channels, m->image_size, m->image_size, c->patch);
            rows = a->patches;
        }
        ops->linear_forward(a->embed, rows, w->patch_w, w->patch_b, B * N, pd, d);
    }
    if (content_scaled(c)) ops->scale(a->embed, (size_t)B * N * d, c->content_scale); // pe.content_scale
    // Position: on the reference tokens only; or a table added to every token, then a
    // per-image addition (each hook may be absent). x0 (B, T, d) with the cls token first.
    if (c->request.ref_tokens > 0) {
        ops->embed_tokens_forward(a->x0, a->embed, w->cls_token, NULL, B, N, d);
        reference_positions_forward(m, B);
    } else {
        const float *table = m->pe->table_forward ? m->pe->table_forward(m) : NULL;
        ops->embed_tokens_forward(a->x0, a->embed, w->cls_token, table, B, N, d);
        if (m->pe->tokens_forward) m->pe->tokens_forward(m, B);
    }
    if (m->measure_embedding) measure_embedding(m, B);
    const float *x = a->x0;
    if (dropout > 0) {
        model_dropout_forward(m, a->x0_drop, a->x0_mask, x, B, (size_t)T * d, dropout, rng, 0);
        x = a->x0_drop;
    }
    if (m->Tq > 0) x = two_streams_forward(m, x, B);
    if (m->keep > 0) { // MAE's encoder: the kept tokens only (B, keep, d)
        ops->gather_tokens_forward(a->x_keep, x, (const int *)m->batch.keep_index, B, T, m->keep, d);
        x = a->x_keep;
    }
    // Blocks: (B, T + Tq, d) -> (B, T + Tq, d).
    m->blocks_out = m->arch->forward(m, x, B, training, dropout, rng);
    // Head: final LN, then every token (B, T + Tq, outputs) or the cls / mean-pooled features (B, classes).
    int BTs = B * model_tokens(m);
    ops->layernorm_forward(a->final, a->final_mean, a->final_rstd, m->blocks_out, w->norm_w, w->norm_b, BTs, d);
    if (c->request.token_head) {
        ops->linear_forward(a->logits, a->final, w->head_w, w->head_b, BTs, d, token_outputs(m));
        return a->logits;
    }
    if (c->cls)
        ops->gather_tokens_forward(a->features, a->final, (const int *)m->batch.cls_index, B, T, 1, d);
    else
        ops->mean_pool_forward(a->features, a->final, B, T, d, 0);
    ops->linear_forward(a->logits, a->features, w->head_w, w->head_b, B, d, c->num_classes);
    return a->logits;
}

void model_backward(model *m, int B) {
    const ops_backend *ops = m->ops;
    const model_config *c = &m->cfg;
    const model_weights *w = &m->weights, *dw = &m->weight_grads;
    const model_activations *a = &m->activations, *da = &m->activation_grads;
    int d = c->dim, T = m->T, N = m->N, BT = B * T;
    int pd = token_inputs(c);

    // Head.
    int BTs = B * model_tokens(m);
    if (c->request.token_head) {
        ops->linear_backward(da->final, dw->head_w, dw->head_b, da->logits, a->final, w->head_w, BTs, d, token_outputs(m));
    } else {
        ops->linear_backward(da->features, dw->head_w, dw->head_b, da->logits, a->features, w->head_w, B, d, c->num_classes);
        if (c->cls)
            ops->gather_tokens_backward(da->final, da->features, (const int *)m->batch.cls_index, B, T, 1, d);
        else
            ops->mean_pool_backward(da->final, da->features, B, T, d, 0);
    }
    ops->layernorm_backward(m->arch->output_grad(m), dw->norm_w, dw->norm_b, da->final, m->blocks_out, w->norm_w,
                            a->final_mean, a->final_rstd, BTs, d);
    // Blocks (and GVP's two streams back to the content rows).
    float *dx = m->training_dropout ? da->x0_drop : da->x0;
    if (m->Tq > 0) {
        m->arch->backward(m, a->streams, da->streams, B);
        two_streams_backward(m, dx, B);
    } else if (m->keep > 0) {
        m->arch->backward(m, a->x_keep, da->x_keep, B);
        ops->gather_tokens_backward(dx, da->x_keep, (const int *)m->batch.keep_index, B, T, m->keep, d);
    } else {
        m->arch->backward(m, m->training_dropout ? a->x0_drop : a->x0, dx, B);
    }
    // Position and embed.
    if (m->training_dropout) ops->dropout_backward(da->x0, da->x0_drop, a->x0_mask, (size_t)BT * d);
    float *dtable = c->request.ref_tokens == 0 && m->pe->table_grad ? m->pe->table_grad(m) : NULL;
    ops->embed_tokens_backward(da->embed, dw->cls_token, dtable, da->x0, B, N, d, c->cls);
    if (c->request.ref_tokens > 0) reference_positions_backward(m, B);
    if (m->pe->table_backward) m->pe->table_backward(m);
    if (content_scaled(c)) ops->scale(da->embed, (size_t)B * N * d, c->content_scale);
    if (c->vocab > 0) { // rows of a repeated id accumulate in order (b, n)
        ops->gather_tokens_backward(dw->token_w, da->embed, (const int *)m->batch.images, 1, c->vocab, B * N, d);
        return;
    }
    const float *rows = c->features == 0 ? a->patches : m->batch.images;
    ops->linear_backward(NULL, dw->patch_w, dw->patch_b, da->embed, rows, w->patch_w, B * N, pd, d);
}

double model_forward_flops_masked(const model_config *c, int M) {
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    double N = (double)rows * cols, T = N + (c->cls ? 1 : 0), d = c->dim, pd = token_inputs(c);
    double embed = c->vocab > 0 ? 0.0 : 2.0 * N * pd * d; // a table lookup is no multiply-add
    double head = c->request.token_head ? 2.0 * T * d * N : 2.0 * d * c->num_classes;
    const backbone_kind *arch = backbone_find(c->arch);
    if (c->request.keep_tokens > 0) { // MAE: blocks and token head on the kept tokens, then the decoder on every token
        double K = c->request.keep_tokens, outputs = c->request.token_outputs > 0 ? c->request.token_outputs : N;
        double blocks = arch ? c->depth * arch->block_flops(c, c->request.keep_tokens, c->request.keep_tokens) : 0.0;
        return embed + blocks + 2.0 * K * d * outputs + (c->request.extension ? c->request.extension->forward_flops(c) : 0.0);
    }
    double block = arch ? arch->block_flops(c, (int)T, M) : 0.0;
    return embed + c->depth * block + head;
}

double model_forward_flops(const model_config *c) {
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    int T = rows * cols + (c->cls ? 1 : 0);
    return model_forward_flops_masked(c, T);
}
