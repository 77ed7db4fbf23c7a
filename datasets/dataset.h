// datasets/dataset.h — the in-memory image classification dataset and everything done to it:
// loading IDX files (idx.c) and CIFAR-10/100 binary files (cifar.c), truncating and
// class-balanced subsetting (subset.c), and building normalised, optionally augmented batches
// (batch.c), also at another resolution (resize_batch.c). Text (data.name=text) is loaded by
// datasets/text/text.h into the same struct.
// Pixels stay uint8 in memory (60000 x 28 x 28 = 47 MB; CIFAR 50000 x 3 x 32 x 32 = 154 MB);
// batches are converted to float on demand.
// Audio (data.name=speech-commands, datasets/speech/): the same struct, each example a clip of
// `height` frames (tokens, 100 per second) x `width` MFCCs (40), channels 1, so a batch is
// (B, 1, frames, 40) = (B, frames, 40) floats; pixels is NULL and `audio` holds the features.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct dataset { // tagged: objectives/objective.h refers to it as struct dataset
    char name[64];          // "fashion-mnist", "mnist", "idx", "cifar10", "cifar100"
    char source[512];       // directory it was read from (CIFAR: the batches directory)
    int n, channels, height, width, num_classes;
    uint8_t *pixels;        // (n, channels, height, width)
    int32_t *labels;        // (n), each in [0, num_classes)
    float mean[3], std[3];  // per-channel normalisation of pixel/255
    // Audio datasets only (NULL otherwise): the run's clip features, shared by the splits of one
    // directory (datasets/speech/speech_commands.h), and row -> clip in it.
    struct speech_store *audio;
    int32_t *clips;         // (n)
    // Text (data.name=text, datasets/text/text.h): > 0, the token vocabulary (bytes + [MASK]);
    // each example is a sequence of `height` bytes in pixels (n, height), width 1, and a batch is
    // (B, height) int32 token ids. 0 otherwise.
    int vocab;
    // The content fingerprints of the files the split was read from (datasets/data_files.h:
    // malloc'd text, one line per file), for the run file and checkpoint; NULL when none.
    char *prints;
    // Its registry entry (datasets/registry.h), set by its loader: how its batches are made and
    // what it holds besides pixels, labels and prints. NULL: an image set built by hand.
    const struct dataset_kind *kind;
} dataset;

// What a loader is told, from the run's data.* keys (bench/experiment/settings.c
// dataset_options_from_config): every loader reads the fields that concern it and no process-wide
// setting. A zeroed struct (but for path) means every key's default but data.seq_len's.
typedef struct {
    const char *path;        // data.path (NULL or "": the dataset's default directory or file, if it has one)
    int seq_len;             // data.seq_len: bytes per sequence (text)
    int mfcc_frontend;       // data.mfcc as an mfcc_frontend (speech-commands; datasets/speech/mfcc.h)
    int refuse_long_clips;   // data.long_clips=refuse: 1 (speech-commands; 0: cut with a warning)
    long long max_bytes;     // data.max_bytes: the largest data file read (< 1: DATA_MAX_BYTES_DEFAULT)
    long limit;              // > 0: only the first `limit` examples are used (data.limit, data.test_limit), so a
                             // loader may keep just those (idx does: ds->n is then at most limit, the rest of
                             // each file still checked unless verified before, datasets/verified_files.h);
                             // dataset_limit(ds, limit) cuts the others the same. <= 0: all
} dataset_options;

// dataset_load: the dataset data.name = `name` through its registry entry (datasets/registry.h),
// or the "unknown dataset" error naming the valid names.
// opt: what the loader is told (NULL: every default, no path). split: "train" or "test"
// ("validation" too where the entry has one). name: "fashion-mnist" (default dir
// /usr/share/datasets/fashion-mnist, Debian package dataset-fashion-mnist), "mnist" (no default dir: path required), or "idx" (any IDX
// directory; path required). A non-empty path overrides the directory. Files looked for in the
// directory: train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz), t10k-images-idx3-ubyte(.gz),
// t10k-labels-idx1-ubyte(.gz); the .gz name is tried first, then the raw name. Both are read with
// zlib (gzopen reads an uncompressed file as is). IDX images are one channel.
// num_classes: fashion-mnist and mnist have exactly 10 (a label >= 10 is an error, so a test split
// missing a class still agrees with train); idx: max label + 1 of the loaded split.
// Normalisation: fashion-mnist mean 0.2860 std 0.3530; mnist 0.1307 / 0.3081; idx 0.5 / 0.5.
// name "cifar10" / "cifar100": the official binary versions (format in cifar.c), 3 x 32 x 32 RGB,
// exactly 10 / 100 classes (CIFAR-100: the fine label). No default dir (CIFAR cannot be downloaded
// here): path is the batches directory or its parent holding cifar-10-batches-bin/ resp.
// cifar-100-binary/. Files (each NAME.gz tried first, then NAME): cifar10 train data_batch_1.bin ..
// data_batch_5.bin (all five), test test_batch.bin; cifar100 train.bin, test.bin. A file holds any
// whole, non-zero number of records. Per-channel (R, G, B) normalisation: cifar10 mean
// (0.4914, 0.4822, 0.4465) std (0.2470, 0.2435, 0.2616); cifar100 (0.5071, 0.4865, 0.4409) /
// (0.2673, 0.2564, 0.2762).
// name "speech-commands": the Speech Commands v1 layout at path (no default; see
// datasets/speech/speech_commands.h): split "train", "validation" or "test", 12 classes
// (_silence_, _unknown_, yes, no, up, down, left, right, on, off, stop, go), examples of
// 100 frames x 40 MFCCs. The image-only steps (crop, flip, resizing) do not apply to it.
// name "text": datasets/text/text.h (opt->seq_len bytes per sequence; "test" the validation split).
// Every file is at most opt->max_bytes (data.max_bytes) long. Sets ds->kind.
// Returns 0, or -1 with a one-line message in err naming the file (and byte offset, for CIFAR also
// the record index, where relevant) and what would be valid; on failure *ds is zeroed and owns nothing.
int dataset_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err,
                 size_t errlen);
