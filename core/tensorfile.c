// core/tensorfile.c — reading and writing the flat named-array format of tensorfile.h.
#include "tensorfile.h"
#include "crc32_bytes.h"
#include "safe_file.h"
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const size_t dtype_size[] = {4, 4, 8, 1};

void tf_init(tensorfile *tf) { memset(tf, 0, sizeof *tf); }

void tf_free(tensorfile *tf) {
    for (int i = 0; i < tf->count; i++) {
        free(tf->entries[i].name);
        free(tf->entries[i].data);
    }
    free(tf->entries);
    memset(tf, 0, sizeof *tf);
}

static tf_entry *tf_append(tensorfile *tf) {
    if (tf->count == tf->capacity) {
        int cap = tf->capacity ? tf->capacity * 2 : 32;
        tf_entry *e = realloc(tf->entries, (size_t)cap * sizeof *e);
        if (!e) die_fail("out of memory growing a tensorfile");
        tf->entries = e;
        tf->capacity = cap;
    }
    tf_entry *e = &tf->entries[tf->count++];
    memset(e, 0, sizeof *e);
    return e;
}

void tf_add(tensorfile *tf, const char *name, int dtype, int ndim, const int *dims, const void *data) {
    if (dtype < 0 || dtype > TF_U8 || ndim < 1 || ndim > 8) die_fail("tf_add %s: bad dtype/ndim", name);
    tf_entry *e = tf_append(tf);
    e->name = xstrdup(name, "tensorfile entry name");
    e->dtype = dtype;
    e->ndim = ndim;
    e->count = 1;
    for (int i = 0; i < ndim; i++) {
        e->dims[i] = dims[i];
        e->count *= (size_t)dims[i];
    }
    size_t bytes = e->count * dtype_size[dtype];
    e->data = xmalloc(bytes, name);
    memcpy(e->data, data, bytes);
}

void tf_add_f32(tensorfile *tf, const char *name, const float *data, size_t n) {
    int dims[1] = {(int)n};
    tf_add(tf, name, TF_F32, 1, dims, data);
}

void tf_add_i64_scalar(tensorfile *tf, const char *name, int64_t value) {
    double v = (double)value;
    int dims[1] = {1};
    tf_add(tf, name, TF_F64, 1, dims, &v);
}

const tf_entry *tf_find(const tensorfile *tf, const char *name) {
    for (int i = 0; i < tf->count; i++)
        if (strcmp(tf->entries[i].name, name) == 0) return &tf->entries[i];
    return NULL;
}

static int put_u32(FILE *f, uint32_t v) { return fwrite(&v, 4, 1, f) == 1 ? 0 : -1; }

// The checksum of one entry: every byte of it as written (header, name, dims, data).
static uint32_t entry_crc(uint32_t len, const char *name, uint32_t dtype, uint32_t ndim, const uint32_t *dims,
                          const void *data, size_t data_bytes) {
    uint32_t crc = crc32_bytes(0, &len, 4);
    crc = crc32_bytes(crc, name, len);
    crc = crc32_bytes(crc, &dtype, 4);
    crc = crc32_bytes(crc, &ndim, 4);
    crc = crc32_bytes(crc, dims, (size_t)ndim * 4);
    return crc32_bytes(crc, data, data_bytes);
}

int tf_write(const tensorfile *tf, const char *path, char *err, size_t errlen) {
    safe_out o;
    int rc = safe_out_begin(&o, path, err, errlen); // a temporary name of its own, renamed when complete
    if (rc != SAFE_OK) return rc;
    FILE *f = o.f;
    int bad = fwrite("PBTF", 1, 4, f) != 4 || put_u32(f, TF_VERSION) || put_u32(f, (uint32_t)tf->count);
    for (int i = 0; i < tf->count && !bad; i++) {
        const tf_entry *e = &tf->entries[i];
        uint32_t len = (uint32_t)strlen(e->name), dims[8];
        for (int d = 0; d < e->ndim; d++) dims[d] = (uint32_t)e->dims[d];
        bad |= put_u32(f, len) || fwrite(e->name, 1, len, f) != len || put_u32(f, (uint32_t)e->dtype) ||
               put_u32(f, (uint32_t)e->ndim);
        for (int d = 0; d < e->ndim && !bad; d++) bad |= put_u32(f, dims[d]);
        if (!bad && e->count) bad |= fwrite(e->data, dtype_size[e->dtype], e->count, f) != e->count;
        if (!bad)
            bad |= put_u32(f, entry_crc(len, e->name, (uint32_t)e->dtype, (uint32_t)e->ndim, dims, e->data,
                                        e->count * dtype_size[e->dtype]));
    }
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        safe_out_abort(&o);
        return SAFE_IO;
    }
    return safe_out_commit(&o, err, errlen);
}

