// tests/test_datasets.c — the dataset layer: IDX loading (real Fashion-MNIST when installed,
// generated raw and gzipped IDX files, and every error message), CIFAR-10/100 binary loading
// (generated tiny files in the official formats, raw and gzipped, and every error message),
// dataset_limit, the seeded class-balanced subset, and batch building (normalisation, crop/flip,
// thread independence).
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../datasets/dataset.h"
#include <ftw.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define FMNIST_DIR "/usr/share/datasets/fashion-mnist"

// ---------------------------------------------------------------- IDX file generation

// Writes an IDX file (big-endian magic and dims, then data), keeping only the first `keep`
// bytes of the whole file (SIZE_MAX: all). gz: through zlib gzopen/gzwrite. Returns 0 or -1.
static int write_idx(const char *path, int gz, uint32_t magic, const uint32_t *dims, int ndims,
                     const uint8_t *data, size_t len, size_t keep) {
    size_t header = 4 + 4 * (size_t)ndims, total = header + len;
    uint8_t *bytes = xmalloc(total, "test idx bytes");
    uint32_t words[4] = {magic, dims[0], ndims > 1 ? dims[1] : 0, ndims > 2 ? dims[2] : 0};
    for (int w = 0; w <= ndims; w++)
        for (int k = 0; k < 4; k++) bytes[4 * w + k] = (uint8_t)(words[w] >> (24 - 8 * k));
    memcpy(bytes + header, data, len);
    if (keep < total) total = keep;
    int ok;
    if (gz) {
        gzFile f = gzopen(path, "wb");
        ok = f != NULL;
        if (ok && total) ok = gzwrite(f, bytes, (unsigned)total) == (int)total;
        if (f && gzclose(f) != Z_OK) ok = 0;
    } else {
        FILE *f = fopen(path, "wb");
        ok = f != NULL;
        if (ok && total) ok = fwrite(bytes, 1, total, f) == total;
        if (f && fclose(f) != 0) ok = 0;
    }
    free(bytes);
    if (!ok) fprintf(stderr, "test_datasets: cannot write %s\n", path);
    return ok ? 0 : -1;
}

// Images file + labels file of one split in dir. n_labels may differ from n to make a mismatch.
static int write_split(const char *dir, const char *prefix, int gz, int n, int rows, int cols,
                       const uint8_t *pixels, int n_labels, const uint8_t *labels) {
    char path[1024];
    uint32_t idims[3] = {(uint32_t)n, (uint32_t)rows, (uint32_t)cols}, ldims[1] = {(uint32_t)n_labels};
    snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte%s", dir, prefix, gz ? ".gz" : "");
    if (write_idx(path, gz, 0x803, idims, 3, pixels, (size_t)n * rows * cols, SIZE_MAX) != 0) return -1;
    snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte%s", dir, prefix, gz ? ".gz" : "");
    return write_idx(path, gz, 0x801, ldims, 1, labels, (size_t)n_labels, SIZE_MAX);
}

static void make_subdir(char *out, size_t outlen, const char *root, const char *name) {
    snprintf(out, outlen, "%s/%s", root, name);
    if (mkdir(out, 0700) != 0) die_fail("test_datasets: mkdir %s failed", out);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    return remove(path);
}

// ---------------------------------------------------------------- checks on loads

static int contains(const char *s, const char *part) { return !part || strstr(s, part) != NULL; }

// dataset_load must fail, with a one-line message holding every non-NULL part, and leave ds zeroed.
static void expect_error(const char *check, const char *name, const char *path, const char *split,
                         const char *part1, const char *part2, const char *part3) {
    dataset ds;
    char err[2048];
    memset(&ds, 0x5a, sizeof ds);
    int rc = dataset_load(&ds, name, &(dataset_options){.path = path}, split, err, sizeof err);
    if (rc == 0) {
        test_fail(check, "loaded n=%d instead of failing", ds.n);
        dataset_free(&ds);
        return;
    }
    int ok = contains(err, part1) && contains(err, part2) && contains(err, part3) &&
             !strchr(err, '\n') && err[0] && ds.pixels == NULL && ds.labels == NULL && ds.n == 0;
    test_check(check, ok, "%s", err);
}

static void test_fashion_mnist(void) {
    struct stat st;
    if (stat(FMNIST_DIR, &st) != 0) {
        const char *why = FMNIST_DIR " is absent (install the Debian package dataset-fashion-mnist)";
        test_skip("fmnist train shape", "%s", why);
        test_skip("fmnist train classes", "%s", why);
        test_skip("fmnist first label", "%s", why);
        test_skip("fmnist pixel statistics", "%s", why);
        test_skip("fmnist test split", "%s", why);
        test_skip("fmnist labelled subset 10%", "%s", why);
        return;
    }
    dataset ds;
    char err[2048];
    double t0 = now_seconds();
    int rc = dataset_load(&ds, "fashion-mnist", &(dataset_options){.path = ""}, "train", err, sizeof err);
    double seconds = now_seconds() - t0;
    if (rc != 0) {
        test_fail("fmnist train shape", "%s", err);
        return;
    }
    test_check("fmnist train shape",
               ds.n == 60000 && ds.channels == 1 && ds.height == 28 && ds.width == 28 &&
                   ds.num_classes == 10 && strcmp(ds.source, FMNIST_DIR) == 0,
               "n=%d %dx%dx%d classes=%d from %s, loaded in %.3f s", ds.n, ds.channels, ds.height,
               ds.width, ds.num_classes, ds.source, seconds);
    int count[10] = {0}, balanced = 1;
    for (int i = 0; i < ds.n; i++) count[ds.labels[i]]++;
    for (int c = 0; c < 10; c++) balanced &= count[c] == 6000;
    test_check("fmnist train classes", balanced, "per-class counts %d %d %d %d %d %d %d %d %d %d (want 6000)",
               count[0], count[1], count[2], count[3], count[4], count[5], count[6], count[7], count[8],
               count[9]);
    test_check("fmnist first label", ds.labels[0] == 9, "first training label %d (Fashion-MNIST: 9, ankle boot)",
               ds.labels[0]);
    size_t total = (size_t)ds.n * 28 * 28;
    int lo = 255, hi = 0;
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < total; i++) {
        int v = ds.pixels[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v / 255.0;
        sumsq += (v / 255.0) * (v / 255.0);
    }
    double mean = sum / total, sd = sqrt(sumsq / total - mean * mean);
    test_check("fmnist pixel statistics",
               lo == 0 && hi == 255 && fabs(mean - ds.mean[0]) < 5e-4 && fabs(sd - ds.std[0]) < 5e-4,
               "pixels in [%d, %d]; mean %.4f std %.4f of pixel/255 (constants %.4f / %.4f)", lo, hi, mean,
               sd, ds.mean[0], ds.std[0]);
    dataset_labeled_subset(&ds, 0.1, 7);
    int sub[10] = {0}, ok = ds.n == 6000;
    for (int i = 0; i < ds.n; i++) sub[ds.labels[i]]++;
    for (int c = 0; c < 10; c++) ok &= sub[c] == 600;
    test_check("fmnist labelled subset 10%", ok, "n=%d, class 0 has %d (want 6000, 600 each)", ds.n, sub[0]);
    dataset_free(&ds);

    rc = dataset_load(&ds, "fashion-mnist", &(dataset_options){.path = FMNIST_DIR "/"}, "test", err, sizeof err);
    if (rc != 0) {
        test_fail("fmnist test split", "%s", err);
        return;
    }
    int tcount[10] = {0};
    for (int i = 0; i < ds.n; i++) tcount[ds.labels[i]]++;
    ok = ds.n == 10000 && ds.num_classes == 10 && ds.height == 28 && ds.width == 28;
    for (int c = 0; c < 10; c++) ok &= tcount[c] == 1000;
    test_check("fmnist test split", ok, "n=%d classes=%d, 1000 per class: %s", ds.n, ds.num_classes,
               ok ? "yes" : "no");
    dataset_free(&ds);
}

