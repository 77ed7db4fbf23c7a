// models/vit.c — ViT parameter/activation tables, initialisation, resolution changes, forward
// and backward.
#include "vit.h"
#include "posenc.h"
#include "../core/common.h"
#include "../core/resize.h"
#include "../core/rng.h"
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
    if ((c->pos == POS_SIN1D || c->pos == POS_SIN2D || c->pos == POS_CAPE) && c->dim % 2 != 0) {
        snprintf(msg, sizeof msg, "pe.kind=%s needs an even model.dim (cos and sin pairs), got %d",
                 c->pos == POS_SIN1D ? "sin1d" : c->pos == POS_SIN2D ? "sin2d" : "cape", c->dim);
        return msg;
    }
    if (c->pos == POS_ROPE) {
        const char *why = posenc_rope_error(c->dim / c->heads, c->rope_dims);
        if (why) {
            snprintf(msg, sizeof msg, "pe.kind=rope with model.dim=%d, model.heads=%d: %s", c->dim, c->heads, why);
            return msg;
        }
    }
    if (c->pos == POS_CAPE && (c->cape_global_shift < 0 || c->cape_scale < 1 ||
                               (c->cape_local_shift < 0 && c->cape_local_shift != -1.0f)))
        return "pe.cape_global_shift must be >= 0, pe.cape_local_shift >= 0 or -1 (= 1/grid), pe.cape_scale >= 1";
    int N = (c->image_size / c->patch) * (c->image_size / c->patch), T = N + (c->cls ? 1 : 0);
    if (c->ref_tokens < 0 || c->ref_tokens > N) {
        snprintf(msg, sizeof msg, "%d reference tokens: must be in [0, %d] (the patches of one image)", c->ref_tokens, N);
        return msg;
    }
    if (c->ref_tokens > 0 && c->pos != POS_ABS && c->pos != POS_SIN1D && c->pos != POS_SIN2D)
        return "reference tokens (objective.ref_fraction > 0) keep a position encoding that every token could have: "
               "pe.kind must be abs, sin1d or sin2d";
    if (c->context_tokens < 0 || c->context_tokens > T) {
        snprintf(msg, sizeof msg, "masked attention with %d key tokens: must be in [1, %d]", c->context_tokens, T);
        return msg;
    }
    return NULL;
}

static int add_param(tensor_table *t, const char *name, int decay, int d0, int d1) {
    int shape[2] = {d0, d1};
    return tensor_table_add(t, name, decay, d1 > 0 ? 2 : 1, shape);
}

// Declares an activation; with_grad=1 also gives it a slot in the activation-gradient table
// (only those slots are zeroed each step).
// act_n floats of activation and grad_n floats of gradient (0: none).
static int add_act_sized(vit *m, const char *name, size_t act_n, size_t grad_n) {
    int shape[1] = {(int)act_n}, grad_shape[1] = {(int)grad_n};
    int index = tensor_table_add(&m->acts, name, 0, 1, shape);
    if (index >= VIT_MAX_ACTS) die_fail("internal: more than %d activations", VIT_MAX_ACTS);
    m->grad_slot[index] = grad_n ? tensor_table_add(&m->act_grads, name, 0, 1, grad_shape) : -1;
    return index;
}
static int add_act_full(vit *m, const char *name, size_t n, int with_grad) {
    return add_act_sized(m, name, n, with_grad ? n : 0);
}
// A gradient buffer with no activation of its own (its activation entry is 1 float, unused).
static int add_grad_only(vit *m, const char *name, size_t n) { return add_act_sized(m, name, 1, n); }
#define add_act(t, name, n) add_act_full(m, name, n, 1)
#define add_act_nograd(t, name, n) add_act_full(m, name, n, 0)

