// datasets/idx.c — loading a dataset split from IDX files (MNIST layout), gzipped or raw.
// Owns idx_load (the registry's loader of fashion-mnist, mnist and idx: which directory and
// files each name means) and dataset_free; the IDX header checks (magic, dimensions, counts,
// label range) and their one-line error messages.
// IDX: big-endian u32 magic (0x00000803 images: then n, rows, cols; 0x00000801 labels: then n),
// then u8 data. Extra bytes after the data are ignored; missing bytes are reported precisely.
#include "dataset.h"
#include "data_files.h"
#include "file_read.h"
#include "registry.h"
#include "verified_files.h"
#include "../core/common.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define IDX_MAGIC_IMAGES 0x00000803u
#define IDX_MAGIC_LABELS 0x00000801u
#define READ_CHUNK ((size_t)1 << 20)      // gzread at most 1 MiB at a time
#define FIRST_ALLOC ((size_t)64 << 20)    // grow beyond this only as data actually arrives
#define FILES_HINT "train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz), " \
                   "t10k-images-idx3-ubyte(.gz) and t10k-labels-idx1-ubyte(.gz)"

typedef struct {
    const char *name;
    const char *default_dir;  // NULL: data.path required
    float mean, std;
    int fixed_classes;        // labels must be below this; 0: num_classes = max label + 1
} idx_kind;

static const idx_kind KINDS[] = {
    {"fashion-mnist", "/usr/share/datasets/fashion-mnist", 0.2860f, 0.3530f, 10},
    {"mnist", NULL, 0.1307f, 0.3081f, 10},
    {"idx", NULL, 0.5f, 0.5f, 0},
};

