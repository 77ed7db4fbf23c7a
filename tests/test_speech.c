// tests/test_speech.c — the speech data layer: SHA-1 and the recipe's speaker-hash split
// (against hashlib), MFCC against the independent numpy reference (tests/speech_reference.py),
// WAV reading and every malformed-file error, the Speech Commands loader on a generated layout
// (classes, _unknown_/_silence_ counts, the split by speaker, list files, stability, errors),
// batches (equal to the direct MFCC, shift augmentation, determinism, thread independence,
// standardisation), the synthesized set read back by the loader, and the training-cost
// estimate of a speech run (posbench run's budget line).
#include "testing.h"
#include "../bench/config/config.h"
#include "../bench/run/estimate.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../datasets/dataset.h"
#include "../datasets/speech/mfcc.h"
#include "../datasets/speech/speech_commands.h"
#include "../datasets/speech/split_hash.h"
#include "../datasets/speech/synth.h"
#include "../datasets/speech/wav.h"
#include <ftw.h>
#include <math.h>
#include <omp.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PY "/usr/bin/python3"
static char root[256];

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}
static int have_numpy(void) { return system(PY " -c 'import numpy' >/dev/null 2>&1") == 0; }

// ---------------------------------------------------------------- hashing

static void test_sha1(void) {
    struct { const char *in, *hex; } v[] = {
        {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[20];
        char hex[41];
        sha1_digest(v[i].in, strlen(v[i].in), d);
        for (int k = 0; k < 20; k++) sprintf(hex + 2 * k, "%02x", d[k]);
        if (strcmp(hex, v[i].hex)) ok = 0, printf("# sha1('%s') = %s, want %s\n", v[i].in, hex, v[i].hex);
    }
    test_check("sha1_known_vectors", ok, "FIPS 180 vectors (0, 3, 56 bytes)");
    char name[64];
    speech_hash_name("yes/0a7c2a8d_nohash_3.wav", name, sizeof name);
    test_check("speech_hash_name", !strcmp(name, "0a7c2a8d"), "got '%s'", name);
}

static void test_which_set_vs_python(void) {
    if (system(PY " -c 'import hashlib' >/dev/null 2>&1") != 0) {
        test_skip("which_set_matches_recipe", "%s not available", PY);
        return;
    }
    enum { N = 300 };
    char cmd[N * 40 + 128], names[N][32];
    int len = snprintf(cmd, sizeof cmd, PY " tests/speech_reference.py which_set");
    rng_stream s = rng_stream_make(1, RNG_TEST, 0, 0, 0);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "w%d/%08x_nohash_%d.wav", i % 7, rng_u32(&s), i % 3);
        len += snprintf(cmd + len, sizeof cmd - len, " %s", names[i]);
    }
    FILE *p = popen(cmd, "r");
    int agree = 0, counts[3] = {0};
    char line[64];
    for (int i = 0; p && i < N && fgets(line, sizeof line, p); i++) {
        speech_split mine = speech_which_set(names[i], 10.0, 10.0);
        const char *want = mine == SPEECH_TRAIN ? "training\n" : mine == SPEECH_VALIDATION ? "validation\n" : "testing\n";
        agree += !strcmp(line, want);
        counts[mine]++;
    }
    if (p) pclose(p);
    test_check("which_set_matches_recipe", agree == N, "%d of %d names agree with hashlib's which_set (train %d, "
               "validation %d, test %d)", agree, N, counts[0], counts[1], counts[2]);
}

// ---------------------------------------------------------------- MFCC