static void declare_params(vit *m) {
    const vit_config *c = &m->cfg;
    tensor_table *t = &m->params;
    char name[TENSOR_NAME_MAX];
    int d = c->dim, pd = c->channels * c->patch * c->patch, hd = c->mlp_ratio * c->dim;
    m->patch_w = add_param(t, "patch_embed.weight", 1, d, pd);
    m->patch_b = add_param(t, "patch_embed.bias", 0, d, 0);
    m->cls_token = c->cls ? add_param(t, "cls_token", 0, d, 0) : -1;
    m->pos_embed = c->pos == POS_ABS ? add_param(t, "pos_embed", 0, m->T0, d) : -1;
    int rel_entries = (2 * m->grid0 - 1) * (2 * m->grid0 - 1) + (c->cls ? 3 : 0);
    m->blocks = xcalloc((size_t)c->depth, sizeof *m->blocks, "vit blocks");
    for (int l = 0; l < c->depth; l++) {
        vit_block_params *b = &m->blocks[l];
#define P(field, suffix, decay, d0, d1)                                  \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);              \
    b->field = add_param(t, name, decay, d0, d1)
        P(norm1_w, "norm1.weight", 0, d, 0);
        P(norm1_b, "norm1.bias", 0, d, 0);
        P(qkv_w, "attn.qkv.weight", 1, 3 * d, d);
        P(qkv_b, "attn.qkv.bias", 0, 3 * d, 0);
        P(proj_w, "attn.proj.weight", 1, d, d);
        P(proj_b, "attn.proj.bias", 0, d, 0);
        if (c->pos == POS_RELBIAS) {
            P(rel_bias, "attn.rel_bias", 0, c->heads, rel_entries);
        } else {
            b->rel_bias = -1;
        }
        P(norm2_w, "norm2.weight", 0, d, 0);
        P(norm2_b, "norm2.bias", 0, d, 0);
        P(fc1_w, "mlp.fc1.weight", 1, hd, d);
        P(fc1_b, "mlp.fc1.bias", 0, hd, 0);
        P(fc2_w, "mlp.fc2.weight", 1, d, hd);
        P(fc2_b, "mlp.fc2.bias", 0, d, 0);
#undef P
    }
    m->norm_w = add_param(t, "norm.weight", 0, d, 0);
    m->norm_b = add_param(t, "norm.bias", 0, d, 0);
    if (c->pos_head) { // MP3: N-way position logits per token; a finetune run starts without it
        m->head_w = add_param(t, "pos_head.weight", 1, m->N, d);
        m->head_b = add_param(t, "pos_head.bias", 0, m->N, 0);
    } else {
        m->head_w = add_param(t, "head.weight", 1, c->num_classes, d);
        m->head_b = add_param(t, "head.bias", 0, c->num_classes, 0);
    }
}

