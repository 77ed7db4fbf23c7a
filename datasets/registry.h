// datasets/registry.h — the dataset registry: one entry per data.name, with what the rest of the
// code asks of a dataset (whether its examples carry class labels, are byte tokens or audio,
// whether it has a validation split; its token vocabulary), its shape as known before loading
// (image side or sequence length, channels, classes, features, training examples), its loader
// and, for datasets that are not images, its batch and release hooks. The list is
// DATASET_KINDS; each entry is defined beside its loader (idx.c, cifar.c,
// speech/speech_commands.c, text/text.c), so datasets/ itself includes none of its subfolders.
// Nothing outside datasets/ compares a dataset name: it asks its entry
// (tests/test_registries.c greps for it).
#pragma once
#include "dataset.h"

// X(identifier, "data.name"), in the order `data.name` lists them; entry `dataset_<identifier>`.
#define DATASET_KINDS(X) X(fashion_mnist, "fashion-mnist") X(mnist, "mnist") X(idx, "idx") X(cifar10, "cifar10") \
    X(cifar100, "cifar100") X(speech_commands, "speech-commands") X(text, "text")
#define DATASET_CHOICE_(id, name) "|" name
#define DATASET_CHOICES (DATASET_KINDS(DATASET_CHOICE_) + 1) // "fashion-mnist|mnist|...|text": data.name's choices

// A dataset's shape from the run's options alone, before any file is read.
typedef struct {
    int side;       // images: side in px (square); speech: frames per clip; text: bytes per sequence; 0: known only from its files (idx)
    int channels;   // 1 (grey, speech, text) or 3 (RGB); 0 when side is 0
    int classes;    // class labels (text: the token head's outputs, TEXT_BYTES); 0 when side is 0
    int features;   // speech: MFCC coefficients per frame (a sequence model's input width); 0: images, text
    long train_n;   // training examples; -1: known only once its files are read (idx, speech-commands, a text file not there)
    long test_n;    // test examples (text: its validation sequences); -1: known only once its files are read
} dataset_shape;

typedef struct dataset_kind {
    const char *name;   // data.name
    const char *description; // one line: data.name's help and docs/keys.md list it
    int labels;         // 1: every example has a class label (0: text; labels would all be 0)
    int tokens;         // 1: byte-token sequences (data.name=text)
    int audio;          // 1: MFCC frames of clips (speech-commands)
    int validation;     // 1: has a "validation" split besides train and test (train.early_stop needs one)
    int vocab;          // > 0: the token vocabulary of its sequences (the model's token embedding rows); 0: none
    // Its shape under the options (see dataset_shape).
    dataset_shape (*shape)(const dataset_options *opt);
    // Loads a split into *ds (zeroed by dataset_load) and sets ds->kind; contract in dataset.h.
    int (*load)(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen);
    // dataset_make_batch of a dataset that is not images (speech: (B, frames, MFCC_COEFFS) floats;
    // text: (B, L) int32 token ids in the float buffer's storage); NULL: the image batch (batch.c).
    void (*make_batch)(const dataset *ds, const int *indices, int B, const augment_config *aug, uint32_t seed,
                       uint32_t epoch, uint32_t step, float *images, int32_t *labels);
    // Frees what the dataset holds besides pixels, labels and prints (dataset_free); NULL: nothing.
    void (*release)(dataset *ds);
} dataset_kind;

#define DATASET_DECLARE_(id, name) extern const dataset_kind dataset_##id;
DATASET_KINDS(DATASET_DECLARE_)

// The entry of data.name `name`; NULL when no dataset has that name (or name is NULL).
const dataset_kind *dataset_find(const char *name);
// The i-th entry of DATASET_KINDS; NULL past the last.
const dataset_kind *dataset_at(int i);