// MFCCs of front end fe at hop `hop` against tests/speech_reference.py (numpy, float64): two
// signals, one of a whole number of hops and one not; the frame count the front end defines.
static void mfcc_case(const char *name, mfcc_frontend fe, int hop, const long lengths[2]) {
    mfcc_plan plan;
    char err[512];
    if (mfcc_plan_make_frontend(&plan, fe, err, sizeof err) != 0) {
        test_fail(name, "%s", err);
        return;
    }
    double worst = 0.0, scale = 0.0;
    int ok = 1, frames[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        long n = lengths[c];
        float *x = xmalloc((size_t)n * sizeof *x, "test signal");
        rng_stream s = rng_stream_make(2, RNG_TEST, 0, 0, (uint32_t)c);
        for (long i = 0; i < n; i++) { // a chirp, a tone burst and noise
            double t = (double)i / 16000;
            x[i] = (float)(0.4 * sin(2 * M_PI * (100 + 1500 * t) * t) + (t > 0.5 && t < 0.8 ? 0.3 * sin(2 * M_PI * 440 * t) : 0) +
                           0.01 * rng_normal(&s));
        }
        if (c == 0) for (long i = 3000; i < 4000; i++) x[i] = 0.0f; // a silent stretch: the log floor
        int T = mfcc_frames(fe, n, hop);
        long want = fe == MFCC_TC_RESNET ? 1 + (n - 480) / hop : n / hop; // mfcc.h's definition
        frames[c] = T;
        float *mine = xmalloc((size_t)T * MFCC_COEFFS * sizeof *mine, "test mfcc");
        float *mel = xmalloc((size_t)T * plan.mels * sizeof *mel, "test mel");
        double *ref = xmalloc((size_t)T * MFCC_COEFFS * sizeof *ref, "test mfcc ref");
        char in[300], out[300], cmd[800];
        snprintf(in, sizeof in, "%s/signal.f32", root);
        snprintf(out, sizeof out, "%s/mfcc.f64", root);
        FILE *f = fopen(in, "wb");
        if (!f) die_fail("test: cannot write %s", in);
        fwrite(x, sizeof *x, (size_t)n, f);
        fclose(f);
        snprintf(cmd, sizeof cmd, PY " tests/speech_reference.py %s %s %s %d", fe == MFCC_TC_RESNET ? "mfcc_tc_resnet" : "mfcc", in, out, hop);
        int got = T;
        if (hop == MFCC_HOP) got = mfcc_compute(&plan, x, n, mine);
        else if (mfcc_mel_power_hop(&plan, x, n, mfcc_frame_start(fe, hop), hop, T, mel) == 0) mfcc_from_mel_power(&plan, mel, T, mine);
        else got = -1;
        f = system(cmd) == 0 ? fopen(out, "rb") : NULL;
        size_t read = f ? fread(ref, sizeof *ref, (size_t)T * MFCC_COEFFS, f) : 0;
        if (f) fclose(f);
        if (got != T || read != (size_t)T * MFCC_COEFFS || T != want) {
            ok = 0;
            printf("# %s: frames %d (want %ld), reference values %zu\n", name, got, want, read);
        }
        for (size_t i = 0; i < read; i++) {
            double d = fabs(mine[i] - ref[i]);
            if (!(d <= worst)) worst = d;
            if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
        }
        free(x);
        free(mine);
        free(mel);
        free(ref);
    }
    mfcc_plan_free(&plan);
    test_check(name, ok && worst < 1e-3, "%s, hop %d: max abs error %.3g over %d + %d frames x 40 (values up to %.1f; bound 1e-3)",
               mfcc_frontend_name(fe), hop, worst, frames[0], frames[1], scale);
}

static void test_mfcc_vs_numpy(void) {
    if (!have_numpy()) {
        test_skip("mfcc_matches_numpy", "%s with numpy not available", PY);
        return;
    }
    const long lengths[2] = {24000, 16123}; // 150 frames; a length that is not whole frames
    mfcc_case("mfcc_matches_numpy", MFCC_POSBENCH, MFCC_HOP, lengths);
    mfcc_case("mfcc_tc_resnet_matches_numpy", MFCC_TC_RESNET, MFCC_HOP, lengths);
    mfcc_case("mfcc_hop128_matches_numpy", MFCC_POSBENCH, 128, lengths);
    mfcc_case("mfcc_tc_resnet_hop200_matches_numpy", MFCC_TC_RESNET, 200, lengths);
    test_check("mfcc_frames_per_clip", mfcc_clip_frames(MFCC_POSBENCH) == 100 && mfcc_clip_frames(MFCC_TC_RESNET) == 98 &&
               mfcc_frames(MFCC_POSBENCH, 16000, 128) == 125 && mfcc_frames(MFCC_POSBENCH, 16000, 200) == 80,
               "1 s: posbench %d, tc_resnet %d frames; posbench at hop 128: %d, at hop 200: %d", mfcc_clip_frames(MFCC_POSBENCH),
               mfcc_clip_frames(MFCC_TC_RESNET), mfcc_frames(MFCC_POSBENCH, 16000, 128), mfcc_frames(MFCC_POSBENCH, 16000, 200));
}

// ---------------------------------------------------------------- WAV files

static void write_sf(const char *path, int rate, int channels, int format, long frames) {
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) die_fail("test: cannot write %s: %s", path, sf_strerror(NULL));
    short *pcm = xcalloc((size_t)(frames * channels + 1), sizeof *pcm, "test pcm");
    for (long i = 0; i < frames * channels; i++) pcm[i] = (short)(1000 * sin(i * 0.1));
    sf_write_short(f, pcm, frames * channels);
    sf_close(f);
    free(pcm);
}

