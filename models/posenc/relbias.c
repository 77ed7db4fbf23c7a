// models/posenc/relbias.c — pe.kind=relbias: a 2D relative bias per layer and head added to
// the attention scores, (2g-1)²+3 entries in BEiT's layout (cls->patch, patch->cls, cls->cls),
// zero init. At another grid, offsets beyond the table are clipped to its edge
// (posenc_relbias_index).
#include "encoding.h"
#include "tables.h"
#include "../api/model_view.h"
#include "../../core/tensor.h"
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

static void relbias_create(struct model *m) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    size_t L = (size_t)v.cfg->depth;
    s->table = xcalloc(L, sizeof *s->table, "relbias tables");
    s->table_grad = xcalloc(L, sizeof *s->table_grad, "relbias table gradients");
    s->bias = xcalloc(L, sizeof *s->bias, "relbias activations");
    s->bias_grad = xcalloc(L, sizeof *s->bias_grad, "relbias activation gradients");
    s->entries = posenc_relbias_entries(v.rows0, v.cols0, v.cfg->cls);
}

static void relbias_free(struct model *m) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    free(s->table);
    free(s->table_grad);
    free(s->bias);
    free(s->bias_grad);
}

static void relbias_declare_block_params(struct model *m, int l) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    char name[TENSOR_NAME_MAX];
    snprintf(name, sizeof name, "blocks.%d.attn.rel_bias", l);
    model_add_param(m, name, INIT_ZERO, 0, v.cfg->heads, s->entries, &s->table[l], &s->table_grad[l]);
}

static void relbias_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    size_t H = (size_t)v.cfg->heads, T = (size_t)v.T_max;
    char name[TENSOR_NAME_MAX];
    for (int l = 0; l < v.cfg->depth; l++) {
        snprintf(name, sizeof name, "blocks.%d.attn.bias", l);
        model_add_act(m, name, H * T * T, &s->bias[l], &s->bias_grad[l]);
    }
    model_add_input(m, "rel_index", T * T, &s->index, &s->index_host);
    model_add_act(m, "attn.bias_scratch", (size_t)v.max_batch * H * T * v.M_alloc, &s->scratch, NULL);
}

static void relbias_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    posenc_relbias_index((int *)s->index_host, v.rows, v.cols, v.rows0, v.cols0, v.cfg->cls);
    model_upload(m, s->index_host, (size_t)v.T * v.T);
}

static const float *relbias_bias_forward(struct model *m, int l) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    float *bias = s->bias[l];
    v.ops->bias_gather_forward(bias, s->table[l], (const int *)s->index, v.cfg->heads,
                                v.T * v.T, s->entries);
    return bias;
}

static const float *relbias_bias_saved(struct model *m, int l) { return ((relbias_state *)model_pe_state(m))->bias[l]; }
static float *relbias_bias_grad(struct model *m, int l) { return ((relbias_state *)model_pe_state(m))->bias_grad[l]; }
static float *relbias_scratch(struct model *m) { return ((relbias_state *)model_pe_state(m))->scratch; }

static void relbias_bias_backward(struct model *m, int l) {
    const model_view v = model_view_of(m);
    relbias_state *s = v.state;
    v.ops->bias_gather_backward(s->table_grad[l], s->bias_grad[l], (const int *)s->index,
                                 v.cfg->heads, v.T * v.T, s->entries);
}

const posenc_kind posenc_relbias = {
    .name = "relbias",
    .description = "2D relative bias per layer and head, zero init",
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