// The IDX loader behind fashion-mnist, mnist and idx (idx.c): split "train" or "test".
int idx_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen);
// Frees pixels, labels, prints and what its entry's release hook frees, and zeroes *ds (safe on
// a zeroed or failed dataset).
void dataset_free(dataset *ds);

// Keeps the first `limit` examples (limit <= 0 or >= n: all).
void dataset_limit(dataset *ds, int limit);
// Fixed, seeded, class-balanced subset: for each class c, keeps k_c = round(fraction * count_c)
// of its examples (halves round away from zero; at least 1 if count_c > 0): those at the first k_c
// positions of a Philox permutation of the class's examples drawn from
// rng_stream_make(seed, RNG_SUBSET, 0, 0, c). The kept examples stay in dataset order.
// fraction in (0, 1] (anything else exits with a bad-input error); 1 keeps everything untouched.
void dataset_labeled_subset(dataset *ds, double fraction, uint32_t seed);

typedef struct {
    int crop_pad;   // random crop: pad by this many zero pixels (black, in pixel space, before
                    // normalisation), then crop back to H x W at a random offset in [0, 2*pad]; 0 = off
    int hflip;      // 1: horizontal flip with probability 0.5
    // Audio (speech-commands) training augmentation, the reference recipe's; all 0 = off.
    int time_shift_ms;          // shift each clip by a whole number of 10 ms frames in [-ms, ms]
    float background_frequency; // fraction of word clips mixed with background noise
    float background_volume;    // their noise volume, uniform in [0, this); _silence_: [0, 1)
} augment_config;

// Builds a batch: images (B, C, H, W) normalised as (pixel/255 - mean)/std in float, labels (B).
// indices (B): dataset rows (an index outside [0, n) exits with a run-failed error).
// aug == NULL: no augmentation (evaluation). With augmentation, image b draws from
// rng_stream_make(seed, RNG_AUGMENT, epoch, step, b): the crop's row offset, then its column
// offset (each rng_below(2*pad + 1), drawn only when crop_pad > 0), then the flip
// (rng_uniform < 0.5, drawn only when hflip), so the batch does not depend on thread count.
// The flip is applied after the crop. OpenMP parallel over b.
// Audio datasets: images is (B, frames, 40) MFCCs and the draws are speech_commands.h's.
// Text datasets: images holds (B, L) int32 token ids (text_make_batch), no augmentation.
// The augmentation draws of image b of a batch, as dataset_make_batch makes them: output (y, x)
// reads source (y + dy, x' + dx) (black outside), x' = W - 1 - x when flip, else x. Written out
// for an independent trainer by the crosscheck plan (bench/train/train_plan.c).
void dataset_augment_draw(const augment_config *aug, uint32_t seed, uint32_t epoch, uint32_t step, int b, int *dy, int *dx,
                          int *flip);
void dataset_make_batch(const dataset *ds, const int *indices, int B, const augment_config *aug,
                        uint32_t seed, uint32_t epoch, uint32_t step, float *images, int32_t *labels);

// ---- multi-resolution batches (resize_batch.c) ----
// Floats of scratch dataset_make_batch_sized needs for out_size: 0 when out_size equals the
// native size, else B·C·H·W (the native batch) + out_size·H (the bicubic weight matrix).
// Grows with out_size: allocate once for the largest size a run uses.
size_t dataset_batch_scratch_floats(const dataset *ds, int B, int out_size);
// dataset_make_batch at out_size x out_size: the batch is built at native resolution exactly
// as dataset_make_batch builds it (augmentation, then normalisation), then every channel of
// every image is resized bicubically (resize_bicubic_weights: torch's F.interpolate bicubic,
// align_corners=False, no antialias) with ops_cpu.resize2d_forward. images (B, C, out_size,
// out_size), labels (B); scratch holds dataset_batch_scratch_floats(ds, B, out_size) floats
// (may be NULL when out_size is native). out_size == native gives exactly dataset_make_batch's
// output. The dataset must be square (height == width; else a bad-input exit) and
// out_size >= 1. Independent of thread count.
void dataset_make_batch_sized(const dataset *ds, const int *indices, int B,
                              const augment_config *aug, uint32_t seed, uint32_t epoch,
                              uint32_t step, int out_size, float *images, int32_t *labels,
                              float *scratch);
// UniViT: the training resolution of the batch at (epoch, step): sizes[k] with k uniform in
// [0, n), drawn as rng_below(n) from rng_stream_make(seed, RNG_RESOLUTION, epoch, step, 0).
// n >= 1 (else a run-failed exit).
int resize_draw_size(const int *sizes, int n, uint32_t seed, uint32_t epoch, uint32_t step);
