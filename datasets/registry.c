// datasets/registry.c — the entries of the dataset registry (registry.h): capabilities, shapes
// before loading and loaders, one per data.name; dataset_load dispatches through them.
#include "registry.h"
#include "cifar.h"
#include "data_files.h"
#include "file_read.h"
#include "speech/mfcc.h"
#include "speech/speech_commands.h"
#include "text/text.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static dataset_shape shape_mnist(const dataset_options *opt) { return (dataset_shape){28, 1, 10, 0, 60000}; }
static dataset_shape shape_idx(const dataset_options *opt) { return (dataset_shape){0, 0, 0, 0, -1}; }
static dataset_shape shape_cifar10(const dataset_options *opt) { return (dataset_shape){32, 3, 10, 0, 50000}; }
static dataset_shape shape_cifar100(const dataset_options *opt) { return (dataset_shape){32, 3, 100, 0, 50000}; }

// 1-second clips, one token per 10 ms frame of MFCC_COEFFS coefficients (a sequence model); the
// clip count is known only once the folder is read.
static dataset_shape shape_speech(const dataset_options *opt) {
    int frontend = opt->mfcc_frontend == MFCC_TC_RESNET ? MFCC_TC_RESNET : MFCC_POSBENCH;
    return (dataset_shape){mfcc_clip_frames((mfcc_frontend)frontend), 1, SPEECH_CLASSES, MFCC_COEFFS, -1};
}

// Sequences of the file: 9 in 10 train (text.h); the count from the file's size when it is there.
static dataset_shape shape_text(const dataset_options *opt) {
    dataset_shape s = {opt->seq_len, 1, TEXT_BYTES, 0, -1};
    struct stat st;
    if (opt->seq_len > 0 && stat(opt->path && opt->path[0] ? opt->path : TEXT_DEFAULT_PATH, &st) == 0) {
        long total = (long)(st.st_size / opt->seq_len);
        s.train_n = total - total / TEXT_VALIDATION_EVERY;
    }
    return s;
}

static int load_speech(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    return speech_commands_load(ds, opt, split, err, errlen);
}
static int load_text(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    return text_load(ds, opt, split, err, errlen);
}

static const dataset_kind ENTRIES[] = {
    //  name               labels tokens audio validation vocab       shape           load
    {"fashion-mnist",   1, 0, 0, 0, 0,          shape_mnist,    idx_load},
    {"mnist",           1, 0, 0, 0, 0,          shape_mnist,    idx_load},
    {"idx",             1, 0, 0, 0, 0,          shape_idx,      idx_load},
    {"cifar10",         1, 0, 0, 0, 0,          shape_cifar10,  cifar_load},
    {"cifar100",        1, 0, 0, 0, 0,          shape_cifar100, cifar_load},
    {"speech-commands", 1, 0, 1, 1, 0,          shape_speech,   load_speech},
    {"text",            0, 1, 0, 0, TEXT_VOCAB, shape_text,     load_text},
};
#define N_ENTRIES (int)(sizeof ENTRIES / sizeof ENTRIES[0])

// The table and DATASET_KINDS name the same datasets in the same order.
#define DATASET_COUNT_(id, name) +1
_Static_assert(sizeof ENTRIES / sizeof ENTRIES[0] == 0 DATASET_KINDS(DATASET_COUNT_), "one ENTRIES row per DATASET_KINDS entry");

const dataset_kind *dataset_at(int i) { return i >= 0 && i < N_ENTRIES ? &ENTRIES[i] : NULL; }

const dataset_kind *dataset_find(const char *name) {
    for (int i = 0; name && i < N_ENTRIES; i++)
        if (strcmp(ENTRIES[i].name, name) == 0) return &ENTRIES[i];
    return NULL;
}

int dataset_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    memset(ds, 0, sizeof *ds);
    if (err && errlen) err[0] = '\0';
    const dataset_kind *k = dataset_find(name);
    if (!k) {
        char valid[256] = "";
        for (int i = 0; i < N_ENTRIES; i++)
            snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", ENTRIES[i].name);
        dataset_set_err(err, errlen, "unknown dataset '%s' (valid: %s)", name ? name : "(null)", valid);
        return -1;
    }
    dataset_options none = {0};
    return k->load(ds, name, opt ? opt : &none, split, err, errlen);
}
