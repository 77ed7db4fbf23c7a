// datasets/speech/mfcc.c — the MFCC definitions of mfcc.h (front ends posbench and tc_resnet):
// Hann window, FFTW real FFT, HTK mel filterbank (triangles in Hz or in mel), log, DCT-II.
// Filterbank and DCT are written once here; the numpy script tests/speech_reference.py is the
// independent check.
#include "mfcc.h"
#include "../file_read.h"
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double hz_to_mel(double f) { return 2595.0 * log10(1.0 + f / 700.0); }
static double mel_to_hz(double m) { return 700.0 * (pow(10.0, m / 2595.0) - 1.0); }

int mfcc_frontend_parse(const char *name) {
    if (name && !strcmp(name, "posbench")) return MFCC_POSBENCH;
    if (name && !strcmp(name, "tc_resnet")) return MFCC_TC_RESNET;
    return -1;
}

const char *mfcc_frontend_name(mfcc_frontend f) { return f == MFCC_TC_RESNET ? "tc_resnet" : "posbench"; }

int mfcc_plan_make(mfcc_plan *p, char *err, size_t errlen) { return mfcc_plan_make_frontend(p, MFCC_POSBENCH, err, errlen); }

int mfcc_plan_make_frontend(mfcc_plan *p, mfcc_frontend f, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    if (f != MFCC_POSBENCH && f != MFCC_TC_RESNET) {
        dataset_set_err(err, errlen, "MFCC: unknown front end %d (valid: " MFCC_FRONTENDS ")", (int)f);
        return -1;
    }
    const int tc = f == MFCC_TC_RESNET, M = tc ? 64 : 40;
    p->frontend = f, p->mels = M, p->fmin = tc ? 80.0 : 20.0, p->fmax = tc ? 7600.0 : 8000.0;
    for (int i = 0; i < MFCC_WINDOW; i++) p->window[i] = 0.5 - 0.5 * cos(2.0 * M_PI * i / MFCC_WINDOW);
    p->weights = calloc((size_t)M * MFCC_BINS, sizeof *p->weights);
    if (!p->weights) {
        dataset_set_err(err, errlen, "MFCC: out of memory for the mel filterbank");
        return -1;
    }
    double edges[MFCC_MAX_MELS + 2], edges_mel[MFCC_MAX_MELS + 2];
    double lo = hz_to_mel(p->fmin), hi = hz_to_mel(p->fmax);
    for (int e = 0; e < M + 2; e++) {
        edges_mel[e] = lo + (hi - lo) * e / (M + 1);
        edges[e] = mel_to_hz(edges_mel[e]);
    }
    for (int m = 0; m < M; m++) {
        // posbench: triangles in Hz; tc_resnet: triangles in mel, DC bin excluded (TensorFlow)
        double l = tc ? edges_mel[m] : edges[m], c = tc ? edges_mel[m + 1] : edges[m + 1], r = tc ? edges_mel[m + 2] : edges[m + 2];
        p->first[m] = -1;
        for (int k = tc ? 1 : 0; k < MFCC_BINS; k++) {
            double hz = (double)MFCC_SAMPLE_RATE * k / MFCC_FFT, f = tc ? hz_to_mel(hz) : hz;
            double w = fmin((f - l) / (c - l), (r - f) / (r - c));
            if (w <= 0.0) continue;
            p->weights[(size_t)m * MFCC_BINS + k] = w;
            if (p->first[m] < 0) p->first[m] = k;
            p->count[m] = k - p->first[m] + 1;
        }
        if (p->first[m] < 0) { // cannot happen with these edges and 512 points; guards edits
            dataset_set_err(err, errlen, "MFCC: mel filter %d (%.1f..%.1f Hz) covers no FFT bin", m, l, r);
            free(p->weights);
            p->weights = NULL;
            return -1;
        }
    }
    for (int j = 0; j < MFCC_COEFFS; j++) {
        double s = sqrt((j == 0 && !tc ? 1.0 : 2.0) / M); // tc_resnet: TensorFlow's sqrt(2/M) for every j
        for (int m = 0; m < M; m++) p->dct[j][m] = s * cos(M_PI * j * (m + 0.5) / M);
    }
    double *in = fftw_malloc(MFCC_FFT * sizeof *in);
    fftw_complex *out = fftw_malloc(MFCC_BINS * sizeof *out);
    if (in && out) p->plan = fftw_plan_dft_r2c_1d(MFCC_FFT, in, out, FFTW_ESTIMATE);
    fftw_free(in);
    fftw_free(out);
    if (!p->plan) {
        dataset_set_err(err, errlen, "MFCC: FFTW could not plan a %d-point real FFT", MFCC_FFT);
        free(p->weights);
        p->weights = NULL;
        return -1;
    }
    return 0;
}

