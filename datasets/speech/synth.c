// datasets/speech/synth.c — `posbench data speech-synth`: the synthesized Speech Commands set
// (contract in synth.h). Per speaker s (in order) and word w (in synth_words order):
//   libespeak-ng speaks w with voice "<language>+<variant>", rate and pitch of s (22050 Hz,
//   AUDIO_OUTPUT_SYNCHRONOUS; srand() set from (seed, clip) first, since espeak's noise source
//   uses rand()); leading and trailing samples below 1/256 of the peak are trimmed; libsoxr
//   (SOXR_HQ) resamples to 16 kHz; a longer result is cut at 1 s; it is scaled to a peak drawn
//   from [0.3, 0.9), placed at an offset drawn uniformly from the room left in the 1-s clip, and
//   a white noise floor of std drawn from [0.001, 0.005) is added. Draws: rng_stream_make(seed,
//   RNG_SPEECH_SYNTH, 1, s, w). Speakers: rng_stream_make(seed, RNG_SPEECH_SYNTH, 0, s, try).
// espeak carries state from one utterance to the next, so the clips are synthesized one at a
// time in this fixed order (never in parallel), in a forked child process that starts from
// fresh espeak state: that order and that start are part of the determinism.
// Background noise (_background_noise_/): white_noise.wav, pink_noise.wav (Paul Kellet's
// filter), brown_noise.wav (leaky integral of white), from rng_stream_make(seed,
// RNG_SPEECH_SYNTH, 2, file, 0), each scaled to a peak of 0.5.
#include "synth.h"
#include "split_hash.h"
#include "wav.h"
#include "../file_read.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include "../../core/safe_file.h"
#include <errno.h>
#include <espeak-ng/speak_lib.h>
#include <math.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const synth_words[SYNTH_WORDS] = {
    "bed",  "bird", "cat",  "dog",   "down",  "eight", "five",  "four", "go",  "happy",
    "house", "left", "marvin", "nine", "no",  "off",   "on",    "one",  "right", "seven",
    "sheila", "six", "stop", "three", "tree", "two",   "up",    "wow",  "yes", "zero"};

static const synth_scale SCALES[] = {
    {"smoke", 20, 5},     // 600 clips
    {"small", 200, 30},   // 6,000 clips
    {"paper", 2000, 60},  // 60,000 clips (the real v1: 64,727 from 1,881 speakers)
};

static const char *const LANGUAGES[] = {"en", "en-us", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan",
                                        "en-gb-x-gbcwmd", "en-029", "en-us-nyc"};
static const char *const VARIANTS[] = {"m1",    "m2",    "m3",     "m4",     "m5",     "m6",    "m7",    "f1",
                                       "f2",    "f3",    "f4",     "f5",     "klatt",  "klatt2", "klatt3", "croak",
                                       "Alex",  "Andy",  "Annie",  "anika",  "boris",  "david", "ed",    "grandma",
                                       "grandpa", "john", "linda", "max",    "michel", "mike",  "paul",  "Tweaky"};
#define N_LANG (int)(sizeof LANGUAGES / sizeof LANGUAGES[0])
#define N_VAR (int)(sizeof VARIANTS / sizeof VARIANTS[0])
#define RATE_MIN 110
#define RATE_SPAN 111   // rates 110..220 words per minute
#define PITCH_MIN 25
#define PITCH_SPAN 51   // pitch 25..75 (espeak: 50 = normal)
#define ESPEAK_MAX_SAMPLES (22050 * 4)

typedef struct {
    char id[9];
    int lang, variant, rate, pitch, split;
} synth_speaker;

const synth_scale *synth_scale_find(const char *name) {
    for (size_t i = 0; name && i < sizeof SCALES / sizeof SCALES[0]; i++)
        if (strcmp(name, SCALES[i].name) == 0) return &SCALES[i];
    return NULL;
}

// ---------------------------------------------------------------- espeak

static short *g_pcm; // the current utterance at espeak's rate
static int g_pcm_n, g_pcm_overflow;