static int read_fail(tensorfile *tf, FILE *f, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int read_fail(tensorfile *tf, FILE *f, char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    fclose(f);
    tf_free(tf);
    return -1;
}

int tf_read(tensorfile *tf, const char *path, char *err, size_t errlen) {
    tf_init(tf);
    FILE *f;
    if (safe_fopen_read(path, -1, SAFE_FOLLOW, &f, NULL, err, errlen) != SAFE_OK) return -1; // regular, never blocks
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return read_fail(tf, f, err, errlen, "%s: cannot check: %s", path, strerror(errno));
    uint64_t size = (uint64_t)st.st_size;
    char magic[4];
    uint32_t version = 0, count = 0;
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "PBTF", 4) != 0 || fread(&version, 4, 1, f) != 1 ||
        (version != 1 && version != TF_VERSION) || fread(&count, 4, 1, f) != 1)
        return read_fail(tf, f, err, errlen, "%s: not a posbench tensorfile (expected magic PBTF version 1 or %d)", path,
                         TF_VERSION);
    tf->version = (int)version;
    for (uint32_t i = 0; i < count; i++) {
        long at = ftell(f);
        uint32_t len, dtype, ndim, dims[8];
        char name[512];
        int bad = fread(&len, 4, 1, f) != 1 || len >= sizeof name || fread(name, 1, len, f) != len ||
                  fread(&dtype, 4, 1, f) != 1 || dtype > TF_U8 || fread(&ndim, 4, 1, f) != 1 ||
                  ndim < 1 || ndim > 8;
        if (!bad) bad = fread(dims, 4, ndim, f) != ndim;
        if (bad) return read_fail(tf, f, err, errlen, "%s: entry %u at byte %ld is truncated or malformed", path, i, at);
        name[len] = 0;
        // The element count, checked against what is left of the file before anything is allocated.
        uint64_t left = size - (uint64_t)ftell(f), elems = 1;
        for (uint32_t d = 0; d < ndim; d++) {
            if (dims[d] > INT32_MAX || (dims[d] && elems > left / dims[d]))
                return read_fail(tf, f, err, errlen, "%s: entry '%s' claims more data than the file holds (truncated or corrupt)",
                                 path, name);
            elems *= dims[d];
        }
        if (elems * dtype_size[dtype] > left)
            return read_fail(tf, f, err, errlen, "%s: entry '%s' is truncated (file ends inside its data)", path, name);
        tf_entry *e = tf_append(tf);
        e->name = xstrdup(name, "tensorfile entry name");
        e->dtype = (int)dtype;
        e->ndim = (int)ndim;
        e->count = (size_t)elems;
        for (uint32_t d = 0; d < ndim; d++) e->dims[d] = (int)dims[d];
        size_t bytes = e->count * dtype_size[dtype];
        e->data = xmalloc(bytes ? bytes : 1, name);
        if (fread(e->data, dtype_size[dtype], e->count, f) != e->count)
            return read_fail(tf, f, err, errlen, "%s: entry '%s' is truncated (file ends inside its data)", path, name);
        if (version >= 2) {
            uint32_t stored;
            if (fread(&stored, 4, 1, f) != 1)
                return read_fail(tf, f, err, errlen, "%s: entry '%s' is truncated (file ends before its checksum)", path, name);
            if (stored != entry_crc(len, name, dtype, ndim, dims, e->data, bytes))
                return read_fail(tf, f, err, errlen, "%s: entry '%s' fails its checksum (the file is corrupt)", path, name);
        }
    }
    if (fgetc(f) != EOF)
        return read_fail(tf, f, err, errlen, "%s: unexpected bytes after the last of %u entries (corrupt file)", path, count);
    fclose(f);
    return 0;
}