static void expect_wav_error(const char *name, const char *path, const char *words) {
    float *x = NULL;
    long n = 0;
    char err[1024] = "";
    int rc = wav_read_mono16k(path, &x, &n, err, sizeof err);
    free(x);
    test_check(name, rc == -1 && strstr(err, path) && strstr(err, words) && x == NULL ? 1 : 0, "%s", err);
}

static void test_wav(void) {
    char path[300];
    snprintf(path, sizeof path, "%s/ok.wav", root);
    float w[1000];
    for (int i = 0; i < 1000; i++) w[i] = 0.9f * sinf(i * 0.05f);
    w[10] = 2.0f, w[11] = -2.0f; // clipped on write
    char err[1024];
    float *x = NULL;
    long n = 0;
    int rc = wav_write_mono16k(path, w, 1000, err, sizeof err);
    if (rc == 0) rc = wav_read_mono16k(path, &x, &n, err, sizeof err);
    double worst = 0;
    for (long i = 0; rc == 0 && i < n; i++) {
        float want = w[i] > 1 ? 1 : w[i] < -1 ? -1 : w[i];
        worst = fmax(worst, fabs(x[i] - want));
    }
    test_check("wav_roundtrip", rc == 0 && n == 1000 && worst < 1.0 / 16384, "%ld samples, max error %.3g (%s)", n,
               worst, rc ? err : "ok");
    free(x);
    snprintf(path, sizeof path, "%s/missing.wav", root);
    expect_wav_error("wav_error_missing", path, "cannot read as audio");
    snprintf(path, sizeof path, "%s/text.wav", root);
    FILE *f = fopen(path, "w");
    fputs("this is not a sound file at all, just text\n", f);
    fclose(f);
    expect_wav_error("wav_error_not_audio", path, "cannot read as audio");
    snprintf(path, sizeof path, "%s/r8k.wav", root);
    write_sf(path, 8000, 1, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 800);
    expect_wav_error("wav_error_rate", path, "sample rate 8000 Hz (must be 16000 Hz)");
    snprintf(path, sizeof path, "%s/stereo.wav", root);
    write_sf(path, 16000, 2, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 800);
    expect_wav_error("wav_error_channels", path, "channels 2 (must be 1");
    snprintf(path, sizeof path, "%s/empty.wav", root);
    write_sf(path, 16000, 1, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 0);
    expect_wav_error("wav_error_empty", path, "no samples");
    // A WAV cut inside its header (the first 20 of 44 header bytes).
    char full[300];
    snprintf(full, sizeof full, "%s/full.wav", root);
    write_sf(full, 16000, 1, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 800);
    snprintf(path, sizeof path, "%s/cut.wav", root);
    FILE *in = fopen(full, "rb"), *out = fopen(path, "wb");
    char buf[20];
    fwrite(buf, 1, fread(buf, 1, sizeof buf, in), out);
    fclose(in);
    fclose(out);
    expect_wav_error("wav_error_truncated_header", path, "cannot read as audio");
    // Data cut short: libsndfile would read what is there; the declared size beyond the file is
    // an error naming it (issue 29).
    snprintf(path, sizeof path, "%s/short.wav", root);
    in = fopen(full, "rb"), out = fopen(path, "wb");
    char big[44 + 400];
    fwrite(big, 1, fread(big, 1, sizeof big, in), out);
    fclose(in);
    fclose(out);
    x = NULL;
    expect_wav_error("wav_truncated_data_refused", path, "the data chunk at byte offset 36 declares 1600 bytes, but the file ends after 400");
    // 8-bit and float WAVs: not the 16-bit PCM docs/speech.md promises (issue 29).
    snprintf(path, sizeof path, "%s/u8.wav", root);
    write_sf(path, 16000, 1, SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 800);
    expect_wav_error("wav_error_8bit", path, "encoding 8-bit PCM (must be 16-bit PCM WAV)");
    snprintf(path, sizeof path, "%s/float.wav", root);
    write_sf(path, 16000, 1, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 800);
    expect_wav_error("wav_error_float", path, "encoding 32-bit float (must be 16-bit PCM WAV)");
    free(x);
}

// ---------------------------------------------------------------- a generated layout

