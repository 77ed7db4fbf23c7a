// models/vit.c — ViT parameter/activation/input tables, initialisation, resolution changes,
// forward and backward. Position encodings are reached only through their hooks
// (models/posenc/encoding.h); memory only through the op backend.
#include "vit.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "posenc/tables.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int max_size(const vit_config *c) { return c->max_image_size > c->image_size ? c->max_image_size : c->image_size; }

const char *vit_resolution_error(const vit_config *c, int size, const char *key) {
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
    int grid = size / c->patch;
    if (c->ref_tokens > grid * grid) {
        snprintf(msg, sizeof msg, "%s: image size %d has %d patches, fewer than the %d reference tokens", key, size,
                 grid * grid, c->ref_tokens);
        return msg;
    }
    return NULL;
}

const char *vit_config_error(const vit_config *c) {
    static char msg[256];
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
    const posenc_kind *pe = posenc_find(c->pe_kind ? c->pe_kind : "none");
    if (!pe) {
        snprintf(msg, sizeof msg, "pe.kind=%s is not a position encoding (valid: %s)", c->pe_kind, posenc_names());
        return msg;
    }
    const char *why = pe->config_error ? pe->config_error(c) : NULL;
    if (why) return why;
    int N = (c->image_size / c->patch) * (c->image_size / c->patch), T = N + (c->cls ? 1 : 0);
    if (c->ref_tokens < 0 || c->ref_tokens > N) {
        snprintf(msg, sizeof msg, "%d reference tokens: must be in [0, %d] (the patches of one image)", c->ref_tokens, N);
        return msg;
    }
    if (c->ref_tokens > 0 && !pe->reference_table) {
        snprintf(msg, sizeof msg, "reference tokens (objective.ref_fraction > 0) keep a position encoding that every token "
                 "could have: pe.kind must be one of %s", posenc_reference_names());
        return msg;
    }
    if (c->context_tokens < 0 || c->context_tokens > T) {
        snprintf(msg, sizeof msg, "masked attention with %d key tokens: must be in [1, %d]", c->context_tokens, T);
        return msg;
    }
    return NULL;
}

int vit_add_param(vit *m, const char *name, int decay, int d0, int d1) {
    int shape[2] = {d0, d1};
    return tensor_table_add(&m->params, name, decay, d1 > 0 ? 2 : 1, shape);
}

// An activation of act_n floats with a gradient of grad_n floats (0: none; only those slots
// are zeroed each step).
static int add_act_sized(vit *m, const char *name, size_t act_n, size_t grad_n) {
    int index = tensor_table_add_flat(&m->acts, name, 0, act_n);
    if (index >= VIT_MAX_ACTS) die_fail("internal: more than %d activations", VIT_MAX_ACTS);
    m->grad_slot[index] = grad_n ? tensor_table_add_flat(&m->act_grads, name, 0, grad_n) : -1;
    return index;
}
int vit_add_act(vit *m, const char *name, size_t n, int with_grad) { return add_act_sized(m, name, n, with_grad ? n : 0); }
// A gradient buffer with no activation of its own (its activation entry is 1 float, unused).
static int add_grad_only(vit *m, const char *name, size_t n) { return add_act_sized(m, name, 1, n); }
int vit_add_input(vit *m, const char *name, size_t n) {
    return tensor_table_add_flat(&m->inputs, name, 0, n);
}

#define PARAM(i) (m->param + m->params.items[(i)].offset)
#define GRAD(i) (m->grad + m->params.items[(i)].offset)
#define ACT(i) (m->act + m->acts.items[(i)].offset)
#define DACT(i) (m->dact + m->act_grads.items[m->grad_slot[(i)]].offset)
#define INPUT(i) (m->input + m->inputs.items[(i)].offset)
#define STAGED(i) (m->staging + m->inputs.items[(i)].offset)
#define OPT_PARAM(i) ((i) >= 0 ? PARAM(i) : NULL)
#define OPT_GRAD(i) ((i) >= 0 ? GRAD(i) : NULL)
float *vit_param(const vit *m, int i) { return PARAM(i); }
float *vit_grad(const vit *m, int i) { return GRAD(i); }
float *vit_act(const vit *m, int i) { return ACT(i); }
float *vit_dact(const vit *m, int i) { return DACT(i); }
float *vit_input(const vit *m, int i) { return INPUT(i); }
float *vit_staged(const vit *m, int i) { return STAGED(i); }
void vit_upload_input(vit *m, int i, size_t n) {
    if (n > m->inputs.items[i].numel) die_fail("internal: upload of %zu floats into input %s of %zu", n, m->inputs.items[i].name,
                                               m->inputs.items[i].numel);
    m->ops->upload(INPUT(i), STAGED(i), n * sizeof(float));
}

