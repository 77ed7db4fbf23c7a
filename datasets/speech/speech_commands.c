// datasets/speech/speech_commands.c — the Speech Commands v1 loader: scanning the layout, the
// split (list files or the speaker hash), the recipe's _unknown_ / _silence_ rows, the features
// computed once per run (shared by the splits), and batches with the training augmentation.
// Contract and the exact definitions in speech_commands.h.
#include "speech_commands.h"
#include "wav.h"
#include "../data_files.h"
#include "../registry.h"
#include "../file_read.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

const char *const speech_class_names[SPEECH_CLASSES] = {"_silence_", "_unknown_", "yes", "no",  "up",   "down",
                                                        "left",      "right",     "on",  "off", "stop", "go"};
static const char *const split_names[3] = {"train", "validation", "test"};

static speech_store *g_cached; // the store of the last directory loaded, while some dataset holds it

// ---------------------------------------------------------------- scanning

typedef struct {
    char *rel;   // "<word>/<file>.wav"
    int label;   // 2..11 for the ten words, 1 (unknown) otherwise
    int split;   // speech_split
    const char *listed_in; // the list file that set split (NULL: none yet)
    int listed_line;       // its line (1-based)
} clip_entry;

typedef struct {
    char **items;
    int n, cap;
} name_list;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void name_list_free(name_list *l) {
    for (int i = 0; i < l->n; i++) free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static int name_list_add(name_list *l, const char *s) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items) return -1;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n] = strdup(s);
    if (!l->items[l->n]) return -1;
    l->n++;
    return 0;
}

// The entries of dir that are directories (want_dirs) or regular *.wav files, sorted bytewise.
// Names starting with '.' are skipped. Returns 0, or -1 with err set.
static int list_dir(const char *dir, int want_dirs, name_list *out, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) {
        dataset_set_err(err, errlen, "%s: cannot list the directory: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    char path[2048];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue; // a dangling link: not a clip
        size_t len = strlen(e->d_name);
        int take = want_dirs ? S_ISDIR(st.st_mode)
                             : S_ISREG(st.st_mode) && len > 4 && strcmp(e->d_name + len - 4, ".wav") == 0;
        if (take && name_list_add(out, e->d_name) != 0) {
            closedir(d);
            dataset_set_err(err, errlen, "%s: out of memory listing the directory", dir);
            return -1;
        }
    }
    closedir(d);
    qsort(out->items, (size_t)out->n, sizeof *out->items, cmp_str);
    return 0;
}

static int word_label(const char *word) {
    for (int c = 2; c < SPEECH_CLASSES; c++)
        if (strcmp(word, speech_class_names[c]) == 0) return c;
    return 1;
}

static int cmp_entry_rel(const void *a, const void *b) {
    return strcmp((*(clip_entry *const *)a)->rel, (*(clip_entry *const *)b)->rel);
}

// Marks the entries listed in dir/list_name with split `which`. sorted: entries by rel.
static int apply_list(const char *dir, long long max_bytes, const char *list_name, int which, clip_entry **sorted, int n, char *err,
                      size_t errlen) {
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, list_name);
    if (data_file_check(path, "a split list", max_bytes, NULL, err, errlen) != 0) return -1; // never a FIFO: it would block
    FILE *f = fopen(path, "r");
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ')) line[--len] = '\0';
        if (len == 0) continue;
        clip_entry key = {.rel = line}, *pkey = &key;
        clip_entry **hit = bsearch(&pkey, sorted, (size_t)n, sizeof *sorted, cmp_entry_rel);
        if (!hit) {
            dataset_set_err(err, errlen, "%s:%d:1: '%s' is not a clip of %s (lines are <word>/<file>.wav of existing "
                            "clips)", path, lineno, line, dir);
            fclose(f);
            return -1;
        }
        if ((*hit)->listed_in) { // a clip is in one split: listed once, in one list
            dataset_set_err(err, errlen, "%s:%d:1: '%s' is listed again: %s/%s:%d:1 lists it already (a clip belongs to one "
                            "split: list it once, in validation_list.txt or testing_list.txt)", path, lineno, line, dir,
                            (*hit)->listed_in, (*hit)->listed_line);
            fclose(f);
            return -1;
        }
        (*hit)->split = which;
        (*hit)->listed_in = list_name;
        (*hit)->listed_line = lineno;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        dataset_set_err(err, errlen, "%s: read error", path);
        return -1;
    }
    return 0;
}

