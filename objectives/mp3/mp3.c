// objectives/mp3/mp3.c — MP3 context sampling, position loss, accuracy and reassembly.
#include "mp3.h"
#include "../../models/posenc/encoding.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp3_context_patches(int N, double eta) {
    int M = (int)lround((1.0 - eta) * N);
    return M < 1 ? 1 : (M > N ? N : M);
}

int mp3_reference_patches(int N, double fraction) {
    if (fraction <= 0.0) return 0;
    int R = (int)lround(fraction * N);
    if (R > N - 1) R = N - 1; // at least one patch whose position accuracy can be measured
    return R < 1 ? 1 : R;
}

const char *mp3_config_error(const char *pe_kind, double ref_fraction) {
    static char msg[320];
    const posenc_kind *pe = posenc_find(pe_kind);
    int ref_kind = pe && pe->reference_table, positional = !pe || pe->positional;
    if (ref_fraction == 0 && positional)
        snprintf(msg, sizeof msg, "objective.name=mp3 pretrains without a position encoding, so the position can only "
                 "come from the content (pe.kind=%s; valid with mp3: none, or %s on reference tokens "
                 "with objective.ref_fraction > 0)", pe_kind, posenc_reference_names());
    else if (ref_fraction > 0 && !ref_kind)
        snprintf(msg, sizeof msg, "objective.ref_fraction=%g keeps a position encoding on reference tokens, which "
                 "pe.kind=%s cannot give (valid with objective.ref_fraction > 0: %s)", ref_fraction, pe_kind,
                 posenc_reference_names());
    else
        return NULL;
    return msg;
}

void mp3_sample_context(int *context, int B, int N, int t0, int Mp, uint32_t seed, uint32_t epoch,
                        uint32_t step, uint32_t first_index) {
    int M = t0 + Mp;
#pragma omp parallel
    {
        int *perm = xmalloc((size_t)N * sizeof(int), "MP3 permutation");
#pragma omp for schedule(static)
        for (int b = 0; b < B; b++) {
            rng_stream s = rng_stream_make(seed, RNG_MASK, epoch, step, first_index + (uint32_t)b);
            rng_sorted_subset(&s, N, Mp, perm);
            int *out = context + (size_t)b * M;
            if (t0) out[0] = 0;
            for (int m = 0; m < Mp; m++) out[t0 + m] = t0 + perm[m];
        }
        free(perm);
    }
}

void mp3_create(mp3 *o, const ops_backend *ops, int max_batch, int N, int t0) {
    o->ops = ops;
    o->max_batch = max_batch;
    o->N = N;
    o->t0 = t0;
    o->T = N + t0;
    size_t rows = (size_t)max_batch * o->T;
    o->targets = ops->alloc(rows * sizeof(int), "MP3 targets");
    o->probs = ops->alloc(rows * N * sizeof(float), "MP3 position probabilities");
    o->losses = ops->alloc(rows * sizeof(float), "MP3 per-token losses");
    o->pred = ops->alloc(rows * sizeof(int), "MP3 predicted positions");
    o->pred_host = xmalloc(rows * sizeof(int), "MP3 predicted positions (host)");
    int *targets = xmalloc(rows * sizeof(int), "MP3 targets (host)");
    for (size_t r = 0; r < rows; r++) {
        int t = (int)(r % o->T);
        targets[r] = t < t0 ? -1 : t - t0;
    }
    ops->upload(o->targets, targets, rows * sizeof(int));
    free(targets);
}

void mp3_free(mp3 *o) {
    o->ops->free(o->targets);
    o->ops->free(o->probs);
    o->ops->free(o->losses);
    o->ops->free(o->pred);
    free(o->pred_host);
    memset(o, 0, sizeof *o);
}

// Per-token losses (B·T) and probabilities of logits (B, T, N); returns the rows (cls rows hold 0).
static size_t token_losses(mp3 *o, const float *logits, int B) {
    int rows = B * o->T;
    o->ops->softmax_xent_forward(o->losses, o->probs, logits, o->targets, rows, o->N, 0.0f);
    return (size_t)rows;
}

double mp3_forward(mp3 *o, const float *logits, int B) {
    size_t rows = token_losses(o, logits, B);
    return o->ops->sum(o->losses, rows) / ((double)B * o->N);
}

void mp3_forward_to(mp3 *o, const float *logits, int B, double *loss) {
    size_t rows = token_losses(o, logits, B);
    o->ops->sum_to(loss, o->losses, rows, (double)B * o->N);
}

void mp3_backward(mp3 *o, float *dlogits, int B) {
    o->ops->softmax_xent_backward(dlogits, o->probs, o->targets, B * o->T, o->N, 0.0f, 1.0f / ((float)B * o->N));
}