// The tiny generated dataset: 7 training images of 3 rows x 4 columns, 5 test images.
enum { TINY_N = 7, TINY_TEST_N = 5, TINY_H = 3, TINY_W = 4 };

static void tiny_data(int n, int salt, uint8_t *pixels, uint8_t *labels) {
    for (int i = 0; i < n; i++) {
        labels[i] = (uint8_t)((i + salt) % 3);
        for (int k = 0; k < TINY_H * TINY_W; k++) pixels[i * TINY_H * TINY_W + k] = (uint8_t)(i * 37 + k * 11 + salt);
    }
}

static int tiny_matches(const dataset *ds, int n, const uint8_t *pixels, const uint8_t *labels) {
    if (ds->n != n || ds->channels != 1 || ds->height != TINY_H || ds->width != TINY_W) return 0;
    if (memcmp(ds->pixels, pixels, (size_t)n * TINY_H * TINY_W) != 0) return 0;
    for (int i = 0; i < n; i++)
        if (ds->labels[i] != labels[i]) return 0;
    return 1;
}

static void test_generated_idx(const char *root) {
    uint8_t pixels[TINY_N * TINY_H * TINY_W], labels[TINY_N];
    uint8_t tpixels[TINY_TEST_N * TINY_H * TINY_W], tlabels[TINY_TEST_N];
    tiny_data(TINY_N, 0, pixels, labels);
    tiny_data(TINY_TEST_N, 1, tpixels, tlabels);
    char raw[512], gz[512], dir[512], path[1024], err[2048];
    make_subdir(raw, sizeof raw, root, "raw");
    make_subdir(gz, sizeof gz, root, "gz");
    if (write_split(raw, "train", 0, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels) != 0 ||
        write_split(raw, "t10k", 0, TINY_TEST_N, TINY_H, TINY_W, tpixels, TINY_TEST_N, tlabels) != 0 ||
        write_split(gz, "train", 1, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels) != 0 ||
        write_split(gz, "t10k", 1, TINY_TEST_N, TINY_H, TINY_W, tpixels, TINY_TEST_N, tlabels) != 0) {
        test_fail("idx write test files", "see stderr");
        return;
    }
    dataset ds;
    int rc = dataset_load(&ds, "idx", &(dataset_options){.path = raw}, "train", err, sizeof err);
    test_check("idx raw round trip",
               rc == 0 && tiny_matches(&ds, TINY_N, pixels, labels) && ds.num_classes == 3 &&
                   ds.mean[0] == 0.5f && ds.std[0] == 0.5f && strcmp(ds.name, "idx") == 0 &&
                   strcmp(ds.source, raw) == 0,
               "%s", rc == 0 ? "pixels, labels, 3 classes, 0.5/0.5" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "idx", &(dataset_options){.path = gz}, "train", err, sizeof err);
    test_check("idx gz round trip", rc == 0 && tiny_matches(&ds, TINY_N, pixels, labels) && ds.num_classes == 3,
               "%s", rc == 0 ? "gzipped files give the same pixels and labels" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "idx", &(dataset_options){.path = gz}, "test", err, sizeof err);
    test_check("idx test split", rc == 0 && tiny_matches(&ds, TINY_TEST_N, tpixels, tlabels), "%s",
               rc == 0 ? "t10k files read for split=test" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "mnist", &(dataset_options){.path = raw}, "test", err, sizeof err);
    test_check("idx as mnist", rc == 0 && ds.num_classes == 10 && ds.mean[0] == 0.1307f && ds.std[0] == 0.3081f,
               "%s", rc == 0 ? "num_classes 10 although labels stop at 2; mnist constants" : err);
    if (rc == 0) dataset_free(&ds);

    // Truncated pixels, raw and gzipped: 16-byte header + 50 of the 84 pixel bytes.
    uint32_t idims[3] = {TINY_N, TINY_H, TINY_W}, ldims[1] = {TINY_N};
    make_subdir(dir, sizeof dir, root, "trunc");
    write_split(dir, "train", 0, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", dir);
    write_idx(path, 0, 0x803, idims, 3, pixels, sizeof pixels, 16 + 50);
    expect_error("error truncated raw", "idx", dir, "train", path, "truncated: expected 84 bytes of pixels",
                 "file ends after 50");
    make_subdir(dir, sizeof dir, root, "truncgz");
    write_split(dir, "train", 1, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    write_idx(path, 1, 0x803, idims, 3, pixels, sizeof pixels, 16 + 50);
    expect_error("error truncated gz", "idx", dir, "train", path, "truncated", "file ends after 50");
    snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte.gz", dir);
    write_idx(path, 1, 0x801, ldims, 1, labels, sizeof labels, 6);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    write_idx(path, 1, 0x803, idims, 3, pixels, sizeof pixels, SIZE_MAX);
    snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte.gz", dir);
    expect_error("error truncated header", "idx", dir, "train", path, "truncated", "IDX label file header is 8 bytes");

    // A gzip stream cut mid-way (the compressed bytes themselves end early).
    enum { BIG = 400 };
    uint8_t *big = xmalloc((size_t)BIG * TINY_H * TINY_W, "test big pixels"), big_labels[BIG];
    rng_stream s = rng_stream_make(5, RNG_TEST, 0, 0, 0);
    for (int i = 0; i < BIG * TINY_H * TINY_W; i++) big[i] = (uint8_t)rng_u32(&s);
    for (int i = 0; i < BIG; i++) big_labels[i] = (uint8_t)(i % 3);
    make_subdir(dir, sizeof dir, root, "cutgz");
    write_split(dir, "train", 1, BIG, TINY_H, TINY_W, big, BIG, big_labels);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    if (truncate(path, 2000) != 0) die_fail("test_datasets: truncate %s failed", path);
    expect_error("error gzip stream cut", "idx", dir, "train", path, "truncated", "gzip stream cut short");
    free(big);

    // Wrong magic: a label file where the images should be, and images where the labels should be.
    make_subdir(dir, sizeof dir, root, "magic");
    write_split(dir, "train", 0, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels);
    snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte", dir);
    write_idx(path, 0, 0x803, idims, 3, pixels, sizeof pixels, SIZE_MAX);
    expect_error("error wrong magic", "idx", dir, "train", path, "bad magic number 0x00000803",
                 "expected 0x00000801 for an IDX label file");
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", dir);
    write_idx(path, 0, 0x03080000, idims, 3, pixels, sizeof pixels, SIZE_MAX);
    expect_error("error byte-swapped magic", "idx", dir, "train", path, "magic", "big-endian");

    // Missing directory, missing file.
    snprintf(dir, sizeof dir, "%s/nope", root);
    expect_error("error missing directory", "idx", dir, "train", dir, "does not exist", "data.path");
    expect_error("error missing fmnist directory", "fashion-mnist", dir, "train", dir, "does not exist",
                 "dataset-fashion-mnist");
    snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte", raw);
    expect_error("error not a directory", "idx", path, "test", path, "not a directory", NULL);
    make_subdir(dir, sizeof dir, root, "missing");
    write_split(dir, "train", 0, TINY_N, TINY_H, TINY_W, pixels, TINY_N, labels);
    snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte", dir);
    if (remove(path) != 0) die_fail("test_datasets: remove %s failed", path);
    expect_error("error missing file", "idx", dir, "train", path, "not found", NULL);

    // Count mismatch, label out of range, zero dimensions.
    make_subdir(dir, sizeof dir, root, "mismatch");
    write_split(dir, "train", 1, TINY_N, TINY_H, TINY_W, pixels, TINY_N - 1, labels);
    expect_error("error count mismatch", "idx", dir, "train", "holds 6 labels", "holds 7 images",
                 "counts must match");
    make_subdir(dir, sizeof dir, root, "range");
    uint8_t wide[TINY_N];
    memcpy(wide, labels, sizeof wide);
    wide[4] = 10;
    write_split(dir, "train", 0, TINY_N, TINY_H, TINY_W, pixels, TINY_N, wide);
    expect_error("error label out of range", "mnist", dir, "train", "label 10 of example 4 (byte offset 12)",
                 "out of range", "0..9");
    rc = dataset_load(&ds, "idx", &(dataset_options){.path = dir}, "train", err, sizeof err);
    test_check("idx any labels", rc == 0 && ds.num_classes == 11, "%s",
               rc == 0 ? "data.name=idx: num_classes = max label + 1 = 11" : err);
    if (rc == 0) dataset_free(&ds);
    make_subdir(dir, sizeof dir, root, "zero");
    write_split(dir, "train", 0, TINY_N, 0, TINY_W, pixels, TINY_N, labels);
    expect_error("error zero dimension", "idx", dir, "train", "bad dimensions", "7 images of 0 x 4", NULL);

    // Names, splits, paths.
    expect_error("error unknown dataset", "cifar-10", raw, "train", "unknown dataset 'cifar-10'", "fashion-mnist",
                 "cifar10, cifar100");
    expect_error("error unknown split", "idx", raw, "val", "unknown split 'val'", "train, test", NULL);
    expect_error("error mnist needs path", "mnist", "", "train", "no default directory", "data.path", NULL);
    expect_error("error idx needs path", "idx", NULL, "train", "no default directory", NULL, NULL);
}

// ---------------------------------------------------------------- CIFAR binary files

// Generated CIFAR directories. CIFAR-10: data_batch_1..5.bin with these record counts (file ids
// 0..4), test_batch.bin (file id 5). CIFAR-100: train.bin (file id 0), test.bin (file id 1).
enum { CIFAR_PIXELS = 3072, C10_TEST_N = 5, C100_TRAIN_N = 9, C100_TEST_N = 4 };
static const int C10_BATCH_N[5] = {3, 2, 4, 1, 2}; // 12 training records in all
static const char *const C10_BATCH[5] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                         "data_batch_4.bin", "data_batch_5.bin"};

// Pixel (c, y, x) of record i of file `file`: the channel moves the value by 85, so a plane
// read into the wrong channel shows.
static uint8_t cifar_px(int file, int i, int c, int y, int x) {
    return (uint8_t)(c * 85 + y * 7 + x * 3 + i * 11 + file * 17);
}
static int cifar10_label(int file, int i) { return (file * 3 + i * 7) % 10; }
static int cifar100_fine(int file, int i) { return (99 + file * 41 + i * 37) % 100; } // record 0 of file 0: 99

// The bytes of a generated file: n records of label_bytes labels (1: the CIFAR-10 label;
// 2: coarse = fine / 5, then fine) and 3072 pixels: the R plane, G plane, B plane, each
// row-major 32 x 32. Caller frees.
static uint8_t *cifar_records(int file, int n, int label_bytes, size_t *len) {
    size_t record = (size_t)label_bytes + CIFAR_PIXELS;
    *len = record * (size_t)n;
    uint8_t *bytes = xmalloc(*len ? *len : 1, "test cifar records");
    for (int i = 0; i < n; i++) {
        uint8_t *r = bytes + record * (size_t)i;
        if (label_bytes == 1) r[0] = (uint8_t)cifar10_label(file, i);
        else r[0] = (uint8_t)(cifar100_fine(file, i) / 5), r[1] = (uint8_t)cifar100_fine(file, i);
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < 32; y++)
                for (int x = 0; x < 32; x++) r[label_bytes + c * 1024 + y * 32 + x] = cifar_px(file, i, c, y, x);
    }
    return bytes;
}