// Every clip of the ten words and the unknown words, each with its label and split.
static int scan_clips(speech_store *st, clip_entry **out, int *count, char *err, size_t errlen) {
    *out = NULL;
    *count = 0;
    name_list words = {0};
    if (list_dir(st->dir, 1, &words, err, errlen) != 0) return -1;
    clip_entry *e = NULL;
    int n = 0, cap = 0, rc = 0, seen[SPEECH_CLASSES] = {0};
    for (int w = 0; w < words.n && rc == 0; w++) {
        if (words.items[w][0] == '_') continue; // _background_noise_ and other non-word folders
        char sub[1100];
        snprintf(sub, sizeof sub, "%s/%s", st->dir, words.items[w]);
        name_list files = {0};
        if ((rc = list_dir(sub, 0, &files, err, errlen)) != 0) break;
        int label = word_label(words.items[w]);
        for (int i = 0; i < files.n && rc == 0; i++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                clip_entry *grown = realloc(e, (size_t)cap * sizeof *e);
                if (!grown) {
                    dataset_set_err(err, errlen, "%s: out of memory listing clips", st->dir);
                    rc = -1;
                    break;
                }
                e = grown;
            }
            size_t len = strlen(words.items[w]) + strlen(files.items[i]) + 2;
            e[n].rel = malloc(len);
            if (!e[n].rel) {
                dataset_set_err(err, errlen, "%s: out of memory listing clips", st->dir);
                rc = -1;
                break;
            }
            snprintf(e[n].rel, len, "%s/%s", words.items[w], files.items[i]);
            e[n].label = label;
            e[n].split = SPEECH_TRAIN;
            e[n].listed_in = NULL;
            e[n].listed_line = 0;
            seen[label]++;
            n++;
        }
        name_list_free(&files);
    }
    name_list_free(&words);
    if (rc == 0) {
        char missing[256] = "";
        for (int c = 2; c < SPEECH_CLASSES; c++)
            if (!seen[c]) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", speech_class_names[c]);
        if (missing[0]) {
            dataset_set_err(err, errlen, "%s: no clips of the words%s (expected the Speech Commands layout "
                            "<word>/<speaker>_nohash_<n>.wav; the ten keywords yes no up down left right on off stop "
                            "go must each have a folder of .wav clips)", st->dir, missing);
            rc = -1;
        }
    }
    char vpath[1100], tpath[1100];
    snprintf(vpath, sizeof vpath, "%s/validation_list.txt", st->dir);
    snprintf(tpath, sizeof tpath, "%s/testing_list.txt", st->dir);
    struct stat sb;
    int has_v = stat(vpath, &sb) == 0, has_t = stat(tpath, &sb) == 0;
    if (rc == 0 && has_v != has_t) {
        dataset_set_err(err, errlen, "%s exists but %s does not: give both list files (the official split) or "
                        "neither (the split is then the speaker hash)", has_v ? vpath : tpath, has_v ? tpath : vpath);
        rc = -1;
    }
    if (rc == 0 && has_v) {
        clip_entry **sorted = malloc((size_t)(n ? n : 1) * sizeof *sorted);
        if (!sorted) {
            dataset_set_err(err, errlen, "%s: out of memory sorting clips", st->dir);
            rc = -1;
        } else {
            for (int i = 0; i < n; i++) sorted[i] = &e[i];
            qsort(sorted, (size_t)n, sizeof *sorted, cmp_entry_rel);
            rc = apply_list(st->dir, st->max_bytes, "validation_list.txt", SPEECH_VALIDATION, sorted, n, err, errlen);
            if (rc == 0) rc = apply_list(st->dir, st->max_bytes, "testing_list.txt", SPEECH_TEST, sorted, n, err, errlen);
            free(sorted);
        }
        st->used_lists = 1;
    } else if (rc == 0) {
        for (int i = 0; i < n; i++) e[i].split = (int)speech_which_set(e[i].rel, 10.0, 10.0);
    }
    if (rc != 0) {
        for (int i = 0; i < n; i++) free(e[i].rel);
        free(e);
        return -1;
    }
    *out = e;
    *count = n;
    return 0;
}