static const char *kind_word(uint32_t magic) {
    return magic == IDX_MAGIC_IMAGES ? "IDX image file" : "IDX label file";
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

// Reads on from `have` of the `total` data bytes after the `header` bytes to the end of the
// stream (at most one chunk past total: extra bytes after the data are ignored) into a scratch
// buffer and drops it, so zlib checks the gzip trailer (CRC-32 and length) and a stream cut
// short or damaged anywhere is refused as when the whole file is kept. 1 when the end of the
// stream was reached, 0 when extra bytes go on past the chunk after total (the trailer is then
// not checked), -1 with err set.
static int check_rest(gzFile f, const char *path, const char *what, size_t header, size_t have, size_t total,
                      char *err, size_t errlen) {
    uint8_t *scratch = xmalloc(READ_CHUNK, "IDX check buffer");
    const char *why = NULL;
    int cut = 0, end = 0;
    while (have <= total) {
        long long got = dataset_gz_read(f, scratch, READ_CHUNK, &why, &cut);
        if (got < 0) {
            if (got == -2) dataset_set_err(err, errlen, "%s: %s", path, why);
            else dataset_set_err(err, errlen, "%s: read error after byte offset %zu: %s", path, header + have, why);
            free(scratch);
            return -1;
        }
        have += (size_t)got;
        if ((size_t)got < READ_CHUNK) {
            end = 1;
            break;
        }
    }
    free(scratch);
    if (have < total) {
        dataset_set_err(err, errlen, "%s: truncated: expected %zu bytes of %s after the %zu-byte header, "
                "file ends after %zu (at byte offset %zu%s)", path, total, what, header, have,
                header + have, cut ? "; gzip stream cut short" : "");
        return -1;
    }
    return end;
}

// Reads one IDX file: checks the magic, reads `ndims` big-endian u32 dimensions into dims and
// then the data bytes into *data (xmalloc'd; caller frees): all prod(dims) of them, or with
// 0 < limit < dims[0] those of the first `limit` items only (*kept: the items read). With a
// limit the rest of the stream is still read and checked (check_rest), unless the file's bytes
// are listed as verified (datasets/verified_files.h); a file read whole without error is listed.
// Returns 0 or -1 with err set.
static int idx_read(const char *path, uint32_t want_magic, int ndims, uint32_t dims[3], long long max_bytes,
                    long long limit, uint8_t **data, uint32_t *kept, char *err, size_t errlen) {
    *data = NULL;
    size_t header = 4 + 4 * (size_t)ndims;
    const char *what = want_magic == IDX_MAGIC_IMAGES ? "pixels" : "labels";
    if (data_file_check(path, want_magic == IDX_MAGIC_IMAGES ? "an IDX image file" : "an IDX label file", max_bytes, NULL, err, errlen) != 0)
        return -1;
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib out of memory");
        return -1;
    }
    if (gzbuffer(f, (unsigned)READ_CHUNK) != 0) {
        dataset_set_err(err, errlen, "%s: zlib gzbuffer failed", path);
        gzclose(f);
        return -1;
    }
    const char *why = NULL;
    int cut = 0;
    uint8_t head[16];
    long long got = dataset_gz_read(f, head, header, &why, &cut);
    if (got < 0) {
        if (got == -2) dataset_set_err(err, errlen, "%s: %s", path, why);
        else dataset_set_err(err, errlen, "%s: read error in the %zu-byte header: %s", path, header, why);
        gzclose(f);
        return -1;
    }
    if (got >= 4 && be32(head) != want_magic) {
        uint32_t magic = be32(head);
        uint32_t other = want_magic == IDX_MAGIC_IMAGES ? IDX_MAGIC_LABELS : IDX_MAGIC_IMAGES;
        uint32_t swapped = __builtin_bswap32(magic);
        dataset_set_err(err, errlen, "%s: bad magic number 0x%08x (expected 0x%08x for an %s%s%s)", path, magic,
                want_magic, kind_word(want_magic),
                magic == other ? (other == IDX_MAGIC_LABELS ? "; this is an IDX label file"
                                                            : "; this is an IDX image file")
                               : "",
                swapped == want_magic ? "; the bytes are swapped: IDX is big-endian" : "");
        gzclose(f);
        return -1;
    }
    if ((size_t)got < header) {
        dataset_set_err(err, errlen, "%s: truncated: the %s header is %zu bytes, file ends after %lld%s",
                path, kind_word(want_magic), header, got, cut ? " (gzip stream cut short)" : "");
        gzclose(f);
        return -1;
    }
    uint64_t total = 1;
    for (int d = 0; d < ndims; d++) {
        dims[d] = be32(head + 4 + 4 * d);
        if (dims[d] == 0 || dims[d] > INT_MAX) {
            if (ndims == 3)
                dataset_set_err(err, errlen, "%s: bad dimensions in header: %u images of %u x %u pixels "
                        "(each must be between 1 and %d)", path, be32(head + 4), be32(head + 8),
                        be32(head + 12), INT_MAX);
            else
                dataset_set_err(err, errlen, "%s: bad label count %u in header (must be between 1 and %d)",
                        path, dims[0], INT_MAX);
            gzclose(f);
            return -1;
        }
        if (__builtin_mul_overflow(total, (uint64_t)dims[d], &total) || total > (uint64_t)SIZE_MAX / 2) {
            dataset_set_err(err, errlen, "%s: header dimensions are too large: %u images of %u x %u pixels", path,
                    be32(head + 4), be32(head + 8), be32(head + 12));
            gzclose(f);
            return -1;
        }
    }
    if ((long long)total > max_bytes - (long long)header) { // a gzip file may declare any size
        dataset_set_err(err, errlen, "%s: the header declares %llu bytes of %s, more than data.max_bytes=%lld (raise "
                        "data.max_bytes to read it)", path, (unsigned long long)total, what, max_bytes);
        gzclose(f);
        return -1;
    }
    *kept = dims[0];
    if (limit > 0 && limit < (long long)dims[0]) *kept = (uint32_t)limit;
    size_t want = (size_t)(total / dims[0] * *kept); // the kept items' bytes
    size_t cap = want < FIRST_ALLOC ? want : FIRST_ALLOC;
    uint8_t *buf = xmalloc(cap, what);
    size_t have = 0;
    while (have < want) {
        if (have == cap) { // the header promises more: grow only as the data keeps coming
            size_t next = cap > want / 2 ? want : cap * 2;
            uint8_t *bigger = realloc(buf, next);
            if (!bigger) {
                dataset_set_err(err, errlen, "%s: out of memory growing the %s buffer to %zu bytes (header says %zu)",
                        path, what, next, want);
                free(buf);
                gzclose(f);
                return -1;
            }
            buf = bigger;
            cap = next;
        }
        got = dataset_gz_read(f, buf + have, cap - have, &why, &cut);
        if (got < 0) {
            if (got == -2) dataset_set_err(err, errlen, "%s: %s", path, why);
            else dataset_set_err(err, errlen, "%s: read error after byte offset %zu: %s", path, header + have, why);
            free(buf);
            gzclose(f);
            return -1;
        }
        have += (size_t)got;
        if (have < cap) break; // end of data
    }
    if (have < want) {
        dataset_set_err(err, errlen, "%s: truncated: expected %zu bytes of %s after the %zu-byte header, "
                "file ends after %zu (at byte offset %zu%s)", path, (size_t)total, what, header, have,
                header + have, cut ? "; gzip stream cut short" : "");
        free(buf);
        gzclose(f);
        return -1;
    }
    // The rest of the stream: checked unless only a prefix is kept of a file already verified.
    int verified = 0, direct = gzdirect(f); // direct: not gzip, nothing to verify
    if (direct || want == (size_t)total || !data_file_verified(path, max_bytes)) {
        int end = check_rest(f, path, what, header, have, (size_t)total, err, errlen);
        if (end < 0) {
            free(buf);
            gzclose(f);
            return -1;
        }
        verified = end && !direct;
    }
    int rc = gzclose(f);
    if (rc != Z_OK) {
        dataset_set_err(err, errlen, "%s: zlib error %d closing the file", path, rc);
        free(buf);
        return -1;
    }
    if (verified) data_file_mark_verified(path, max_bytes);
    *data = buf;
    return 0;
}