static void declare_params(vit *m) {
    const vit_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    int d = c->dim, pd = c->channels * c->patch * c->patch, hd = c->mlp_ratio * c->dim;
    m->patch_w = vit_add_param(m, "patch_embed.weight", 1, d, pd);
    m->patch_b = vit_add_param(m, "patch_embed.bias", 0, d, 0);
    m->cls_token = c->cls ? vit_add_param(m, "cls_token", 0, d, 0) : -1;
    if (m->pe->declare_params) m->pe->declare_params(m);
    m->blocks = xcalloc((size_t)c->depth, sizeof *m->blocks, "vit blocks");
    for (int l = 0; l < c->depth; l++) {
        vit_block_params *b = &m->blocks[l];
#define P(field, suffix, decay, d0, d1)                                  \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);              \
    b->field = vit_add_param(m, name, decay, d0, d1)
        P(norm1_w, "norm1.weight", 0, d, 0);
        P(norm1_b, "norm1.bias", 0, d, 0);
        P(qkv_w, "attn.qkv.weight", 1, 3 * d, d);
        P(qkv_b, "attn.qkv.bias", 0, 3 * d, 0);
        P(proj_w, "attn.proj.weight", 1, d, d);
        P(proj_b, "attn.proj.bias", 0, d, 0);
        if (m->pe->declare_block_params) m->pe->declare_block_params(m, l);
        P(norm2_w, "norm2.weight", 0, d, 0);
        P(norm2_b, "norm2.bias", 0, d, 0);
        P(fc1_w, "mlp.fc1.weight", 1, hd, d);
        P(fc1_b, "mlp.fc1.bias", 0, hd, 0);
        P(fc2_w, "mlp.fc2.weight", 1, d, hd);
        P(fc2_b, "mlp.fc2.bias", 0, d, 0);
#undef P
    }
    m->norm_w = vit_add_param(m, "norm.weight", 0, d, 0);
    m->norm_b = vit_add_param(m, "norm.bias", 0, d, 0);
    const char *head = c->head_name ? c->head_name : "head";
    int outputs = c->token_head ? m->N : c->num_classes;
    snprintf(name, sizeof name, "%s.weight", head);
    m->head_w = vit_add_param(m, name, 1, outputs, d);
    snprintf(name, sizeof name, "%s.bias", head);
    m->head_b = vit_add_param(m, name, 0, outputs, 0);
}