// Writes dir/name (+ ".gz" when gz, through zlib) holding the first `keep` of len bytes.
static int write_bytes(const char *dir, const char *name, int gz, const uint8_t *bytes, size_t len, size_t keep) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, gz ? ".gz" : "");
    if (keep < len) len = keep;
    int ok;
    if (gz) {
        gzFile f = gzopen(path, "wb");
        ok = f != NULL;
        if (ok && len) ok = gzwrite(f, bytes, (unsigned)len) == (int)len;
        if (f && gzclose(f) != Z_OK) ok = 0;
    } else {
        FILE *f = fopen(path, "wb");
        ok = f != NULL;
        if (ok && len) ok = fwrite(bytes, 1, len, f) == len;
        if (f && fclose(f) != 0) ok = 0;
    }
    if (!ok) fprintf(stderr, "test_datasets: cannot write %s\n", path);
    return ok ? 0 : -1;
}

// One generated file, whole.
static int write_cifar_file(const char *dir, const char *name, int gz, int file, int n, int label_bytes) {
    size_t len;
    uint8_t *bytes = cifar_records(file, n, label_bytes, &len);
    int rc = write_bytes(dir, name, gz, bytes, len, SIZE_MAX);
    free(bytes);
    return rc;
}

static int write_cifar10_dir(const char *dir, int gz) {
    for (int f = 0; f < 5; f++)
        if (write_cifar_file(dir, C10_BATCH[f], gz, f, C10_BATCH_N[f], 1) != 0) return -1;
    return write_cifar_file(dir, "test_batch.bin", gz, 5, C10_TEST_N, 1);
}

