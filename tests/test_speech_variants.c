// tests/test_speech_variants.c — the evaluation-time variants of a speech split
// (datasets/speech/variants.h: longer clips with the keyword at a random offset, time-stretched
// clips) on the synthesized smoke set (data/speech-commands-synth/smoke, or one written to /tmp).
// Checks: frame counts; with noise volume 0 every word row of a 2- and 4-second variant holds the
// plain evaluation batch's 100 frames bitwise at exactly one offset, the offsets spread; labels
// kept; deterministic (bitwise) and independent of the thread count; at rate 100% the features
// equal the plain batch's to 0.05 (standardised units: libsoxr at ratio 1 is not a plain copy);
// at 80% / 125% each word's energy centroid (frames weighted by log energy) moves to 100/P times
// its frame (±3 frames) for at least 90% of the word rows. The hop variant (CAPE §5.2.2: the
// STFT hop stretched, the audio kept): at 100% the word rows equal the plain batch bitwise; at
// 80% / 125% hops of 128 / 200 samples give 125 / 80 frames, frame_seconds 0.008 / 0.0125, and
// the energy centroid moves as with resampling. The tc_resnet front end (data.mfcc): 98 frames
// per clip, a 2-second duration variant of 198 frames holding the plain 98 frames at one offset,
// the hop variant at 100% equal to the plain batch, 123 frames at 80% by resampling.
#include "testing.h"
#include "../core/common.h"
#include "../datasets/dataset.h"
#include "../datasets/speech/speech_commands.h"
#include "../datasets/speech/variants.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dataset ds;
static float *plain; // (n, 100, 40) the plain evaluation batch
static char smoke_dir[600] = "data/speech-commands-synth/smoke";

static int load(void) {
    const char *dir = "data/speech-commands-synth/smoke";
    static char tmp[] = "/tmp/posbench-variants.XXXXXX", made[600];
    if (access("data/speech-commands-synth/smoke/speakers.tsv", F_OK) != 0) {
        if (!mkdtemp(tmp)) return -1;
        snprintf(made, sizeof made, "%s/synth", tmp);
        char cmd[800];
        snprintf(cmd, sizeof cmd, "build/posbench data speech-synth --scale smoke --out %s --quiet", made);
        if (system(cmd) != 0) return -1;
        dir = made;
    }
    snprintf(smoke_dir, sizeof smoke_dir, "%s", dir);
    char err[1024];
    if (dataset_load(&ds, "speech-commands", &(dataset_options){.path = dir}, "test", err, sizeof err) != 0) {
        test_fail("load the smoke set", "%s", err);
        return -1;
    }
    plain = xmalloc((size_t)ds.n * SPEECH_FRAMES * MFCC_COEFFS * sizeof(float), "plain");
    int32_t *labels = xmalloc((size_t)ds.n * sizeof(int32_t), "labels");
    int *idx = xmalloc((size_t)ds.n * sizeof(int), "idx");
    for (int i = 0; i < ds.n; i++) idx[i] = i;
    dataset_make_batch(&ds, idx, ds.n, NULL, 0, 0, 0, plain, labels);
    free(labels);
    free(idx);
    return 0;
}

static int is_word(int i) { return ds.audio->mel_row[ds.clips[i]] >= 0; }

static void test_durations(void) {
    const size_t row = SPEECH_FRAMES * MFCC_COEFFS;
    for (int seconds = 2; seconds <= 4; seconds += 2) {
        speech_variant v;
        char err[1600];
        if (speech_variant_duration(&ds, seconds, 0.0f, &v, err, sizeof err) != 0) {
            test_fail("duration variant", "%s", err);
            return;
        }
        int words = 0, found = 0, labels_ok = 1, spread[4] = {0};
        for (int i = 0; i < ds.n; i++) {
            labels_ok &= v.labels[i] == ds.labels[i];
            if (!is_word(i)) continue;
            words++;
            int matches = 0, at = -1;
            for (int k = 0; k + SPEECH_FRAMES <= v.frames; k++)
                if (!memcmp(v.features + ((size_t)i * v.frames + k) * MFCC_COEFFS, plain + (size_t)i * row, row * sizeof(float)))
                    matches++, at = k;
            if (matches == 1) found++, spread[at * 4 / (v.frames - SPEECH_FRAMES + 1)]++;
        }
        char name[160];
        snprintf(name, sizeof name, "duration %d s: %d frames, every word's 100 frames bitwise at one offset, labels kept",
                 seconds, v.frames);
        test_check(name, v.frames == 100 * seconds && found == words && words > 0 && labels_ok, "%d of %d word rows",
                   found, words);
        snprintf(name, sizeof name, "duration %d s: the keyword offsets spread over the clip (every quarter used)", seconds);
        test_check(name, spread[0] && spread[1] && spread[2] && spread[3], "quarters %d %d %d %d", spread[0], spread[1],
                   spread[2], spread[3]);
        speech_variant_free(&v);
    }
    speech_variant a, b;
    char err[1600];
    omp_set_num_threads(1);
    int rc = speech_variant_duration(&ds, 2, 0.1f, &a, err, sizeof err);
    omp_set_num_threads(2);
    rc |= speech_variant_duration(&ds, 2, 0.1f, &b, err, sizeof err);
    test_check("duration variant deterministic, 1 and 2 threads bitwise", rc == 0 && a.n == b.n &&
               !memcmp(a.features, b.features, (size_t)a.n * a.frames * MFCC_COEFFS * sizeof(float)), "%s", rc ? err : "");
    speech_variant_free(&a);
    speech_variant_free(&b);
}

