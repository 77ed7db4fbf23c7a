// datasets/cifar.c — loading CIFAR-10 and CIFAR-100 from their official *binary* versions
// (https://www.cs.toronto.edu/~kriz/cifar.html), raw or gzipped.
// CIFAR-10 (cifar-10-binary.tar.gz, directory cifar-10-batches-bin/): split train is
//   data_batch_1.bin ... data_batch_5.bin, in that order (all five required); split test is
//   test_batch.bin. Each record is 3073 bytes: 1 label byte (0..9), then 3072 pixel bytes.
// CIFAR-100 (cifar-100-binary.tar.gz, directory cifar-100-binary/): train.bin and test.bin.
//   Each record is 3074 bytes: coarse label (0..19), fine label (0..99), then 3072 pixel bytes.
//   The fine label is the class (100 classes); the coarse label is only range-checked.
// Pixels: 1024 red bytes, then 1024 green, then 1024 blue, each plane row-major 32 x 32: exactly
// the dataset's (channels, height, width) uint8 layout, so a record's pixels copy straight in.
// The files have no header and no record count. The official files hold 10000 (CIFAR-10 batches,
// both test files) or 50000 (CIFAR-100 train.bin) records, but any whole, non-zero number of
// records is accepted (tests write tiny files); a size that is not a multiple of the record size
// is an error (truncated download, or not the binary version). Class-name files
// (batches.meta.txt, coarse/fine_label_names.txt) are optional and not read.
// Directory: data.path is the batches directory itself, or its parent: when DIR/<batches dir> is
// a directory, that is read. There is no default directory (CIFAR cannot be downloaded on this
// machine). Each file is looked for as NAME.gz first, then NAME; both are read through zlib
// (gzopen reads an uncompressed file as is), a chunk of whole records at a time.
#include "cifar.h"
#include "registry.h"
#include "data_files.h"
#include "file_read.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define CIFAR_SIDE 32
#define CIFAR_PIXELS (3 * CIFAR_SIDE * CIFAR_SIDE) // 3072 pixel bytes per record
#define CHUNK_RECORDS 1024                         // records per read (about 3 MiB)
#define ZLIB_BUFFER ((unsigned)1 << 20)            // gzbuffer size, as idx.c
#define FIRST_RECORDS 65536                        // first allocation at most this; then grow as data arrives
#define MAX_TRAIN_FILES 5
#define CIFAR_URL "https://www.cs.toronto.edu/~kriz/cifar.html"

typedef struct {
    const char *name;        // data.name
    const char *title;       // as the CIFAR website writes it
    const char *subdir;      // the batches directory inside the archive
    const char *archive;     // the binary version's archive on the website
    const char *files_hint;  // the files the batches directory must hold, for messages
    const char *train_files[MAX_TRAIN_FILES];
    int train_count;
    const char *test_file;
    int label_bytes;         // label bytes at the start of each record
    int class_at;            // which label byte is the class: 0, or 1 (CIFAR-100 fine label)
    int num_classes;
    int coarse_classes;      // CIFAR-100: byte 0 (coarse label) must be below this; 0: no coarse label
    float mean[3], std[3];   // per channel (R, G, B), of pixel/255
} cifar_kind;