void mfcc_plan_free(mfcc_plan *p) {
    if (p->plan) fftw_destroy_plan((fftw_plan)p->plan);
    free(p->weights);
    memset(p, 0, sizeof *p);
}

int mfcc_frames(mfcc_frontend f, long n, int hop) {
    if (hop < 1 || n <= 0) return 0;
    if (f == MFCC_TC_RESNET) return n >= MFCC_WINDOW ? (int)(1 + (n - MFCC_WINDOW) / hop) : 0;
    return (int)(n / hop);
}

int mfcc_clip_frames(mfcc_frontend f) { return mfcc_frames(f, MFCC_SAMPLE_RATE, MFCC_HOP); }

long mfcc_frame_start(mfcc_frontend f, int hop) { return f == MFCC_TC_RESNET ? 0 : (long)(hop / 2) - MFCC_WINDOW / 2; }

int mfcc_frame_count(long n) { return mfcc_frames(MFCC_POSBENCH, n, MFCC_HOP); }

int mfcc_mel_power(const mfcc_plan *p, const float *x, long n, long start, int T, float *out) {
    return mfcc_mel_power_hop(p, x, n, start, MFCC_HOP, T, out);
}

int mfcc_mel_power_hop(const mfcc_plan *p, const float *x, long n, long start, int hop, int T, float *out) {
    // fftw_malloc gives the alignment the plan was made for, so new-array execution is valid.
    double *in = fftw_malloc(MFCC_FFT * sizeof *in);
    fftw_complex *spec = fftw_malloc(MFCC_BINS * sizeof *spec);
    if (!in || !spec) {
        fftw_free(in);
        fftw_free(spec);
        return -1;
    }
    double power[MFCC_BINS];
    for (int t = 0; t < T; t++) {
        long s0 = start + (long)hop * t;
        for (int i = 0; i < MFCC_WINDOW; i++) {
            long s = s0 + i;
            in[i] = s >= 0 && s < n ? p->window[i] * (double)x[s] : 0.0;
        }
        for (int i = MFCC_WINDOW; i < MFCC_FFT; i++) in[i] = 0.0;
        fftw_execute_dft_r2c((fftw_plan)p->plan, in, spec);
        for (int k = 0; k < MFCC_BINS; k++) power[k] = spec[k][0] * spec[k][0] + spec[k][1] * spec[k][1];
        float *o = out + (size_t)t * p->mels; // (mels)
        for (int m = 0; m < p->mels; m++) {
            const double *w = p->weights + (size_t)m * MFCC_BINS;
            double e = 0.0;
            for (int k = p->first[m]; k < p->first[m] + p->count[m]; k++) e += w[k] * power[k];
            o[m] = (float)e;
        }
    }
    fftw_free(in);
    fftw_free(spec);
    return 0;
}

void mfcc_from_mel_power(const mfcc_plan *p, const float *mel, int T, float *out) {
    for (int t = 0; t < T; t++) {
        double logmel[MFCC_MAX_MELS];
        for (int m = 0; m < p->mels; m++) logmel[m] = log((double)mel[(size_t)t * p->mels + m] + MFCC_LOG_FLOOR);
        for (int j = 0; j < MFCC_COEFFS; j++) {
            double c = 0.0;
            for (int m = 0; m < p->mels; m++) c += p->dct[j][m] * logmel[m];
            out[(size_t)t * MFCC_COEFFS + j] = (float)c;
        }
    }
}

int mfcc_compute(const mfcc_plan *p, const float *x, long n, float *out) {
    int T = mfcc_frames(p->frontend, n, MFCC_HOP);
    if (T == 0) return 0;
    float *mel = malloc((size_t)T * p->mels * sizeof *mel);
    if (!mel) return -1;
    if (mfcc_mel_power(p, x, n, mfcc_frame_start(p->frontend, MFCC_HOP), T, mel) != 0) {
        free(mel);
        return -1;
    }
    mfcc_from_mel_power(p, mel, T, out);
    free(mel);
    return T;
}