static int espeak_collect(short *wav, int n, espeak_EVENT *events) {
    (void)events;
    if (!wav) return 0;
    if (g_pcm_n + n > ESPEAK_MAX_SAMPLES) {
        g_pcm_overflow = 1;
        n = ESPEAK_MAX_SAMPLES - g_pcm_n;
    }
    memcpy(g_pcm + g_pcm_n, wav, (size_t)n * sizeof *wav);
    g_pcm_n += n;
    return 0;
}

// Speaks word as speaker sp; the utterance at espeak's rate into g_pcm / g_pcm_n.
static int speak(const synth_speaker *sp, const char *word, unsigned srand_seed, char *err, size_t errlen) {
    char voice[64];
    snprintf(voice, sizeof voice, "%s+%s", LANGUAGES[sp->lang], VARIANTS[sp->variant]);
    if (espeak_SetVoiceByName(voice) != EE_OK) {
        dataset_set_err(err, errlen, "libespeak-ng: voice '%s' not found (is espeak-ng-data installed?)", voice);
        return -1;
    }
    if (espeak_SetParameter(espeakRATE, sp->rate, 0) != EE_OK || espeak_SetParameter(espeakPITCH, sp->pitch, 0) != EE_OK) {
        dataset_set_err(err, errlen, "libespeak-ng: cannot set rate %d / pitch %d for voice '%s'", sp->rate, sp->pitch, voice);
        return -1;
    }
    g_pcm_n = 0;
    g_pcm_overflow = 0;
    srand(srand_seed);
    espeak_ERROR e = espeak_Synth(word, strlen(word) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    if (e != EE_OK || espeak_Synchronize() != EE_OK) {
        dataset_set_err(err, errlen, "libespeak-ng: synthesizing '%s' with voice '%s' failed (error %d)", word, voice, (int)e);
        return -1;
    }
    if (g_pcm_n == 0) {
        dataset_set_err(err, errlen, "libespeak-ng: no audio for '%s' with voice '%s'", word, voice);
        return -1;
    }
    return 0;
}

// ---------------------------------------------------------------- one clip

// The clip of word w by speaker s: (SPEECH 16000 samples) into clip.
static int make_clip(const synth_speaker *sp, int s, int w, uint32_t seed, int espeak_rate, float *clip,
                     float *scratch_in, float *scratch_out, char *err, size_t errlen) {
    if (speak(sp, synth_words[w], seed * 2654435761u ^ (unsigned)(s * SYNTH_WORDS + w), err, errlen) != 0) return -1;
    int peak = 0;
    for (int i = 0; i < g_pcm_n; i++) peak = abs(g_pcm[i]) > peak ? abs(g_pcm[i]) : peak;
    int lo = 0, hi = g_pcm_n;
    int thr = peak / 256 > 0 ? peak / 256 : 1;
    while (lo < hi && abs(g_pcm[lo]) < thr) lo++;
    while (hi > lo && abs(g_pcm[hi - 1]) < thr) hi--;
    if (hi - lo < 16) {
        dataset_set_err(err, errlen, "libespeak-ng: '%s' came out silent for %s+%s", synth_words[w], LANGUAGES[sp->lang],
                        VARIANTS[sp->variant]);
        return -1;
    }
    int n_in = hi - lo;
    for (int i = 0; i < n_in; i++) scratch_in[i] = g_pcm[lo + i] / 32768.0f;
    size_t n_out_cap = (size_t)ceil((double)n_in * 16000.0 / espeak_rate) + 64, done = 0;
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_runtime_spec_t rt = soxr_runtime_spec(1);
    soxr_error_t e = soxr_oneshot(espeak_rate, 16000, 1, scratch_in, (size_t)n_in, NULL, scratch_out, n_out_cap, &done,
                                  &io, &q, &rt);
    if (e) {
        dataset_set_err(err, errlen, "libsoxr: resampling %d -> 16000 Hz failed: %s", espeak_rate, e);
        return -1;
    }
    int n = (int)done > 16000 ? 16000 : (int)done;
    rng_stream rs = rng_stream_make(seed, RNG_SPEECH_SYNTH, 1, (uint32_t)s, (uint32_t)w);
    float target = 0.3f + 0.6f * rng_uniform(&rs);
    int offset = (int)rng_below(&rs, (uint32_t)(16000 - n + 1));
    float floor_std = 0.001f + 0.004f * rng_uniform(&rs);
    float m = 0.0f;
    for (int i = 0; i < n; i++) m = fabsf(scratch_out[i]) > m ? fabsf(scratch_out[i]) : m;
    float gain = m > 0.0f ? target / m : 0.0f;
    for (int i = 0; i < 16000; i++) clip[i] = floor_std * rng_normal(&rs);
    for (int i = 0; i < n; i++) clip[offset + i] += gain * scratch_out[i];
    return 0;
}

// ---------------------------------------------------------------- noise files

static void make_noise(int kind, uint32_t seed, float *x, long n) {
    rng_stream rs = rng_stream_make(seed, RNG_SPEECH_SYNTH, 2, (uint32_t)kind, 0);
    double b0 = 0, b1 = 0, b2 = 0, brown = 0, peak = 0;
    for (long i = 0; i < n; i++) {
        double white = rng_normal(&rs), v;
        if (kind == 0) v = white;
        else if (kind == 1) { // pink: Paul Kellet's economy filter
            b0 = 0.99765 * b0 + white * 0.0990460;
            b1 = 0.96300 * b1 + white * 0.2965164;
            b2 = 0.57000 * b2 + white * 1.0526913;
            v = b0 + b1 + b2 + white * 0.1848;
        } else { // brown: leaky integral
            brown = 0.998 * brown + 0.05 * white;
            v = brown;
        }
        x[i] = (float)v;
        peak = fabs(v) > peak ? fabs(v) : peak;
    }
    float g = peak > 0 ? (float)(0.5 / peak) : 0.0f;
    for (long i = 0; i < n; i++) x[i] *= g;
}

// ---------------------------------------------------------------- the set

static int make_dir(const char *path, char *err, size_t errlen) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        dataset_set_err(err, errlen, "%s: cannot create the directory: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int draw_speakers(uint32_t seed, int count, synth_speaker *sp) {
    for (int s = 0; s < count; s++) {
        int want = s % 10 == 0 ? SPEECH_VALIDATION : s % 10 == 1 ? SPEECH_TEST : SPEECH_TRAIN;
        for (uint32_t attempt = 0;; attempt++) {
            rng_stream rs = rng_stream_make(seed, RNG_SPEECH_SYNTH, 0, (uint32_t)s, attempt);
            synth_speaker c = {.lang = (int)rng_below(&rs, N_LANG), .variant = (int)rng_below(&rs, N_VAR),
                               .rate = RATE_MIN + (int)rng_below(&rs, RATE_SPAN),
                               .pitch = PITCH_MIN + (int)rng_below(&rs, PITCH_SPAN), .split = want};
            snprintf(c.id, sizeof c.id, "%08x", rng_u32(&rs));
            int clash = 0;
            for (int k = 0; k < s && !clash; k++)
                clash = !strcmp(sp[k].id, c.id) || (sp[k].lang == c.lang && sp[k].variant == c.variant &&
                                                    sp[k].rate == c.rate && sp[k].pitch == c.pitch);
            if (clash || (int)speech_which_set(c.id, 10.0, 10.0) != want) continue;
            sp[s] = c;
            break;
        }
    }
    return 0;
}

static int write_lists(const char *dir, const synth_speaker *sp, int count, char *err, size_t errlen) {
    const char *names[2] = {"validation_list.txt", "testing_list.txt"};
    const int which[2] = {SPEECH_VALIDATION, SPEECH_TEST};
    for (int l = 0; l < 2; l++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, names[l]);
        FILE *f = fopen(path, "w");
        if (!f) {
            dataset_set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
            return -1;
        }
        // Lines in byte order of "<word>/<id>_nohash_0.wav", as the real lists.
        for (int w = 0; w < SYNTH_WORDS; w++) {
            int *order = xmalloc((size_t)count * sizeof *order, "synth list order");
            int m = 0;
            for (int s = 0; s < count; s++)
                if (sp[s].split == which[l]) order[m++] = s;
            for (int i = 1; i < m; i++) // insertion sort by id
                for (int j = i; j > 0 && strcmp(sp[order[j - 1]].id, sp[order[j]].id) > 0; j--) {
                    int t = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = t;
                }
            for (int i = 0; i < m; i++) fprintf(f, "%s/%s_nohash_0.wav\n", synth_words[w], sp[order[i]].id);
            free(order);
        }
        if (fclose(f) != 0) {
            dataset_set_err(err, errlen, "%s: write error", path);
            return -1;
        }
    }
    return 0;
}