static void declare_acts(vit *m) {
    const vit_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    // Sized for the largest input: every (B, T, ...) activation of a smaller one is a prefix.
    size_t B = (size_t)m->max_batch, T = (size_t)m->T_max, N = (size_t)m->N_max, d = (size_t)c->dim;
    size_t BT = B * T, BTd = BT * d, hd = (size_t)c->mlp_ratio * d, BM = B * (size_t)m->M_alloc;
    size_t S = (size_t)max_size(c);
    int masked = c->context_tokens > 0;
    m->in_images = vit_add_input(m, "images", B * c->channels * S * S);
    // Token index 0 for every image (the cls gather): zeros, as the inputs are allocated.
    m->in_cls_index = vit_add_input(m, "cls_index", B);
    m->in_context = masked ? vit_add_input(m, "context", BM) : -1;
    m->a_patches = vit_add_act(m, "patches", B * N * c->channels * c->patch * c->patch, 0);
    m->a_embed = vit_add_act(m, "patch_embed", B * N * d, 1);
    int R = c->ref_tokens;
    size_t BR = B * (size_t)(m->t0 + R); // cls (always) + R patches per image
    m->in_ref_index = R > 0 ? vit_add_input(m, "ref_index", BR) : -1;
    m->a_ref_rows = R > 0 ? vit_add_act(m, "ref_rows", BR * d, m->pe->table_grad != NULL) : -1;
    if (m->pe->declare_acts) m->pe->declare_acts(m);
    m->a_x0 = vit_add_act(m, "tokens", BTd, 1);
    m->a_x0_drop = c->dropout > 0 ? vit_add_act(m, "tokens.dropout", BTd, 1) : -1;
    m->a_x0_mask = c->dropout > 0 ? vit_add_act(m, "tokens.dropout_mask", BTd, 0) : -1;
    m->block_acts = xcalloc((size_t)c->depth, sizeof *m->block_acts, "vit block activations");
    for (int l = 0; l < c->depth; l++) {
        vit_block_acts *a = &m->block_acts[l];
#define A(field, suffix, n)                                     \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    a->field = vit_add_act(m, name, n, 1)
#define A_NOGRAD(field, suffix, n)                              \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    a->field = vit_add_act(m, name, n, 0)
        A(ln1, "norm1", BTd);
        A_NOGRAD(ln1_mean, "norm1.mean", BT);
        A_NOGRAD(ln1_rstd, "norm1.rstd", BT);
        if (masked) { // q (B, T, C) then k|v (B, M, 2C); or a full qkv of a smaller batch (see vit.h)
            A_NOGRAD(qkv, "qkv", BTd + 2 * BM * d);
        } else {
            A(qkv, "qkv", 3 * BTd);
        }
        A_NOGRAD(att, "attn.probs", B * c->heads * T * m->M_alloc);
        A(attn, "attn.out", BTd);
        A(proj, "attn.proj", BTd);
        A(res1, "residual1", BTd);
        A(ln2, "norm2", BTd);
        A_NOGRAD(ln2_mean, "norm2.mean", BT);
        A_NOGRAD(ln2_rstd, "norm2.rstd", BT);
        A(fc1, "mlp.fc1", BT * hd);
        A(gelu, "mlp.gelu", BT * hd);
        A(fc2, "mlp.fc2", BTd);
        A(res2, "residual2", BTd);
        A_NOGRAD(keep1, "drop_path1", B);
        A_NOGRAD(keep2, "drop_path2", B);
        if (c->dropout > 0) {
            A(proj_drop, "attn.proj.dropout", BTd);
            A_NOGRAD(proj_mask, "attn.proj.dropout_mask", BTd);
            A(fc2_drop, "mlp.fc2.dropout", BTd);
            A_NOGRAD(fc2_mask, "mlp.fc2.dropout_mask", BTd);
        } else {
            a->proj_drop = a->proj_mask = a->fc2_drop = a->fc2_mask = -1;
        }
#undef A
#undef A_NOGRAD
    }
    m->a_final = vit_add_act(m, "norm", BTd, 1);
    m->a_final_mean = vit_add_act(m, "norm.mean", BT, 0);
    m->a_final_rstd = vit_add_act(m, "norm.rstd", BT, 0);
    m->a_feat = vit_add_act(m, "features", B * d, 1);
    m->a_logits = vit_add_act(m, "logits", c->token_head ? BT * m->N : B * c->num_classes, 1);
    m->a_mask_qkv = masked ? vit_add_act(m, "attn.qkv", 3 * BTd, 1) : -1;
    m->a_mask_q = masked ? add_grad_only(m, "attn.q", BTd) : -1;
    m->a_mask_ln1_ctx = masked ? vit_add_act(m, "norm1.context", BM * d, 1) : -1;
    m->a_mask_kv = masked ? add_grad_only(m, "attn.kv", BM * 2 * d) : -1;
}

void vit_init_params(vit *m, uint32_t seed) {
    float *host = xmalloc_aligned(m->params.total * sizeof(float), "initial parameters");
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        float *p = host + info->offset;
        rng_stream s = rng_stream_make(seed, RNG_INIT, 0, 0, (uint32_t)i);
        const char *dot = strrchr(info->name, '.');
        int is_norm = strstr(info->name, "norm") != NULL;
        if ((dot && strcmp(dot, ".bias") == 0) || strstr(info->name, "rel_bias")) { // biases; relbias starts at 0
            memset(p, 0, info->numel * sizeof(float));
        } else if (is_norm) { // LayerNorm weight
            for (size_t k = 0; k < info->numel; k++) p[k] = 1.0f;
        } else { // linear weights, cls token, position table: trunc normal std 0.02
            for (size_t k = 0; k < info->numel; k++) p[k] = rng_trunc_normal(&s, 0.02f);
        }
    }
    m->ops->upload(m->param, host, m->params.total * sizeof(float));
    free(host);
}

void vit_set_resolution(vit *m, int size) {
    if (size == m->image_size) return;
    const char *why = vit_resolution_error(&m->cfg, size, "image size");
    if (why) die_input("%s", why);
    if (m->M != m->T) die_fail("internal: vit_set_resolution during masked attention");
    m->image_size = size;
    m->grid = size / m->cfg.patch;
    m->N = m->grid * m->grid;
    m->T = m->N + m->t0;
    m->M = m->T;
    if (m->pe->set_grid) m->pe->set_grid(m);
}

