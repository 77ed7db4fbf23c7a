// tests/test_dataset_limit.c — loading only the first examples a run uses (dataset_options.limit,
// datasets/idx.c) and the per-user cache behind it (core/user_cache.h, datasets/verified_files.h):
//  - a limited load holds exactly the first `limit` rows of the whole load (pixels and labels
//    byte for byte), the same class count (idx: from every label, also those past the limit) and
//    the same file fingerprints; a limit past the end keeps everything; on Fashion-MNIST and on a
//    generated IDX set, with the cache empty (the rest of the file read and checked) and with the
//    file listed as verified (decompression stops after the rows kept);
//  - a damaged file is refused with a limit as without one: a gzip CRC trailer that does not match,
//    a gzip stream cut short after the rows kept, also when an intact file of that name was
//    verified before (its fingerprint no longer matches the cache's line);
//  - the cache files: a round trip, a missing file, a damaged one (a changed byte, a missing crc32
//    line) named and refused, a link refused, and a damaged verified-data file ignored with a
//    warning and rewritten.
// Every cache file goes to a temporary POSBENCH_CACHE_DIR.
#include "testing.h"
#include "../core/common.h"
#include "../core/user_cache.h"
#include "../datasets/dataset.h"
#include "../datasets/verified_files.h"
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define FMNIST_DIR "/usr/share/datasets/fashion-mnist"

static char g_root[256];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

// Empties the cache directory (the verified list goes with it).
static void clear_cache(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/cache/verified-data", g_root);
    unlink(path);
}

// limited holds the first `limit` rows of whole (or all of them when limit >= whole->n), with the
// same shape, class count and fingerprints. why: the first difference.
static int is_prefix(const dataset *whole, const dataset *limited, int limit, char *why, size_t len) {
    int n = limit < whole->n ? limit : whole->n;
    size_t row = (size_t)whole->channels * whole->height * whole->width;
    if (limited->n != n) return snprintf(why, len, "n %d, expected %d", limited->n, n), 0;
    if (limited->height != whole->height || limited->width != whole->width || limited->channels != whole->channels)
        return snprintf(why, len, "shape differs"), 0;
    if (limited->num_classes != whole->num_classes)
        return snprintf(why, len, "classes %d vs %d", limited->num_classes, whole->num_classes), 0;
    if (memcmp(limited->pixels, whole->pixels, (size_t)n * row) != 0) return snprintf(why, len, "pixels differ"), 0;
    if (memcmp(limited->labels, whole->labels, (size_t)n * sizeof *whole->labels) != 0)
        return snprintf(why, len, "labels differ"), 0;
    if (!whole->prints || !limited->prints || strcmp(whole->prints, limited->prints) != 0)
        return snprintf(why, len, "fingerprints differ"), 0;
    return snprintf(why, len, "%d rows, %d classes", n, limited->num_classes), 1;
}

// Loads name/split from dir whole and with each limit, twice (the cache empty, then filled by
// the first loads), and checks each limited load is the whole one's prefix.
static void check_limits(const char *what, const char *name, const char *dir, const char *split, const int *limits, int nlimits) {
    char err[2048], why[256], check[256];
    dataset whole;
    clear_cache();
    if (dataset_load(&whole, name, &(dataset_options){.path = dir}, split, err, sizeof err) != 0) {
        test_fail(what, "whole load: %s", err);
        return;
    }
    for (int pass = 0; pass < 2; pass++) // the first pass reads each file to its end and lists it verified
        for (int k = 0; k < nlimits; k++) {
            dataset part;
            if (pass == 0) clear_cache();
            snprintf(check, sizeof check, "%s: limit %d (%s) is the whole load's prefix", what, limits[k],
                     pass ? "file listed as verified" : "cache empty");
            if (dataset_load(&part, name, &(dataset_options){.path = dir, .limit = limits[k]}, split, err, sizeof err) != 0) {
                test_fail(check, "%s", err);
                continue;
            }
            test_check(check, is_prefix(&whole, &part, limits[k], why, sizeof why), "%s", why);
            dataset_free(&part);
        }
    dataset_free(&whole);
}

// Writes an IDX file, gzipped, of n items of `item` bytes each.
static int write_idx_gz(const char *path, uint32_t magic, const uint32_t *dims, int ndims, const uint8_t *data, size_t len) {
    uint8_t head[16];
    uint32_t words[4] = {magic, dims[0], ndims > 1 ? dims[1] : 0, ndims > 2 ? dims[2] : 0};
    for (int w = 0; w <= ndims; w++)
        for (int k = 0; k < 4; k++) head[4 * w + k] = (uint8_t)(words[w] >> (24 - 8 * k));
    gzFile f = gzopen(path, "wb");
    int ok = f && gzwrite(f, head, (unsigned)(4 + 4 * ndims)) == 4 + 4 * ndims && gzwrite(f, data, (unsigned)len) == (int)len;
    if (f && gzclose(f) != Z_OK) ok = 0;
    return ok ? 0 : -1;
}