static const char *const WORDS[] = {"yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "bed", "cat"};
#define N_WORDS 12
#define N_SPK 30

static void speaker_id(int s, char *out) { snprintf(out, 9, "%08x", 0x1234567u * (unsigned)(s + 1) + 0x9e3779b9u); }

// One tone clip per (speaker, word): a pitch per word, an amplitude per speaker, `samples` long.
static void write_clip(const char *dir, int w, int s, int k, long samples, int rate) {
    char path[600], id[9];
    speaker_id(s, id);
    snprintf(path, sizeof path, "%s/%s", dir, WORDS[w]);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s_nohash_%d.wav", dir, WORDS[w], id, k);
    float *x = xmalloc((size_t)samples * sizeof *x, "test clip");
    for (long i = 0; i < samples; i++)
        x[i] = (i > 3000 && i < 11000) ? (0.1f + 0.02f * (s % 5)) * sinf(2 * (float)M_PI * (200 + 150 * w) * i / 16000) : 0;
    if (rate == 16000) {
        char err[512];
        if (wav_write_mono16k(path, x, samples, err, sizeof err) != 0) die_fail("%s", err);
    } else {
        write_sf(path, rate, 1, SF_FORMAT_WAV | SF_FORMAT_PCM_16, samples);
    }
    free(x);
}

static void make_layout(const char *dir) {
    mkdir(dir, 0777);
    for (int s = 0; s < N_SPK; s++)
        for (int w = 0; w < N_WORDS; w++) write_clip(dir, w, s, 0, s % 4 == 0 ? 12000 : 16000, 16000); // some short
    write_clip(dir, 0, 3, 1, 17000, 16000); // a second take, longer than 1 s
    char path[600];
    snprintf(path, sizeof path, "%s/_background_noise_", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/_background_noise_/white.wav", dir);
    long n = 3 * 16000;
    float *x = xmalloc((size_t)n * sizeof *x, "test noise");
    rng_stream rs = rng_stream_make(3, RNG_TEST, 0, 0, 0);
    for (long i = 0; i < n; i++) x[i] = 0.2f * rng_normal(&rs);
    char err[512];
    if (wav_write_mono16k(path, x, n, err, sizeof err) != 0) die_fail("%s", err);
    free(x);
}

static int load(dataset *ds, const char *dir, const char *split, char *err, size_t len) {
    return dataset_load(ds, "speech-commands", &(dataset_options){.path = dir}, split, err, len);
}

static void test_loader(void) {
    char dir[300], err[2048];
    snprintf(dir, sizeof dir, "%s/sc", root);
    make_layout(dir);
    dataset tr, va, te;
    if (load(&tr, dir, "train", err, sizeof err) || load(&va, dir, "validation", err, sizeof err) ||
        load(&te, dir, "test", err, sizeof err)) {
        test_fail("speech_loader", "%s", err);
        return;
    }
    const speech_store *st = tr.audio;
    test_check("speech_store_shared", st && va.audio == st && te.audio == st && st->refs == 3,
               "one store for the three splits (refs %d)", st ? st->refs : -1);
    test_check("speech_shape", tr.channels == 1 && tr.height == 100 && tr.width == 40 && tr.num_classes == 12 &&
               !tr.pixels, "%d x %d x %d, %d classes", tr.channels, tr.height, tr.width, tr.num_classes);
    // Split by speaker, equal to the hash; counts of _unknown_ and _silence_.
    int ok_hash = 1, ok_counts = 1, spk_split[N_SPK];
    for (int s = 0; s < N_SPK; s++) spk_split[s] = -1;
    dataset *sets[3] = {&tr, &va, &te};
    int total_wanted = 0;
    for (int k = 0; k < 3; k++) {
        int wanted = 0, unknown = 0, silence = 0;
        for (int i = 0; i < sets[k]->n; i++) {
            int r = sets[k]->clips[i], label = sets[k]->labels[i];
            if (label != st->label[r] || st->split[r] != k) ok_hash = 0;
            if (label == 0) { silence++; continue; }
            label == 1 ? unknown++ : wanted++;
            if ((int)speech_which_set(st->file[r], 10, 10) != k) ok_hash = 0;
            const char *base = strchr(st->file[r], '/') + 1;
            for (int s = 0; s < N_SPK; s++) {
                char id[9];
                speaker_id(s, id);
                if (!strncmp(base, id, 8)) {
                    if (spk_split[s] >= 0 && spk_split[s] != k) ok_hash = 0;
                    spk_split[s] = k;
                }
            }
        }
        int want_extra = (wanted + 9) / 10;
        if (silence != want_extra || unknown != want_extra) ok_counts = 0;
        printf("# %s: %d word clips, %d unknown, %d silence\n", k == 0 ? "train" : k == 1 ? "validation" : "test",
               wanted, unknown, silence);
        total_wanted += wanted;
    }
    test_check("speech_split_by_speaker_hash", ok_hash && !st->used_lists && tr.n > 0 && va.n > 0 && te.n > 0,
               "every clip in its speaker's which_set split; splits %d / %d / %d rows", tr.n, va.n, te.n);
    test_check("speech_unknown_silence_counts", ok_counts && total_wanted == N_SPK * 10 + 1,
               "ceil(W/10) _unknown_ and _silence_ rows per split (W = %d in all)", total_wanted);

    // Batches without augmentation equal the direct MFCC of the clip, standardised.
    mfcc_plan plan;
    mfcc_plan_make(&plan, err, sizeof err);
    int idx[8], B = 0;
    for (int i = 0; i < tr.n && B < 8; i++)
        if (tr.labels[i] >= 1) idx[B++] = i;
    float *batch = xmalloc((size_t)8 * 100 * 40 * sizeof *batch, "test batch"), direct[100 * 40];
    int32_t labels[8];
    dataset_make_batch(&tr, idx, B, NULL, 7, 0, 0, batch, labels);
    double worst = 0.0;
    for (int b = 0; b < B; b++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, st->file[tr.clips[idx[b]]]);
        float *x;
        long n;
        wav_read_mono16k(path, &x, &n, err, sizeof err);
        mfcc_compute(&plan, x, n > 16000 ? 16000 : n, direct);
        int T = mfcc_frame_count(n > 16000 ? 16000 : n);
        for (int t = 0; t < 100; t++)
            for (int j = 0; j < 40; j++) {
                // frames past a short clip's end are all zero: the log floor
                double c = t < T ? direct[t * 40 + j] : (j == 0 ? log(1e-6) * sqrt(40.0) : 0.0);
                worst = fmax(worst, fabs(batch[(b * 100 + t) * 40 + j] - (c - st->mean[j]) / st->std[j]));
            }
        free(x);
    }
    test_check("speech_batch_equals_direct_mfcc", B == 8 && worst < 1e-4, "max abs difference %.3g over %d clips",
               worst, B);

    // Standardisation: the training word clips have mean 0, std 1 per coefficient.
    int nw = 0;
    int *all = xmalloc((size_t)tr.n * sizeof *all, "test rows");
    for (int i = 0; i < tr.n; i++)
        if (tr.labels[i] >= 1) all[nw++] = i;
    float *big = xmalloc((size_t)nw * 4000 * sizeof *big, "test big batch");
    int32_t *bl = xmalloc((size_t)nw * sizeof *bl, "test labels");
    dataset_make_batch(&tr, all, nw, NULL, 0, 0, 0, big, bl);
    double mean_err = 0, std_err = 0;
    for (int j = 0; j < 40; j++) {
        double s1 = 0, s2 = 0;
        for (long i = 0; i < (long)nw * 100; i++) s1 += big[i * 40 + j], s2 += (double)big[i * 40 + j] * big[i * 40 + j];
        double m = s1 / (nw * 100.0), sd = sqrt(s2 / (nw * 100.0) - m * m);
        mean_err = fmax(mean_err, fabs(m));
        if (st->std[j] != 1.0) std_err = fmax(std_err, fabs(sd - 1));
    }
    test_check("speech_standardised", mean_err < 1e-3 && std_err < 1e-3, "train word clips: |mean| <= %.2g, |std - 1| "
               "<= %.2g", mean_err, std_err);

    // Augmentation: deterministic, thread-independent, a pure frame shift without noise.
    augment_config aug = {.time_shift_ms = 100, .background_frequency = 0.8f, .background_volume = 0.1f};
    float *a1 = xmalloc((size_t)nw * 4000 * sizeof *a1, "aug1"), *a2 = xmalloc((size_t)nw * 4000 * sizeof *a2, "aug2");
    omp_set_num_threads(1);
    dataset_make_batch(&tr, all, nw, &aug, 5, 2, 3, a1, bl);
    omp_set_num_threads(2);
    dataset_make_batch(&tr, all, nw, &aug, 5, 2, 3, a2, bl);
    int same = !memcmp(a1, a2, (size_t)nw * 4000 * sizeof *a1);
    dataset_make_batch(&tr, all, nw, &aug, 5, 2, 4, a2, bl);
    int differs = memcmp(a1, a2, (size_t)nw * 4000 * sizeof *a1) != 0;
    test_check("speech_augment_deterministic", same && differs, "same (seed, epoch, step) -> identical bytes on 1 and 2 "
               "threads; another step differs");
    augment_config shift_only = {.time_shift_ms = 100};
    dataset_make_batch(&tr, all, nw, &shift_only, 5, 0, 0, a1, bl);
    int matched = 0, nonzero = 0;
    float *padded = xmalloc(120 * 40 * sizeof *padded, "shift ref");
    for (int b = 0; b < nw; b++) {
        int found = 0;
        for (int s = -10; s <= 10 && !found; s++) {
            // row b shifted by s: clean row frames t - s, the log floor outside
            int ok = 1;
            for (int t = 0; t < 100 && ok; t++)
                for (int j = 0; j < 40 && ok; j++) {
                    int src = t - s;
                    double c = src >= 0 && src < 100 ? big[((size_t)b * 100 + src) * 40 + j]
                                                     : ((j == 0 ? log(1e-6) * sqrt(40.0) : 0.0) - st->mean[j]) / st->std[j];
                    ok = fabs(a1[((size_t)b * 100 + t) * 40 + j] - c) < 1e-4;
                }
            if (ok) found = 1, nonzero += s != 0;
        }
        matched += found;
    }
    free(padded);
    test_check("speech_time_shift_is_frame_shift", matched == nw && nonzero > nw / 2, "%d of %d rows are a shift of "
               "their clean row by -10..10 frames (%d nonzero)", matched, nw, nonzero);
    // Silence: fixed cuts in evaluation, fresh draws in training.
    int sil[2] = {-1, -1}, ns = 0;
    for (int i = 0; i < te.n && ns < 2; i++)
        if (te.labels[i] == 0) sil[ns++] = i;
    float s1[4000], s2[4000], s3[4000];
    int32_t l1;
    dataset_make_batch(&te, sil, 1, NULL, 1, 0, 0, s1, &l1);
    dataset_make_batch(&te, sil, 1, NULL, 2, 5, 5, s2, &l1);
    dataset_make_batch(&te, sil, 1, &aug, 2, 5, 5, s3, &l1);
    test_check("speech_silence_cuts", ns == 2 && !memcmp(s1, s2, sizeof s1) && memcmp(s1, s3, sizeof s1) && l1 == 0,
               "evaluation silence is a fixed noise cut; training draws a new one");
    free(a1);
    free(a2);
    free(big);
    free(bl);
    free(all);
    free(batch);
    mfcc_plan_free(&plan);

    // Subset keeps clips with their rows.
    int before = tr.clips[tr.n - 1];
    int32_t lab_before = tr.labels[tr.n - 1];
    dataset_labeled_subset(&tr, 0.5, 1);
    int ok_sub = tr.n > 0;
    for (int i = 0; i < tr.n; i++) ok_sub &= st->label[tr.clips[i]] == tr.labels[i];
    test_check("speech_subset_keeps_clip_rows", ok_sub, "labels and clips move together (last row %d label %d)", before,
               lab_before);
    dataset_free(&tr);
    dataset_free(&va);
    test_check("speech_store_refcount", te.audio && te.audio->refs == 1, "refs %d after two frees", te.audio ? te.audio->refs : -1);
    dataset_free(&te);

    // Stability: a new speaker's clips do not move anyone else's.
    int stable = 1;
    dataset a, b2;
    load(&a, dir, "test", err, sizeof err);
    int n_before = a.n;
    char **files = xmalloc((size_t)a.n * sizeof *files, "test files");
    for (int i = 0; i < a.n; i++) files[i] = xstrdup(a.audio->file[a.clips[i]], "test file");
    dataset_free(&a);
    for (int w = 0; w < N_WORDS; w++) write_clip(dir, w, N_SPK + 7, 0, 16000, 16000);
    if (load(&b2, dir, "test", err, sizeof err) == 0) {
        for (int i = 0; i < n_before; i++) {
            int found = files[i][0] == '\0';
            for (int k = 0; k < b2.n && !found; k++) found = !strcmp(files[i], b2.audio->file[b2.clips[k]]);
            stable &= found;
        }
        dataset_free(&b2);
    } else {
        stable = 0;
    }
    for (int i = 0; i < n_before; i++) free(files[i]);
    free(files);
    test_check("speech_split_stable", stable, "every test clip stays in test after a new speaker is added");

    // List files decide the split when present.
    char lp[400];
    snprintf(lp, sizeof lp, "%s/validation_list.txt", dir);
    char id0[9], id1[9];
    speaker_id(0, id0);
    speaker_id(1, id1);
    FILE *f = fopen(lp, "w");
    for (int w = 0; w < N_WORDS; w++) fprintf(f, "%s/%s_nohash_0.wav\r\n", WORDS[w], id0);
    fclose(f);
    dataset v;
    int rc = load(&v, dir, "validation", err, sizeof err);
    test_check("speech_error_one_list", rc == -1 && strstr(err, "testing_list.txt") && strstr(err, "validation_list.txt"),
               "%s", err);
    snprintf(lp, sizeof lp, "%s/testing_list.txt", dir);
    f = fopen(lp, "w");
    for (int w = 0; w < N_WORDS; w++) fprintf(f, "%s/%s_nohash_0.wav\n", WORDS[w], id1);
    fclose(f);
    rc = load(&v, dir, "validation", err, sizeof err);
    int lists_ok = rc == 0 && v.audio->used_lists;
    int words = 0;
    for (int i = 0; lists_ok && i < v.n; i++) {
        const char *fl = v.audio->file[v.clips[i]];
        if (!fl[0]) continue;
        words++;
        lists_ok &= strstr(fl, id0) != NULL;
    }
    // speaker 0's ten keyword clips and ceil(10 / 10) = 1 of its two unknown-word clips
    test_check("speech_split_from_lists", lists_ok && words == 11, "validation = %d listed clips of speaker %s, "
               "10 keywords + 1 unknown (%s)", words, id0, rc ? err : "ok");
    if (rc == 0) dataset_free(&v);
    f = fopen(lp, "a");
    fprintf(f, "\nyes/ffffffff_nohash_0.wav\n");
    fclose(f);
    rc = load(&v, dir, "test", err, sizeof err);
    test_check("speech_error_list_entry", rc == -1 && strstr(err, "testing_list.txt:14:1") && strstr(err, "ffffffff"),
               "%s", err);
    unlink(lp);
    snprintf(lp, sizeof lp, "%s/validation_list.txt", dir);
    unlink(lp);

    // Errors naming the file: a clip at 8 kHz, a stereo clip, a missing word, no noise folder.
    write_clip(dir, 2, 0, 5, 8000, 8000);
    char bad[400];
    snprintf(bad, sizeof bad, "%s/up/%s_nohash_5.wav", dir, id0);
    rc = load(&v, dir, "train", err, sizeof err);
    test_check("speech_error_clip_rate", rc == -1 && strstr(err, bad) && strstr(err, "8000 Hz"), "%s", err);
    unlink(bad);
    snprintf(bad, sizeof bad, "%s/up/stereo_nohash_0.wav", dir);
    write_sf(bad, 16000, 2, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 100);
    rc = load(&v, dir, "train", err, sizeof err);
    int named = rc == -1 && strstr(err, bad) && strstr(err, "channels 2");
    unlink(bad);
    test_check("speech_error_clip_channels", named, "%s", err);
    snprintf(bad, sizeof bad, "%s/_background_noise_/white.wav", dir);
    char moved[400];
    snprintf(moved, sizeof moved, "%s/white.keep", root);
    rename(bad, moved);
    rc = load(&v, dir, "train", err, sizeof err);
    test_check("speech_error_no_noise", rc == -1 && strstr(err, "_background_noise_") && strstr(err, "no .wav"), "%s", err);
    rename(moved, bad);
    char word_dir[400], word_moved[400];
    snprintf(word_dir, sizeof word_dir, "%s/stop", dir);
    snprintf(word_moved, sizeof word_moved, "%s/stop.keep", root);
    rename(word_dir, word_moved);
    rc = load(&v, dir, "train", err, sizeof err);
    test_check("speech_error_missing_word", rc == -1 && strstr(err, "no clips of the words stop"), "%s", err);
    rename(word_moved, word_dir);
    rc = load(&v, NULL, "train", err, sizeof err);
    test_check("speech_error_no_path", rc == -1 && strstr(err, "data.path"), "%s", err);
    rc = load(&v, dir, "valid", err, sizeof err);
    test_check("speech_error_split", rc == -1 && strstr(err, "train, validation, test"), "%s", err);
    rc = dataset_load(&v, "mnist", &(dataset_options){.path = "/nonexistent"}, "validation", err, sizeof err);
    test_check("image_datasets_refuse_validation", rc == -1 && strstr(err, "valid: train, test"), "%s", err);
}

// ---------------------------------------------------------------- the synthesized set

static void test_synth(void) {
    char dir[300], err[2048];
    snprintf(dir, sizeof dir, "%s/synth", root);
    double t0 = now_seconds();
    if (synth_write(dir, 11, synth_scale_find("smoke"), 0, err, sizeof err) != 0) {
        test_fail("synth_smoke", "%s", err);
        return;
    }
    double secs = now_seconds() - t0;
    dataset tr, te;
    if (load(&tr, dir, "train", err, sizeof err) || load(&te, dir, "test", err, sizeof err)) {
        test_fail("synth_loads", "%s", err);
        return;
    }
    const speech_store *st = tr.audio;
    int per_class[12] = {0};
    for (int i = 0; i < tr.n; i++) per_class[tr.labels[i]]++;
    int all = 1;
    for (int c = 0; c < 12; c++) all &= per_class[c] > 0;
    test_check("synth_loads", st->used_lists && all && te.n > 0 && tr.n == 16 * 10 + 16 + 16,
               "synthesized in %.1f s; train %d rows (12 classes), test %d", secs, tr.n, te.n);
    // The list files agree with the recipe's hash: the split is by speaker either way.
    int agree = 1;
    for (int r = 0; r < st->n_rows; r++)
        if (st->file[r][0]) agree &= (int)speech_which_set(st->file[r], 10, 10) == st->split[r];
    test_check("synth_lists_match_hash", agree, "every listed clip is where the speaker hash puts it");
    dataset_free(&tr);
    dataset_free(&te);
    synth_scale tiny = {"tiny", 2, 2};
    char d1[300], d2[300];
    snprintf(d1, sizeof d1, "%s/tiny1", root);
    snprintf(d2, sizeof d2, "%s/tiny2", root);
    int rc = synth_write(d1, 3, &tiny, 0, err, sizeof err);
    rc |= synth_write(d2, 3, &tiny, 0, err, sizeof err);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "diff -r %s %s >/dev/null", d1, d2);
    test_check("synth_deterministic_in_process", rc == 0 && system(cmd) == 0, "two runs in one process, same seed: "
               "identical files");
    rc = synth_write(d1, 3, &tiny, 0, err, sizeof err);
    test_check("synth_refuses_existing", rc == -1 && strstr(err, "already exists"), "%s", err);
}

