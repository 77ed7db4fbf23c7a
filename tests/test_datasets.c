// tests/test_datasets.c — the dataset layer: IDX loading (real Fashion-MNIST when installed,
// generated raw and gzipped IDX files, and every error message), dataset_limit, the seeded
// class-balanced subset, and batch building (normalisation, crop/flip, thread independence).
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../datasets/dataset.h"
#include <ftw.h>
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
    int rc = dataset_load(&ds, name, path, split, err, sizeof err);
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
    int rc = dataset_load(&ds, "fashion-mnist", "", "train", err, sizeof err);
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

    rc = dataset_load(&ds, "fashion-mnist", FMNIST_DIR "/", "test", err, sizeof err);
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
    int rc = dataset_load(&ds, "idx", raw, "train", err, sizeof err);
    test_check("idx raw round trip",
               rc == 0 && tiny_matches(&ds, TINY_N, pixels, labels) && ds.num_classes == 3 &&
                   ds.mean[0] == 0.5f && ds.std[0] == 0.5f && strcmp(ds.name, "idx") == 0 &&
                   strcmp(ds.source, raw) == 0,
               "%s", rc == 0 ? "pixels, labels, 3 classes, 0.5/0.5" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "idx", gz, "train", err, sizeof err);
    test_check("idx gz round trip", rc == 0 && tiny_matches(&ds, TINY_N, pixels, labels) && ds.num_classes == 3,
               "%s", rc == 0 ? "gzipped files give the same pixels and labels" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "idx", gz, "test", err, sizeof err);
    test_check("idx test split", rc == 0 && tiny_matches(&ds, TINY_TEST_N, tpixels, tlabels), "%s",
               rc == 0 ? "t10k files read for split=test" : err);
    if (rc == 0) dataset_free(&ds);
    rc = dataset_load(&ds, "mnist", raw, "test", err, sizeof err);
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
    rc = dataset_load(&ds, "idx", dir, "train", err, sizeof err);
    test_check("idx any labels", rc == 0 && ds.num_classes == 11, "%s",
               rc == 0 ? "data.name=idx: num_classes = max label + 1 = 11" : err);
    if (rc == 0) dataset_free(&ds);
    make_subdir(dir, sizeof dir, root, "zero");
    write_split(dir, "train", 0, TINY_N, 0, TINY_W, pixels, TINY_N, labels);
    expect_error("error zero dimension", "idx", dir, "train", "bad dimensions", "7 images of 0 x 4", NULL);

    // Names, splits, paths.
    expect_error("error unknown dataset", "cifar10", raw, "train", "unknown dataset 'cifar10'", "fashion-mnist",
                 NULL);
    expect_error("error unknown split", "idx", raw, "val", "unknown split 'val'", "train, test", NULL);
    expect_error("error mnist needs path", "mnist", "", "train", "no default directory", "data.path", NULL);
    expect_error("error idx needs path", "idx", NULL, "train", "no default directory", NULL, NULL);
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

    augment_config aug = {2, 1};
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

    augment_config flip_only = {0, 1};
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
    test_limit();
    test_subset();
    test_batches();
    if (nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "test_datasets: could not remove %s\n", root);
    return test_exit_code();
}
