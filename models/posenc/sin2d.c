// models/posenc/sin2d.c — pe.kind=sin2d (CAPE eq. 3-4: patch centres on [-1, 1], added per
// image to the patch tokens by the sincos2d_add op; cls gets none; another grid is a denser
// grid on [-1, 1]) and pe.kind=cape (the same, with the positions augmented in training only:
// global shift, local shift and scale drawn per image, models/posenc/tables.h). sin2d can be
// kept on MP3 reference tokens and GVP's query tokens (the (T, d) table of the grid positions).
// On a sequence input, cape runs as models/posenc/cape1d.c (positions in seconds).
#include "encoding.h"
#include "tables.h"
#include "../model.h"
#include <stdio.h>

typedef struct {
    float *x, *y, *x_host, *y_host; // (B, N) positions of this forward: backend, host staging
    float *table;    // reference tokens: (T, d) sin2d of the grid positions; NULL otherwise
    int drawn;       // the positions hold CAPE's training draws, not the grid
} sin2d_state;


static void sin2d_declare_acts(model *m) {
    sin2d_state *s = m->pe_state;
    size_t BN = (size_t)m->max_batch * m->N_max;
    model_add_input(m, "pos_x", BN, &s->x, &s->x_host);
    model_add_input(m, "pos_y", BN, &s->y, &s->y_host);
    if (m->cfg.ref_tokens > 0 || m->cfg.query_stream) model_add_act(m, "ref_table", (size_t)m->T_max * m->cfg.dim, &s->table, NULL);
}

static void upload_positions(model *m, size_t n) {
    sin2d_state *s = m->pe_state;
    model_upload(m, s->x_host, n);
    model_upload(m, s->y_host, n);
}

// The grid positions for every image of a batch, staged and uploaded once per grid.
static void stage_grid_positions(model *m) {
    sin2d_state *s = m->pe_state;
    posenc_eval_positions(s->x_host, s->y_host, m->max_batch, m->grid, m->grid);
    upload_positions(m, (size_t)m->max_batch * m->N);
    s->drawn = 0;
}

// The positions of the new grid; with reference tokens, the (T, d) table every token would
// get at those positions.
static void sin2d_set_grid(model *m) {
    sin2d_state *s = m->pe_state;
    stage_grid_positions(m);
    if (!s->table) return;
    m->ops->zero(s->table, (size_t)m->T * m->cfg.dim);
    m->ops->sincos2d_add(s->table, s->x, s->y, 1, m->T, m->cfg.dim, m->t0);
}

static const float *sin2d_reference_table(model *m) { return ((sin2d_state *)m->pe_state)->table; }

// cape in training: the grid positions augmented per image (models/posenc/tables.h); at
// evaluation the grid again (restaged only after a training draw replaced it).
static void cape_prepare(model *m, int B, int training, rng_addr rng) {
    sin2d_state *s = m->pe_state;
    if (!training) {
        if (s->drawn) stage_grid_positions(m);
        return;
    }
    const model_config *c = &m->cfg;
    cape_config cc = {c->cape_global_shift, c->cape_local_shift < 0 ? cape_default_local_shift(m->grid) : c->cape_local_shift,
                      c->cape_scale};
    posenc_cape_positions_from(s->x_host, s->y_host, B, m->grid, m->grid, &cc, rng.seed, rng.epoch,
                               rng.step, rng.index); // rng.index: the micro-batch's first image
    upload_positions(m, (size_t)B * m->N);
    s->drawn = 1;
}

static void sin2d_tokens_forward(model *m, int B) {
    sin2d_state *s = m->pe_state;
    m->ops->sincos2d_add(m->activations.x0, s->x, s->y, B, m->T, m->cfg.dim, m->t0);
}

// sin2d and cape place patches on a 2D grid of [-1, 1]²: images only.
static const char *sin2d_config_error(const struct model_config *c) {
    static char msg[200];
    if (model_config_is_sequence(c)) { // speech frames reach cape1d.c instead (posenc_for_model)
        snprintf(msg, sizeof msg, "pe.kind=%s encodes 2D image positions; a sequence input takes none, abs, sin1d, cape "
                 "(1D, speech frames only: positions in seconds), relbias or rope (pe.rope_dims=1)", c->pe_kind);
        return msg;
    }
    return posenc_sinusoid_config_error(c);
}

static const char *cape_config_error(const struct model_config *c) {
    const char *why = sin2d_config_error(c);
    if (why) return why;
    cape_config cc = {c->cape_global_shift, c->cape_local_shift == -1.0f ? 0.0f : c->cape_local_shift, c->cape_scale};
    if (posenc_cape_error(&cc))
        return "pe.cape_global_shift must be >= 0, pe.cape_local_shift >= 0 or -1 (= 1/grid), pe.cape_scale >= 1";
    return NULL;
}

const posenc_kind posenc_sin2d = {
    .name = "sin2d",
    .config_error = sin2d_config_error,
    .state_size = sizeof(sin2d_state),
    .declare_acts = sin2d_declare_acts,
    .set_grid = sin2d_set_grid,
    .reference_table = sin2d_reference_table,
    .tokens_forward = sin2d_tokens_forward,
};

const posenc_kind posenc_cape = {
    .name = "cape",
    .config_error = cape_config_error,
    .state_size = sizeof(sin2d_state),
    .declare_acts = sin2d_declare_acts,
    .set_grid = sin2d_set_grid,
    .prepare_inputs = cape_prepare,
    .tokens_forward = sin2d_tokens_forward,
    .sequence_kind = &posenc_cape1d,
};