void vit_create(vit *m, const vit_config *cfg, const ops_backend *ops, int max_batch, uint32_t seed) {
    memset(m, 0, sizeof *m);
    const char *why = vit_config_error(cfg);
    if (why) die_input("%s", why);
    m->cfg = *cfg;
    m->ops = ops;
    m->max_batch = max_batch;
    m->t0 = cfg->cls ? 1 : 0;
    m->grid0 = cfg->image_size / cfg->patch;
    m->T0 = m->grid0 * m->grid0 + m->t0;
    m->pe = posenc_find(cfg->pe_kind ? cfg->pe_kind : "none");
    m->grid_max = max_size(cfg) / cfg->patch;
    m->N_max = m->grid_max * m->grid_max;
    m->T_max = m->N_max + m->t0;
    m->image_size = cfg->image_size;
    m->grid = m->grid0;
    m->N = m->grid * m->grid;
    m->T = m->T0;
    m->M_alloc = cfg->context_tokens > 0 ? cfg->context_tokens : m->T_max;
    m->M = m->T;
    tensor_table_init(&m->params);
    tensor_table_init(&m->acts);
    tensor_table_init(&m->act_grads);
    tensor_table_init(&m->inputs);
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
    m->ref_scratch = cfg->ref_tokens > 0 ? xmalloc((size_t)m->N_max * sizeof(int), "reference draw") : NULL;
    if (m->pe->set_grid) m->pe->set_grid(m);
    vit_init_params(m, seed);
}

void vit_free(vit *m) {
    if (m->pe && m->pe->free) m->pe->free(m);
    free(m->pe_state);
    m->ops->free(m->param);
    m->ops->free(m->grad);
    m->ops->free(m->act);
    m->ops->free(m->dact);
    m->ops->free(m->input);
    free(m->staging);
    free(m->blocks);
    free(m->block_acts);
    free(m->ref_scratch);
    tensor_table_free(&m->params);
    tensor_table_free(&m->acts);
    tensor_table_free(&m->act_grads);
    tensor_table_free(&m->inputs);
    memset(m, 0, sizeof *m);
}


float *vit_images(vit *m) { return STAGED(m->in_images); }
float *vit_dlogits(vit *m) { return DACT(m->a_logits); }
const int *vit_reference_tokens(const vit *m) { return m->in_ref_index < 0 ? NULL : (const int *)STAGED(m->in_ref_index); }
int vit_reference_width(const vit *m) { return m->in_ref_index < 0 ? 0 : m->t0 + m->cfg.ref_tokens; }
void vit_zero_act_grads(vit *m) { m->ops->zero(m->dact, m->act_grads.total); }

int *vit_context(vit *m) {
    if (m->in_context < 0) die_fail("internal: vit_context on a model built without context_tokens");
    return (int *)STAGED(m->in_context);
}

int vit_batch_capacity(const vit *m, int M) {
    long cap = (long)m->max_batch * m->M_alloc / M;
    return cap < m->max_batch ? (int)cap : m->max_batch;
}

void vit_set_context(vit *m, int M) {
    if (M < 1 || M > m->T) die_fail("internal: vit_set_context M=%d outside [1, %d]", M, m->T);
    if (M < m->T && m->in_context < 0) die_fail("internal: masked attention on a model built without context_tokens");
    m->M = M;
}

const float *vit_block_output(const vit *m, int layer) { return ACT(m->block_acts[layer].res2); }

size_t vit_activation_bytes(const vit *m) { return (m->acts.total + m->act_grads.total + m->inputs.total) * sizeof(float); }

static int masked_attention(const vit *m) { return m->M < m->T; }

static attention_desc block_attention(const vit *m, int B) {
    attention_desc d = {.B = B, .T = m->T, .C = m->cfg.dim, .H = m->cfg.heads, .M = m->M};
    if (masked_attention(m)) d.kv_index = (const int *)INPUT(m->in_context);
    return d;
}

// The (B, T, 3C) qkv the attention of block a reads: the block's own, or (masked attention)
// the shared one packed from the block's q and k|v.
static float *block_qkv(vit *m, const vit_block_acts *a) {
    return masked_attention(m) ? ACT(m->a_mask_qkv) : ACT(a->qkv);
}
// Its gradient: the block's own in a model without masked attention, else the shared one.
static float *block_dqkv(vit *m, const vit_block_acts *a) {
    return m->a_mask_qkv >= 0 ? DACT(m->a_mask_qkv) : DACT(a->qkv);
}

// Masked attention: packs block a's q (B, T, C) and context k|v (B, M, 2C), kept in its qkv
// activation, into the shared (B, T, 3C) buffer, rotated by RoPE when the model has it.
static void qkv_pack(vit *m, const vit_block_acts *a, int B) {
    int d = m->cfg.dim, T = m->T;
    const float *q = ACT(a->qkv), *kv = q + (size_t)B * T * d;
    m->ops->qkv_pack_forward(ACT(m->a_mask_qkv), q, kv, (const int *)INPUT(m->in_context), B, T, m->M, d);
    if (m->pe->qk_forward) m->pe->qk_forward(m, ACT(m->a_mask_qkv), B);
}