// ---------------------------------------------------------------- cost estimate

// posbench run's estimate counts a speech run with a step budget: steps × batch × 3 × the
// forward FLOPs of 101 tokens (cls + 100 frames of 40 MFCCs), checked against a hand count
// of the matmuls (d 32, 8 layers, FFN 64); without train.steps the clip count is unknown
// before loading and the run is not counted (-1).
static void test_estimate(void) {
    config c;
    config_defaults(&c);
    const char *keys[] = {"data.name=speech-commands", "model.patch=1", "model.dim=32", "model.depth=8",
                          "model.heads=4", "model.mlp_ratio=2", "train.batch=64", "train.steps=0"};
    char err[256];
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (config_apply_override(&c, keys[i], err, sizeof err) != 0) die_fail("test_speech: %s: %s", keys[i], err);
    double unknown = estimate_training_flops(&c);
    test_check("estimate: a speech run without train.steps is not counted", unknown == -1.0, "got %g", unknown);
    if (config_apply_override(&c, "train.steps=600", err, sizeof err) != 0) die_fail("test_speech: %s", err);
    double flops = estimate_training_flops(&c);
    if (config_apply_override(&c, "train.steps=1200", err, sizeof err) != 0) die_fail("test_speech: %s", err);
    double twice = estimate_training_flops(&c);
    const double d = 32, T = 101, layers = 8, ffn = 64;
    double per_token_layer = 2 * (4 * d * d + 2 * d * ffn) + 4 * T * d; // qkv + proj, FFN, scores + P·V
    double hand = 600.0 * 64 * 3 * (T * layers * per_token_layer + 2.0 * 100 * 40 * d);
    test_check("estimate: 600 steps of 64 clips, 101 tokens, within 5% of the hand count",
               flops > 0 && fabs(flops / hand - 1) < 0.05, "%.4g FLOP vs hand %.4g", flops, hand);
    test_check("estimate: twice the steps, twice the FLOPs", twice == 2 * flops, "%.6g vs 2 x %.6g", twice, flops);
    config_free(&c);
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/posbench-speech.XXXXXX");
    if (!mkdtemp(root)) die_fail("test_speech: mkdtemp failed");
    test_sha1();
    test_which_set_vs_python();
    test_mfcc_vs_numpy();
    test_wav();
    test_loader();
    test_synth();
    test_estimate();
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_exit_code();
}
