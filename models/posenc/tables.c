// models/posenc/tables.c — host-side position tables and CAPE draws (see posenc.h for the contracts).
// Angles and frequencies are computed in double and rounded to float once at the end.
#include "tables.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include <math.h>
#include <stdio.h>

// linspace(-1, 1, n)[i] in double; 0 for a single point.
static double unit_linspace(int i, int n) { return n > 1 ? -1.0 + 2.0 * i / (n - 1) : 0.0; }

// ---------------------------------------------------------------- positions
void posenc_grid_positions(float *x, float *y, int gh, int gw) {
    for (int r = 0; r < gh; r++)
        for (int c = 0; c < gw; c++) {
            x[r * gw + c] = (float)unit_linspace(c, gw);
            y[r * gw + c] = (float)unit_linspace(r, gh);
        }
}

void posenc_eval_positions(float *px, float *py, int B, int gh, int gw) {
    int N = gh * gw;
    posenc_grid_positions(px, py, gh, gw);
    for (int b = 1; b < B; b++)
        for (int n = 0; n < N; n++) {
            px[(size_t)b * N + n] = px[n];
            py[(size_t)b * N + n] = py[n];
        }
}

// ---------------------------------------------------------------- sin1d
const char *posenc_sin_error(int d) {
    static char msg[128];
    if (d < 2 || d % 2 != 0) {
        snprintf(msg, sizeof msg, "sinusoidal position encodings need an even width >= 2, got %d", d);
        return msg;
    }
    return NULL;
}

void posenc_sin1d_table(float *pos, int T, int d, int t0) {
    const char *why = posenc_sin_error(d);
    if (why) die_fail("internal: posenc_sin1d_table: %s", why);
    for (int t = 0; t < T; t++) {
        float *row = pos + (size_t)t * d; // (d)
        if (t < t0) {
            for (int i = 0; i < d; i++) row[i] = 0.0f;
            continue;
        }
        double n = t - t0;
        for (int k = 0; k < d / 2; k++) {
            double omega = pow(10000.0, -2.0 * k / d);
            row[2 * k] = (float)cos(omega * n);
            row[2 * k + 1] = (float)sin(omega * n);
        }
    }
}

// ---------------------------------------------------------------- CAPE
float cape_default_local_shift(int grid) { return 1.0f / (float)grid; }

const char *posenc_cape_error(const cape_config *c) {
    static char msg[160];
    if (!(c->global_shift >= 0.0f) || !isfinite(c->global_shift))
        snprintf(msg, sizeof msg, "CAPE global shift (max) must be a finite value >= 0, got %g", c->global_shift);
    else if (!(c->local_shift >= 0.0f) || !isfinite(c->local_shift))
        snprintf(msg, sizeof msg, "CAPE local shift (max) must be a finite value >= 0, got %g", c->local_shift);
    else if (!(c->scale >= 1.0f) || !isfinite(c->scale))
        snprintf(msg, sizeof msg, "CAPE global scaling (max) must be a finite value >= 1, got %g", c->scale);
    else
        return NULL;
    return msg;
}

// a·(2u - 1) for the next uniform u in [0, 1): in [-a, a).
static float symmetric_uniform(rng_stream *s, float a) { return a * (2.0f * rng_uniform(s) - 1.0f); }

void posenc_cape_positions(float *px, float *py, int B, int gh, int gw, const cape_config *c,
                           uint32_t seed, uint32_t epoch, uint32_t step) {
    posenc_cape_positions_from(px, py, B, gh, gw, c, seed, epoch, step, 0);
}

void posenc_cape_positions_from(float *px, float *py, int B, int gh, int gw, const cape_config *c,
                                uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first) {
    const char *why = posenc_cape_error(c);
    if (why) die_fail("internal: posenc_cape_positions: %s", why);
    int N = gh * gw;
    float log_max = (float)log((double)c->scale);
    for (int b = 0; b < B; b++) {
        float *x = px + (size_t)b * N, *y = py + (size_t)b * N; // (N) each
        posenc_grid_positions(x, y, gh, gw);
        rng_stream s = rng_stream_make(seed, RNG_POSENC, epoch, step, first + (uint32_t)b);
        float dx = symmetric_uniform(&s, c->global_shift);
        float dy = symmetric_uniform(&s, c->global_shift);
        for (int n = 0; n < N; n++) { // shift first, local noise second, as x' = λ((x + Δ) + ε)
            float ex = symmetric_uniform(&s, c->local_shift);
            float ey = symmetric_uniform(&s, c->local_shift);
            x[n] = (x[n] + dx) + ex;
            y[n] = (y[n] + dy) + ey;
        }
        float lambda = (float)exp((double)symmetric_uniform(&s, log_max)); // exactly 1 when λmax = 1
        for (int n = 0; n < N; n++) {
            x[n] *= lambda;
            y[n] *= lambda;
        }
    }
}

// ---------------------------------------------------------------- CAPE in 1D
float cape_time_default_local_shift(float stride) { return 0.5f * stride; }

void posenc_time_positions(float *t, int N, float stride) {
    for (int n = 0; n < N; n++) t[n] = (float)((n - 0.5 * (N - 1)) * (double)stride);
}