// qkv of a block: one projection of all tokens, or (masked) q of all tokens and k|v of the
// context tokens only, kept per block (T·C + 2·M·C floats per image) and packed into the
// shared (B, T, 3C) layout the attention op reads; RoPE applied.
static void qkv_forward(vit *m, const vit_block_params *p, const vit_block_acts *a, int B) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = m->T, M = m->M, BT = B * T;
    if (!masked_attention(m)) {
        ops->linear_forward(ACT(a->qkv), ACT(a->ln1), PARAM(p->qkv_w), PARAM(p->qkv_b), BT, d, 3 * d);
        if (m->pe->qk_forward) m->pe->qk_forward(m, ACT(a->qkv), B);
        return;
    }
    const int *ctx = (const int *)INPUT(m->in_context);
    const float *w = PARAM(p->qkv_w), *bias = PARAM(p->qkv_b); // rows [0, d) = q, [d, 3d) = k|v
    float *q = ACT(a->qkv), *kv = q + (size_t)BT * d, *ln1_ctx = ACT(m->a_mask_ln1_ctx);
    ops->linear_forward(q, ACT(a->ln1), w, bias, BT, d, d);
    ops->gather_tokens_forward(ln1_ctx, ACT(a->ln1), ctx, B, T, M, d);
    ops->linear_forward(kv, ln1_ctx, w + (size_t)d * d, bias + d, B * M, d, 2 * d);
    qkv_pack(m, a, B);
}

static void qkv_backward(vit *m, const vit_block_params *p, const vit_block_acts *a, int B) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = m->T, M = m->M, BT = B * T;
    if (!masked_attention(m)) {
        ops->linear_backward(DACT(a->ln1), GRAD(p->qkv_w), GRAD(p->qkv_b), block_dqkv(m, a), ACT(a->ln1), PARAM(p->qkv_w), BT, d, 3 * d);
        return;
    }
    const int *ctx = (const int *)INPUT(m->in_context);
    const float *w = PARAM(p->qkv_w);
    float *dw = GRAD(p->qkv_w), *db = GRAD(p->qkv_b);
    // The shared transients: the forward's values belong to the last block, and their
    // gradients accumulate, so re-gather this block's LN1 context and zero the gradients.
    float *ln1_ctx = ACT(m->a_mask_ln1_ctx);
    float *dq = DACT(m->a_mask_q), *dln1_ctx = DACT(m->a_mask_ln1_ctx), *dkv = DACT(m->a_mask_kv);
    ops->gather_tokens_forward(ln1_ctx, ACT(a->ln1), ctx, B, T, M, d);
    ops->zero(dq, (size_t)BT * d);
    ops->zero(dln1_ctx, (size_t)B * M * d);
    ops->zero(dkv, (size_t)B * M * 2 * d);
    ops->qkv_pack_backward(dq, dkv, block_dqkv(m, a), ctx, B, T, M, d);
    ops->linear_backward(dln1_ctx, dw + (size_t)d * d, db + d, dkv, ln1_ctx, w + (size_t)d * d, B * M, d, 2 * d);
    ops->gather_tokens_backward(DACT(a->ln1), dln1_ctx, ctx, B, T, M, d);
    ops->linear_backward(DACT(a->ln1), dw, db, dq, ACT(a->ln1), w, BT, d, d);
}

static rng_addr site(rng_addr base, uint32_t purpose, uint32_t index) {
    base.purpose = purpose;
    base.index = index;
    return base;
}

// Applies dropout to a residual branch when it is on; returns the activation the residual reads.
static int branch_output(int out, int dropped, int mask, float p, int B, int T, int d,
                         const ops_backend *ops, vit *m, rng_addr addr) {
    if (p <= 0.0f || dropped < 0) return out;
    ops->dropout_forward(ACT(dropped), ACT(mask), ACT(out), (size_t)B * T * d, p, addr);
    return dropped;
}

// Backward of branch_output: the gradient arrives at the dropout output (when dropout ran).
static void branch_backward(int out, int dropped, int mask, int B, int T, int d,
                            const ops_backend *ops, vit *m) {
    if (dropped >= 0)
        ops->dropout_backward(DACT(out), DACT(dropped), ACT(mask), (size_t)B * T * d);
}

// Draws this forward's reference tokens (cls, when there is one, and R patches) and adds
// their encoding rows: x0[b, ref[b, r]] += table[ref[b, r]]. The rows are gathered from the
// table viewed as one image of B·R keys.
static void reference_positions_forward(vit *m, int B) {
    int R = m->t0 + m->cfg.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)INPUT(m->in_ref_index); // (B, R)
    float *rows = ACT(m->a_ref_rows); // (B, R, d)
    m->ops->gather_tokens_forward(rows, m->pe->reference_table(m), ref, 1, m->T, B * R, d);
    m->ops->gather_tokens_backward(ACT(m->a_x0), rows, ref, B, m->T, R, d);
}