static int write_cifar100_dir(const char *dir, int gz) {
    if (write_cifar_file(dir, "train.bin", gz, 0, C100_TRAIN_N, 2) != 0) return -1;
    return write_cifar_file(dir, "test.bin", gz, 1, C100_TEST_N, 2);
}

// Does ds hold exactly the records of files first, first+1, ... (sizes[k] records each), in
// order: every label (the fine one for CIFAR-100) and every pixel? why: the first mismatch.
static int cifar_matches(const dataset *ds, int cifar100, int first, const int *sizes, int nfiles, char *why,
                         size_t whylen) {
    int total = 0;
    for (int k = 0; k < nfiles; k++) total += sizes[k];
    if (ds->n != total || ds->channels != 3 || ds->height != 32 || ds->width != 32) {
        snprintf(why, whylen, "n=%d %dx%dx%d (want %d 3x32x32)", ds->n, ds->channels, ds->height, ds->width, total);
        return 0;
    }
    int row = 0;
    for (int k = 0; k < nfiles; k++)
        for (int i = 0; i < sizes[k]; i++, row++) {
            int file = first + k, want = cifar100 ? cifar100_fine(file, i) : cifar10_label(file, i);
            if (ds->labels[row] != want) {
                snprintf(why, whylen, "row %d: label %d, want %d", row, ds->labels[row], want);
                return 0;
            }
            for (int c = 0; c < 3; c++)
                for (int y = 0; y < 32; y++)
                    for (int x = 0; x < 32; x++) {
                        int got = ds->pixels[(((size_t)row * 3 + c) * 32 + y) * 32 + x];
                        if (got != cifar_px(file, i, c, y, x)) {
                            snprintf(why, whylen, "row %d pixel (c %d, y %d, x %d): %d, want %d", row, c, y, x, got,
                                     cifar_px(file, i, c, y, x));
                            return 0;
                        }
                    }
        }
    snprintf(why, whylen, "%d rows: labels and all %d pixel bytes each match", total, CIFAR_PIXELS);
    return 1;
}

// Loads name/path/split and checks it against the generated files. Returns 1 when it matched.
static int check_cifar_load(const char *check, const char *name, const char *path, const char *split,
                            const char *want_source, int first, const int *sizes, int nfiles) {
    dataset ds;
    char err[2048], why[256];
    if (dataset_load(&ds, name, &(dataset_options){.path = path}, split, err, sizeof err) != 0) {
        test_fail(check, "%s", err);
        return 0;
    }
    int cifar100 = strcmp(name, "cifar100") == 0;
    int ok = cifar_matches(&ds, cifar100, first, sizes, nfiles, why, sizeof why) &&
             strcmp(ds.name, name) == 0 && strcmp(ds.source, want_source) == 0;
    test_check(check, ok, "%s; source %s", why, ds.source);
    dataset_free(&ds);
    return ok;
}

