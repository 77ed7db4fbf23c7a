// models/posenc/sin2d.c — pe.kind=sin2d (CAPE eq. 3-4: patch centres on [-1, 1], added per
// image to the patch tokens by the sincos2d_add op; cls gets none; another grid is a denser
// grid on [-1, 1]) and pe.kind=cape (the same, with the positions augmented in training only:
// global shift, local shift and scale drawn per image, models/posenc/tables.h). sin2d can be
// kept on MP3 reference tokens and GVP's query tokens (the (T, d) table of the grid positions).
// On a sequence input, cape runs as models/posenc/cape1d.c (positions in seconds).
#include "encoding.h"
#include "tables.h"
#include "cape.h"
#include "../api/model_view.h"
#include <stdio.h>

typedef struct {
    float *x, *y, *x_host, *y_host; // (B, N) positions of this forward: backend, host staging
    float *table;    // reference tokens: (T, d) sin2d of the grid positions; NULL otherwise
    int drawn;       // the positions hold CAPE's training draws, not the grid
} sin2d_state;


static void sin2d_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    size_t BN = (size_t)v.max_batch * v.N_max;
    model_add_input(m, "pos_x", BN, &s->x, &s->x_host);
    model_add_input(m, "pos_y", BN, &s->y, &s->y_host);
    if (v.cfg->request.ref_tokens > 0 || v.cfg->request.query_stream) model_add_act(m, "ref_table", (size_t)v.T_max * v.cfg->dim, &s->table, NULL);
}

static void upload_positions(struct model *m, size_t n) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    model_upload(m, s->x_host, n);
    model_upload(m, s->y_host, n);
}

// The grid positions for every image of a batch, staged and uploaded once per grid.
static void stage_grid_positions(struct model *m) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    posenc_eval_positions(s->x_host, s->y_host, v.max_batch, v.grid, v.grid);
    upload_positions(m, (size_t)v.max_batch * v.N);
    s->drawn = 0;
}

// The positions of the new grid; with reference tokens, the (T, d) table every token would
// get at those positions.
static void sin2d_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    stage_grid_positions(m);
    if (!s->table) return;
    v.ops->zero(s->table, (size_t)v.T * v.cfg->dim);
    v.ops->sincos2d_add(s->table, s->x, s->y, 1, v.T, v.cfg->dim, v.t0);
}

static const float *sin2d_reference_table(struct model *m) { return ((sin2d_state *)model_pe_state(m))->table; }

// cape in training: the grid positions augmented per image (models/posenc/tables.h); at
// evaluation the grid again (restaged only after a training draw replaced it).
static void cape_prepare(struct model *m, int B, int training, rng_addr rng) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    if (!training) {
        if (s->drawn) stage_grid_positions(m);
        return;
    }
    const posenc_cape_settings *c = POSENC_OWN(v.cfg, const posenc_cape_settings);
    cape_config cc = {c->global_shift, c->local_shift < 0 ? cape_default_local_shift(v.grid) : c->local_shift, c->scale};
    posenc_cape_positions_from(s->x_host, s->y_host, B, v.grid, v.grid, &cc, rng.seed, rng.epoch,
                               rng.step, rng.index); // rng.index: the micro-batch's first image
    upload_positions(m, (size_t)B * v.N);
    s->drawn = 1;
}

static void sin2d_tokens_forward(struct model *m, int B) {
    const model_view v = model_view_of(m);
    sin2d_state *s = v.state;
    v.ops->sincos2d_add(v.x0, s->x, s->y, B, v.T, v.cfg->dim, v.t0);
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
    const posenc_cape_settings *s = POSENC_OWN(c, const posenc_cape_settings);
    cape_config cc = {s->global_shift, s->local_shift == -1.0f ? 0.0f : s->local_shift, s->scale};
    if (posenc_cape_error(&cc))
        return "pe.cape_global_shift must be >= 0, pe.cape_local_shift >= 0 or -1 (= 1/grid), pe.cape_scale >= 1";
    return NULL;
}

// CAPE's augmentation bounds (posenc_cape; on a sequence cape1d reads them too).
static const cfg_key cape_keys[] = {
    {"pe.cape_global_shift", CFG_FLOAT, "0.5", 0, 100, NULL, 1, "cape: global shift bound: per image, x and y each shifted by U(-max, max) (patch centres span [-1, 1])"},
    {"pe.cape_local_shift", CFG_FLOAT, "-1", -1, 100, NULL, 1, "cape: local shift bound: per token, x and y each shifted by U(-max, max) (-1 = 1/grid side, the paper's 1/N; on a sequence: t per frame, in seconds, -1 = half a frame)"},
    {"pe.cape_scale", CFG_FLOAT, "1.4", 1, 100, NULL, 1, "cape: global scale bound: per image, log(scale) ~ U(-log max, log max) applied to x and y (on a sequence: to t) (1 = off)"},
    {NULL},
};

_Static_assert(sizeof(posenc_cape_settings) <= MODEL_OWN_BYTES, "cape's settings must fit model_config.pe_own");

static void cape_read_keys(const key_reader *r, struct model_config *c) {
    posenc_cape_settings *s = POSENC_OWN(c, posenc_cape_settings);
    s->global_shift = (float)key_float(r, "pe.cape_global_shift");
    s->local_shift = (float)key_float(r, "pe.cape_local_shift");
    s->scale = (float)key_float(r, "pe.cape_scale");
}

const posenc_kind posenc_sin2d = {
    .name = "sin2d",
    .description = "CAPE eq. 3-4, patch centres on [-1, 1]",
    .positional = 1, .has_table = 1, .resizable = 1, .grid_ok = 1, .crosscheck_ok = 1,
    .config_error = sin2d_config_error,
    .state_size = sizeof(sin2d_state),
    .declare_acts = sin2d_declare_acts,
    .set_grid = sin2d_set_grid,
    .reference_table = sin2d_reference_table,
    .tokens_forward = sin2d_tokens_forward,
};

const posenc_kind posenc_cape = {
    .name = "cape",
    .description = "sin2d with training-time shift and scale augmentation; on a sequence CAPE in 1D, positions in seconds",
    .positional = 1, .resizable = 1, .per_image_draws = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1,
    .config_error = cape_config_error,
    .keys = cape_keys,
    .read_keys = cape_read_keys,
    .state_size = sizeof(sin2d_state),
    .declare_acts = sin2d_declare_acts,
    .set_grid = sin2d_set_grid,
    .prepare_inputs = cape_prepare,
    .tokens_forward = sin2d_tokens_forward,
    .sequence_kind = &posenc_cape1d,
};