// A learned table (abs): the reference rows' gradient back to the (possibly resized) table; a
// token drawn by several images accumulates in image order. Fixed tables learn nothing.
static void reference_positions_backward(vit *m, int B) {
    if (!m->pe->table_grad) return;
    int R = m->t0 + m->cfg.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)INPUT(m->in_ref_index);
    float *drows = DACT(m->a_ref_rows); // (B, R, d), overwritten
    m->ops->gather_tokens_forward(drows, DACT(m->a_x0), ref, B, m->T, R, d);
    m->ops->gather_tokens_backward(m->pe->table_grad(m), drows, ref, 1, m->T, B * R, d);
}

// The host's part of a forward: this forward's reference tokens and the encoding's draws go
// into the staging inputs, and every per-step input (images, context, references, positions)
// is uploaded.
static void upload_step_inputs(vit *m, int B, int training, rng_addr rng) {
    const vit_config *c = &m->cfg;
    vit_upload_input(m, m->in_images, (size_t)B * c->channels * m->image_size * m->image_size);
    if (masked_attention(m)) vit_upload_input(m, m->in_context, (size_t)B * m->M);
    if (c->ref_tokens > 0) {
        int *ref = (int *)STAGED(m->in_ref_index); // (B, t0 + R)
        posenc_reference_tokens(ref, B, m->N, m->t0, c->ref_tokens, rng.seed, rng.epoch, rng.step, rng.index, m->ref_scratch);
        vit_upload_input(m, m->in_ref_index, (size_t)B * (m->t0 + c->ref_tokens));
    } else if (m->pe->prepare_inputs) {
        m->pe->prepare_inputs(m, B, training, rng);
    }
}

const float *vit_forward(vit *m, int B, int training, rng_addr rng) {
    const ops_backend *ops = m->ops;
    const vit_config *c = &m->cfg;
    int d = c->dim, hd = c->mlp_ratio * c->dim, T = m->T, N = m->N, BT = B * T;
    int pd = c->channels * c->patch * c->patch;
    if (B > vit_batch_capacity(m, m->M))
        die_fail("vit_forward: batch %d with %d key tokens > allocated %d", B, m->M, vit_batch_capacity(m, m->M));
    float dropout = training ? c->dropout : 0.0f;
    m->training_dropout = dropout > 0.0f;

    upload_step_inputs(m, B, training, rng);
    ops->patchify(ACT(m->a_patches), INPUT(m->in_images), B, c->channels, m->image_size, m->image_size, c->patch);
    ops->linear_forward(ACT(m->a_embed), ACT(m->a_patches), PARAM(m->patch_w), PARAM(m->patch_b), B * N, pd, d);
    // The encoding: on the reference tokens only; or a table added to every token, then a
    // per-image addition (each hook may be absent).
    if (c->ref_tokens > 0) {
        ops->embed_tokens_forward(ACT(m->a_x0), ACT(m->a_embed), OPT_PARAM(m->cls_token), NULL, B, N, d);
        reference_positions_forward(m, B);
    } else {
        const float *table = m->pe->table_forward ? m->pe->table_forward(m) : NULL;
        ops->embed_tokens_forward(ACT(m->a_x0), ACT(m->a_embed), OPT_PARAM(m->cls_token), table, B, N, d);
        if (m->pe->tokens_forward) m->pe->tokens_forward(m, B);
    }
    const float *x = ACT(m->a_x0);
    if (dropout > 0) {
        ops->dropout_forward(ACT(m->a_x0_drop), ACT(m->a_x0_mask), x, (size_t)BT * d, dropout, site(rng, RNG_DROPOUT, 0));
        x = ACT(m->a_x0_drop);
    }
    attention_desc ad = block_attention(m, B);
    for (int l = 0; l < c->depth; l++) {
        const vit_block_params *p = &m->blocks[l];
        const vit_block_acts *a = &m->block_acts[l];
        float dp = training && c->depth > 1 ? c->drop_path * (float)l / (float)(c->depth - 1)
                                            : (training ? c->drop_path : 0.0f);
        ops->drop_path_scales(ACT(a->keep1), B, dp, site(rng, RNG_DROPPATH, 2 * l));
        ops->drop_path_scales(ACT(a->keep2), B, dp, site(rng, RNG_DROPPATH, 2 * l + 1));

        ops->layernorm_forward(ACT(a->ln1), ACT(a->ln1_mean), ACT(a->ln1_rstd), x, PARAM(p->norm1_w), PARAM(p->norm1_b), BT, d);
        qkv_forward(m, p, a, B);
        if (m->pe->bias_forward) ad.bias = m->pe->bias_forward(m, l);
        ops->attention_forward(ACT(a->attn), ACT(a->att), block_qkv(m, a), &ad);
        ops->linear_forward(ACT(a->proj), ACT(a->attn), PARAM(p->proj_w), PARAM(p->proj_b), BT, d, d);
        int branch1 = branch_output(a->proj, a->proj_drop, a->proj_mask, dropout, B, T, d, ops, m, site(rng, RNG_DROPOUT, 1 + 2 * l));
        ops->residual_forward(ACT(a->res1), x, ACT(branch1), ACT(a->keep1), B, (size_t)T * d);

        ops->layernorm_forward(ACT(a->ln2), ACT(a->ln2_mean), ACT(a->ln2_rstd), ACT(a->res1), PARAM(p->norm2_w), PARAM(p->norm2_b), BT, d);
        ops->linear_forward(ACT(a->fc1), ACT(a->ln2), PARAM(p->fc1_w), PARAM(p->fc1_b), BT, d, hd);
        ops->gelu_forward(ACT(a->gelu), ACT(a->fc1), (size_t)BT * hd);
        ops->linear_forward(ACT(a->fc2), ACT(a->gelu), PARAM(p->fc2_w), PARAM(p->fc2_b), BT, hd, d);
        int branch2 = branch_output(a->fc2, a->fc2_drop, a->fc2_mask, dropout, B, T, d, ops, m, site(rng, RNG_DROPOUT, 2 + 2 * l));
        ops->residual_forward(ACT(a->res2), ACT(a->res1), ACT(branch2), ACT(a->keep2), B, (size_t)T * d);
        x = ACT(a->res2);
    }
    ops->layernorm_forward(ACT(m->a_final), ACT(m->a_final_mean), ACT(m->a_final_rstd), x, PARAM(m->norm_w), PARAM(m->norm_b), BT, d);
    if (c->token_head) { // (B, T, N) logits on every token
        ops->linear_forward(ACT(m->a_logits), ACT(m->a_final), PARAM(m->head_w), PARAM(m->head_b), BT, d, N);
        return ACT(m->a_logits);
    }
    if (c->cls)
        ops->gather_tokens_forward(ACT(m->a_feat), ACT(m->a_final), (const int *)INPUT(m->in_cls_index), B, T, 1, d);
    else
        ops->mean_pool_forward(ACT(m->a_feat), ACT(m->a_final), B, T, d, 0);
    ops->linear_forward(ACT(m->a_logits), ACT(m->a_feat), PARAM(m->head_w), PARAM(m->head_b), B, d, c->num_classes);
    return ACT(m->a_logits);
}