// Finds dir/base.gz or dir/base. Returns 0 with the path in out, or -1 with err set.
static int find_file(const char *dir, const char *base, char *out, size_t outlen, char *err,
                     size_t errlen) {
    struct stat st;
    snprintf(out, outlen, "%s/%s.gz", dir, base);
    if (stat(out, &st) == 0) return 0;
    int gz_errno = errno;
    snprintf(out, outlen, "%s/%s", dir, base);
    if (stat(out, &st) == 0) return 0;
    if (gz_errno != ENOENT || errno != ENOENT) { // e.g. a directory without search permission: not "not found"
        dataset_set_err(err, errlen, "%s/%s.gz cannot be read: %s", dir, base, strerror(gz_errno != ENOENT ? gz_errno : errno));
        return -1;
    }
    dataset_set_err(err, errlen, "%s/%s.gz not found (nor %s/%s): the dataset directory must hold " FILES_HINT,
            dir, base, dir, base);
    return -1;
}

static int check_directory(const char *dir, const idx_kind *kind, char *err, size_t errlen) {
    struct stat st;
    const char *origin = kind->default_dir
        ? "fashion-mnist comes from the Debian package dataset-fashion-mnist, or set data.path=DIR holding "
        : "set data.path=DIR holding ";
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            dataset_set_err(err, errlen, "dataset directory %s does not exist (%s" FILES_HINT ")", dir, origin);
        else
            dataset_set_err(err, errlen, "dataset directory %s cannot be read: %s (%s" FILES_HINT ")", dir,
                    strerror(errno), origin);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        dataset_set_err(err, errlen, "dataset directory %s is not a directory (%s" FILES_HINT ")", dir, origin);
        return -1;
    }
    return 0;
}