// The energy centroid of features (frames, 40): frames weighted by c0 (log energy) above its
// minimum, so the silent frames weigh nothing.
static double loudest(const float *f, int frames) {
    double lo = f[0], sum = 0, wsum = 0;
    for (int t = 1; t < frames; t++) lo = fmin(lo, f[t * MFCC_COEFFS]);
    for (int t = 0; t < frames; t++) {
        double w = f[t * MFCC_COEFFS] - lo;
        sum += w * t, wsum += w;
    }
    return wsum > 0 ? sum / wsum : 0;
}

static void test_rates(void) {
    const size_t row = SPEECH_FRAMES * MFCC_COEFFS;
    speech_variant v;
    char err[1600];
    if (speech_variant_rate(&ds, 100, &v, err, sizeof err) != 0) {
        test_fail("rate variant", "%s", err);
        return;
    }
    double worst = 0;
    for (int i = 0; i < ds.n; i++)
        if (is_word(i))
            for (size_t j = 0; j < row; j++) worst = fmax(worst, fabs(v.features[i * row + j] - plain[i * row + j]));
    test_check("rate 100%: 100 frames equal to the plain batch", v.frames == 100 && worst < 0.05, "%d frames, max |diff| %.3g "
               "(tol 0.05)", v.frames, worst);
    speech_variant_free(&v);
    const int rates[2] = {80, 125}, want[2] = {125, 80};
    for (int q = 0; q < 2; q++) {
        if (speech_variant_rate(&ds, rates[q], &v, err, sizeof err) != 0) {
            test_fail("rate variant", "%s", err);
            return;
        }
        int words = 0, moved = 0, labels_ok = 1;
        for (int i = 0; i < ds.n; i++) {
            labels_ok &= v.labels[i] == ds.labels[i];
            if (!is_word(i)) continue;
            words++;
            double expect = loudest(plain + i * row, SPEECH_FRAMES) * 100.0 / rates[q];
            moved += fabs(loudest(v.features + (size_t)i * v.frames * MFCC_COEFFS, v.frames) - expect) <= 3.0;
        }
        char name[160];
        snprintf(name, sizeof name, "rate %d%%: %d frames, each word's energy centroid at 100/%d of its frame", rates[q], want[q],
                 rates[q]);
        test_check(name, v.frames == want[q] && labels_ok && words > 0 && moved >= 0.9 * words, "%d frames; %d of %d words",
                   v.frames, moved, words);
        speech_variant_free(&v);
    }
}

static void test_hops(void) {
    const size_t row = SPEECH_FRAMES * MFCC_COEFFS;
    speech_variant v;
    char err[1600];
    if (speech_variant_hop(&ds, 100, &v, err, sizeof err) != 0) {
        test_fail("hop variant", "%s", err);
        return;
    }
    int same = 1;
    for (int i = 0; i < ds.n; i++)
        if (is_word(i)) same &= !memcmp(v.features + i * row, plain + i * row, row * sizeof(float));
    test_check("hop 100%: 100 frames 10 ms apart, word rows bitwise the plain batch", v.frames == 100 && v.frame_seconds == 0.01f &&
               same, "%d frames, %g s", v.frames, v.frame_seconds);
    speech_variant_free(&v);
    const int rates[2] = {80, 125}, want[2] = {125, 80}, hops[2] = {128, 200};
    for (int q = 0; q < 2; q++) {
        if (speech_variant_hop(&ds, rates[q], &v, err, sizeof err) != 0) {
            test_fail("hop variant", "%s", err);
            return;
        }
        int words = 0, moved = 0, labels_ok = 1;
        for (int i = 0; i < ds.n; i++) {
            labels_ok &= v.labels[i] == ds.labels[i];
            if (!is_word(i)) continue;
            words++;
            double expect = loudest(plain + i * row, SPEECH_FRAMES) * 100.0 / rates[q];
            moved += fabs(loudest(v.features + (size_t)i * v.frames * MFCC_COEFFS, v.frames) - expect) <= 3.0;
        }
        char name[200];
        snprintf(name, sizeof name, "hop %d%%: hop %d samples, %d frames %g s apart, each word's energy centroid at 100/%d of its frame",
                 rates[q], hops[q], want[q], hops[q] / 16000.0, rates[q]);
        test_check(name, speech_hop_samples(rates[q]) == hops[q] && v.frames == want[q] && speech_hop_frames(MFCC_POSBENCH, rates[q]) == want[q] &&
                   fabsf(v.frame_seconds - hops[q] / 16000.0f) < 1e-9f && labels_ok && words > 0 && moved >= 0.9 * words,
                   "%d frames, %g s; %d of %d words", v.frames, v.frame_seconds, moved, words);
        speech_variant_free(&v);
    }
}

