// models/model.c — the steps every backbone shares: what a model declares (the embedding, the
// final norm and head, around the encoding's and the blocks' own declarations) and the arenas
// it allocates once, resolution changes, and the forward and backward of embed -> position ->
// blocks -> head. The tables and bindings are models/model_tables.c's, the parameters' initial
// values models/init.c's, the config's rules models/model_config.c's, the objectives' token
// views (masked context, reference tokens, two streams, kept tokens) models/model_views.c's.
// What the encodings and backbones call back (model_view_of, dropout, drop path) is
// models/model_view.c's and models/model_dropout.c's, below this file.
// Position encodings are reached only through their hooks (models/posenc/encoding.h), blocks
// only through theirs (models/backbone.h), memory only through the op backend.
#include "model.h"
#include "model_parts.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "posenc/tables.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// pe.content_scale: the embedded content is multiplied before the encoding (0 and 1 = unscaled).
static int content_scaled(const model_config *c) { return c->content_scale != 0.0f && c->content_scale != 1.0f; }

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

static int token_outputs(const model *m) { return m->cfg.request.token_outputs > 0 ? m->cfg.request.token_outputs : m->N; }

static void declare_params(model *m) {
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    model_weights *w = &m->weights, *dw = &m->weight_grads;
    int d = c->dim, pd = model_token_inputs(c);
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
    size_t BT = B * T, BTd = BT * d, BM = B * (size_t)m->M_alloc, S = (size_t)model_max_size(c);
    size_t BTs = B * (size_t)model_tokens_max(m); // = BT without query tokens
    size_t input_n = c->vocab > 0 ? B * S : c->features > 0 ? B * S * c->features : B * c->channels * S * S;
    model_add_input(m, "images", input_n, &in->images, &host->images);
    // Token index 0 for every image (the cls gather): zeros, as the inputs are allocated.
    model_add_input(m, "cls_index", B, &in->cls_index, &host->cls_index);
    if (c->request.context_tokens > 0) model_add_input(m, "context", BM, &in->context, &host->context);
    if (!model_config_is_sequence(c)) model_add_act(m, "patches", B * N * model_token_inputs(c), &a->patches, NULL);
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

// The current input size and the token grid that follows from it.
static void set_size(model *m, int size) {
    m->image_size = size;
    model_grid_at(&m->cfg, size, &m->rows, &m->cols);
    m->grid = model_config_is_sequence(&m->cfg) ? 0 : m->rows;
    m->N = m->rows * m->cols;
    m->T = m->N + m->t0;
}

// The staged input `host` points at (its table entry).
static const tensor_info *input_tensor_of(const model *m, const float *host) {
    for (int i = 0; i < m->inputs.count; i++)
        if (m->staging + m->inputs.items[i].offset == host) return &m->inputs.items[i];
    die_fail("internal: not a staged input of the model");
}

// Every backend input but the images (before them, then after them) into kept (save = 1), or
// back from it (save = 0): (inputs.total - images) floats.
static void kept_inputs_copy(model *m, float *kept, int save) {
    const tensor_info *img = input_tensor_of(m, m->batch_host.images);
    size_t before = img->offset, after = img->offset + img->numel, rest = m->inputs.total - after;
    float *ranges[2][2] = {{m->input, kept}, {m->input + after, kept + before}}; // (arena, kept) per range
    size_t floats[2] = {before, rest};
    for (int r = 0; r < 2; r++) // save: arena -> kept; restore: kept -> arena
        if (floats[r]) m->ops->copy(ranges[r][save], ranges[r][!save], floats[r] * sizeof(float));
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
    for (int k = 0; k < m->kept_n; k++)
        if (m->kept_size[k] == size) kept_inputs_copy(m, m->kept_inputs[k], 0); // what a replay reads
}

void model_keep_resolution(model *m, int size) {
    if (m->owner) die_fail("internal: model_keep_resolution of a sub-model");
    if (!m->input) return; // only declared (bench --arena-only): no arenas to keep
    for (int k = 0; k < m->kept_n; k++)
        if (m->kept_size[k] == size) return;
    if (m->kept_n == MODEL_KEPT_SIZES) die_fail("internal: model_keep_resolution of more than %d sizes", MODEL_KEPT_SIZES);
    int was = m->image_size, k = m->kept_n;
    size_t images = input_tensor_of(m, m->batch_host.images)->numel;
    m->kept_inputs[k] = m->ops->alloc((m->inputs.total - images) * sizeof(float), "grid tables of a kept size");
    model_set_resolution(m, size);
    kept_inputs_copy(m, m->kept_inputs[k], 1);
    m->ops->upload_wait(); // the tables' uploads read the staging before the host writes another size's
    m->kept_size[k] = size, m->kept_n = k + 1;
    model_set_resolution(m, was);
}

void model_images_from(model *m, const float *images) { m->images_from = images; }

void model_declare(model *m, const model_config *cfg, const ops_backend *ops, int max_batch) {
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
    set_size(m, model_max_size(cfg));
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
}

void model_create(model *m, const model_config *cfg, const ops_backend *ops, int max_batch, uint32_t seed) {
    model_declare(m, cfg, ops, max_batch);
    m->param = ops->alloc(m->params.total * sizeof(float), "parameters");
    m->grad = ops->alloc(m->params.total * sizeof(float), "gradients");
    m->act = ops->alloc(m->acts.total * sizeof(float), "activations");
    m->dact = ops->alloc(m->act_grads.total * sizeof(float), "activation gradients");
    m->input = ops->alloc(m->inputs.total * sizeof(float), "model inputs");
    m->staging = xmalloc_aligned(m->inputs.total * sizeof(float), "model inputs (host staging)");
    ops->pin_host(m->staging, m->inputs.total * sizeof(float)); // page-locked: faster uploads
    model_resolve_bindings(m);
    m->ref_scratch = cfg->request.ref_tokens > 0 ? xmalloc((size_t)m->N_max * sizeof(int), "reference draw") : NULL;
    if (m->pe->set_grid) m->pe->set_grid(m);
    if (m->arch->set_grid) m->arch->set_grid(m);
    if (cfg->request.query_stream) model_stage_query_indices(m);
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
    for (int k = 0; k < m->kept_n; k++) m->ops->free(m->kept_inputs[k]);
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

float *model_images(model *m) {
    m->ops->upload_wait(); // the caller writes it: the previous batch's asynchronous uploads read it first
    return m->batch_host.images;
}
size_t model_input_floats(const model *m) {
    const model_config *c = &m->cfg;
    return c->vocab > 0      ? (size_t)m->image_size
           : c->features > 0 ? (size_t)m->image_size * c->features
                             : (size_t)c->channels * m->image_size * m->image_size;
}
float *model_dlogits(model *m) { return m->activation_grads.logits; }
const int *model_reference_tokens(const model *m) { return (const int *)m->batch_host.ref_index; }
int model_reference_width(const model *m) { return m->cfg.request.ref_tokens > 0 ? m->t0 + m->cfg.request.ref_tokens : 0; }

const float *model_block_output(const model *m, int layer) { return m->arch->block_output(m, layer); }
int model_has_attention(const model *m) { return m->arch->attention_probs != NULL; }
void model_keep_attention_probs(model *m, int on) {
    if (m->arch->keep_attention_probs) m->arch->keep_attention_probs(m, on);
}
const float *model_attention_probs(const model *m, int layer) {
    return m->arch->attention_probs ? m->arch->attention_probs(m, layer) : NULL;
}

const void *model_attention_keys(const model *m, int layer, int B, int *bf16, size_t *row_stride) {
    *bf16 = 0, *row_stride = 0;
    return m->arch->attention_keys ? m->arch->attention_keys(m, layer, B, bf16, row_stride) : NULL;
}
const float *model_spatial_weights(const model *m, int layer) {
    return m->arch->spatial_weights ? m->arch->spatial_weights(m, layer) : NULL;
}

// --- forward and backward of the shared steps ---

// The host's part of a forward: this forward's reference tokens and the encoding's draws go
// into the staging inputs, and every per-step input (images, context, references, positions)
// is uploaded.
static void upload_step_inputs(model *m, int B, int training, rng_addr rng) {
    const model_config *c = &m->cfg;
    size_t images = (size_t)B * model_input_floats(m);
    if (m->images_from) m->ops->copy(m->batch.images, m->images_from, images * sizeof(float)); // model_images_from
    else model_upload(m, m->batch_host.images, images);
    m->images_from = NULL;
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
    if (m->upload_mark > 0) m->ops->timer_mark(m->upload_mark), m->upload_mark = 0; // once per arming
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
    int pd = model_token_inputs(c);
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
        model_reference_positions_forward(m, B);
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
    if (m->Tq > 0) x = model_two_streams_forward(m, x, B);
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
    int pd = model_token_inputs(c);

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
        model_two_streams_backward(m, dx, B);
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
    if (c->request.ref_tokens > 0) model_reference_positions_backward(m, B);
    if (m->pe->table_backward) m->pe->table_backward(m);
    if (content_scaled(c)) ops->scale(da->embed, (size_t)B * N * d, c->content_scale);
    if (c->vocab > 0) { // rows of a repeated id accumulate in order (b, n)
        ops->gather_tokens_backward(dw->token_w, da->embed, (const int *)m->batch.images, 1, c->vocab, B * N, d);
        return;
    }
    const float *rows = c->features == 0 ? a->patches : m->batch.images;
    ops->linear_backward(NULL, dw->patch_w, dw->patch_b, da->embed, rows, w->patch_w, B * N, pd, d);
}