const int *mp3_predict(mp3 *o, const float *logits, int B) {
    int N = o->N, T = o->T, t0 = o->t0;
    o->ops->argmax_rows(o->pred, logits, B * T, N);
    o->ops->download(o->pred_host, o->pred, (size_t)B * T * sizeof(int));
    for (int b = 0; b < B; b++) // drop the cls rows: (B, T) -> (B, N), in place (rows only move down)
        for (int n = 0; n < N; n++) o->pred_host[(size_t)b * N + n] = o->pred_host[(size_t)b * T + t0 + n];
    return o->pred_host;
}

static int patch_is_blank(const float *image, const mp3_layout *L, int n) {
    int gw = L->W / L->pw, y0 = (n / gw) * L->ph, x0 = (n % gw) * L->pw;
    for (int c = 0; c < L->C; c++) {
        float first = image[((size_t)c * L->H + y0) * L->W + x0];
        for (int y = 0; y < L->ph; y++)
            for (int x = 0; x < L->pw; x++) {
                float v = image[((size_t)c * L->H + y0 + y) * L->W + x0 + x];
                if (v != first) return 0; // each channel constant over the patch
            }
    }
    return 1;
}

static int layout_patches(const mp3_layout *L) { return (L->H / L->ph) * (L->W / L->pw); }
static size_t layout_floats(const mp3_layout *L) { return (size_t)L->C * L->H * L->W; }

void mp3_count_positions(const int *pred, const float *images, int B, const mp3_layout *L, const int *skip, int W, int t0,
                         mp3_counts *out) {
    int N = layout_patches(L), gw = L->W / L->pw;
    unsigned char *skipped = xcalloc((size_t)N, 1, "skipped patches");
    for (int b = 0; b < B; b++) {
        const float *image = images + (size_t)b * layout_floats(L);
        memset(skipped, 0, (size_t)N);
        for (int k = 0; skip && k < W; k++) {
            int n = skip[(size_t)b * W + k] - t0;
            if (n >= 0 && n < N) skipped[n] = 1;
        }
        for (int n = 0; n < N; n++) {
            if (skipped[n]) continue;
            int p = pred[(size_t)b * N + n], ok = p == n;
            out->correct += ok;
            out->total++;
            if (patch_is_blank(image, L, n)) continue;
            out->correct_nonblank += ok;
            out->total_nonblank++;
            int dy = abs(p / gw - n / gw), dx = abs(p % gw - n % gw), d = dy > dx ? dy : dx; // Chebyshev, in cells
            out->distance_nonblank[d < MP3_MAX_DISTANCE ? d : MP3_MAX_DISTANCE - 1]++;
        }
    }
    free(skipped);
}

void mp3_count_correct(const int *pred, const float *images, int B, const mp3_layout *L, const int *skip, int W,
                       int t0, long *correct, long *total, long *correct_nonblank, long *total_nonblank) {
    mp3_counts c = {0};
    mp3_count_positions(pred, images, B, L, skip, W, t0, &c);
    *correct += c.correct, *total += c.total, *correct_nonblank += c.correct_nonblank, *total_nonblank += c.total_nonblank;
}

static void copy_patch(float *dst, const float *src, const mp3_layout *L, int from, int to, int add) {
    int gw = L->W / L->pw;
    int fy = (from / gw) * L->ph, fx = (from % gw) * L->pw, ty = (to / gw) * L->ph, tx = (to % gw) * L->pw;
    for (int c = 0; c < L->C; c++)
        for (int y = 0; y < L->ph; y++)
            for (int x = 0; x < L->pw; x++) {
                float v = src[((size_t)c * L->H + fy + y) * L->W + fx + x];
                float *d = &dst[((size_t)c * L->H + ty + y) * L->W + tx + x];
                *d = add ? *d + v : v;
            }
}

void mp3_reassemble(const float *image, const int *pred, const mp3_layout *L, float empty, float *out) {
    int gw = L->W / L->pw, N = layout_patches(L);
    int *count = xcalloc((size_t)N, sizeof(int), "reassembly counts");
    memset(out, 0, layout_floats(L) * sizeof(float));
    for (int n = 0; n < N; n++) {
        if (pred[n] < 0 || pred[n] >= N) continue; // no prediction (non-finite logits): the patch is left out
        copy_patch(out, image, L, n, pred[n], 1);
        count[pred[n]]++;
    }
    for (int c = 0; c < L->C; c++)
        for (int y = 0; y < L->H; y++)
            for (int x = 0; x < L->W; x++) {
                int k = count[(y / L->ph) * gw + x / L->pw];
                float *v = &out[((size_t)c * L->H + y) * L->W + x];
                *v = k ? *v / k : empty;
            }
    free(count);
}

void mp3_context_image(const float *image, const int *context_patches, int Mp, const mp3_layout *L, float empty,
                       float *out) {
    for (size_t i = 0; i < layout_floats(L); i++) out[i] = empty;
    for (int m = 0; m < Mp; m++) copy_patch(out, image, L, context_patches[m], context_patches[m], 0);
}