static void test_cifar_loads(const char *root) {
    char p10[512], d10[600], gz10[512], p100[512], d100[600], gz100[512], withslash[700], err[2048];
    make_subdir(p10, sizeof p10, root, "c10parent");
    make_subdir(d10, sizeof d10, p10, "cifar-10-batches-bin");
    make_subdir(gz10, sizeof gz10, root, "c10gz");
    make_subdir(p100, sizeof p100, root, "c100parent");
    make_subdir(d100, sizeof d100, p100, "cifar-100-binary");
    make_subdir(gz100, sizeof gz100, root, "c100gz");
    if (write_cifar10_dir(d10, 0) != 0 || write_cifar10_dir(gz10, 1) != 0 || write_cifar100_dir(d100, 0) != 0 ||
        write_cifar100_dir(gz100, 1) != 0) {
        test_fail("cifar write test files", "see stderr");
        return;
    }
    dataset ds;
    int rc = dataset_load(&ds, "cifar10", &(dataset_options){.path = d10}, "train", err, sizeof err);
    int ok = rc == 0 && ds.n == 12 && ds.channels == 3 && ds.height == 32 && ds.width == 32 && ds.num_classes == 10 &&
             ds.mean[0] == 0.4914f && ds.mean[1] == 0.4822f && ds.mean[2] == 0.4465f && ds.std[0] == 0.2470f &&
             ds.std[1] == 0.2435f && ds.std[2] == 0.2616f;
    if (rc == 0)
        test_check("cifar10 train shape", ok, "n=%d (5 batches of 3+2+4+1+2) %dx%dx%d classes=%d mean %.4f %.4f %.4f "
                   "std %.4f %.4f %.4f", ds.n, ds.channels, ds.height, ds.width, ds.num_classes, ds.mean[0],
                   ds.mean[1], ds.mean[2], ds.std[0], ds.std[1], ds.std[2]);
    else test_fail("cifar10 train shape", "%s", err);
    if (rc == 0) {
        // Record 2 of data_batch_3.bin is row 3 + 2 + 2 = 7: its R, G, B planes at two positions.
        int planes = 1;
        for (int c = 0; c < 3; c++) {
            planes &= ds.pixels[(size_t)7 * CIFAR_PIXELS + c * 1024 + 5 * 32 + 9] == cifar_px(2, 2, c, 5, 9);
            planes &= ds.pixels[(size_t)7 * CIFAR_PIXELS + c * 1024 + 31 * 32 + 0] == cifar_px(2, 2, c, 31, 0);
        }
        test_check("cifar10 RGB planes", planes && ds.labels[7] == cifar10_label(2, 2),
                   "row 7 (data_batch_3.bin record 2): file bytes 1+c*1024+y*32+x are pixel (c, y, x): "
                   "R %d G %d B %d at (5, 9)", ds.pixels[7 * CIFAR_PIXELS + 169], ds.pixels[7 * CIFAR_PIXELS + 1024 + 169],
                   ds.pixels[7 * CIFAR_PIXELS + 2048 + 169]);
        dataset_free(&ds);
    }
    int one = C10_TEST_N, c100_train = C100_TRAIN_N, c100_test = C100_TEST_N;
    check_cifar_load("cifar10 train labels and pixels", "cifar10", d10, "train", d10, 0, C10_BATCH_N, 5);
    check_cifar_load("cifar10 test split", "cifar10", d10, "test", d10, 5, &one, 1);
    check_cifar_load("cifar10 parent directory", "cifar10", p10, "train", d10, 0, C10_BATCH_N, 5);
    snprintf(withslash, sizeof withslash, "%s//", p10);
    check_cifar_load("cifar10 parent directory with slashes", "cifar10", withslash, "test", d10, 5, &one, 1);
    check_cifar_load("cifar10 gz files", "cifar10", gz10, "train", gz10, 0, C10_BATCH_N, 5);
    check_cifar_load("cifar10 gz test split", "cifar10", gz10, "test", gz10, 5, &one, 1);

    rc = dataset_load(&ds, "cifar100", &(dataset_options){.path = d100}, "train", err, sizeof err);
    ok = rc == 0 && ds.n == C100_TRAIN_N && ds.channels == 3 && ds.height == 32 && ds.width == 32 &&
         ds.num_classes == 100 && ds.labels[0] == 99 && ds.mean[0] == 0.5071f && ds.mean[1] == 0.4865f &&
         ds.mean[2] == 0.4409f && ds.std[0] == 0.2673f && ds.std[1] == 0.2564f && ds.std[2] == 0.2762f;
    if (rc == 0)
        test_check("cifar100 train shape", ok, "n=%d %dx%dx%d classes=%d, first label %d (fine label 99, coarse 19); "
                   "mean %.4f %.4f %.4f std %.4f %.4f %.4f", ds.n, ds.channels, ds.height, ds.width, ds.num_classes,
                   ds.labels[0], ds.mean[0], ds.mean[1], ds.mean[2], ds.std[0], ds.std[1], ds.std[2]);
    else test_fail("cifar100 train shape", "%s", err);
    if (rc == 0) dataset_free(&ds);
    check_cifar_load("cifar100 fine labels and pixels", "cifar100", d100, "train", d100, 0, &c100_train, 1);
    check_cifar_load("cifar100 test split", "cifar100", d100, "test", d100, 1, &c100_test, 1);
    check_cifar_load("cifar100 parent directory", "cifar100", p100, "test", d100, 1, &c100_test, 1);
    check_cifar_load("cifar100 gz files", "cifar100", gz100, "train", gz100, 0, &c100_train, 1);
}

// dataset_make_batch on CIFAR rows: each channel normalised with its own constants.
static void test_cifar_batch(const char *root) {
    char dir[512], err[2048];
    make_subdir(dir, sizeof dir, root, "c10batch");
    dataset ds;
    if (write_cifar10_dir(dir, 0) != 0 || dataset_load(&ds, "cifar10", &(dataset_options){.path = dir}, "train", err, sizeof err) != 0) {
        test_fail("cifar10 batch per-channel normalisation", "%s", err);
        return;
    }
    enum { B = 3 };
    const int rows[B] = {0, 7, 11}, file[B] = {0, 2, 4}, rec[B] = {0, 2, 1}; // row -> (batch file, record)
    const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, std[3] = {0.2470f, 0.2435f, 0.2616f};
    float *x = xmalloc((size_t)B * CIFAR_PIXELS * sizeof(float), "test cifar batch");
    int32_t labels[B];
    dataset_make_batch(&ds, rows, B, NULL, 0, 0, 0, x, labels);
    int ok = 1;
    float worst = 0;
    for (int b = 0; b < B; b++) {
        ok &= labels[b] == cifar10_label(file[b], rec[b]);
        for (int c = 0; c < 3; c++) {
            int v = cifar_px(file[b], rec[b], c, 12, 20);
            float want = ((float)v / 255.0f - mean[c]) / std[c];
            float got = x[(size_t)b * CIFAR_PIXELS + c * 1024 + 12 * 32 + 20], diff = fabsf(got - want);
            worst = diff > worst ? diff : worst;
            ok &= diff <= 1e-6f * fabsf(want) + 1e-7f;
        }
    }
    test_check("cifar10 batch per-channel normalisation", ok,
               "pixel (12, 20) of 3 rows, each channel (v/255 - mean[c])/std[c] with the CIFAR-10 constants; "
               "worst |diff| %.2g", worst);
    free(x);
    dataset_free(&ds);
}

// Bytes allocated and not freed (glibc mallinfo2: heap chunks plus mmap'ed large blocks).
static long long heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long long)m.uordblks + (long long)m.hblkhd;
}