// ---------------------------------------------------------------- the store

static void store_free(speech_store *st) {
    if (!st) return;
    for (int i = 0; i < st->n_rows; i++) free(st->file ? st->file[i] : NULL);
    free(st->file);
    free(st->label);
    free(st->split);
    free(st->mel_row);
    free(st->mel);
    free(st->cut_file);
    free(st->cut_offset);
    free(st->cut_volume);
    for (int i = 0; i < st->n_noise; i++) {
        free(st->noise_name[i]);
        free(st->noise_mel[i]);
    }
    free(st->noise_name);
    free(st->noise_frames);
    free(st->noise_mel);
    mfcc_plan_free(&st->plan);
    free(st->prints);
    free(st);
}

// The rows of all three splits, in the order of speech_commands.h, from the scanned clips.
static int build_rows(speech_store *st, clip_entry *e, int n, char *err, size_t errlen) {
    int wanted[3] = {0}, unknown[3] = {0}, take_unknown[3], silence[3];
    for (int i = 0; i < n; i++) (e[i].label == 1 ? unknown : wanted)[e[i].split]++;
    int total = 0;
    for (int s = 0; s < 3; s++) {
        take_unknown[s] = (wanted[s] + 9) / 10; // ceil(W * 10 / 100)
        if (take_unknown[s] > unknown[s]) take_unknown[s] = unknown[s];
        silence[s] = (wanted[s] + 9) / 10;
        total += wanted[s] + take_unknown[s] + silence[s];
    }
    st->n_rows = total;
    size_t rows = (size_t)(total ? total : 1);
    st->label = calloc(rows, sizeof *st->label);
    st->split = calloc(rows, sizeof *st->split);
    st->mel_row = calloc(rows, sizeof *st->mel_row);
    st->file = calloc(rows, sizeof *st->file);
    st->cut_file = calloc(rows, sizeof *st->cut_file);
    st->cut_offset = calloc(rows, sizeof *st->cut_offset);
    st->cut_volume = calloc(rows, sizeof *st->cut_volume);
    int *members = malloc((size_t)(n ? n : 1) * sizeof *members), *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    if (!st->label || !st->split || !st->mel_row || !st->file || !st->cut_file || !st->cut_offset ||
        !st->cut_volume || !members || !perm) {
        free(members);
        free(perm);
        dataset_set_err(err, errlen, "%s: out of memory for %d rows", st->dir, total);
        return -1;
    }
    int r = 0, clips = 0;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < n; i++)
            if (e[i].split == s && e[i].label != 1) {
                st->label[r] = e[i].label, st->split[r] = (uint8_t)s, st->mel_row[r] = clips++;
                st->file[r++] = e[i].rel, e[i].rel = NULL;
            }
        int m = 0;
        for (int i = 0; i < n; i++)
            if (e[i].split == s && e[i].label == 1) members[m++] = i;
        rng_stream rs = rng_stream_make(SPEECH_DATA_SEED, RNG_SPEECH_DATA, (uint32_t)s, 0, 0);
        if (m > 0) rng_permutation(&rs, m, perm);
        for (int k = 0; k < take_unknown[s]; k++) {
            int i = members[perm[k]];
            st->label[r] = 1, st->split[r] = (uint8_t)s, st->mel_row[r] = clips++;
            st->file[r++] = e[i].rel, e[i].rel = NULL;
        }
        for (int k = 0; k < silence[s]; k++) {
            st->label[r] = 0, st->split[r] = (uint8_t)s, st->mel_row[r] = -1;
            st->file[r] = strdup("");
            if (!st->file[r]) {
                free(members);
                free(perm);
                dataset_set_err(err, errlen, "%s: out of memory", st->dir);
                return -1;
            }
            r++;
        }
    }
    free(members);
    free(perm);
    for (int i = 0; i < r; i++) st->split_count[st->split[i]][st->label[i]]++;
    st->mel = malloc((size_t)(clips ? clips : 1) * speech_stored_frames(st) * st->plan.mels * sizeof *st->mel);
    if (!st->mel) {
        dataset_set_err(err, errlen, "%s: out of memory for the features of %d clips (%zu MB)", st->dir, clips,
                        (size_t)clips * speech_stored_frames(st) * st->plan.mels * sizeof(float) >> 20);
        return -1;
    }
    return 0;
}

