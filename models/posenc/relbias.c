// models/posenc/relbias.c — pe.kind=relbias: a 2D relative bias per layer and head added to
// the attention scores, (2g-1)²+3 entries in BEiT's layout (cls->patch, patch->cls, cls->cls),
// zero init. At another grid, offsets beyond the table are clipped to its edge
// (posenc_relbias_index).
#include "encoding.h"
#include "tables.h"
#include "../vit.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int *table;     // per block: parameter attn.rel_bias (H, K)
    int *a_bias;    // per block: the expanded bias (H, T, T), with gradient
    int in_index;   // (T, T) table entry of (query, key)
    int a_scratch;  // (B, H, T, M) attention_backward's workspace for dbias
    int entries;    // K
} relbias_state;

static void relbias_create(vit *m) {
    relbias_state *s = m->pe_state;
    s->table = xcalloc((size_t)m->cfg.depth, sizeof(int), "relbias tables");
    s->a_bias = xcalloc((size_t)m->cfg.depth, sizeof(int), "relbias activations");
    s->entries = posenc_relbias_entries(m->grid0, m->cfg.cls);
}

static void relbias_free(vit *m) {
    relbias_state *s = m->pe_state;
    free(s->table);
    free(s->a_bias);
}

static void relbias_declare_block_params(vit *m, int l) {
    relbias_state *s = m->pe_state;
    char name[TENSOR_NAME_MAX];
    snprintf(name, sizeof name, "blocks.%d.attn.rel_bias", l);
    s->table[l] = vit_add_param(m, name, 0, m->cfg.heads, s->entries);
}

static void relbias_declare_acts(vit *m) {
    relbias_state *s = m->pe_state;
    size_t H = (size_t)m->cfg.heads, T = (size_t)m->T_max;
    char name[TENSOR_NAME_MAX];
    for (int l = 0; l < m->cfg.depth; l++) {
        snprintf(name, sizeof name, "blocks.%d.attn.bias", l);
        s->a_bias[l] = vit_add_act(m, name, H * T * T, 1);
    }
    s->in_index = vit_add_input(m, "rel_index", T * T);
    s->a_scratch = vit_add_act(m, "attn.bias_scratch", (size_t)m->max_batch * H * T * m->M_alloc, 0);
}

static void relbias_set_grid(vit *m) {
    relbias_state *s = m->pe_state;
    posenc_relbias_index((int *)vit_staged(m, s->in_index), m->grid, m->grid, m->grid0, m->cfg.cls);
    vit_upload_input(m, s->in_index, (size_t)m->T * m->T);
}

static const float *relbias_bias_forward(vit *m, int l) {
    relbias_state *s = m->pe_state;
    float *bias = vit_act(m, s->a_bias[l]);
    m->ops->bias_gather_forward(bias, vit_param(m, s->table[l]), (const int *)vit_input(m, s->in_index), m->cfg.heads,
                                m->T * m->T, s->entries);
    return bias;
}

static const float *relbias_bias_saved(vit *m, int l) { return vit_act(m, ((relbias_state *)m->pe_state)->a_bias[l]); }
static float *relbias_bias_grad(vit *m, int l) { return vit_dact(m, ((relbias_state *)m->pe_state)->a_bias[l]); }
static float *relbias_scratch(vit *m) { return vit_act(m, ((relbias_state *)m->pe_state)->a_scratch); }

static void relbias_bias_backward(vit *m, int l) {
    relbias_state *s = m->pe_state;
    m->ops->bias_gather_backward(vit_grad(m, s->table[l]), vit_dact(m, s->a_bias[l]), (const int *)vit_input(m, s->in_index),
                                 m->cfg.heads, m->T * m->T, s->entries);
}

const posenc_kind posenc_relbias = {
    .name = "relbias",
    .state_size = sizeof(relbias_state),
    .create = relbias_create,
    .declare_block_params = relbias_declare_block_params,
    .declare_acts = relbias_declare_acts,
    .set_grid = relbias_set_grid,
    .bias_forward = relbias_bias_forward,
    .bias_saved = relbias_bias_saved,
    .bias_grad = relbias_bias_grad,
    .bias_scratch = relbias_scratch,
    .bias_backward = relbias_bias_backward,
    .free = relbias_free,
};