enum { GEN_N = 400, GEN_SIDE = 28 };

// A generated IDX training split in dir: GEN_N images of pseudo-random bytes (so the gzip stream
// spans many deflate blocks), labels 0..2 but the last, 7 (idx counts 8 classes from it).
static int write_generated(const char *dir) {
    static uint8_t pixels[GEN_N * GEN_SIDE * GEN_SIDE], labels[GEN_N];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof pixels; i++) {
        x = x * 1103515245u + 12345u;
        pixels[i] = (uint8_t)(x >> 24);
    }
    for (int i = 0; i < GEN_N; i++) labels[i] = (uint8_t)(i % 3);
    labels[GEN_N - 1] = 7;
    char path[512];
    uint32_t idims[3] = {GEN_N, GEN_SIDE, GEN_SIDE}, ldims[1] = {GEN_N};
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    if (write_idx_gz(path, 0x803, idims, 3, pixels, sizeof pixels) != 0) return -1;
    snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte.gz", dir);
    return write_idx_gz(path, 0x801, ldims, 1, labels, sizeof labels);
}

// Reads a whole file into a malloc'd buffer; -1 on failure.
static long slurp(const char *path, uint8_t **data) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    *data = n > 0 ? malloc((size_t)n) : NULL;
    if (!*data || fseek(f, 0, SEEK_SET) != 0 || fread(*data, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

// Replaces path by a new file (a new inode: the process's fingerprint memo cannot mistake it for
// the old one) holding its first `keep` bytes, with the byte at `flip` (if >= 0) inverted.
static int rewrite(const char *path, long keep, long flip) {
    uint8_t *data = NULL;
    long n = slurp(path, &data);
    if (n < 0 || keep > n) return free(data), -1;
    if (flip >= 0 && flip < keep) data[flip] ^= 0xff;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(data, 1, (size_t)keep, f) == (size_t)keep;
    if (f && fclose(f) != 0) ok = 0;
    free(data);
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

static void expect_refused(const char *check, const char *dir, int limit, const char *words) {
    dataset ds;
    char err[2048];
    int rc = dataset_load(&ds, "idx", &(dataset_options){.path = dir, .limit = limit}, "train", err, sizeof err);
    test_check(check, rc != 0 && strstr(err, "train-images-idx3-ubyte.gz") && strstr(err, words), "%s",
               rc ? err : "loaded");
    if (rc == 0) dataset_free(&ds);
}

static void test_generated(void) {
    char dir[512], images[600];
    snprintf(dir, sizeof dir, "%s/gen", g_root);
    snprintf(images, sizeof images, "%s/train-images-idx3-ubyte.gz", dir);
    if (mkdir(dir, 0755) != 0 || write_generated(dir) != 0) {
        test_fail("generated idx", "cannot write %s", dir);
        return;
    }
    static const int limits[] = {1, 10, 399, 400, 1000};
    check_limits("generated idx", "idx", dir, "train", limits, 5);
    uint8_t *data = NULL;
    long size = slurp(images, &data);
    free(data);
    if (size < 64) {
        test_fail("generated idx: damage", "cannot read %s", images);
        return;
    }
    // The CRC-32 trailer changed (the file's last 8 bytes: CRC-32, length), cache empty.
    clear_cache();
    if (rewrite(images, size, size - 8) != 0) return test_fail("generated idx: damage", "cannot rewrite %s", images);
    expect_refused("a limited load refuses a gzip file whose CRC-32 trailer does not match", dir, 10, "corrupt");
    // Verified intact, then damaged: the fingerprint changed, so the file is read whole again.
    if (write_generated(dir) != 0) return test_fail("generated idx: damage", "cannot rewrite %s", dir);
    dataset ds;
    char err[2048];
    int rc = dataset_load(&ds, "idx", &(dataset_options){.path = dir, .limit = 10}, "train", err, sizeof err);
    if (rc == 0) dataset_free(&ds);
    int listed = data_file_verified(images, 0);
    test_check("a file read to its end without error is listed as verified", rc == 0 && listed == 1, "load %s, listed %d",
               rc ? err : "ok", listed);
    if (rewrite(images, size, size - 8) != 0) return test_fail("generated idx: damage", "cannot rewrite %s", images);
    expect_refused("a file damaged after it was verified is read whole again and refused", dir, 10, "corrupt");
    // Cut short after the rows a limit of 10 keeps (about a third of the stream kept).
    if (write_generated(dir) != 0 || rewrite(images, size / 3, -1) != 0)
        return test_fail("generated idx: truncated", "cannot rewrite %s", images);
    expect_refused("a limited load refuses a gzip stream cut short after the rows it keeps", dir, 10, "truncated");
}

static void test_fashion_mnist(void) {
    struct stat st;
    if (stat(FMNIST_DIR "/train-images-idx3-ubyte.gz", &st) != 0) {
        test_skip("fashion-mnist limits", FMNIST_DIR " is absent (the Debian package dataset-fashion-mnist)");
        return;
    }
    static const int train_limits[] = {512, 60000, 70000}, test_limits[] = {200};
    check_limits("fashion-mnist train", "fashion-mnist", "", "train", train_limits, 3);
    check_limits("fashion-mnist test", "fashion-mnist", "", "test", test_limits, 1);
}

// In a child (test_child_stderr): a limited load of the generated set, its result on stderr.
static void load_limited(void *dir) {
    char e[2048];
    dataset d;
    int rc = dataset_load(&d, "idx", &(dataset_options){.path = dir, .limit = 5}, "train", e, sizeof e);
    if (rc == 0) dataset_free(&d);
    fprintf(stderr, "rc=%d %s\n", rc, rc ? e : "");
}

static void test_cache_files(void) {
    char path[4200], err[4600], *body = NULL;
    test_check("cache: a missing file reads as absent", user_cache_read("probe", path, sizeof path, &body, err, sizeof err) == 0,
               "%s", path);
    int w = user_cache_write("probe", "line one\nline two", err, sizeof err);
    int r = user_cache_read("probe", path, sizeof path, &body, err, sizeof err);
    test_check("cache: round trip (a final newline added, the crc32 line removed)",
               w == 0 && r == 1 && body && !strcmp(body, "line one\nline two\n"), "write %d read %d: %zu bytes back", w, r,
               body ? strlen(body) : 0);
    free(body);
    body = NULL;
    if (rewrite(path, 20, 3) != 0) return test_fail("cache: damage", "cannot rewrite %s", path);
    uint8_t *whole = NULL;
    long n = slurp(path, &whole);
    free(whole);
    if (n != 20) return test_fail("cache: damage", "%s: %ld bytes", path, n);
    r = user_cache_read("probe", path, sizeof path, &body, err, sizeof err);
    test_check("cache: a file cut short (no crc32 line) is damaged, named", r == -1 && strstr(err, path) && strstr(err, "damaged"),
               "%d: %s", r, err);
    free(body);
    body = NULL;
    user_cache_write("probe", "line one\nline two\n", err, sizeof err);
    if (rewrite(path, 33, 2) != 0) return test_fail("cache: damage", "cannot rewrite %s", path);
    r = user_cache_read("probe", path, sizeof path, &body, err, sizeof err);
    test_check("cache: a changed byte fails the CRC-32, named", r == -1 && strstr(err, path) && strstr(err, "CRC-32"), "%d: %s",
               r, err);
    free(body);
    body = NULL;
    unlink(path);
    char target[600];
    user_cache_write("elsewhere", "x\n", err, sizeof err);
    snprintf(target, sizeof target, "%s/cache/elsewhere", g_root);
    r = symlink(target, path) == 0 ? user_cache_read("probe", path, sizeof path, &body, err, sizeof err) : 9;
    test_check("cache: a link at the cache file's name is refused", r == -1, "%d: %s", r, err);
    free(body);
    unlink(path);

    // A damaged verified-data file: ignored with a warning (the load still works), then rewritten valid.
    char dir[512], list[600];
    snprintf(dir, sizeof dir, "%s/gen", g_root);
    snprintf(list, sizeof list, "%s/cache/verified-data", g_root);
    if (write_generated(dir) != 0) return test_fail("cache: verified-data", "cannot write %s", dir); // test_generated made dir
    clear_cache();
    dataset ds;
    int rc = dataset_load(&ds, "idx", &(dataset_options){.path = dir, .limit = 5}, "train", err, sizeof err);
    if (rc == 0) dataset_free(&ds);
    uint8_t *data = NULL;
    n = slurp(list, &data);
    free(data);
    if (rc != 0 || n < 20 || rewrite(list, n, 6) != 0) return test_fail("cache: verified-data", "%s", rc ? err : "no list");
    char out[2048];
    test_child_stderr(load_limited, dir, out, sizeof out);
    for (char *c = out; *c; c++) *c = *c == '\n' ? ' ' : *c;
    r = user_cache_read("verified-data", path, sizeof path, &body, err, sizeof err);
    test_check("a damaged verified-data file is named in a warning, the load goes on, the file is rewritten",
               strstr(out, "rc=0") && strstr(out, "warning") && strstr(out, "verified-data") && strstr(out, "damaged") && r == 1 &&
                   body && strstr(body, "train-images-idx3-ubyte.gz"),
               "stderr: %.400s; reread %d", out, r);
    free(body);
}

int main(void) {
    snprintf(g_root, sizeof g_root, "/tmp/posbench-limit.XXXXXX");
    if (!mkdtemp(g_root)) {
        test_fail("test_dataset_limit", "mkdtemp failed");
        return 1;
    }
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", g_root);
    setenv("POSBENCH_CACHE_DIR", cache, 1);
    test_generated();
    test_cache_files();
    test_fashion_mnist();
    nftw(g_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_exit_code();
}
