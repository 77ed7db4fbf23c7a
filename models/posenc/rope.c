// models/posenc/rope.c — pe.kind=rope: rotary q/k (pe.rope_dims=1: channel pair j rotated by
// n·base^(-2j/Dh) over the row-major patch index; 2: axial, half the pairs with the column,
// half with the row); cls is not rotated. Tables are computed for each grid.
#include "encoding.h"
#include "tables.h"
#include "rope.h"
#include "../api/model_view.h"
#include <stdio.h>

typedef struct {
    float *cos, *sin, *cos_host, *sin_host; // (N, Dh/2) rotation tables of the current grid: backend, host
} rope_state;

_Static_assert(sizeof(posenc_rope_settings) <= MODEL_OWN_BYTES, "rope's settings must fit model_config.pe_own");
static const posenc_rope_settings *own(const model_config *c) { return POSENC_OWN(c, const posenc_rope_settings); }

static const char *rope_config_error(const struct model_config *c) {
    static char msg[256];
    const posenc_rope_settings *s = own(c);
    if (c->heads < 1 || c->dim % c->heads != 0) return NULL; // the backbone names that
    if (model_config_is_sequence(c) && s->dims != 1) {
        snprintf(msg, sizeof msg, "pe.rope_dims=%d: a sequence input has one axis, so pe.kind=rope needs pe.rope_dims=1",
                 s->dims);
        return msg;
    }
    const char *why = posenc_rope_error(c->dim / c->heads, s->dims);
    if (!why) return NULL;
    snprintf(msg, sizeof msg, "pe.kind=rope with model.dim=%d, model.heads=%d: %s", c->dim, c->heads, why);
    return msg;
}


static void rope_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    rope_state *s = v.state;
    size_t pairs = (size_t)(v.cfg->dim / v.cfg->heads) / 2;
    model_add_input(m, "rope_cos", (size_t)v.N_max * pairs, &s->cos, &s->cos_host);
    model_add_input(m, "rope_sin", (size_t)v.N_max * pairs, &s->sin, &s->sin_host);
}

static void rope_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    rope_state *s = v.state;
    const model_config *c = v.cfg;
    const posenc_rope_settings *rs = own(c);
    int head_dim = c->dim / c->heads;
    float base = rs->base > 0 ? rs->base : posenc_rope_default_base(rs->dims);
    posenc_rope_tables(s->cos_host, s->sin_host, v.rows, v.cols, head_dim, rs->dims, base);
    model_upload(m, s->cos_host, (size_t)v.N * (head_dim / 2));
    model_upload(m, s->sin_host, (size_t)v.N * (head_dim / 2));
}

static void rope_qk_forward(struct model *m, float *qkv, int B) {
    const model_view v = model_view_of(m);
    rope_state *s = v.state;
    v.ops->rope_forward(qkv, s->cos, s->sin, B, v.T, v.cfg->dim, v.cfg->heads, v.t0);
}

static void rope_qk_backward(struct model *m, float *dqkv, int B) {
    const model_view v = model_view_of(m);
    rope_state *s = v.state;
    v.ops->rope_backward(dqkv, s->cos, s->sin, B, v.T, v.cfg->dim, v.cfg->heads, v.t0);
}

// RoPE's dimensions and base.
static const cfg_key rope_keys[] = {
    {"pe.rope_base", CFG_FLOAT, "0", 0, 1e9, NULL, 1, "rope: base of the frequencies theta_j (0 = 10000 for 1D, 100 for 2D axial)"},
    {"pe.rope_dims", CFG_INT, "2", 1, 2, NULL, 1, "rope: 1 = 1D over the row-major patch index; 2 = 2D axial (half the channel pairs rotate with the column, half with the row)"},
    {NULL},
};

static void rope_read_keys(const key_reader *r, struct model_config *c) {
    posenc_rope_settings *s = POSENC_OWN(c, posenc_rope_settings);
    s->dims = (int)key_int(r, "pe.rope_dims");
    s->base = (float)key_float(r, "pe.rope_base");
}

const posenc_kind posenc_rope = {
    .name = "rope",
    .description = "rotary q/k, 1D or 2D axial",
    .positional = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1,
    .config_error = rope_config_error,
    .keys = rope_keys,
    .read_keys = rope_read_keys,
    .state_size = sizeof(rope_state),
    .declare_acts = rope_declare_acts,
    .set_grid = rope_set_grid,
    .qk_forward = rope_qk_forward,
    .qk_backward = rope_qk_backward,
};