int idx_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    const idx_kind *kind = NULL;
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
        if (name && strcmp(name, KINDS[k].name) == 0) kind = &KINDS[k];
    if (!kind) {
        dataset_set_err(err, errlen, "%s is not an IDX dataset (valid: fashion-mnist, mnist, idx)", name ? name : "(null)");
        return -1;
    }
    const char *path = opt->path;
    long long max_bytes = data_max_bytes_or_default(opt->max_bytes);
    int train;
    if (split && strcmp(split, "train") == 0) train = 1;
    else if (split && strcmp(split, "test") == 0) train = 0;
    else {
        dataset_set_err(err, errlen, "unknown split '%s' for dataset %s (valid: train, test)",
                split ? split : "(null)", name);
        return -1;
    }
    const char *dir = path && path[0] ? path : kind->default_dir;
    if (!dir) {
        dataset_set_err(err, errlen, "dataset %s has no default directory: set data.path=DIR holding " FILES_HINT,
                kind->name);
        return -1;
    }
    char source[sizeof ds->source];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--; // "dir/" and "dir" name the same files
    if (len >= sizeof source) {
        dataset_set_err(err, errlen, "dataset directory path is %zu bytes long (at most %zu): %.64s...", len,
                sizeof source - 1, dir);
        return -1;
    }
    memcpy(source, dir, len);
    source[len] = '\0';
    if (check_directory(source, kind, err, errlen) != 0) return -1;

    char image_path[sizeof source + 64], label_path[sizeof source + 64];
    if (find_file(source, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte", image_path,
                  sizeof image_path, err, errlen) != 0 ||
        find_file(source, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte", label_path,
                  sizeof label_path, err, errlen) != 0)
        return -1;

    // Images: only the first opt->limit are read (the rest of the file is checked, not kept);
    // labels: all of them, so their checks and idx's class count do not depend on the limit.
    uint32_t idims[3], ldims[3], kept, all_labels;
    uint8_t *pixels = NULL, *raw_labels = NULL;
    if (idx_read(image_path, IDX_MAGIC_IMAGES, 3, idims, max_bytes, opt->limit, &pixels, &kept, err, errlen) != 0) return -1;
    if (idx_read(label_path, IDX_MAGIC_LABELS, 1, ldims, max_bytes, 0, &raw_labels, &all_labels, err, errlen) != 0) {
        free(pixels);
        return -1;
    }
    if (ldims[0] != idims[0]) {
        dataset_set_err(err, errlen, "%s: holds %u labels but %s holds %u images (the counts must match)",
                label_path, ldims[0], image_path, idims[0]);
        free(pixels);
        free(raw_labels);
        return -1;
    }
    int n = (int)idims[0];
    int max_label = 0;
    for (int i = 0; i < n; i++) {
        int label = raw_labels[i];
        if (kind->fixed_classes && label >= kind->fixed_classes) {
            dataset_set_err(err, errlen, "%s: label %d of example %d (byte offset %d) is out of range: %s has %d "
                    "classes, labels must be 0..%d (data.name=idx takes any labels)", label_path, label, i,
                    8 + i, kind->name, kind->fixed_classes, kind->fixed_classes - 1);
            free(pixels);
            free(raw_labels);
            return -1;
        }
        if (label > max_label) max_label = label;
    }
    if (data_prints_note(&ds->prints, image_path, max_bytes, err, errlen) != 0 ||
        data_prints_note(&ds->prints, label_path, max_bytes, err, errlen) != 0) {
        free(ds->prints);
        ds->prints = NULL;
        free(pixels);
        free(raw_labels);
        return -1;
    }
    n = (int)kept; // the rows kept: all, or the first opt->limit
    int32_t *labels = xmalloc((size_t)n * sizeof *labels, "dataset labels");
    for (int i = 0; i < n; i++) labels[i] = raw_labels[i];
    free(raw_labels);

    snprintf(ds->name, sizeof ds->name, "%s", kind->name);
    memcpy(ds->source, source, len + 1);
    ds->n = n;
    ds->channels = 1;
    ds->height = (int)idims[1];
    ds->width = (int)idims[2];
    ds->num_classes = kind->fixed_classes ? kind->fixed_classes : max_label + 1;
    ds->pixels = pixels;
    ds->labels = labels;
    for (int c = 0; c < 3; c++) {
        ds->mean[c] = kind->mean;
        ds->std[c] = kind->std;
    }
    return 0;
}

void dataset_free(dataset *ds) {
    if (ds->kind && ds->kind->release) ds->kind->release(ds);
    free(ds->prints);
    free(ds->pixels);
    free(ds->labels);
    memset(ds, 0, sizeof *ds);
}

// ---------------------------------------------------------------- registry entries (registry.h)
static dataset_shape shape_mnist(const dataset_options *opt) { return (dataset_shape){28, 1, 10, 0, 60000, 10000}; }
static dataset_shape shape_idx(const dataset_options *opt) { return (dataset_shape){0, 0, 0, 0, -1, -1}; } // any IDX files

const dataset_kind dataset_fashion_mnist = {.name = "fashion-mnist", .description = "Fashion-MNIST, IDX files", .labels = 1, .shape = shape_mnist, .load = idx_load};
const dataset_kind dataset_mnist = {.name = "mnist", .description = "MNIST, IDX files", .labels = 1, .shape = shape_mnist, .load = idx_load};
const dataset_kind dataset_idx = {.name = "idx", .description = "any image set in the MNIST IDX layout at data.path", .labels = 1, .shape = shape_idx, .load = idx_load};
