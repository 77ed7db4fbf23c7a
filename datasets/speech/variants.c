// datasets/speech/variants.c — longer and time-stretched versions of a speech split for
// evaluation (see variants.h for the exact definitions).
#include "variants.h"
#include "speech_commands.h"
#include "wav.h"
#include "../file_read.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include <math.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int speech_duration_frames(int seconds) { return SPEECH_FRAMES * seconds; }
int speech_rate_frames(int percent) { return (int)lround(16000.0 * 100.0 / percent) / MFCC_HOP; }

static int variant_alloc(const dataset *ds, int frames, speech_variant *v, char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    v->frames = frames;
    v->n = ds->n;
    v->features = malloc((size_t)(ds->n ? ds->n : 1) * frames * MFCC_COEFFS * sizeof(float));
    v->labels = malloc((size_t)(ds->n ? ds->n : 1) * sizeof(int32_t));
    if (!v->features || !v->labels) {
        speech_variant_free(v);
        dataset_set_err(err, errlen, "%s: out of memory for an evaluation variant of %d frames", ds->source, frames);
        return -1;
    }
    return 0;
}

// Mel power (frames, mels) of row i -> its standardised MFCCs in v.
static void finish_row(const speech_store *st, speech_variant *v, int i, const float *mel) {
    float *o = v->features + (size_t)i * v->frames * MFCC_COEFFS; // (frames, coeffs)
    mfcc_from_mel_power(&st->plan, mel, v->frames, o);
    for (int t = 0; t < v->frames; t++)
        for (int j = 0; j < MFCC_COEFFS; j++)
            o[t * MFCC_COEFFS + j] = (float)(((double)o[t * MFCC_COEFFS + j] - st->mean[j]) / st->std[j]);
}

int speech_variant_duration(const dataset *ds, int seconds, float volume, speech_variant *v, char *err, size_t errlen) {
    const speech_store *st = ds->audio;
    if (!st || seconds < 1) die_fail("internal: speech_variant_duration on %s (%d s)", ds->name, seconds);
    const int frames = speech_duration_frames(seconds);
    if (variant_alloc(ds, frames, v, err, errlen) != 0) return -1;
    float *mel_all = malloc((size_t)(ds->n ? ds->n : 1) * frames * MFCC_MELS * sizeof(float));
    if (!mel_all) {
        speech_variant_free(v);
        dataset_set_err(err, errlen, "%s: out of memory for a %d-second evaluation variant", ds->source, seconds);
        return -1;
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < ds->n; i++) {
        const int r = ds->clips[i];
        v->labels[i] = st->label[r];
        rng_stream s = rng_stream_make(SPEECH_DATA_SEED, RNG_SPEECH_DATA, 3, (uint32_t)seconds, (uint32_t)i);
        const int f = (int)rng_below(&s, (uint32_t)st->n_noise), nf = st->noise_frames[f];
        const int o = (int)rng_below(&s, (uint32_t)nf);
        const float vol = st->mel_row[r] < 0 ? rng_uniform(&s) : rng_uniform(&s) * volume, v2 = vol * vol;
        const int k = (int)rng_below(&s, (uint32_t)(frames - SPEECH_FRAMES + 1));
        float *mel = mel_all + (size_t)i * frames * MFCC_MELS; // (frames, mels)
        for (int t = 0; t < frames; t++) {
            const float *noise = st->noise_mel[f] + (size_t)((o + t) % nf) * MFCC_MELS;
            const float *clip = st->mel_row[r] >= 0 && t >= k && t - k < SPEECH_FRAMES
                                    ? st->mel + ((size_t)st->mel_row[r] * SPEECH_STORED_FRAMES + SPEECH_SHIFT_FRAMES + t - k) * MFCC_MELS
                                    : NULL;
            for (int m = 0; m < MFCC_MELS; m++) mel[t * MFCC_MELS + m] = v2 * noise[m] + (clip ? clip[m] : 0.0f);
        }
        finish_row(st, v, i, mel);
    }
    free(mel_all);
    return 0;
}

