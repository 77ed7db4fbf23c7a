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

int speech_duration_frames(mfcc_frontend f, int seconds) { return mfcc_frames(f, (long)MFCC_SAMPLE_RATE * seconds, MFCC_HOP); }
int speech_rate_frames(mfcc_frontend f, int percent) { return mfcc_frames(f, lround(16000.0 * 100.0 / percent), MFCC_HOP); }
int speech_hop_samples(int percent) {
    long h = lround(MFCC_HOP * percent / 100.0);
    return h < 1 ? 1 : (int)h;
}
int speech_hop_frames(mfcc_frontend f, int percent) { return mfcc_frames(f, SPEECH_CLIP_SAMPLES, speech_hop_samples(percent)); }

static int variant_alloc(const dataset *ds, int frames, speech_variant *v, char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    v->frames = frames;
    v->frame_seconds = (float)MFCC_HOP / MFCC_SAMPLE_RATE;
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
    const int frames = speech_duration_frames(st->plan.frontend, seconds), F = st->frames, M = st->plan.mels;
    if (variant_alloc(ds, frames, v, err, errlen) != 0) return -1;
    float *mel_all = malloc((size_t)(ds->n ? ds->n : 1) * frames * M * sizeof(float));
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
        const int k = (int)rng_below(&s, (uint32_t)(frames - F + 1));
        float *mel = mel_all + (size_t)i * frames * M; // (frames, mels)
        for (int t = 0; t < frames; t++) {
            const float *noise = st->noise_mel[f] + (size_t)((o + t) % nf) * M;
            const float *clip = st->mel_row[r] >= 0 && t >= k && t - k < F
                                    ? st->mel + ((size_t)st->mel_row[r] * speech_stored_frames(st) + SPEECH_SHIFT_FRAMES + t - k) * M
                                    : NULL;
            for (int m = 0; m < M; m++) mel[t * M + m] = v2 * noise[m] + (clip ? clip[m] : 0.0f);
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
        if (mfcc_mel_power(&st->plan, y, (long)n_out, mfcc_frame_start(st->plan.frontend, MFCC_HOP), frames, mel) != 0) {
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
    const int frames = speech_rate_frames(st->plan.frontend, percent), M = st->plan.mels;
    if (variant_alloc(ds, frames, v, err, errlen) != 0) return -1;
    char **why = calloc((size_t)(ds->n ? ds->n : 1), sizeof *why);
    float *mel_all = malloc((size_t)(ds->n ? ds->n : 1) * frames * M * sizeof(float));
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
        float *mel = mel_all + (size_t)i * frames * M; // (frames, mels)
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
                for (int m = 0; m < M; m++)
                    mel[t * M + m] = v2 * st->noise_mel[f][(size_t)((o + t) % nf) * M + m];
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

// One second of audio x (SPEECH_CLIP_SAMPLES) framed at hop `hop`, scaled by gain: mel power
// (frames, mels) into mel. 0, or -1 when FFTW cannot allocate its buffers.
static int hop_mel(const speech_store *st, const float *x, int hop, int frames, float gain, float *mel) {
    if (mfcc_mel_power_hop(&st->plan, x, SPEECH_CLIP_SAMPLES, mfcc_frame_start(st->plan.frontend, hop), hop, frames, mel) != 0) return -1;
    if (gain != 1.0f)
        for (size_t j = 0; j < (size_t)frames * st->plan.mels; j++) mel[j] *= gain;
    return 0;
}

int speech_variant_hop(const dataset *ds, int percent, speech_variant *v, char *err, size_t errlen) {
    const speech_store *st = ds->audio;
    if (!st || percent < 1) die_fail("internal: speech_variant_hop on %s (%d%%)", ds->name, percent);
    const int hop = speech_hop_samples(percent), frames = speech_hop_frames(st->plan.frontend, percent), M = st->plan.mels;
    if (frames < 1) {
        dataset_set_err(err, errlen, "eval.speech_rates=%d with eval.speech_rate_mode hop: a hop of %d samples leaves no frame in 1 s "
                        "(valid: a smaller percent)", percent, hop);
        return -1;
    }
    if (variant_alloc(ds, frames, v, err, errlen) != 0) return -1;
    v->frame_seconds = (float)hop / MFCC_SAMPLE_RATE;
    // The noise files' samples, for the _silence_ rows' cuts.
    float **noise = calloc((size_t)st->n_noise, sizeof *noise);
    long *noise_n = calloc((size_t)st->n_noise, sizeof *noise_n);
    char **why = calloc((size_t)(ds->n ? ds->n : 1), sizeof *why);
    float *mel_all = malloc((size_t)(ds->n ? ds->n : 1) * frames * M * sizeof(float));
    int rc = noise && noise_n && why && mel_all ? 0 : -1;
    if (rc != 0) dataset_set_err(err, errlen, "%s: out of memory for a %d%% hop evaluation variant", ds->source, percent);
    for (int f = 0; rc == 0 && f < st->n_noise; f++) {
        int needed = 0;
        for (int i = 0; i < ds->n && !needed; i++) needed = st->mel_row[ds->clips[i]] < 0 && st->cut_file[ds->clips[i]] == f;
        if (!needed) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/" SPEECH_NOISE_DIR "/%s", st->dir, st->noise_name[f]);
        rc = wav_read_mono16k(path, &noise[f], &noise_n[f], err, errlen);
    }
#pragma omp parallel for schedule(dynamic, 8)
    for (int i = 0; i < (rc == 0 ? ds->n : 0); i++) {
        const int r = ds->clips[i];
        v->labels[i] = st->label[r];
        float *mel = mel_all + (size_t)i * frames * M; // (frames, mels)
        char msg[1600] = "";
        float clip[SPEECH_CLIP_SAMPLES];
        memset(clip, 0, sizeof clip);
        float gain = 1.0f;
        if (st->mel_row[r] >= 0) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", st->dir, st->file[r]);
            float *x = NULL;
            long n = 0;
            if (wav_read_mono16k(path, &x, &n, msg, sizeof msg) != 0) {
                why[i] = strdup(msg);
                continue;
            }
            if (n > SPEECH_CLIP_SAMPLES) n = SPEECH_CLIP_SAMPLES; // as the loader: cut / zero-pad to 1 s
            memcpy(clip, x, (size_t)n * sizeof(float));
            free(x);
        } else { // _silence_: the samples of its evaluation cut
            const int f = st->cut_file[r];
            const long s0 = (long)MFCC_HOP * st->cut_offset[r];
            for (long j = 0; j < SPEECH_CLIP_SAMPLES; j++) clip[j] = s0 + j < noise_n[f] ? noise[f][s0 + j] : 0.0f;
            gain = st->cut_volume[r] * st->cut_volume[r];
        }
        if (hop_mel(st, clip, hop, frames, gain, mel) != 0) {
            snprintf(msg, sizeof msg, "%s: out of memory for FFT buffers", ds->source);
            why[i] = strdup(msg);
            continue;
        }
        finish_row(st, v, i, mel);
    }
    int bad = -1;
    for (int i = 0; rc == 0 && i < ds->n && bad < 0; i++)
        if (why[i]) bad = i;
    if (bad >= 0) dataset_set_err(err, errlen, "%s", why[bad]);
    for (int i = 0; why && i < ds->n; i++) free(why[i]);
    for (int f = 0; noise && f < st->n_noise; f++) free(noise[f]);
    free(why), free(noise), free(noise_n), free(mel_all);
    if (rc != 0 || bad >= 0) {
        speech_variant_free(v);
        return -1;
    }
    return 0;
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