// The background-noise files: read, checked, and their mel power frames.
static int load_noise(speech_store *st, char *err, size_t errlen) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/" SPEECH_NOISE_DIR, st->dir);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        dataset_set_err(err, errlen, "%s: missing: the background-noise folder is needed for _silence_ and the "
                        "training augmentation (the real dataset ships it; posbench data speech-synth writes one)", dir);
        return -1;
    }
    name_list files = {0};
    if (list_dir(dir, 0, &files, err, errlen) != 0) return -1;
    if (files.n == 0) {
        dataset_set_err(err, errlen, "%s: no .wav files (at least one background-noise file of at least 1 s)", dir);
        name_list_free(&files);
        return -1;
    }
    st->noise_name = files.items; // owned by the store from here
    st->n_noise = files.n;
    st->noise_frames = calloc((size_t)files.n, sizeof *st->noise_frames);
    st->noise_mel = calloc((size_t)files.n, sizeof *st->noise_mel);
    if (!st->noise_frames || !st->noise_mel) {
        dataset_set_err(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    for (int i = 0; i < files.n; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, files.items[i]);
        float *x;
        long n;
        if (wav_read_mono16k(path, &x, &n, err, errlen) != 0) return -1;
        if (n < SPEECH_CLIP_SAMPLES) {
            dataset_set_err(err, errlen, "%s: %ld samples: a background-noise file must hold at least %d (1 s)", path, n,
                            SPEECH_CLIP_SAMPLES);
            free(x);
            return -1;
        }
        int T = mfcc_frames(st->plan.frontend, n, MFCC_HOP);
        st->noise_frames[i] = T;
        st->noise_mel[i] = malloc((size_t)T * st->plan.mels * sizeof(float));
        int rc = st->noise_mel[i] ? mfcc_mel_power(&st->plan, x, n, mfcc_frame_start(st->plan.frontend, MFCC_HOP), T, st->noise_mel[i]) : -1;
        free(x);
        if (rc != 0) {
            dataset_set_err(err, errlen, "%s: out of memory for its features", path);
            return -1;
        }
    }
    return 0;
}