// The tc_resnet front end on the same set: its own store (98 frames per clip).
static void test_tc_resnet(void) {
    dataset tc;
    memset(&tc, 0, sizeof tc);
    char err[1600];
    int rc = dataset_load(&tc, "speech-commands", &(dataset_options){.path = smoke_dir, .mfcc_frontend = MFCC_TC_RESNET}, "test",
                          err, sizeof err);
    if (rc != 0) {
        test_fail("tc_resnet front end", "%s", err);
        return;
    }
    const int F = 98;
    const size_t row = (size_t)F * MFCC_COEFFS;
    float *b = xmalloc((size_t)tc.n * row * sizeof(float), "tc batch");
    int32_t *labels = xmalloc((size_t)tc.n * sizeof(int32_t), "labels");
    int *idx = xmalloc((size_t)tc.n * sizeof(int), "idx");
    for (int i = 0; i < tc.n; i++) idx[i] = i;
    dataset_make_batch(&tc, idx, tc.n, NULL, 0, 0, 0, b, labels);
    test_check("tc_resnet: 98 frames x 40 per clip, 64 mel bands, a store of its own", tc.height == F && tc.width == 40 &&
               tc.audio->frames == F && tc.audio->plan.mels == 64 && tc.audio != ds.audio && tc.n == ds.n,
               "height %d, width %d, mels %d", tc.height, tc.width, tc.audio->plan.mels);
    speech_variant v;
    int ok = speech_variant_duration(&tc, 2, 0.0f, &v, err, sizeof err) == 0, words = 0, found = 0;
    for (int i = 0; ok && i < tc.n; i++) {
        if (tc.audio->mel_row[tc.clips[i]] < 0) continue;
        words++;
        int matches = 0;
        for (int k = 0; k + F <= v.frames; k++)
            matches += !memcmp(v.features + ((size_t)i * v.frames + k) * MFCC_COEFFS, b + i * row, row * sizeof(float));
        found += matches == 1;
    }
    test_check("tc_resnet: a 2 s duration variant has 198 frames and holds each word's 98 frames at one offset",
               ok && v.frames == 198 && speech_duration_frames(MFCC_TC_RESNET, 2) == 198 && words > 0 && found == words,
               "%s%d frames, %d of %d words", ok ? "" : err, ok ? v.frames : 0, found, words);
    if (ok) speech_variant_free(&v);
    ok = speech_variant_hop(&tc, 100, &v, err, sizeof err) == 0;
    int same = ok;
    for (int i = 0; ok && i < tc.n; i++)
        if (tc.audio->mel_row[tc.clips[i]] >= 0) same &= !memcmp(v.features + i * row, b + i * row, row * sizeof(float));
    test_check("tc_resnet: the hop variant at 100% is the plain batch; 80% by resampling is 123 frames, by the hop 122",
               ok && same && v.frames == F && speech_rate_frames(MFCC_TC_RESNET, 80) == 123 && speech_hop_frames(MFCC_TC_RESNET, 80) == 122,
               "%s%d frames, rate80 %d, hop80 %d", ok ? "" : err, ok ? v.frames : 0, speech_rate_frames(MFCC_TC_RESNET, 80),
               speech_hop_frames(MFCC_TC_RESNET, 80));
    if (ok) speech_variant_free(&v);
    free(b), free(labels), free(idx);
    dataset_free(&tc);
}

int main(void) {
    omp_set_num_threads(2);
    if (load() != 0) {
        test_fail("speech variants", "no smoke set (data/speech-commands-synth/smoke, and synthesis failed)");
        return test_exit_code();
    }
    test_durations();
    test_rates();
    test_hops();
    test_tc_resnet();
    free(plain);
    dataset_free(&ds);
    return test_exit_code();
}