void posenc_time_eval_positions(float *pt, int B, int N, float stride) {
    posenc_time_positions(pt, N, stride);
    for (int b = 1; b < B; b++)
        for (int n = 0; n < N; n++) pt[(size_t)b * N + n] = pt[n];
}

void posenc_cape_time_positions(float *pt, int B, int N, float stride, const cape_config *c,
                                uint32_t seed, uint32_t epoch, uint32_t step) {
    posenc_cape_time_positions_from(pt, B, N, stride, c, seed, epoch, step, 0);
}

void posenc_cape_time_positions_from(float *pt, int B, int N, float stride, const cape_config *c,
                                     uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first) {
    const char *why = posenc_cape_error(c);
    if (why) die_fail("internal: posenc_cape_time_positions: %s", why);
    float log_max = (float)log((double)c->scale);
    for (int b = 0; b < B; b++) {
        float *t = pt + (size_t)b * N; // (N)
        posenc_time_positions(t, N, stride);
        rng_stream s = rng_stream_make(seed, RNG_POSENC, epoch, step, first + (uint32_t)b);
        float delta = symmetric_uniform(&s, c->global_shift);
        for (int n = 0; n < N; n++) t[n] = (t[n] + delta) + symmetric_uniform(&s, c->local_shift);
        float lambda = (float)exp((double)symmetric_uniform(&s, log_max)); // exactly 1 when λmax = 1
        for (int n = 0; n < N; n++) t[n] *= lambda;
    }
}

// ---------------------------------------------------------------- reference tokens
void posenc_reference_tokens(int *ref, int B, int N, int t0, int R, uint32_t seed, uint32_t epoch,
                             uint32_t step, uint32_t first_index, int *scratch) {
    if (R < 1 || R > N) die_fail("internal: posenc_reference_tokens R=%d outside [1, %d]", R, N);
    for (int b = 0; b < B; b++) {
        rng_stream s = rng_stream_make(seed, RNG_REFERENCE, epoch, step, first_index + (uint32_t)b);
        rng_sorted_subset(&s, N, R, scratch);
        int *out = ref + (size_t)b * (t0 + R);
        if (t0) out[0] = 0;
        for (int r = 0; r < R; r++) out[t0 + r] = t0 + scratch[r];
    }
}

// ---------------------------------------------------------------- RoPE
float posenc_rope_default_base(int dims) { return dims == 2 ? 100.0f : 10000.0f; }

const char *posenc_rope_error(int head_dim, int dims) {
    static char msg[160];
    if (dims != 1 && dims != 2)
        snprintf(msg, sizeof msg, "RoPE dims must be 1 or 2 (axial), got %d", dims);
    else if (dims == 1 && (head_dim < 2 || head_dim % 2 != 0))
        snprintf(msg, sizeof msg, "1D RoPE needs an even head dimension (dim/heads), got %d", head_dim);
    else if (dims == 2 && (head_dim < 4 || head_dim % 4 != 0))
        snprintf(msg, sizeof msg, "2D axial RoPE needs a head dimension (dim/heads) that is a multiple of 4, got %d",
                 head_dim);
    else
        return NULL;
    return msg;
}

void posenc_rope_tables(float *cos_table, float *sin_table, int gh, int gw, int head_dim, int dims,
                        float base) {
    const char *why = posenc_rope_error(head_dim, dims);
    if (why) die_fail("internal: posenc_rope_tables: %s", why);
    int N = gh * gw, pairs = head_dim / 2, P = head_dim / 4;
    for (int n = 0; n < N; n++) {
        int r = n / gw, c = n % gw;
        for (int j = 0; j < pairs; j++) {
            double angle;
            if (dims == 1) {
                angle = n * pow((double)base, -2.0 * j / head_dim);
            } else {
                int i = j < P ? j : j - P;       // frequency index within the axis
                int coord = j < P ? c : r;       // first half of the pairs: column; second: row
                angle = coord * pow((double)base, -(double)i / P);
            }
            cos_table[(size_t)n * pairs + j] = (float)cos(angle);
            sin_table[(size_t)n * pairs + j] = (float)sin(angle);
        }
    }
}

// ---------------------------------------------------------------- relbias
int posenc_relbias_entries(int table_h, int table_w, int cls) {
    return (2 * table_h - 1) * (2 * table_w - 1) + (cls > 0 ? 3 : 0);
}

static int clip_offset(int d, int lim) { return d < -lim ? -lim : (d > lim ? lim : d); }

void posenc_relbias_index(int *index, int gh, int gw, int table_h, int table_w, int cls) {
    int span = 2 * table_w - 1, K = posenc_relbias_entries(table_h, table_w, cls), T = cls + gh * gw;
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            int e;
            if (i < cls && j < cls) e = K - 1;      // cls -> cls
            else if (i < cls) e = K - 3;            // cls -> patch
            else if (j < cls) e = K - 2;            // patch -> cls
            else {
                int pi = i - cls, pj = j - cls;
                int dr = clip_offset(pi / gw - pj / gw, table_h - 1);
                int dc = clip_offset(pi % gw - pj % gw, table_w - 1);
                e = (dr + table_h - 1) * span + (dc + table_w - 1);
            }
            index[(size_t)i * T + j] = e;
        }
}