// expect_error, and the failed load leaves the heap as it found it (nothing leaked on the error path).
static void expect_cifar_error(const char *check, const char *name, const char *path, const char *split,
                               const char *part1, const char *part2, const char *part3) {
    dataset ds;
    char err[2048];
    // A first, unmeasured load warms the allocator's per-size caches (a chunk freed into glibc's
    // tcache still counts as in use), so the measured one sees only what the load itself keeps.
    if (dataset_load(&ds, name, &(dataset_options){.path = path}, split, err, sizeof err) == 0) dataset_free(&ds);
    memset(&ds, 0x5a, sizeof ds);
    long long before = heap_in_use();
    int rc = dataset_load(&ds, name, &(dataset_options){.path = path}, split, err, sizeof err);
    long long leaked = heap_in_use() - before;
    if (rc == 0) {
        test_fail(check, "loaded n=%d instead of failing", ds.n);
        dataset_free(&ds);
        return;
    }
    int ok = contains(err, part1) && contains(err, part2) && contains(err, part3) && !strchr(err, '\n') && err[0] &&
             ds.pixels == NULL && ds.labels == NULL && ds.n == 0 && leaked == 0;
    test_check(check, ok, "%s [heap after - before: %lld bytes]", err, leaked);
}

// A copy of the raw CIFAR-10 directory under root/name, ready to be broken one file at a time.
static void cifar10_copy(char *dir, size_t len, const char *root, const char *name) {
    make_subdir(dir, len, root, name);
    if (write_cifar10_dir(dir, 0) != 0) die_fail("test_datasets: cannot write %s", dir);
}

static void test_cifar_errors(const char *root) {
    char dir[512], path[1024], part[2100];
    size_t len;
    uint8_t *bytes;

    // No path, missing directory, not a directory, a missing file: all say where the files go.
    expect_cifar_error("cifar10 error no path", "cifar10", "", "train", "no default directory", "cannot be downloaded",
                 "data_batch_1.bin, data_batch_2.bin, data_batch_3.bin, data_batch_4.bin, data_batch_5.bin and "
                 "test_batch.bin");
    expect_cifar_error("cifar100 error no path", "cifar100", NULL, "test", "cannot be downloaded", "train.bin and test.bin",
                 "cifar-100-binary/");
    snprintf(dir, sizeof dir, "%s/no-cifar", root);
    snprintf(part, sizeof part, "dataset directory %s does not exist", dir);
    expect_cifar_error("cifar10 error missing directory", "cifar10", dir, "train", part, "cannot be downloaded",
                 "cifar-10-batches-bin/");
    cifar10_copy(dir, sizeof dir, root, "c10missing");
    snprintf(path, sizeof path, "%s/data_batch_4.bin", dir);
    if (remove(path) != 0) die_fail("test_datasets: remove %s failed", path);
    snprintf(part, sizeof part, "%s not found (nor %s.gz)", path, path);
    expect_cifar_error("cifar10 error missing batch", "cifar10", dir, "train", part, "cannot be downloaded", "test_batch.bin");
    dataset ds;
    char err[2048];
    int rc = dataset_load(&ds, "cifar10", &(dataset_options){.path = dir}, "test", err, sizeof err);
    test_check("cifar10 test split without a train batch", rc == 0 && ds.n == C10_TEST_N, "%s",
               rc == 0 ? "test_batch.bin alone is enough for split=test" : err);
    if (rc == 0) dataset_free(&ds);
    snprintf(path, sizeof path, "%s/test_batch.bin", dir);
    expect_cifar_error("cifar10 error not a directory", "cifar10", path, "test", "is not a directory", path,
                 "cannot be downloaded");
    expect_cifar_error("cifar10 error unknown split", "cifar10", dir, "val", "unknown split 'val' for dataset cifar10",
                 "train, test", NULL);

    // Truncated: data_batch_2.bin loses the last 100 bytes of its 2 records (6046 of 6146 bytes).
    cifar10_copy(dir, sizeof dir, root, "c10trunc");
    bytes = cifar_records(1, 2, 1, &len);
    write_bytes(dir, "data_batch_2.bin", 0, bytes, len, len - 100);
    snprintf(part, sizeof part, "%s/data_batch_2.bin: size 6046 bytes (= 1 x 3073 + 2973)", dir);
    expect_cifar_error("cifar10 error truncated file", "cifar10", dir, "train", part,
                 "not a whole number of 3073-byte CIFAR-10 records", "truncated download");
    free(bytes);
    make_subdir(dir, sizeof dir, root, "c100truncgz");
    write_cifar100_dir(dir, 1);
    bytes = cifar_records(1, C100_TEST_N, 2, &len);
    write_bytes(dir, "test.bin", 1, bytes, len, len - 1);
    snprintf(part, sizeof part, "%s/test.bin.gz: size %zu bytes", dir, len - 1);
    expect_cifar_error("cifar100 error truncated gz file", "cifar100", dir, "test", part, "3074-byte CIFAR-100 records",
                 "truncated download");
    free(bytes);

    // A gzip stream cut mid-way: the compressed bytes end early (pixels random, so they do not shrink).
    make_subdir(dir, sizeof dir, root, "c10cutgz");
    write_cifar10_dir(dir, 1);
    bytes = cifar_records(0, 20, 1, &len);
    rng_stream s = rng_stream_make(5, RNG_TEST, 0, 0, 1);
    for (size_t i = 0; i < len; i++)
        if (i % 3073 != 0) bytes[i] = (uint8_t)rng_u32(&s);
    write_bytes(dir, "data_batch_1.bin", 1, bytes, len, SIZE_MAX);
    free(bytes);
    snprintf(path, sizeof path, "%s/data_batch_1.bin.gz", dir);
    if (truncate(path, 20000) != 0) die_fail("test_datasets: truncate %s failed", path);
    expect_cifar_error("cifar10 error gzip stream cut", "cifar10", dir, "train", path, "truncated: gzip stream cut short",
                 NULL);

    // Empty file.
    cifar10_copy(dir, sizeof dir, root, "c10empty");
    write_bytes(dir, "test_batch.bin", 0, (const uint8_t *)"", 0, 0);
    snprintf(part, sizeof part, "%s/test_batch.bin: empty file", dir);
    expect_cifar_error("cifar10 error empty file", "cifar10", dir, "test", part, "3073-byte records", NULL);

    // Labels out of range: CIFAR-10 label 10 in record 2 of data_batch_3.bin (byte 2 * 3073);
    // CIFAR-100 fine label 100 in record 1 of test.bin (byte 3074 + 1), coarse label 20 in record 3.
    cifar10_copy(dir, sizeof dir, root, "c10range");
    bytes = cifar_records(2, C10_BATCH_N[2], 1, &len);
    bytes[2 * 3073] = 10;
    write_bytes(dir, "data_batch_3.bin", 0, bytes, len, SIZE_MAX);
    free(bytes);
    snprintf(part, sizeof part, "%s/data_batch_3.bin: label 10 of record 2 (byte offset 6146) is out of range", dir);
    expect_cifar_error("cifar10 error label out of range", "cifar10", dir, "train", part, "cifar10 has 10 classes",
                 "labels must be 0..9");
    make_subdir(dir, sizeof dir, root, "c100range");
    write_cifar100_dir(dir, 1);
    bytes = cifar_records(1, C100_TEST_N, 2, &len);
    bytes[3074 + 1] = 100;
    write_bytes(dir, "test.bin", 1, bytes, len, SIZE_MAX);
    snprintf(part, sizeof part, "%s/test.bin.gz: fine label 100 of record 1 (byte offset 3075) is out of range", dir);
    expect_cifar_error("cifar100 error fine label out of range", "cifar100", dir, "test", part, "100 classes",
                 "labels must be 0..99");
    bytes[3074 + 1] = 5;
    bytes[3 * 3074] = 20;
    write_bytes(dir, "test.bin", 1, bytes, len, SIZE_MAX);
    snprintf(part, sizeof part, "%s/test.bin.gz: coarse label 20 of record 3 (byte offset 9222) is out of range", dir);
    expect_cifar_error("cifar100 error coarse label out of range", "cifar100", dir, "test", part, "20 coarse classes",
                 "0..19");
    free(bytes);
}

