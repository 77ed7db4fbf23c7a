// models/posenc/relbias.c — pe.kind=relbias: a 2D relative bias per layer and head added to
// the attention scores, (2g-1)²+3 entries in BEiT's layout (cls->patch, patch->cls, cls->cls),
// zero init. At another grid, offsets beyond the table are clipped to its edge
// (posenc_relbias_index).
#include "encoding.h"
#include "tables.h"
#include "../model.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    float **table, **table_grad; // per block: parameter attn.rel_bias (H, K)
    float **bias, **bias_grad;   // per block: the expanded bias (H, T, T)
    float *index, *index_host;   // (T, T) table entry of (query, key) (ints): backend, host
    float *scratch;              // (B, H, T, M) attention_backward's workspace for dbias
    int entries;    // K
} relbias_state;

static void relbias_create(model *m) {
    relbias_state *s = m->pe_state;
    size_t L = (size_t)m->cfg.depth;
    s->table = xcalloc(L, sizeof *s->table, "relbias tables");
    s->table_grad = xcalloc(L, sizeof *s->table_grad, "relbias table gradients");
    s->bias = xcalloc(L, sizeof *s->bias, "relbias activations");
    s->bias_grad = xcalloc(L, sizeof *s->bias_grad, "relbias activation gradients");
    s->entries = posenc_relbias_entries(m->rows0, m->cols0, m->cfg.cls);
}

static void relbias_free(model *m) {
    relbias_state *s = m->pe_state;
    free(s->table);
    free(s->table_grad);
    free(s->bias);
    free(s->bias_grad);
}

static void relbias_declare_block_params(model *m, int l) {
    relbias_state *s = m->pe_state;
    char name[TENSOR_NAME_MAX];
    snprintf(name, sizeof name, "blocks.%d.attn.rel_bias", l);
    model_add_param(m, name, INIT_ZERO, 0, m->cfg.heads, s->entries, &s->table[l], &s->table_grad[l]);
}

static void relbias_declare_acts(model *m) {
    relbias_state *s = m->pe_state;
    size_t H = (size_t)m->cfg.heads, T = (size_t)m->T_max;
    char name[TENSOR_NAME_MAX];
    for (int l = 0; l < m->cfg.depth; l++) {
        snprintf(name, sizeof name, "blocks.%d.attn.bias", l);
        model_add_act(m, name, H * T * T, &s->bias[l], &s->bias_grad[l]);
    }
    model_add_input(m, "rel_index", T * T, &s->index, &s->index_host);
    model_add_act(m, "attn.bias_scratch", (size_t)m->max_batch * H * T * m->M_alloc, &s->scratch, NULL);
}

static void relbias_set_grid(model *m) {
    relbias_state *s = m->pe_state;
    posenc_relbias_index((int *)s->index_host, m->rows, m->cols, m->rows0, m->cols0, m->cfg.cls);
    model_upload(m, s->index_host, (size_t)m->T * m->T);
}

static const float *relbias_bias_forward(model *m, int l) {
    relbias_state *s = m->pe_state;
    float *bias = s->bias[l];
    m->ops->bias_gather_forward(bias, s->table[l], (const int *)s->index, m->cfg.heads,
                                m->T * m->T, s->entries);
    return bias;
}

static const float *relbias_bias_saved(model *m, int l) { return ((relbias_state *)m->pe_state)->bias[l]; }
static float *relbias_bias_grad(model *m, int l) { return ((relbias_state *)m->pe_state)->bias_grad[l]; }
static float *relbias_scratch(model *m) { return ((relbias_state *)m->pe_state)->scratch; }

static void relbias_bias_backward(model *m, int l) {
    relbias_state *s = m->pe_state;
    m->ops->bias_gather_backward(s->table_grad[l], s->bias_grad[l], (const int *)s->index,
                                 m->cfg.heads, m->T * m->T, s->entries);
}

const posenc_kind posenc_relbias = {
    .name = "relbias",
    .positional = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1,
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
