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
#include "../model.h"
#include <stdio.h>

typedef struct {
    float *t, *t_host; // (B, N) positions of this forward in seconds: backend, host staging
    int drawn;         // the positions hold training draws, not the evaluation positions
} cape1d_state;

static void cape1d_declare_acts(model *m) {
    cape1d_state *s = m->pe_state;
    model_add_input(m, "pos_t", (size_t)m->max_batch * m->N_max, &s->t, &s->t_host);
}

// The evaluation positions of the current length for every sequence of a batch.
static void stage_eval_positions(model *m) {
    cape1d_state *s = m->pe_state;
    posenc_time_eval_positions(s->t_host, m->max_batch, m->N, m->cfg.frame_seconds);
    model_upload(m, s->t_host, (size_t)m->max_batch * m->N);
    s->drawn = 0;
}

static void cape1d_set_grid(model *m) { stage_eval_positions(m); }

static cape_config cape1d_bounds(const model_config *c) {
    cape_config cc = {c->cape_time_shift,
                      c->cape_local_shift < 0 ? cape_time_default_local_shift(c->frame_seconds) : c->cape_local_shift,
                      c->cape_scale};
    return cc;
}

// Training: positions drawn per sequence from (seed, RNG_POSENC, epoch, step, b); evaluation:
// the plain positions (restaged only after a training draw replaced them).
static void cape1d_prepare(model *m, int B, int training, rng_addr rng) {
    cape1d_state *s = m->pe_state;
    if (!training) {
        if (s->drawn) stage_eval_positions(m);
        return;
    }
    cape_config cc = cape1d_bounds(&m->cfg);
    posenc_cape_time_positions_from(s->t_host, B, m->N, m->cfg.frame_seconds, &cc, rng.seed, rng.epoch, rng.step,
                                    rng.index); // rng.index: the micro-batch's first sequence
    model_upload(m, s->t_host, (size_t)B * m->N);
    s->drawn = 1;
}

static void cape1d_tokens_forward(model *m, int B) {
    cape1d_state *s = m->pe_state;
    m->ops->sincos1d_add(m->activations.x0, s->t, B, m->T, m->cfg.dim, m->t0, CAPE_TIME_FREQ_SCALE);
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

const posenc_kind posenc_cape1d = {
    .name = "cape",
    .config_error = cape1d_config_error,
    .state_size = sizeof(cape1d_state),
    .declare_acts = cape1d_declare_acts,
    .set_grid = cape1d_set_grid,
    .prepare_inputs = cape1d_prepare,
    .tokens_forward = cape1d_tokens_forward,
};
