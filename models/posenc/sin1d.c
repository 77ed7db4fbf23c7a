// models/posenc/sin1d.c — pe.kind=sin1d: Vaswani sinusoids over the row-major patch index,
// a fixed (T, d) table added to every token (cls gets none), computed for each grid. Can be
// kept on MP3 reference tokens.
#include "encoding.h"
#include "tables.h"
#include "../api/model_view.h"
#include <stdio.h>

typedef struct {
    float *table, *table_host; // (T, d): backend, host staging
} sin1d_state;

const char *posenc_sinusoid_config_error(const struct model_config *c) {
    static char msg[160];
    if (c->dim % 2 == 0) return NULL;
    snprintf(msg, sizeof msg, "pe.kind=%s needs an even model.dim (cos and sin pairs), got %d", c->pe_kind, c->dim);
    return msg;
}


static void sin1d_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    sin1d_state *s = v.state;
    model_add_input(m, "pos_sin1d", (size_t)v.T_max * v.cfg->dim, &s->table, &s->table_host);
}

static void sin1d_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    sin1d_state *s = v.state;
    posenc_sin1d_table(s->table_host, v.T, v.cfg->dim, v.t0);
    model_upload(m, s->table_host, (size_t)v.T * v.cfg->dim);
}

static const float *sin1d_table(struct model *m) { return ((sin1d_state *)model_pe_state(m))->table; }

const posenc_kind posenc_sin1d = {
    .name = "sin1d",
    .description = "Vaswani, over the patch index",
    .positional = 1, .has_table = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1,
    .config_error = posenc_sinusoid_config_error,
    .state_size = sizeof(sin1d_state),
    .declare_acts = sin1d_declare_acts,
    .set_grid = sin1d_set_grid,
    .table_forward = sin1d_table,
    .reference_table = sin1d_table,
};