static void declare_acts(vit *m) {
    const vit_config *c = &m->cfg;
    tensor_table *t = &m->acts; (void)t; // the add_act macros name it for readability
    char name[TENSOR_NAME_MAX];
    // Sized for the largest input: every (B, T, ...) activation of a smaller one is a prefix.
    size_t B = (size_t)m->max_batch, T = (size_t)m->T_max, N = (size_t)m->N_max, d = (size_t)c->dim;
    size_t BT = B * T, BTd = BT * d, hd = (size_t)c->mlp_ratio * d, BM = B * (size_t)m->M_alloc;
    size_t S = (size_t)max_size(c), head_pairs = (size_t)(c->dim / c->heads) / 2;
    int masked = c->context_tokens > 0;
    m->a_images = add_act_nograd(t, "images", B * c->channels * S * S);
    m->a_patches = add_act_nograd(t, "patches", B * N * c->channels * c->patch * c->patch);
    m->a_embed = add_act(t, "patch_embed", B * N * d);
    int abs_resized = c->pos == POS_ABS && m->N_max != m->grid0 * m->grid0; // another grid is possible
    m->a_pos_abs = abs_resized ? add_act(t, "pos_embed.resized", T * d) : -1;
    m->a_pos_resize = abs_resized ? add_act_nograd(t, "pos_embed.resize_weights", (S / c->patch) * m->grid0) : -1;
    m->a_pos_fixed = c->pos == POS_SIN1D ? add_act_nograd(t, "pos_sin1d", T * d) : -1;
    int sin2d = c->pos == POS_SIN2D || c->pos == POS_CAPE;
    m->a_pos_x = sin2d ? add_act_nograd(t, "pos_x", B * N) : -1;
    m->a_pos_y = sin2d ? add_act_nograd(t, "pos_y", B * N) : -1;
    m->a_rope_cos = c->pos == POS_ROPE ? add_act_nograd(t, "rope_cos", N * head_pairs) : -1;
    m->a_rope_sin = c->pos == POS_ROPE ? add_act_nograd(t, "rope_sin", N * head_pairs) : -1;
    int R = c->ref_tokens;
    size_t BR = B * (size_t)(m->t0 + R); // cls (always) + R patches per image
    m->a_ref_index = R > 0 ? add_act_nograd(t, "ref_index", BR) : -1;
    m->a_ref_rows = R > 0 ? add_act_full(m, "ref_rows", BR * d, c->pos == POS_ABS) : -1;
    m->a_ref_table = R > 0 && c->pos == POS_SIN2D ? add_act_nograd(t, "ref_table", T * d) : -1;
    m->a_x0 = add_act(t, "tokens", BTd);
    m->a_x0_drop = c->dropout > 0 ? add_act(t, "tokens.dropout", BTd) : -1;
    m->a_x0_mask = c->dropout > 0 ? add_act_nograd(t, "tokens.dropout_mask", BTd) : -1;
    m->block_acts = xcalloc((size_t)c->depth, sizeof *m->block_acts, "vit block activations");
    for (int l = 0; l < c->depth; l++) {
        vit_block_acts *a = &m->block_acts[l];
#define A(field, suffix, n)                                     \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    a->field = add_act(t, name, n)
#define A_NOGRAD(field, suffix, n)                              \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    a->field = add_act_nograd(t, name, n)
        A(ln1, "norm1", BTd);
        A_NOGRAD(ln1_mean, "norm1.mean", BT);
        A_NOGRAD(ln1_rstd, "norm1.rstd", BT);
        if (masked) { // q (B, T, C) then k|v (B, M, 2C); or a full qkv of a smaller batch (see vit.h)
            A_NOGRAD(qkv, "qkv", BTd + 2 * BM * d);
        } else {
            A(qkv, "qkv", 3 * BTd);
        }
        A_NOGRAD(att, "attn.probs", B * c->heads * T * m->M_alloc);
        if (c->pos == POS_RELBIAS) {
            A(bias, "attn.bias", (size_t)c->heads * T * T);
        } else {
            a->bias = -1;
        }
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
    m->a_final = add_act(t, "norm", BTd);
    m->a_final_mean = add_act_nograd(t, "norm.mean", BT);
    m->a_final_rstd = add_act_nograd(t, "norm.rstd", BT);
    m->a_feat = add_act(t, "features", B * d);
    m->a_logits = add_act(t, "logits", c->pos_head ? BT * m->N : B * c->num_classes);
    m->a_context = masked ? add_act_nograd(t, "context", BM) : -1;
    m->a_mask_qkv = masked ? add_act(t, "attn.qkv", 3 * BTd) : -1;
    m->a_mask_q = masked ? add_grad_only(m, "attn.q", BTd) : -1;
    m->a_mask_ln1_ctx = masked ? add_act(t, "norm1.context", BM * d) : -1;
    m->a_mask_kv = masked ? add_grad_only(m, "attn.kv", BM * 2 * d) : -1;
    m->a_rel_index = c->pos == POS_RELBIAS ? add_act_nograd(t, "rel_index", T * T) : -1;
    m->a_bias_scratch = c->pos == POS_RELBIAS ? add_act_nograd(t, "attn.bias_scratch", B * c->heads * T * m->M_alloc) : -1;
    // Token index 0 for every image (the cls gather). The arena is zeroed at allocation and
    // never written here; all-zero bits are the int 0 on every backend.
    m->a_cls_index = add_act_nograd(t, "cls_index", B);
}

void vit_init_params(vit *m, uint32_t seed) {
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        float *p = m->param + info->offset;
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
}

#define PARAM(i) (m->param + m->params.items[(i)].offset)
#define GRAD(i) (m->grad + m->params.items[(i)].offset)
#define ACT(i) (m->act + m->acts.items[(i)].offset)
#define DACT(i) (m->dact + m->act_grads.items[m->grad_slot[(i)]].offset)
#define OPT_PARAM(i) ((i) >= 0 ? PARAM(i) : NULL)
#define OPT_GRAD(i) ((i) >= 0 ? GRAD(i) : NULL)

// The position tables of the current grid, computed on the host into the activation arena:
// relbias (query, key) -> table entry (posenc_relbias_index: BEiT's layout, offsets clipped to
// the table's grid), the sin1d table, the rope rotations, abs's bicubic resize weights.
static void fill_position_tables(vit *m) {
    const vit_config *c = &m->cfg;
    int g = m->grid, head_dim = c->dim / c->heads;
    if (m->a_rel_index >= 0) posenc_relbias_index((int *)ACT(m->a_rel_index), g, g, m->grid0, c->cls);
    if (m->a_pos_fixed >= 0) posenc_sin1d_table(ACT(m->a_pos_fixed), m->T, c->dim, m->t0);
    if (m->a_rope_cos >= 0) {
        float base = c->rope_base > 0 ? c->rope_base : posenc_rope_default_base(c->rope_dims);
        posenc_rope_tables(ACT(m->a_rope_cos), ACT(m->a_rope_sin), g, g, head_dim, c->rope_dims, base);
    }
    if (m->a_pos_resize >= 0 && g != m->grid0) resize_bicubic_weights(ACT(m->a_pos_resize), g, m->grid0);
    if (m->a_ref_table >= 0) { // sin2d on reference tokens: the (T, d) table of the grid positions
        float *table = ACT(m->a_ref_table);
        m->ops->zero(table, (size_t)m->T * c->dim);
        posenc_eval_positions(ACT(m->a_pos_x), ACT(m->a_pos_y), 1, g, g);
        m->ops->sincos2d_add(table, ACT(m->a_pos_x), ACT(m->a_pos_y), 1, m->T, c->dim, m->t0);
    }
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
    fill_position_tables(m);
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
    m->N_max = (max_size(cfg) / cfg->patch) * (max_size(cfg) / cfg->patch);
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
    declare_params(m);
    declare_acts(m);
    m->param = xmalloc_aligned(m->params.total * sizeof(float), "parameters");
    m->grad = xmalloc_aligned(m->params.total * sizeof(float), "gradients");
    m->act = xmalloc_aligned(m->acts.total * sizeof(float), "activations");
    m->dact = xmalloc_aligned(m->act_grads.total * sizeof(float), "activation gradients");
    m->ref_scratch = cfg->ref_tokens > 0 ? xmalloc((size_t)m->N_max * sizeof(int), "reference draw") : NULL;
    fill_position_tables(m);
    vit_init_params(m, seed);
}

void vit_free(vit *m) {
    free(m->param);
    free(m->grad);
    free(m->act);
    free(m->dact);
    free(m->blocks);
    free(m->block_acts);
    free(m->ref_scratch);
    tensor_table_free(&m->params);
    tensor_table_free(&m->acts);
    tensor_table_free(&m->act_grads);
    memset(m, 0, sizeof *m);
}


float *vit_images(vit *m) { return ACT(m->a_images); }
float *vit_dlogits(vit *m) { return DACT(m->a_logits); }
const int *vit_reference_tokens(const vit *m) { return m->a_ref_index < 0 ? NULL : (const int *)ACT(m->a_ref_index); }
int vit_reference_width(const vit *m) { return m->a_ref_index < 0 ? 0 : m->t0 + m->cfg.ref_tokens; }
void vit_zero_act_grads(vit *m) { m->ops->zero(m->dact, m->act_grads.total); }

int *vit_context(vit *m) {
    if (m->a_context < 0) die_fail("internal: vit_context on a model built without context_tokens");
    return (int *)ACT(m->a_context);
}

int vit_batch_capacity(const vit *m, int M) {
    long cap = (long)m->max_batch * m->M_alloc / M;
    return cap < m->max_batch ? (int)cap : m->max_batch;
}

void vit_set_context(vit *m, int M) {
    if (M < 1 || M > m->T) die_fail("internal: vit_set_context M=%d outside [1, %d]", M, m->T);
    if (M < m->T && m->a_context < 0) die_fail("internal: masked attention on a model built without context_tokens");
    m->M = M;
}

const float *vit_block_output(const vit *m, int layer) { return ACT(m->block_acts[layer].res2); }

size_t vit_activation_bytes(const vit *m) { return (m->acts.total + m->act_grads.total) * sizeof(float); }

static int masked_attention(const vit *m) { return m->M < m->T; }

static attention_desc block_attention(const vit *m, int B) {
    attention_desc d = {.B = B, .T = m->T, .C = m->cfg.dim, .H = m->cfg.heads, .M = m->M};
    if (masked_attention(m)) d.kv_index = (const int *)ACT(m->a_context);
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
    m->ops->qkv_pack_forward(ACT(m->a_mask_qkv), q, kv, (const int *)ACT(m->a_context), B, T, m->M, d);
    if (m->a_rope_cos >= 0)
        m->ops->rope_forward(ACT(m->a_mask_qkv), ACT(m->a_rope_cos), ACT(m->a_rope_sin), B, T, d, m->cfg.heads, m->t0);
}

// qkv of a block: one projection of all tokens, or (masked) q of all tokens and k|v of the
// context tokens only, kept per block (T·C + 2·M·C floats per image) and packed into the
// shared (B, T, 3C) layout the attention op reads; RoPE applied.
static void qkv_forward(vit *m, const vit_block_params *p, const vit_block_acts *a, int B) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = m->T, M = m->M, BT = B * T;
    if (!masked_attention(m)) {
        ops->linear_forward(ACT(a->qkv), ACT(a->ln1), PARAM(p->qkv_w), PARAM(p->qkv_b), BT, d, 3 * d);
        if (m->a_rope_cos >= 0) ops->rope_forward(ACT(a->qkv), ACT(m->a_rope_cos), ACT(m->a_rope_sin), B, T, d, m->cfg.heads, m->t0);
        return;
    }
    const int *ctx = (const int *)ACT(m->a_context);
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
    const int *ctx = (const int *)ACT(m->a_context);
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

// The (T, d) table embed_tokens adds: abs at its own grid, abs resized bicubically to the
// current grid (cls row copied), the sin1d table, or NULL (none, relbias, rope: nothing added;
// sin2d / cape: added per image after embedding).
static const float *position_table_forward(vit *m) {
    const vit_config *c = &m->cfg;
    if (m->a_pos_fixed >= 0) return ACT(m->a_pos_fixed);
    if (m->pos_embed < 0) return NULL;
    if (m->grid == m->grid0) return PARAM(m->pos_embed);
    int d = c->dim, t0 = m->t0;
    float *resized = ACT(m->a_pos_abs); // (T, d)
    if (t0) m->ops->gather_tokens_forward(resized, PARAM(m->pos_embed), (const int *)ACT(m->a_cls_index), 1, m->T0, 1, d);
    const float *w = ACT(m->a_pos_resize); // (grid, grid0), the same for rows and columns
    m->ops->resize2d_forward(resized + (size_t)t0 * d, PARAM(m->pos_embed) + (size_t)t0 * d, w, w, 1, m->grid0, m->grid0,
                             m->grid, m->grid, d);
    return resized;
}

// Where embed_tokens_backward accumulates the table's gradient (NULL: no learned table).
static float *position_table_grad(vit *m) {
    if (m->pos_embed < 0) return NULL;
    return m->grid == m->grid0 ? GRAD(m->pos_embed) : DACT(m->a_pos_abs);
}

// abs at another grid: the resized table's gradient back to the learned table.
static void position_table_backward(vit *m) {
    if (m->pos_embed < 0 || m->grid == m->grid0) return;
    int d = m->cfg.dim, t0 = m->t0;
    const float *dresized = DACT(m->a_pos_abs), *w = ACT(m->a_pos_resize);
    if (t0) m->ops->gather_tokens_backward(GRAD(m->pos_embed), dresized, (const int *)ACT(m->a_cls_index), 1, m->T0, 1, d);
    m->ops->resize2d_backward(GRAD(m->pos_embed) + (size_t)t0 * d, dresized + (size_t)t0 * d, w, w, 1, m->grid0, m->grid0,
                              m->grid, m->grid, d);
}

// Reference tokens: the (T, d) encoding every token would get (abs, resized when needed;
// sin1d; sin2d at the grid positions, built by fill_position_tables).
static const float *reference_table(vit *m) {
    return m->a_ref_table >= 0 ? ACT(m->a_ref_table) : position_table_forward(m);
}

// Draws this forward's reference tokens (cls, when there is one, and R patches) and adds
// their encoding rows: x0[b, ref[b, r]] += table[ref[b, r]]. The rows are gathered from the
// table viewed as one image of B·R keys.
static void reference_positions_forward(vit *m, int B, rng_addr rng) {
    int R = m->t0 + m->cfg.ref_tokens, d = m->cfg.dim;
    int *ref = (int *)ACT(m->a_ref_index); // (B, R)
    posenc_reference_tokens(ref, B, m->N, m->t0, m->cfg.ref_tokens, rng.seed, rng.epoch, rng.step, rng.index, m->ref_scratch);
    float *rows = ACT(m->a_ref_rows); // (B, R, d)
    m->ops->gather_tokens_forward(rows, reference_table(m), ref, 1, m->T, B * R, d);
    m->ops->gather_tokens_backward(ACT(m->a_x0), rows, ref, B, m->T, R, d);
}

// abs: the reference rows' gradient back to the (possibly resized) table; a token drawn by
// several images accumulates in image order. sin1d / sin2d learn nothing.
static void reference_positions_backward(vit *m, int B) {
    if (m->pos_embed < 0) return;
    int R = m->t0 + m->cfg.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)ACT(m->a_ref_index);
    float *drows = DACT(m->a_ref_rows); // (B, R, d), overwritten
    m->ops->gather_tokens_forward(drows, DACT(m->a_x0), ref, B, m->T, R, d);
    m->ops->gather_tokens_backward(position_table_grad(m), drows, ref, 1, m->T, B * R, d);
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

    ops->patchify(ACT(m->a_patches), ACT(m->a_images), B, c->channels, m->image_size, m->image_size, c->patch);
    ops->linear_forward(ACT(m->a_embed), ACT(m->a_patches), PARAM(m->patch_w), PARAM(m->patch_b), B * N, pd, d);
    if (c->ref_tokens > 0) {
        ops->embed_tokens_forward(ACT(m->a_x0), ACT(m->a_embed), OPT_PARAM(m->cls_token), NULL, B, N, d);
        reference_positions_forward(m, B, rng);
    } else {
        ops->embed_tokens_forward(ACT(m->a_x0), ACT(m->a_embed), OPT_PARAM(m->cls_token), position_table_forward(m), B, N, d);
    }
    if (m->a_pos_x >= 0 && c->ref_tokens == 0) { // sin2d / cape: positions of this forward, then x += sin2d(x, y) on patch rows
        int cape = training && c->pos == POS_CAPE;
        if (cape) {
            cape_config cc = {c->cape_global_shift, c->cape_local_shift < 0 ? cape_default_local_shift(m->grid) : c->cape_local_shift,
                              c->cape_scale};
            posenc_cape_positions(ACT(m->a_pos_x), ACT(m->a_pos_y), B, m->grid, m->grid, &cc, rng.seed, rng.epoch, rng.step);
        } else {
            posenc_eval_positions(ACT(m->a_pos_x), ACT(m->a_pos_y), B, m->grid, m->grid);
        }
        ops->sincos2d_add(ACT(m->a_x0), ACT(m->a_pos_x), ACT(m->a_pos_y), B, T, d, m->t0);
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
        if (a->bias >= 0) {
            ops->bias_gather_forward(ACT(a->bias), PARAM(p->rel_bias), (const int *)ACT(m->a_rel_index), c->heads, T * T,
                                     m->params.items[p->rel_bias].shape[1]);
            ad.bias = ACT(a->bias);
        }
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
    if (c->pos_head) { // (B, T, N) position logits
        ops->linear_forward(ACT(m->a_logits), ACT(m->a_final), PARAM(m->head_w), PARAM(m->head_b), BT, d, N);
        return ACT(m->a_logits);
    }
    if (c->cls)
        ops->gather_tokens_forward(ACT(m->a_feat), ACT(m->a_final), (const int *)ACT(m->a_cls_index), B, T, 1, d);
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

    if (c->pos_head) {
        ops->linear_backward(DACT(m->a_final), GRAD(m->head_w), GRAD(m->head_b), DACT(m->a_logits), ACT(m->a_final), PARAM(m->head_w), BT, d, N);
    } else {
        ops->linear_backward(DACT(m->a_feat), GRAD(m->head_w), GRAD(m->head_b), DACT(m->a_logits), ACT(m->a_feat), PARAM(m->head_w), B, d, c->num_classes);
        if (c->cls)
            ops->gather_tokens_backward(DACT(m->a_final), DACT(m->a_feat), (const int *)ACT(m->a_cls_index), B, T, 1, d);
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
        if (a->bias >= 0) {
            ad.bias = ACT(a->bias);
            ops->attention_backward(dqkv, DACT(a->bias), ACT(m->a_bias_scratch), DACT(a->attn), block_qkv(m, a), ACT(a->att), &ad);
            ops->bias_gather_backward(GRAD(p->rel_bias), DACT(a->bias), (const int *)ACT(m->a_rel_index), c->heads, T * T,
                                      m->params.items[p->rel_bias].shape[1]);
        } else {
            ops->attention_backward(dqkv, NULL, NULL, DACT(a->attn), block_qkv(m, a), ACT(a->att), &ad);
        }
        if (m->a_rope_cos >= 0) ops->rope_backward(dqkv, ACT(m->a_rope_cos), ACT(m->a_rope_sin), B, T, d, c->heads, m->t0);
        qkv_backward(m, p, a, B);
        ops->layernorm_backward(dx, GRAD(p->norm1_w), GRAD(p->norm1_b), DACT(a->ln1), x, PARAM(p->norm1_w), ACT(a->ln1_mean), ACT(a->ln1_rstd), BT, d);
    }
    if (m->training_dropout)
        ops->dropout_backward(DACT(m->a_x0), DACT(m->a_x0_drop), ACT(m->a_x0_mask), (size_t)BT * d);
    ops->embed_tokens_backward(DACT(m->a_embed), OPT_GRAD(m->cls_token), c->ref_tokens > 0 ? NULL : position_table_grad(m),
                               DACT(m->a_x0), B, N, d, c->cls);
    if (c->ref_tokens > 0) reference_positions_backward(m, B);
    position_table_backward(m);
    ops->linear_backward(NULL, GRAD(m->patch_w), GRAD(m->patch_b), DACT(m->a_embed), ACT(m->a_patches), PARAM(m->patch_w), B * N, pd, d);
}

double vit_forward_flops_masked(const vit_config *c, int M) {
    double N = (double)(c->image_size / c->patch) * (c->image_size / c->patch);
    double T = N + (c->cls ? 1 : 0), d = c->dim, hd = (double)c->mlp_ratio * c->dim, Mk = M;
    double pd = (double)c->channels * c->patch * c->patch;
    double embed = 2.0 * N * pd * d;
    double block = 2.0 * T * d * (d + d + 2 * hd) + 2.0 * Mk * d * 2 * d + 2.0 * 2.0 * T * Mk * d;
    double head = c->pos_head ? 2.0 * T * d * N : 2.0 * d * c->num_classes;
    return embed + c->depth * block + head;
}

double vit_forward_flops(const vit_config *c) {
    int T = (c->image_size / c->patch) * (c->image_size / c->patch) + (c->cls ? 1 : 0);
    return vit_forward_flops_masked(c, T);
}