// One word clip at P percent speed: mel power (frames, mels) into mel. 0, or -1 with msg.
static int rate_clip(const speech_store *st, int r, int percent, int frames, float *mel, char *msg, size_t len) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", st->dir, st->file[r]);
    float *x = NULL, clip[SPEECH_CLIP_SAMPLES];
    long n = 0;
    if (wav_read_mono16k(path, &x, &n, msg, len) != 0) return -1;
    if (n > SPEECH_CLIP_SAMPLES) n = SPEECH_CLIP_SAMPLES; // as the loader: cut / zero-pad to 1 s
    memset(clip, 0, sizeof clip);
    memcpy(clip, x, (size_t)n * sizeof(float));
    free(x);
    const size_t n_out = (size_t)lround(16000.0 * 100.0 / percent);
    float *y = malloc(n_out * sizeof(float));
    if (!y) {
        snprintf(msg, len, "%s: out of memory resampling", path);
        return -1;
    }
    size_t done = 0;
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_runtime_spec_t rt = soxr_runtime_spec(1);
    soxr_error_t e = soxr_oneshot(16000.0, 16000.0 * 100.0 / percent, 1, clip, SPEECH_CLIP_SAMPLES, NULL, y, n_out, &done,
                                  &io, &q, &rt);
    int rc = 0;
    if (e) {
        snprintf(msg, len, "%s: libsoxr: resampling to %d%% speed failed: %s", path, percent, e);
        rc = -1;
    } else {
        for (size_t j = done; j < n_out; j++) y[j] = 0.0f; // a short tail from the filter delay: silence
        if (mfcc_mel_power(&st->plan, y, (long)n_out, -MFCC_HOP, frames, mel) != 0) {
            snprintf(msg, len, "%s: out of memory for FFT buffers", path);
            rc = -1;
        }
    }
    free(y);
    return rc;
}

int speech_variant_rate(const dataset *ds, int percent, speech_variant *v, char *err, size_t errlen) {
    const speech_store *st = ds->audio;
    if (!st || percent < 1) die_fail("internal: speech_variant_rate on %s (%d%%)", ds->name, percent);
    const int frames = speech_rate_frames(percent);
    if (variant_alloc(ds, frames, v, err, errlen) != 0) return -1;
    char **why = calloc((size_t)(ds->n ? ds->n : 1), sizeof *why);
    float *mel_all = malloc((size_t)(ds->n ? ds->n : 1) * frames * MFCC_MELS * sizeof(float));
    if (!why || !mel_all) {
        free(why);
        free(mel_all);
        speech_variant_free(v);
        dataset_set_err(err, errlen, "%s: out of memory for a %d%% rate evaluation variant", ds->source, percent);
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 8)
    for (int i = 0; i < ds->n; i++) {
        const int r = ds->clips[i];
        v->labels[i] = st->label[r];
        float *mel = mel_all + (size_t)i * frames * MFCC_MELS; // (frames, mels)
        if (st->mel_row[r] >= 0) {
            char msg[1600];
            if (rate_clip(st, r, percent, frames, mel, msg, sizeof msg) != 0) {
                why[i] = strdup(msg);
                continue;
            }
        } else { // _silence_: its evaluation cut, moved back to fit when it is longer
            const int f = st->cut_file[r], nf = st->noise_frames[f];
            const int o = st->cut_offset[r] + frames <= nf ? st->cut_offset[r] : 0;
            const float v2 = st->cut_volume[r] * st->cut_volume[r];
            for (int t = 0; t < frames; t++)
                for (int m = 0; m < MFCC_MELS; m++)
                    mel[t * MFCC_MELS + m] = v2 * st->noise_mel[f][(size_t)((o + t) % nf) * MFCC_MELS + m];
        }
        finish_row(st, v, i, mel);
    }
    int bad = -1;
    for (int i = 0; i < ds->n && bad < 0; i++)
        if (why[i]) bad = i;
    if (bad >= 0) dataset_set_err(err, errlen, "%s", why[bad]);
    for (int i = 0; i < ds->n; i++) free(why[i]);
    free(why);
    free(mel_all);
    if (bad >= 0) speech_variant_free(v);
    return bad >= 0 ? -1 : 0;
}

void speech_variant_batch(const speech_variant *v, const int *rows, int B, float *out, int32_t *labels) {
    const size_t per = (size_t)v->frames * MFCC_COEFFS;
    for (int b = 0; b < B; b++) {
        if (rows[b] < 0 || rows[b] >= v->n) die_fail("speech variant: row %d outside [0, %d)", rows[b], v->n);
        memcpy(out + (size_t)b * per, v->features + (size_t)rows[b] * per, per * sizeof(float));
        labels[b] = v->labels[rows[b]];
    }
}

void speech_variant_free(speech_variant *v) {
    free(v->features);
    free(v->labels);
    memset(v, 0, sizeof *v);
}