void vit_backward(vit *m, int B) {
    const ops_backend *ops = m->ops;
    const vit_config *c = &m->cfg;
    int d = c->dim, hd = c->mlp_ratio * c->dim, T = m->T, N = m->N, BT = B * T;
    int pd = c->channels * c->patch * c->patch;

    if (c->token_head) {
        ops->linear_backward(DACT(m->a_final), GRAD(m->head_w), GRAD(m->head_b), DACT(m->a_logits), ACT(m->a_final), PARAM(m->head_w), BT, d, N);
    } else {
        ops->linear_backward(DACT(m->a_feat), GRAD(m->head_w), GRAD(m->head_b), DACT(m->a_logits), ACT(m->a_feat), PARAM(m->head_w), B, d, c->num_classes);
        if (c->cls)
            ops->gather_tokens_backward(DACT(m->a_final), DACT(m->a_feat), (const int *)INPUT(m->in_cls_index), B, T, 1, d);
        else
            ops->mean_pool_backward(DACT(m->a_final), DACT(m->a_feat), B, T, d, 0);
    }
    int last_x = c->depth > 0 ? m->block_acts[c->depth - 1].res2 : m->a_x0;
    ops->layernorm_backward(DACT(last_x), GRAD(m->norm_w), GRAD(m->norm_b), DACT(m->a_final), ACT(last_x), PARAM(m->norm_w), ACT(m->a_final_mean), ACT(m->a_final_rstd), BT, d);

    attention_desc ad = block_attention(m, B);
    for (int l = c->depth - 1; l >= 0; l--) {
        const vit_block_params *p = &m->blocks[l];
        const vit_block_acts *a = &m->block_acts[l];
        int x_index = l > 0 ? m->block_acts[l - 1].res2 : (m->training_dropout ? m->a_x0_drop : m->a_x0);
        const float *x = ACT(x_index);
        float *dx = DACT(x_index);

        int branch2 = m->training_dropout ? a->fc2_drop : a->fc2;
        ops->residual_backward(DACT(a->res1), DACT(branch2), DACT(a->res2), ACT(a->keep2), B, (size_t)T * d);
        if (m->training_dropout) branch_backward(a->fc2, a->fc2_drop, a->fc2_mask, B, T, d, ops, m);
        ops->linear_backward(DACT(a->gelu), GRAD(p->fc2_w), GRAD(p->fc2_b), DACT(a->fc2), ACT(a->gelu), PARAM(p->fc2_w), BT, hd, d);
        ops->gelu_backward(DACT(a->fc1), DACT(a->gelu), ACT(a->fc1), (size_t)BT * hd);
        ops->linear_backward(DACT(a->ln2), GRAD(p->fc1_w), GRAD(p->fc1_b), DACT(a->fc1), ACT(a->ln2), PARAM(p->fc1_w), BT, d, hd);
        ops->layernorm_backward(DACT(a->res1), GRAD(p->norm2_w), GRAD(p->norm2_b), DACT(a->ln2), ACT(a->res1), PARAM(p->norm2_w), ACT(a->ln2_mean), ACT(a->ln2_rstd), BT, d);

        int branch1 = m->training_dropout ? a->proj_drop : a->proj;
        ops->residual_backward(dx, DACT(branch1), DACT(a->res1), ACT(a->keep1), B, (size_t)T * d);
        if (m->training_dropout) branch_backward(a->proj, a->proj_drop, a->proj_mask, B, T, d, ops, m);
        ops->linear_backward(DACT(a->attn), GRAD(p->proj_w), GRAD(p->proj_b), DACT(a->proj), ACT(a->attn), PARAM(p->proj_w), BT, d, d);
        // The shared qkv holds the last block's values and its gradient accumulates: re-pack
        // this block's and zero the gradient first.
        if (masked_attention(m)) qkv_pack(m, a, B);
        float *dqkv = block_dqkv(m, a);
        if (m->a_mask_qkv >= 0) ops->zero(dqkv, (size_t)BT * 3 * d);
        if (m->pe->bias_forward) {
            ad.bias = m->pe->bias_saved(m, l);
            ops->attention_backward(dqkv, m->pe->bias_grad(m, l), m->pe->bias_scratch(m), DACT(a->attn), block_qkv(m, a), ACT(a->att), &ad);
            m->pe->bias_backward(m, l);
        } else {
            ops->attention_backward(dqkv, NULL, NULL, DACT(a->attn), block_qkv(m, a), ACT(a->att), &ad);
        }
        if (m->pe->qk_backward) m->pe->qk_backward(m, dqkv, B);
        qkv_backward(m, p, a, B);
        ops->layernorm_backward(dx, GRAD(p->norm1_w), GRAD(p->norm1_b), DACT(a->ln1), x, PARAM(p->norm1_w), ACT(a->ln1_mean), ACT(a->ln1_rstd), BT, d);
    }
    if (m->training_dropout)
        ops->dropout_backward(DACT(m->a_x0), DACT(m->a_x0_drop), ACT(m->a_x0_mask), (size_t)BT * d);
    float *dtable = c->ref_tokens == 0 && m->pe->table_grad ? m->pe->table_grad(m) : NULL;
    ops->embed_tokens_backward(DACT(m->a_embed), OPT_GRAD(m->cls_token), dtable, DACT(m->a_x0), B, N, d, c->cls);
    if (c->ref_tokens > 0) reference_positions_backward(m, B);
    if (m->pe->table_backward) m->pe->table_backward(m);
    ops->linear_backward(NULL, GRAD(m->patch_w), GRAD(m->patch_b), DACT(m->a_embed), ACT(m->a_patches), PARAM(m->patch_w), B * N, pd, d);
}

double vit_forward_flops_masked(const vit_config *c, int M) {
    double N = (double)(c->image_size / c->patch) * (c->image_size / c->patch);
    double T = N + (c->cls ? 1 : 0), d = c->dim, hd = (double)c->mlp_ratio * c->dim, Mk = M;
    double pd = (double)c->channels * c->patch * c->patch;
    double embed = 2.0 * N * pd * d;
    double block = 2.0 * T * d * (d + d + 2 * hd) + 2.0 * Mk * d * 2 * d + 2.0 * 2.0 * T * Mk * d;
    double head = c->token_head ? 2.0 * T * d * N : 2.0 * d * c->num_classes;
    return embed + c->depth * block + head;
}

double vit_forward_flops(const vit_config *c) {
    int T = (c->image_size / c->patch) * (c->image_size / c->patch) + (c->cls ? 1 : 0);
    return vit_forward_flops_masked(c, T);
}