static void test_cifar(const char *root) {
    test_cifar_loads(root);
    test_cifar_batch(root);
    test_cifar_errors(root);
}

// ---------------------------------------------------------------- limit and subset

// In-memory dataset whose 2x2 image encodes the row number, so order and pairing can be checked.
static dataset synthetic_for_subset(int n) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = n;
    ds.channels = 1;
    ds.height = ds.width = 2;
    ds.num_classes = 10;
    ds.pixels = xmalloc((size_t)n * 4, "test pixels");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "test labels");
    for (int i = 0; i < n; i++) {
        int label = i % 11 == 0 ? 7 + i % 3 : (i * i + 3 * i) % 7; // uneven class sizes
        if (i % 97 == 5) label = 9;
        ds.labels[i] = label;
        ds.pixels[4 * i + 0] = (uint8_t)(i & 255);
        ds.pixels[4 * i + 1] = (uint8_t)(i >> 8);
        ds.pixels[4 * i + 2] = (uint8_t)label;
        ds.pixels[4 * i + 3] = 0;
    }
    for (int c = 0; c < 3; c++) ds.mean[c] = 0.5f, ds.std[c] = 0.5f;
    return ds;
}

static int original_row(const dataset *ds, int i) { return ds->pixels[4 * i] | ds->pixels[4 * i + 1] << 8; }

static void test_limit(void) {
    dataset ds = synthetic_for_subset(100);
    dataset_limit(&ds, 0);
    int ok = ds.n == 100;
    dataset_limit(&ds, 250);
    ok &= ds.n == 100;
    dataset_limit(&ds, 17);
    ok &= ds.n == 17;
    for (int i = 0; i < ds.n; i++) ok &= original_row(&ds, i) == i;
    test_check("dataset_limit", ok, "limit 0 and 250 keep 100; limit 17 keeps rows 0..16 (n=%d)", ds.n);
    dataset_free(&ds);
}

static void test_subset(void) {
    enum { N = 3000 };
    dataset full = synthetic_for_subset(N);
    int count[10] = {0};
    for (int i = 0; i < N; i++) count[full.labels[i]]++;
    const double fractions[] = {0.1, 0.37, 0.5, 0.0001};
    for (int f = 0; f < 4; f++) {
        dataset ds = synthetic_for_subset(N);
        dataset_labeled_subset(&ds, fractions[f], 11);
        int got[10] = {0}, ok = 1, expected_n = 0;
        for (int i = 0; i < ds.n; i++) {
            got[ds.labels[i]]++;
            int row = original_row(&ds, i);
            ok &= row >= 0 && row < N && full.labels[row] == ds.labels[i] && ds.pixels[4 * i + 2] == ds.labels[i];
            if (i > 0) ok &= row > original_row(&ds, i - 1); // dataset order kept
        }
        for (int c = 0; c < 10; c++) {
            long want = lround(fractions[f] * count[c]);
            if (want < 1 && count[c] > 0) want = 1;
            ok &= got[c] == want;
            expected_n += (int)want;
        }
        char name[64];
        snprintf(name, sizeof name, "subset balance and order f=%g", fractions[f]);
        test_check(name, ok && ds.n == expected_n,
                   "n=%d (want %d); class 0: %d of %d; rows increasing, labels paired with their images", ds.n,
                   expected_n, got[0], count[0]);
        dataset_free(&ds);
    }
    dataset a = synthetic_for_subset(N), b = synthetic_for_subset(N), c = synthetic_for_subset(N);
    dataset_labeled_subset(&a, 0.2, 3);
    dataset_labeled_subset(&b, 0.2, 3);
    dataset_labeled_subset(&c, 0.2, 4);
    int same = a.n == b.n && memcmp(a.pixels, b.pixels, (size_t)a.n * 4) == 0 &&
               memcmp(a.labels, b.labels, (size_t)a.n * sizeof *a.labels) == 0;
    int differs = a.n != c.n || memcmp(a.pixels, c.pixels, (size_t)a.n * 4) != 0;
    test_check("subset deterministic", same, "seed 3 twice: identical %d-example subsets", a.n);
    test_check("subset seed matters", differs, "seeds 3 and 4 choose different examples");
    dataset_free(&a);
    dataset_free(&b);
    dataset_free(&c);
    dataset d = synthetic_for_subset(N);
    dataset_labeled_subset(&d, 1.0, 3);
    test_check("subset fraction 1", d.n == N && memcmp(d.pixels, full.pixels, (size_t)N * 4) == 0,
               "keeps all %d examples untouched", d.n);
    dataset_free(&d);
    dataset_free(&full);
}

// ---------------------------------------------------------------- batches