static const cifar_kind CIFAR_KINDS[] = {
    {"cifar10", "CIFAR-10", "cifar-10-batches-bin", "cifar-10-binary.tar.gz",
     "data_batch_1.bin, data_batch_2.bin, data_batch_3.bin, data_batch_4.bin, data_batch_5.bin and test_batch.bin",
     {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"}, 5,
     "test_batch.bin", 1, 0, 10, 0, {0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}},
    {"cifar100", "CIFAR-100", "cifar-100-binary", "cifar-100-binary.tar.gz", "train.bin and test.bin",
     {"train.bin"}, 1, "test.bin", 2, 1, 100, 20, {0.5071f, 0.4865f, 0.4409f}, {0.2673f, 0.2564f, 0.2762f}},
};

// Rows read so far: grown as records arrive.
typedef struct {
    uint8_t *pixels;  // (cap, 3, 32, 32)
    int32_t *labels;  // (cap)
    int n, cap;
    char *prints;     // the files' fingerprints (data_files.h)
    long long max_bytes; // data.max_bytes (dataset_options)
} cifar_rows;

static const cifar_kind *find_kind(const char *name) {
    for (size_t k = 0; name && k < sizeof CIFAR_KINDS / sizeof CIFAR_KINDS[0]; k++)
        if (strcmp(name, CIFAR_KINDS[k].name) == 0) return &CIFAR_KINDS[k];
    return NULL;
}

static size_t record_bytes(const cifar_kind *k) { return (size_t)k->label_bytes + CIFAR_PIXELS; }

// The sentence every missing-directory and missing-file message ends with: where the files go.
static void where_hint(const cifar_kind *k, char *out, size_t len) {
    snprintf(out, len, "%s cannot be downloaded on this machine: fetch the binary version (%s from " CIFAR_URL
             ") elsewhere, copy it here, extract it and set data.path=DIR, where DIR holds %s (each may be .gz) "
             "or is the parent of %s/", k->title, k->archive, k->files_hint, k->subdir);
}

// Picks the batches directory: path (trailing slashes dropped), or path/<subdir> when that is a
// directory. Returns 0 with it in out, or -1 with err set.
static int resolve_directory(const cifar_kind *k, const char *path, char *out, size_t outlen, char *err,
                             size_t errlen) {
    char hint[640];
    where_hint(k, hint, sizeof hint);
    if (!path || !path[0]) {
        dataset_set_err(err, errlen, "dataset %s has no default directory: %s", k->name, hint);
        return -1;
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    size_t room = outlen - 2 - strlen(k->subdir); // for "/<subdir>" and the terminator
    if (len > room) {
        dataset_set_err(err, errlen, "dataset directory path is %zu bytes long (at most %zu): %.64s...", len, room, path);
        return -1;
    }
    memcpy(out, path, len);
    out[len] = '\0';
    struct stat st;
    if (stat(out, &st) != 0) {
        if (errno == ENOENT) dataset_set_err(err, errlen, "dataset directory %s does not exist (%s)", out, hint);
        else dataset_set_err(err, errlen, "dataset directory %s cannot be read: %s (%s)", out, strerror(errno), hint);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        dataset_set_err(err, errlen, "dataset directory %s is not a directory (%s)", out, hint);
        return -1;
    }
    snprintf(out + len, outlen - len, "/%s", k->subdir);
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return 0; // the parent was given
    out[len] = '\0';
    return 0;
}

// Finds dir/base.gz or dir/base. Returns 0 with the path in out and its size on disk in *bytes,
// or -1 with err set.
static int find_file(const cifar_kind *k, const char *dir, const char *base, char *out, size_t outlen,
                     long long *bytes, char *err, size_t errlen) {
    struct stat st;
    snprintf(out, outlen, "%s/%s.gz", dir, base);
    int gz_errno = stat(out, &st) == 0 ? 0 : errno;
    if (gz_errno) snprintf(out, outlen, "%s/%s", dir, base);
    if (stat(out, &st) == 0) {
        *bytes = (long long)st.st_size;
        return 0;
    }
    if (gz_errno != ENOENT || errno != ENOENT) { // e.g. a directory without search permission: not "not found"
        dataset_set_err(err, errlen, "%s/%s cannot be read: %s", dir, base, strerror(gz_errno != ENOENT ? gz_errno : errno));
        return -1;
    }
    char hint[640];
    where_hint(k, hint, sizeof hint);
    dataset_set_err(err, errlen, "%s/%s not found (nor %s/%s.gz): %s", dir, base, dir, base, hint);
    return -1;
}

// Makes room for `want` rows in all. Returns 0, or -1 with err set (rows stay valid and owned).
static int rows_reserve(cifar_rows *rows, long long want, const char *path, char *err, size_t errlen) {
    if (want <= rows->cap) return 0;
    if (want > INT_MAX) {
        dataset_set_err(err, errlen, "%s: the split would hold more than %d records", path, INT_MAX);
        return -1;
    }
    long long next = 2LL * rows->cap;
    if (next < want) next = want;
    if (next > INT_MAX) next = INT_MAX;
    uint8_t *pixels = realloc(rows->pixels, (size_t)next * CIFAR_PIXELS);
    if (!pixels) {
        dataset_set_err(err, errlen, "%s: out of memory growing the pixel buffer to %lld images (%zu bytes)", path, next,
                (size_t)next * CIFAR_PIXELS);
        return -1;
    }
    rows->pixels = pixels;
    int32_t *labels = realloc(rows->labels, (size_t)next * sizeof *labels);
    if (!labels) {
        dataset_set_err(err, errlen, "%s: out of memory growing the label buffer to %lld labels", path, next);
        return -1;
    }
    rows->labels = labels;
    rows->cap = (int)next;
    return 0;
}

// Checks one record's label bytes and appends its label and pixels to rows (room reserved).
// index and offset: the record's position in its file. Returns 0, or -1 with err set.
static int take_record(const cifar_kind *k, const char *path, const uint8_t *record, long long index,
                       unsigned long long offset, cifar_rows *rows, char *err, size_t errlen) {
    if (k->coarse_classes && record[0] >= k->coarse_classes) {
        dataset_set_err(err, errlen, "%s: coarse label %d of record %lld (byte offset %llu) is out of range: %s has %d "
                "coarse classes, coarse labels must be 0..%d", path, record[0], index, offset, k->name,
                k->coarse_classes, k->coarse_classes - 1);
        return -1;
    }
    int label = record[k->class_at];
    if (label >= k->num_classes) {
        dataset_set_err(err, errlen, "%s: %slabel %d of record %lld (byte offset %llu) is out of range: %s has %d classes, "
                "labels must be 0..%d", path, k->coarse_classes ? "fine " : "", label, index,
                offset + (unsigned long long)k->class_at, k->name, k->num_classes, k->num_classes - 1);
        return -1;
    }
    memcpy(rows->pixels + (size_t)rows->n * CIFAR_PIXELS, record + k->label_bytes, CIFAR_PIXELS);
    rows->labels[rows->n++] = label;
    return 0;
}

// The end of a file's data: it must have been whole, non-empty and a multiple of the record size.
static int check_file_end(const cifar_kind *k, const char *path, unsigned long long total, int cut, char *err,
                          size_t errlen) {
    const size_t record = record_bytes(k);
    if (cut) {
        dataset_set_err(err, errlen, "%s: truncated: gzip stream cut short after %llu uncompressed bytes (%llu whole "
                "%zu-byte records)", path, total, total / record, record);
        return -1;
    }
    if (total == 0) {
        dataset_set_err(err, errlen, "%s: empty file (a %s file holds %zu-byte records)", path, k->title, record);
        return -1;
    }
    if (total % record != 0) {
        dataset_set_err(err, errlen, "%s: size %llu bytes (= %llu x %zu + %llu) is not a whole number of %zu-byte %s "
                "records: truncated download, or not the binary version?", path, total, total / record, record,
                total % record, record, k->title);
        return -1;
    }
    return 0;
}

// Appends every record of one file to rows. chunk: room for CHUNK_RECORDS records.
// Returns 0, or -1 with err set (rows stay valid and owned).
static int read_file(const cifar_kind *k, const char *path, cifar_rows *rows, uint8_t *chunk, char *err,
                     size_t errlen) {
    const size_t record = record_bytes(k), chunk_bytes = record * CHUNK_RECORDS;
    if (data_file_check(path, k->title, rows->max_bytes, NULL, err, errlen) != 0) return -1; // never a FIFO or a device
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib out of memory");
        return -1;
    }
    if (gzbuffer(f, ZLIB_BUFFER) != 0) {
        dataset_set_err(err, errlen, "%s: zlib gzbuffer failed", path);
        gzclose(f);
        return -1;
    }
    unsigned long long offset = 0; // uncompressed bytes of this file consumed so far
    int cut = 0;
    for (;;) {
        const char *why = NULL;
        long long got = dataset_gz_read(f, chunk, chunk_bytes, &why, &cut);
        if (got < 0) {
            if (got == -2) dataset_set_err(err, errlen, "%s: %s", path, why);
            else dataset_set_err(err, errlen, "%s: read error after byte offset %llu: %s", path, offset, why);
            gzclose(f);
            return -1;
        }
        size_t whole = (size_t)got / record;
        if (rows_reserve(rows, (long long)rows->n + (long long)whole, path, err, errlen) != 0) {
            gzclose(f);
            return -1;
        }
        for (size_t r = 0; r < whole; r++)
            if (take_record(k, path, chunk + r * record, (long long)(offset / record + r), offset + r * record, rows,
                            err, errlen) != 0) {
                gzclose(f);
                return -1;
            }
        offset += (unsigned long long)got;
        if ((long long)offset > rows->max_bytes) { // a gzip file may inflate to any size
            dataset_set_err(err, errlen, "%s: more than data.max_bytes=%lld uncompressed bytes (raise data.max_bytes to "
                            "read it)", path, rows->max_bytes);
            gzclose(f);
            return -1;
        }
        if ((size_t)got < chunk_bytes) break; // end of data
    }
    if (check_file_end(k, path, offset, cut, err, errlen) != 0) {
        gzclose(f);
        return -1;
    }
    int rc = gzclose(f);
    if (rc != Z_OK) {
        dataset_set_err(err, errlen, "%s: zlib error %d closing the file", path, rc);
        return -1;
    }
    return 0;
}

// Reads the split's files, in order, into rows. Returns 0, or -1 with err set.
static int read_split(const cifar_kind *k, const char *dir, int train, cifar_rows *rows, char *err, size_t errlen) {
    const char *const *bases = train ? k->train_files : &k->test_file;
    const int nfiles = train ? k->train_count : 1;
    const size_t record = record_bytes(k);
    char paths[MAX_TRAIN_FILES][sizeof ((dataset *)0)->source + 32];
    long long estimate = 0; // records, from the sizes on disk (exact for raw files)
    for (int i = 0; i < nfiles; i++) {
        long long bytes = 0;
        if (find_file(k, dir, bases[i], paths[i], sizeof paths[i], &bytes, err, errlen) != 0) return -1;
        estimate += bytes / (long long)record;
    }
    if (estimate < 1) estimate = 1;
    if (estimate > FIRST_RECORDS) estimate = FIRST_RECORDS;
    if (rows_reserve(rows, estimate, paths[0], err, errlen) != 0) return -1;
    uint8_t *chunk = malloc(record * CHUNK_RECORDS);
    if (!chunk) {
        dataset_set_err(err, errlen, "%s: out of memory for a %zu-byte read buffer", paths[0], record * CHUNK_RECORDS);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < nfiles && rc == 0; i++) rc = read_file(k, paths[i], rows, chunk, err, errlen);
    for (int i = 0; i < nfiles && rc == 0; i++) rc = data_prints_note(&rows->prints, paths[i], rows->max_bytes, err, errlen);
    free(chunk);
    return rc;
}

int cifar_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    const cifar_kind *k = find_kind(name);
    if (!k) {
        dataset_set_err(err, errlen, "internal: '%s' is not a CIFAR dataset", name ? name : "(null)");
        return -1;
    }
    int train = split && !strcmp(split, "train");
    if (!train && !(split && !strcmp(split, "test"))) {
        dataset_set_err(err, errlen, "unknown split '%s' for dataset %s (valid: train, test)", split ? split : "(null)", name);
        return -1;
    }
    char dir[sizeof ds->source];
    if (resolve_directory(k, opt->path, dir, sizeof dir, err, errlen) != 0) return -1;
    cifar_rows rows = {.max_bytes = data_max_bytes_or_default(opt->max_bytes)};
    if (read_split(k, dir, train, &rows, err, errlen) != 0) {
        free(rows.pixels);
        free(rows.labels);
        free(rows.prints);
        return -1;
    }
    snprintf(ds->name, sizeof ds->name, "%s", k->name);
    snprintf(ds->source, sizeof ds->source, "%s", dir);
    ds->n = rows.n;
    ds->channels = 3;
    ds->height = CIFAR_SIDE;
    ds->width = CIFAR_SIDE;
    ds->num_classes = k->num_classes;
    ds->pixels = rows.pixels;
    ds->labels = rows.labels;
    ds->prints = rows.prints;
    for (int c = 0; c < 3; c++) {
        ds->mean[c] = k->mean[c];
        ds->std[c] = k->std[c];
    }
    return 0;
}

// ---------------------------------------------------------------- registry entries (registry.h)
static dataset_shape shape_cifar10(const dataset_options *opt) { return (dataset_shape){CIFAR_SIDE, 3, 10, 0, 50000, 10000}; }
static dataset_shape shape_cifar100(const dataset_options *opt) { return (dataset_shape){CIFAR_SIDE, 3, 100, 0, 50000, 10000}; }

const dataset_kind dataset_cifar10 = {.name = "cifar10", .description = "CIFAR-10, its official binary version", .labels = 1, .shape = shape_cifar10, .load = cifar_load};
const dataset_kind dataset_cifar100 = {.name = "cifar100", .description = "CIFAR-100, its official binary version", .labels = 1, .shape = shape_cifar100, .load = cifar_load};