static int write_speakers(const char *dir, const synth_speaker *sp, int count, uint32_t seed, const synth_scale *sc,
                          char *err, size_t errlen) {
    char path[1400];
    snprintf(path, sizeof path, "%s/speakers.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# posbench data speech-synth --seed %u --scale %s: libespeak-ng speakers\nid\tvoice\trate_wpm\tpitch\tsplit\n",
            seed, sc->name);
    static const char *split_word[3] = {"train", "validation", "test"};
    for (int s = 0; s < count; s++)
        fprintf(f, "%s\t%s+%s\t%d\t%d\t%s\n", sp[s].id, LANGUAGES[sp[s].lang], VARIANTS[sp[s].variant], sp[s].rate,
                sp[s].pitch, split_word[sp[s].split]);
    if (fclose(f) != 0) {
        dataset_set_err(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

// Synthesizes and writes every clip (the caller's speakers, in order) into dir. Runs in this
// process: call it from a fresh one (speak_all_in_child).
static int speak_all(const char *dir, const synth_speaker *sp, uint32_t seed, const synth_scale *sc, int verbose,
                     char *err, size_t errlen) {
    int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, espeakINITIALIZE_DONT_EXIT);
    if (rate <= 0) {
        dataset_set_err(err, errlen, "libespeak-ng: initialisation failed (is espeak-ng-data installed?)");
        return -1;
    }
    espeak_SetSynthCallback(espeak_collect);
    g_pcm = xmalloc(ESPEAK_MAX_SAMPLES * sizeof *g_pcm, "espeak samples");
    float *in = xmalloc(ESPEAK_MAX_SAMPLES * sizeof *in, "synth samples");
    size_t out_cap = (size_t)ESPEAK_MAX_SAMPLES * 16000 / (size_t)rate + 128;
    float *res = xmalloc(out_cap * sizeof *res, "resampled samples");
    float *clip = xmalloc(16000 * sizeof *clip, "synth clip");
    int rc = 0;
    char path[1400];
    for (int w = 0; w < SYNTH_WORDS && rc == 0; w++) {
        snprintf(path, sizeof path, "%s/%s", dir, synth_words[w]);
        rc = make_dir(path, err, errlen);
    }
    double t0 = now_seconds();
    for (int s = 0; s < sc->speakers && rc == 0; s++) {
        for (int w = 0; w < SYNTH_WORDS && rc == 0; w++) {
            rc = make_clip(&sp[s], s, w, seed, rate, clip, in, res, err, errlen);
            if (rc != 0) break;
            snprintf(path, sizeof path, "%s/%s/%s_nohash_0.wav", dir, synth_words[w], sp[s].id);
            rc = wav_write_mono16k(path, clip, 16000, err, errlen);
        }
        if (verbose && rc == 0 && ((s + 1) % 50 == 0 || s + 1 == sc->speakers))
            fprintf(stderr, "speech-synth: %d/%d speakers (%.0f s)\n", s + 1, sc->speakers, now_seconds() - t0);
    }
    espeak_Terminate();
    free(g_pcm);
    g_pcm = NULL;
    free(in);
    free(res);
    free(clip);
    return rc;
}

// speak_all in a forked child: libespeak-ng keeps state from one utterance to the next (and
// hangs when initialised again after espeak_Terminate), so every set starts from a fresh
// process's espeak state: the same seed gives the same bytes however many sets this process
// has made. The child's error message comes back through a pipe.
static int speak_all_in_child(const char *dir, const synth_speaker *sp, uint32_t seed, const synth_scale *sc,
                              int verbose, char *err, size_t errlen) {
    int fd[2];
    if (pipe(fd) != 0) {
        dataset_set_err(err, errlen, "speech-synth: pipe failed: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        dataset_set_err(err, errlen, "speech-synth: fork failed: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        char msg[2048] = "";
        int rc = speak_all(dir, sp, seed, sc, verbose, msg, sizeof msg);
        if (rc != 0 && write(fd[1], msg, strlen(msg)) < 0) rc = 2;
        close(fd[1]);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fd[1]);
    char msg[2048];
    ssize_t got = 0, n;
    while (got < (ssize_t)sizeof msg - 1 && (n = read(fd[0], msg + got, sizeof msg - 1 - (size_t)got)) > 0) got += n;
    msg[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
        dataset_set_err(err, errlen, "speech-synth: waiting for the synthesis process failed: %s", strerror(errno));
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (msg[0]) dataset_set_err(err, errlen, "%s", msg);
        else dataset_set_err(err, errlen, "speech-synth: the synthesis process %s %d", WIFEXITED(status) ?
                             "exited with status" : "was killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) :
                             WTERMSIG(status));
        return -1;
    }
    return 0;
}

int synth_write(const char *out, uint32_t seed, const synth_scale *sc, int verbose, char *err, size_t errlen) {
    struct stat sb;
    if (strlen(out) > 1000) {
        dataset_set_err(err, errlen, "--out path is %zu bytes long (at most 1000)", strlen(out));
        return -1;
    }
    if (stat(out, &sb) == 0) {
        dataset_set_err(err, errlen, "%s already exists: speech-synth writes a new folder (remove it, or point "
                        "data.path at it to use it)", out);
        return -1;
    }
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.partial", out);
    char why[1400];
    if (stat(tmp, &sb) == 0 && safe_remove_tree(tmp, why, sizeof why) != SAFE_OK) {
        dataset_set_err(err, errlen, "cannot remove the leftover of an interrupted run: %s", why);
        return -1;
    }
    if (make_dir(tmp, err, errlen) != 0) return -1;
    synth_speaker *sp = xcalloc((size_t)sc->speakers, sizeof *sp, "synth speakers");
    draw_speakers(seed, sc->speakers, sp);
    int rc = speak_all_in_child(tmp, sp, seed, sc, verbose, err, errlen);
    char path[1400];
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/" "_background_noise_", tmp);
        rc = make_dir(path, err, errlen);
    }
    static const char *noise_names[3] = {"white_noise.wav", "pink_noise.wav", "brown_noise.wav"};
    long nn = (long)sc->noise_seconds * 16000;
    float *noise = rc == 0 ? xmalloc((size_t)nn * sizeof *noise, "synth noise") : NULL;
    for (int k = 0; k < 3 && rc == 0; k++) {
        make_noise(k, seed, noise, nn);
        snprintf(path, sizeof path, "%s/_background_noise_/%s", tmp, noise_names[k]);
        rc = wav_write_mono16k(path, noise, nn, err, errlen);
    }
    free(noise);
    if (rc == 0) rc = write_lists(tmp, sp, sc->speakers, err, errlen);
    if (rc == 0) rc = write_speakers(tmp, sp, sc->speakers, seed, sc, err, errlen);
    free(sp);
    if (rc == 0 && rename(tmp, out) != 0) {
        dataset_set_err(err, errlen, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
        rc = -1;
    }
    return rc;
}