static dataset synthetic_images(int n, int C, int H, int W) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = n;
    ds.channels = C;
    ds.height = H;
    ds.width = W;
    ds.num_classes = 10;
    size_t row = (size_t)C * H * W;
    ds.pixels = xmalloc((size_t)n * row, "test pixels");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "test labels");
    rng_stream s = rng_stream_make(9, RNG_TEST, 0, 0, 1);
    for (size_t i = 0; i < (size_t)n * row; i++) ds.pixels[i] = (uint8_t)(1 + rng_below(&s, 255)); // never black
    for (int i = 0; i < n; i++) ds.labels[i] = (int32_t)(i % 10);
    const float means[3] = {0.2860f, 0.45f, 0.1f}, stds[3] = {0.3530f, 0.25f, 0.7f};
    for (int c = 0; c < 3; c++) ds.mean[c] = means[c], ds.std[c] = stds[c];
    return ds;
}

static float norm(const dataset *ds, int c, int v) { return ((float)v / 255.0f - ds->mean[c]) / ds->std[c]; }

// Does out (C, H, W) equal source row `src` shifted by (dy, dx), maybe flipped, with black padding?
static int is_shifted(const dataset *ds, const float *out, int src, int dy, int dx, int flip) {
    int C = ds->channels, H = ds->height, W = ds->width;
    const uint8_t *p = ds->pixels + (size_t)src * C * H * W;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int sy = y + dy, sx = (flip ? W - 1 - x : x) + dx;
                int v = sy >= 0 && sy < H && sx >= 0 && sx < W ? p[((size_t)c * H + sy) * W + sx] : 0;
                if (out[((size_t)c * H + y) * W + x] != norm(ds, c, v)) return 0;
            }
    return 1;
}

static void test_batches(void) {
    enum { N = 50, B = 64, C = 3, H = 8, W = 6 };
    dataset ds = synthetic_images(N, C, H, W);
    size_t per = (size_t)C * H * W;
    int idx[B];
    for (int b = 0; b < B; b++) idx[b] = (b * 7 + 3) % N;
    float *x = xmalloc(B * per * sizeof(float), "test batch"), *y = xmalloc(B * per * sizeof(float), "test batch");
    int32_t lab[B], lab2[B];

    dataset_make_batch(&ds, idx, B, NULL, 1, 0, 0, x, lab);
    int ok = 1;
    for (int b = 0; b < B; b++) {
        ok &= lab[b] == ds.labels[idx[b]];
        for (int c = 0; c < C; c++)
            for (size_t i = 0; i < (size_t)H * W; i++)
                ok &= x[b * per + c * H * W + i] == norm(&ds, c, ds.pixels[idx[b] * per + c * H * W + i]);
    }
    test_check("batch no-aug normalisation exact", ok, "(pixel/255 - mean[c])/std[c] for 3 channels, bitwise");

    augment_config aug = {.crop_pad = 2, .hflip = 1};
    dataset_make_batch(&ds, idx, B, &aug, 5, 1, 7, x, lab);
    dataset_make_batch(&ds, idx, B, &aug, 5, 1, 7, y, lab2);
    test_check("batch aug reproducible", memcmp(x, y, B * per * sizeof(float)) == 0 && memcmp(lab, lab2, sizeof lab) == 0,
               "same (seed, epoch, step): bitwise equal");
    dataset_make_batch(&ds, idx, B, &aug, 5, 1, 8, y, lab2);
    int step_differs = memcmp(x, y, B * per * sizeof(float)) != 0;
    dataset_make_batch(&ds, idx, B, &aug, 5, 2, 7, y, lab2);
    int epoch_differs = memcmp(x, y, B * per * sizeof(float)) != 0;
    dataset_make_batch(&ds, idx, B, &aug, 6, 1, 7, y, lab2);
    int seed_differs = memcmp(x, y, B * per * sizeof(float)) != 0;
    test_check("batch aug varies", step_differs && epoch_differs && seed_differs,
               "different step %d, epoch %d, seed %d", step_differs, epoch_differs, seed_differs);

    int all_match = 1, flips = 0, shifted = 0, used[5][5] = {{0}}, distinct = 0;
    for (int b = 0; b < B; b++) {
        int found = 0;
        for (int dy = -2; dy <= 2 && !found; dy++)
            for (int dx = -2; dx <= 2 && !found; dx++)
                for (int flip = 0; flip <= 1 && !found; flip++)
                    if (is_shifted(&ds, x + b * per, idx[b], dy, dx, flip)) {
                        found = 1;
                        flips += flip;
                        shifted += dy != 0 || dx != 0;
                        if (!used[dy + 2][dx + 2]++) distinct++;
                    }
        all_match &= found;
    }
    test_check("batch crop+flip geometry", all_match && flips > 0 && flips < B && distinct >= 15,
               "every image is its source shifted by (dy,dx) in [-2,2]^2, maybe flipped, black padding; "
               "%d flipped, %d shifted, %d of 25 offsets seen in %d images", flips, shifted, distinct, B);

    augment_config flip_only = {.crop_pad = 0, .hflip = 1};
    dataset_make_batch(&ds, idx, B, &flip_only, 5, 0, 0, x, lab);
    int flip_ok = 1;
    flips = 0;
    for (int b = 0; b < B; b++) {
        int plain = is_shifted(&ds, x + b * per, idx[b], 0, 0, 0), flipped = is_shifted(&ds, x + b * per, idx[b], 0, 0, 1);
        flip_ok &= plain || flipped;
        flips += flipped;
    }
    test_check("batch flip only", flip_ok && flips > 0 && flips < B, "%d of %d images flipped, the rest untouched",
               flips, B);

    int saved = posbench_threads();
    posbench_set_threads(1);
    dataset_make_batch(&ds, idx, B, &aug, 5, 3, 9, x, lab);
    posbench_set_threads(2);
    dataset_make_batch(&ds, idx, B, &aug, 5, 3, 9, y, lab2);
    posbench_set_threads(saved);
    test_check("batch thread independence", memcmp(x, y, B * per * sizeof(float)) == 0 && memcmp(lab, lab2, sizeof lab) == 0,
               "1 and 2 OpenMP threads give bitwise equal augmented batches");
    free(x);
    free(y);
    dataset_free(&ds);
}

int main(void) {
    char root[] = "/tmp/posbench_test_datasets_XXXXXX";
    if (!mkdtemp(root)) die_fail("test_datasets: mkdtemp failed");
    test_fashion_mnist();
    test_generated_idx(root);
    test_cifar(root);
    test_limit();
    test_subset();
    test_batches();
    if (nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "test_datasets: could not remove %s\n", root);
    return test_exit_code();
}
