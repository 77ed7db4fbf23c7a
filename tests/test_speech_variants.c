// tests/test_speech_variants.c — the evaluation-time variants of a speech split
// (datasets/speech/variants.h: longer clips with the keyword at a random offset, time-stretched
// clips) on the synthesized smoke set (data/speech-commands-synth/smoke, or one written to /tmp).
// Checks: frame counts; with noise volume 0 every word row of a 2- and 4-second variant holds the
// plain evaluation batch's 100 frames bitwise at exactly one offset, the offsets spread; labels
// kept; deterministic (bitwise) and independent of the thread count; at rate 100% the features
// equal the plain batch's to 0.05 (standardised units: libsoxr at ratio 1 is not a plain copy);
// at 80% / 125% each word's energy centroid (frames weighted by log energy) moves to 100/P times
// its frame (±3 frames) for at least 90% of the word rows.
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
    char err[1024];
    if (dataset_load(&ds, "speech-commands", dir, "test", err, sizeof err) != 0) {
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

int main(void) {
    omp_set_num_threads(2);
    if (load() != 0) {
        test_fail("speech variants", "no smoke set (data/speech-commands-synth/smoke, and synthesis failed)");
        return test_exit_code();
    }
    test_durations();
    test_rates();
    free(plain);
    dataset_free(&ds);
    return test_exit_code();
}
