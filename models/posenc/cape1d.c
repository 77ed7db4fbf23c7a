// models/posenc/cape1d.c — pe.kind=cape on a sequence input (speech; CAPE §3 "Positional
// encoding for sound", docs/methods.md "CAPE" 1D): frame n sits at t_n = (n - (N-1)/2)·stride
// seconds (mean-normalised, training and evaluation alike), encoded by the sincos1d_add op with
// CAPE's speech frequencies w_k = 30·10000^(-2k/d) (channel 2k cos, 2k+1 sin), added per
// sequence to the frame tokens (cls gets none). In training only, each sequence's positions are
// augmented (models/posenc/tables.h posenc_cape_time_positions): a global shift Δ ~
// U(-pe.cape_time_shift, +), a local shift per frame ε ~ U(-pe.cape_local_shift, +) (-1 = half a
// frame) and a global scale log λ ~ U(-log pe.cape_scale, +): t' = λ((t + Δ) + ε). Another
// length (longer clips, time-stretched audio) is just another N at the same stride: no table
// to resize. Not a pe.kind of its own: `cape` runs as this kind when the input is a sequence
// (posenc_kind.sequence_kind).
#include "encoding.h"
#include "tables.h"
#include "cape.h"
#include "../api/model_view.h"
#include <stdio.h>

typedef struct {
    float *t, *t_host; // (B, N) positions of this forward in seconds: backend, host staging
    int drawn;         // the positions hold training draws, not the evaluation positions
} cape1d_state;

static void cape1d_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    cape1d_state *s = v.state;
    model_add_input(m, "pos_t", (size_t)v.max_batch * v.N_max, &s->t, &s->t_host);
}

// The evaluation positions of the current length for every sequence of a batch.
static void stage_eval_positions(struct model *m) {
    const model_view v = model_view_of(m);
    cape1d_state *s = v.state;
    posenc_time_eval_positions(s->t_host, v.max_batch, v.N, v.cfg->frame_seconds);
    model_upload(m, s->t_host, (size_t)v.max_batch * v.N);
    s->drawn = 0;
}

static void cape1d_set_grid(struct model *m) { stage_eval_positions(m); }

static cape_config cape1d_bounds(const model_config *mc) {
    const posenc_cape_settings *c = POSENC_OWN(mc, const posenc_cape_settings);
    cape_config cc = {c->time_shift, c->local_shift < 0 ? cape_time_default_local_shift(mc->frame_seconds) : c->local_shift,
                      c->scale};
    return cc;
}

// Training: positions drawn per sequence from (seed, RNG_POSENC, epoch, step, b); evaluation:
// the plain positions (restaged only after a training draw replaced them).
static void cape1d_prepare(struct model *m, int B, int training, rng_addr rng) {
    const model_view v = model_view_of(m);
    cape1d_state *s = v.state;
    if (!training) {
        if (s->drawn) stage_eval_positions(m);
        return;
    }
    cape_config cc = cape1d_bounds(v.cfg);
    posenc_cape_time_positions_from(s->t_host, B, v.N, v.cfg->frame_seconds, &cc, rng.seed, rng.epoch,
                                    rng.step, rng.index); // rng.index: the micro-batch's first sequence
    model_upload(m, s->t_host, (size_t)B * v.N);
    s->drawn = 1;
}

static void cape1d_tokens_forward(struct model *m, int B) {
    const model_view v = model_view_of(m);
    cape1d_state *s = v.state;
    v.ops->sincos1d_add(v.x0, s->t, B, v.T, v.cfg->dim, v.t0, CAPE_TIME_FREQ_SCALE);
}

static const char *cape1d_config_error(const struct model_config *c) {
    static char msg[200];
    const char *why = posenc_sinusoid_config_error(c);
    if (why) return why;
    if (!(c->frame_seconds > 0.0f)) {
        snprintf(msg, sizeof msg, "internal: pe.kind=cape on a sequence needs the frame stride in seconds (model_config.frame_seconds)");
        return msg;
    }
    cape_config cc = cape1d_bounds(c);
    if (posenc_cape_error(&cc))
        return "pe.cape_time_shift must be >= 0, pe.cape_local_shift >= 0 or -1 (= half a frame), pe.cape_scale >= 1";
    return NULL;
}

// The sequence form's own bound (the others: posenc_cape's keys, read here too; cape.h).
static const cfg_key cape1d_keys[] = {
    {"pe.cape_time_shift", CFG_FLOAT, "60", 0, 1e6, NULL, 1, "cape on a sequence (speech, positions in seconds): global shift bound in seconds: per sequence, t shifted by U(-max, max) (the paper's ASR setting: 60 s)"},
    {NULL},
};

static void cape1d_read_keys(const key_reader *r, struct model_config *c) {
    posenc_cape_settings *s = POSENC_OWN(c, posenc_cape_settings);
    s->time_shift = (float)key_float(r, "pe.cape_time_shift");
    s->local_shift = (float)key_float(r, "pe.cape_local_shift");
    s->scale = (float)key_float(r, "pe.cape_scale");
}

const posenc_kind posenc_cape1d = {
    .name = "cape",
    .positional = 1, .per_image_draws = 1, .sequence_ok = 1,
    .config_error = cape1d_config_error,
    .keys = cape1d_keys,
    .read_keys = cape1d_read_keys,
    .state_size = sizeof(cape1d_state),
    .declare_acts = cape1d_declare_acts,
    .set_grid = cape1d_set_grid,
    .prepare_inputs = cape1d_prepare,
    .tokens_forward = cape1d_tokens_forward,
};