// Reads every clip and computes its padded mel power, in parallel; the first failing row's message.
// A clip longer than 1 s is cut (a warning names how many) or refused (data.long_clips).
static int compute_clips(speech_store *st, char *err, size_t errlen) {
    int first_bad = -1;
    char **why = calloc((size_t)(st->n_rows ? st->n_rows : 1), sizeof *why);
    long *samples = calloc((size_t)(st->n_rows ? st->n_rows : 1), sizeof *samples); // each clip's length as read
    if (!why || !samples) {
        free(why);
        free(samples);
        dataset_set_err(err, errlen, "%s: out of memory", st->dir);
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (int r = 0; r < st->n_rows; r++) {
        if (st->mel_row[r] < 0) continue;
        char path[1400], msg[1600];
        snprintf(path, sizeof path, "%s/%s", st->dir, st->file[r]);
        float *x = NULL;
        long n = 0;
        float *mel = st->mel + (size_t)st->mel_row[r] * speech_stored_frames(st) * st->plan.mels;
        int rc = wav_read_mono16k(path, &x, &n, msg, sizeof msg);
        samples[r] = n;
        if (rc == 0 && n > SPEECH_CLIP_SAMPLES && st->refuse_long_clips) {
            snprintf(msg, sizeof msg, "%s: %.3f s long, more than the 1-s clip (data.long_clips=refuse; =cut cuts such clips "
                     "to their first second with a warning)", path, (double)n / SPEECH_CLIP_SAMPLES);
            rc = -1;
        } else if (rc == 0) {
            if (n > SPEECH_CLIP_SAMPLES) n = SPEECH_CLIP_SAMPLES; // the recipe's desired_samples: cut / zero-pad
            rc = mfcc_mel_power(&st->plan, x, n, mfcc_frame_start(st->plan.frontend, MFCC_HOP) - (long)SPEECH_SHIFT_FRAMES * MFCC_HOP,
                                speech_stored_frames(st), mel);
            if (rc != 0) snprintf(msg, sizeof msg, "%s: out of memory for FFT buffers", path);
        }
        free(x);
        if (rc != 0) why[r] = strdup(msg);
        if (rc != 0 && !why[r]) why[r] = path[0] ? strdup(path) : NULL;
    }
    for (int r = 0; r < st->n_rows && first_bad < 0; r++)
        if (why[r]) first_bad = r;
    if (first_bad >= 0) dataset_set_err(err, errlen, "%s", why[first_bad]);
    int long_clips = 0, first_long = -1; // counted in row order after the parallel loop: deterministic
    for (int r = 0; first_bad < 0 && r < st->n_rows; r++)
        if (st->mel_row[r] >= 0 && samples[r] > SPEECH_CLIP_SAMPLES) {
            if (first_long < 0) first_long = r;
            long_clips++;
        }
    if (long_clips > 0)
        warn_msg("%s: %d clip%s longer than 1 s, cut to the first second (first: %s, %.3f s; "
                        "data.long_clips=refuse refuses them)", st->dir, long_clips, long_clips == 1 ? " is" : "s are",
                st->file[first_long], (double)samples[first_long] / SPEECH_CLIP_SAMPLES);
    for (int r = 0; r < st->n_rows; r++) free(why[r]);
    free(why);
    free(samples);
    return first_bad >= 0 ? -1 : 0;
}

// Mean and std per coefficient over the training word clips (unshifted, no noise); and the
// fixed silence cuts.
static void compute_stats_and_cuts(speech_store *st) {
    double (*part)[2][MFCC_COEFFS] = xcalloc((size_t)(st->n_rows ? st->n_rows : 1), sizeof *part, "MFCC statistics");
#pragma omp parallel for schedule(dynamic, 16)
    for (int r = 0; r < st->n_rows; r++) {
        if (st->split[r] != SPEECH_TRAIN || st->mel_row[r] < 0) continue;
        float c[SPEECH_MAX_FRAMES * MFCC_COEFFS];
        const float *mel = st->mel + ((size_t)st->mel_row[r] * speech_stored_frames(st) + SPEECH_SHIFT_FRAMES) * st->plan.mels;
        mfcc_from_mel_power(&st->plan, mel, st->frames, c);
        for (int t = 0; t < st->frames; t++)
            for (int j = 0; j < MFCC_COEFFS; j++) {
                double v = c[t * MFCC_COEFFS + j];
                part[r][0][j] += v;
                part[r][1][j] += v * v;
            }
    }
    double sum[MFCC_COEFFS] = {0}, sq[MFCC_COEFFS] = {0};
    long count = 0;
    for (int r = 0; r < st->n_rows; r++) { // in row order: the same sums for any thread count
        if (st->split[r] != SPEECH_TRAIN || st->mel_row[r] < 0) continue;
        count += st->frames;
        for (int j = 0; j < MFCC_COEFFS; j++) sum[j] += part[r][0][j], sq[j] += part[r][1][j];
    }
    free(part);
    for (int j = 0; j < MFCC_COEFFS; j++) {
        double mean = count ? sum[j] / count : 0.0, var = count ? sq[j] / count - mean * mean : 1.0;
        st->mean[j] = mean;
        st->std[j] = var > 1e-12 ? sqrt(var) : 1.0;
    }
    for (int r = 0; r < st->n_rows; r++) {
        if (st->mel_row[r] >= 0) continue;
        rng_stream s = rng_stream_make(SPEECH_DATA_SEED, RNG_SPEECH_DATA, st->split[r], 1, (uint32_t)r);
        int f = (int)rng_below(&s, (uint32_t)st->n_noise);
        st->cut_file[r] = f;
        st->cut_offset[r] = (int)rng_below(&s, (uint32_t)(st->noise_frames[f] - st->frames + 1));
        st->cut_volume[r] = rng_uniform(&s);
    }
}

// ---------------------------------------------------------------- fingerprints

int speech_commands_wav_print(const char *dir, long long max_bytes, long long *bytes, uint32_t *crc, char *err, size_t errlen) {
    name_list folders = {0};
    if (list_dir(dir, 1, &folders, err, errlen) != 0) return -1;
    uLong c = crc32(0L, Z_NULL, 0);
    long long total = 0;
    int rc = 0, count = 0;
    for (int w = 0; w < folders.n && rc == 0; w++) {
        if (folders.items[w][0] == '_' && strcmp(folders.items[w], SPEECH_NOISE_DIR) != 0) continue; // ignored folders
        char sub[1100];
        snprintf(sub, sizeof sub, "%s/%s", dir, folders.items[w]);
        name_list files = {0};
        if ((rc = list_dir(sub, 0, &files, err, errlen)) != 0) break;
        for (int i = 0; i < files.n && rc == 0; i++) {
            char path[2300], line[2400];
            snprintf(path, sizeof path, "%s/%s", sub, files.items[i]);
            long long size;
            uint32_t one;
            if ((rc = data_file_crc(path, max_bytes, &size, &one, err, errlen)) != 0) break;
            int len = snprintf(line, sizeof line, "%s/%s %lld %08x\n", folders.items[w], files.items[i], size, (unsigned)one);
            c = crc32(c, (const Bytef *)line, (uInt)len);
            total += size;
            count++;
        }
        name_list_free(&files);
    }
    name_list_free(&folders);
    if (rc != 0) return -1;
    if (count == 0) {
        dataset_set_err(err, errlen, "%s: no .wav clips", dir);
        return -1;
    }
    *bytes = total, *crc = (uint32_t)c;
    return 0;
}

// The store's fingerprints: every clip (one `wavs` line) and the split lists.
static int store_prints(speech_store *st, char *err, size_t errlen) {
    long long bytes;
    uint32_t crc;
    if (speech_commands_wav_print(st->dir, st->max_bytes, &bytes, &crc, err, errlen) != 0) return -1;
    data_prints_add(&st->prints, "wavs", crc, bytes, st->dir);
    if (!st->used_lists) return 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/validation_list.txt", st->dir);
    if (data_prints_note(&st->prints, path, st->max_bytes, err, errlen) != 0) return -1;
    snprintf(path, sizeof path, "%s/testing_list.txt", st->dir);
    return data_prints_note(&st->prints, path, st->max_bytes, err, errlen);
}

static speech_store *store_build(const char *dir, const dataset_options *opt, char *err, size_t errlen) {
    speech_store *st = calloc(1, sizeof *st);
    if (!st) {
        dataset_set_err(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    st->max_bytes = data_max_bytes_or_default(opt->max_bytes);
    st->refuse_long_clips = opt->refuse_long_clips != 0;
    mfcc_frontend frontend = (mfcc_frontend)opt->mfcc_frontend;
    if (mfcc_plan_make_frontend(&st->plan, frontend, err, errlen) != 0) {
        free(st);
        return NULL;
    }
    st->frames = mfcc_clip_frames(frontend);
    clip_entry *e = NULL;
    int n = 0;
    int rc = scan_clips(st, &e, &n, err, errlen);
    if (rc == 0) rc = build_rows(st, e, n, err, errlen);
    for (int i = 0; i < n; i++) free(e[i].rel);
    free(e);
    if (rc == 0) rc = store_prints(st, err, errlen);
    if (rc == 0) rc = load_noise(st, err, errlen);
    if (rc == 0) rc = compute_clips(st, err, errlen);
    if (rc != 0) {
        store_free(st);
        return NULL;
    }
    compute_stats_and_cuts(st);
    return st;
}

// ---------------------------------------------------------------- the dataset

int speech_commands_load(dataset *ds, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    const char *path = opt->path;
    int which = -1;
    for (int s = 0; s < 3; s++)
        if (split && strcmp(split, split_names[s]) == 0) which = s;
    if (which < 0) {
        dataset_set_err(err, errlen, "unknown split '%s' for dataset speech-commands (valid: train, validation, test)",
                        split ? split : "(null)");
        return -1;
    }
    if (!path || !path[0]) {
        dataset_set_err(err, errlen, "dataset speech-commands has no default directory: set data.path=DIR, the "
                        "extracted speech_commands_v0.01 (DIR/<word>/*.wav, DIR/_background_noise_/), or run "
                        "'posbench data speech-synth --out DIR' for the synthesized set");
        return -1;
    }
    char dir[sizeof ds->source];
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    if (len >= sizeof dir) {
        dataset_set_err(err, errlen, "dataset directory path is %zu bytes long (at most %zu): %.64s...", len,
                        sizeof dir - 1, path);
        return -1;
    }
    memcpy(dir, path, len);
    dir[len] = '\0';
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        dataset_set_err(err, errlen, "dataset directory %s %s (data.path of speech-commands: the folder holding "
                        "<word>/*.wav and _background_noise_/)", dir, stat(dir, &sb) != 0 ? "does not exist" : "is not a directory");
        return -1;
    }
    speech_store *st = g_cached && strcmp(g_cached->dir, dir) == 0 && g_cached->plan.frontend == (mfcc_frontend)opt->mfcc_frontend ? g_cached : NULL;
    if (!st) {
        st = store_build(dir, opt, err, errlen);
        if (!st) return -1;
        g_cached = st;
    }
    int n = 0;
    for (int r = 0; r < st->n_rows; r++) n += st->split[r] == which;
    char *prints = st->prints ? strdup(st->prints) : NULL;
    if (n == 0 || (st->prints && !prints)) { // an empty split is a data error (its loss would be 0/0)
        if (n == 0 && st->used_lists && which != SPEECH_TRAIN)
            dataset_set_err(err, errlen, "%s split is empty (%s/%s lists no clip of the ten words; list at least one)",
                            split, dir, which == SPEECH_TEST ? "testing_list.txt" : "validation_list.txt");
        else if (n == 0 && st->used_lists)
            dataset_set_err(err, errlen, "train split is empty (%s: validation_list.txt and testing_list.txt list every "
                            "clip of the ten words)", dir);
        else if (n == 0)
            dataset_set_err(err, errlen, "%s split is empty (%s: no speaker's clips of the ten words hash into it; add "
                            "speakers or give validation_list.txt and testing_list.txt)", split, dir);
        else
            dataset_set_err(err, errlen, "%s: out of memory", dir);
        free(prints);
        if (st->refs == 0) {
            if (g_cached == st) g_cached = NULL;
            store_free(st);
        }
        return -1;
    }
    int32_t *clips = malloc((size_t)(n ? n : 1) * sizeof *clips), *labels = malloc((size_t)(n ? n : 1) * sizeof *labels);
    if (!clips || !labels) {
        free(clips);
        free(labels);
        free(prints);
        if (st->refs == 0) {
            if (g_cached == st) g_cached = NULL;
            store_free(st);
        }
        dataset_set_err(err, errlen, "%s: out of memory for the %s rows", dir, split);
        return -1;
    }
    for (int r = 0, i = 0; r < st->n_rows; r++)
        if (st->split[r] == which) clips[i] = r, labels[i++] = st->label[r];
    st->refs++;
    snprintf(ds->name, sizeof ds->name, "speech-commands");
    snprintf(ds->source, sizeof ds->source, "%s", dir);
    ds->n = n;
    ds->channels = 1;
    ds->height = st->frames;
    ds->width = MFCC_COEFFS;
    ds->num_classes = SPEECH_CLASSES;
    ds->labels = labels;
    ds->clips = clips;
    ds->audio = st;
    ds->prints = prints;
    ds->kind = &dataset_speech_commands;
    for (int c = 0; c < 3; c++) ds->mean[c] = 0.0f, ds->std[c] = 1.0f; // features arrive standardised
    return 0;
}

void speech_commands_release(dataset *ds) {
    speech_store *st = ds->audio;
    free(ds->clips);
    ds->clips = NULL;
    ds->audio = NULL;
    if (!st || --st->refs > 0) return;
    if (g_cached == st) g_cached = NULL;
    store_free(st);
}

void speech_make_batch(const dataset *ds, const int *indices, int B, const augment_config *aug, uint32_t seed,
                       uint32_t epoch, uint32_t step, float *out, int32_t *labels) {
    const speech_store *st = ds->audio;
    for (int b = 0; b < B; b++)
        if (indices[b] < 0 || indices[b] >= ds->n)
            die_fail("dataset %s: batch position %d asks for row %d, outside [0, %d)", ds->name, b, indices[b], ds->n);
    int S = aug && aug->time_shift_ms > 0 ? aug->time_shift_ms / 10 : 0;
    if (S > SPEECH_SHIFT_FRAMES)
        die_input("data.time_shift_ms=%d: at most %d (the stored clips are padded by %d ms)", aug->time_shift_ms,
                  SPEECH_SHIFT_FRAMES * 10, SPEECH_SHIFT_FRAMES * 10);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        const int r = ds->clips[indices[b]];
        labels[b] = st->label[r];
        int shift = 0, file = 0, offset = 0;
        float volume = 0.0f;
        if (aug) {
            rng_stream s = rng_stream_make(seed, RNG_AUGMENT, epoch, step, (uint32_t)b);
            if (S > 0 && st->mel_row[r] >= 0) shift = (int)rng_below(&s, 2u * (uint32_t)S + 1) - S;
            if (st->mel_row[r] < 0) volume = rng_uniform(&s);
            else if (aug->background_frequency > 0.0f && rng_uniform(&s) < aug->background_frequency)
                volume = rng_uniform(&s) * aug->background_volume;
            if (volume > 0.0f) {
                file = (int)rng_below(&s, (uint32_t)st->n_noise);
                offset = (int)rng_below(&s, (uint32_t)(st->noise_frames[file] - st->frames + 1));
            }
        } else if (st->mel_row[r] < 0) {
            file = st->cut_file[r], offset = st->cut_offset[r], volume = st->cut_volume[r];
        }
        const int F = st->frames, M = st->plan.mels;
        float mel[SPEECH_MAX_FRAMES * MFCC_MAX_MELS]; // (F, M)
        const size_t bytes = (size_t)F * M * sizeof(float);
        if (st->mel_row[r] >= 0) {
            const float *src = st->mel + ((size_t)st->mel_row[r] * speech_stored_frames(st) + SPEECH_SHIFT_FRAMES - shift) * M;
            memcpy(mel, src, bytes);
        } else {
            memset(mel, 0, bytes);
        }
        if (volume > 0.0f) {
            const float v2 = volume * volume, *noise = st->noise_mel[file] + (size_t)offset * M;
            for (int i = 0; i < F * M; i++) mel[i] += v2 * noise[i];
        }
        float *o = out + (size_t)b * F * MFCC_COEFFS; // (frames, coeffs)
        mfcc_from_mel_power(&st->plan, mel, F, o);
        for (int t = 0; t < F; t++)
            for (int j = 0; j < MFCC_COEFFS; j++)
                o[t * MFCC_COEFFS + j] = (float)(((double)o[t * MFCC_COEFFS + j] - st->mean[j]) / st->std[j]);
    }
}

// ---------------------------------------------------------------- registry entry (../registry.h)
// 1-second clips, one token per 10 ms frame of MFCC_COEFFS coefficients (a sequence model); the
// clip count is known only once the folder is read.
static dataset_shape shape_speech(const dataset_options *opt) {
    mfcc_frontend frontend = opt->mfcc_frontend == MFCC_TC_RESNET ? MFCC_TC_RESNET : MFCC_POSBENCH;
    return (dataset_shape){mfcc_clip_frames(frontend), 1, SPEECH_CLASSES, MFCC_COEFFS, -1, -1};
}

static int load_speech(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    return speech_commands_load(ds, opt, split, err, errlen);
}

const dataset_kind dataset_speech_commands = {.name = "speech-commands", .description = "Google Speech Commands v1 layout, 12 classes, 100 frames x 40 MFCCs", .labels = 1, .audio = 1, .validation = 1,
                                              .shape = shape_speech, .load = load_speech, .make_batch = speech_make_batch,
                                              .release = speech_commands_release};
