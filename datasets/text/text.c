// datasets/text/text.c — data.name=text: a UTF-8 file as byte-token sequences (see text.h):
// reading and validating the file, the fixed train/validation split, and token batches.
#include "text.h"
#include "../data_files.h"
#include "../registry.h"
#include "../file_read.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

long long text_utf8_invalid_offset(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF; // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c == 0xE0) len = 3, lo = 0xA0;                // no overlong 3-byte forms
        else if (c == 0xED) len = 3, hi = 0x9F;                // no surrogates U+D800..DFFF
        else if (c >= 0xE1 && c <= 0xEF) len = 3;
        else if (c == 0xF0) len = 4, lo = 0x90;                // no overlong 4-byte forms
        else if (c >= 0xF1 && c <= 0xF3) len = 4;
        else if (c == 0xF4) len = 4, hi = 0x8F;                // nothing above U+10FFFF
        else return (long long)i;                              // 0x80..0xC1, 0xF5..0xFF
        if (i + len > n) return (long long)i;                  // cut by the end of the file
        if (s[i + 1] < lo || s[i + 1] > hi) return (long long)i;
        for (size_t k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return (long long)i;
        i += len;
    }
    return -1;
}

// Reads the whole file into *bytes (*n bytes). Returns 0 or -1 with err set.
static int read_file(const char *path, long long max_bytes, unsigned char **bytes, size_t *n, char *err, size_t errlen) {
    *bytes = NULL;
    *n = 0;
    struct stat sb; // a FIFO or device would block or never end: regular files only, at most data.max_bytes
    if (stat(path, &sb) == 0 && data_file_check(path, "data.path of data.name=text", max_bytes, NULL, err, errlen) != 0) return -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (strcmp(path, TEXT_DEFAULT_PATH) == 0 && errno == ENOENT)
            dataset_set_err(err, errlen, "%s: no such file: the default text corpus is made by `make %s` (the King "
                            "James Bible from Debian's bible-kjv-text), or set data.path=FILE (any UTF-8 file)", path, path);
        else
            dataset_set_err(err, errlen, "%s: cannot open the text file: %s (data.path must be a readable UTF-8 file)",
                            path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, len = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) die_fail("out of memory reading %s", path);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            unsigned char *grown = realloc(buf, cap);
            if (!grown) die_fail("out of memory reading %s (%zu bytes so far)", path, len);
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
        if ((long long)len > max_bytes) { // grew while read (or a size stat cannot see)
            fclose(f);
            free(buf);
            dataset_set_err(err, errlen, "%s: more than data.max_bytes=%lld bytes (raise data.max_bytes to read it)", path,
                            max_bytes);
            return -1;
        }
    }
    int failed = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !failed) failed = 1, saved = errno;
    if (failed) {
        dataset_set_err(err, errlen, "%s: reading the text file failed after %zu bytes: %s", path, len, strerror(saved));
        free(buf);
        return -1;
    }
    *bytes = buf;
    *n = len;
    return 0;
}

int text_load(dataset *ds, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    memset(ds, 0, sizeof *ds);
    const char *path = opt->path;
    int seq_len = opt->seq_len;
    long long max_bytes = data_max_bytes_or_default(opt->max_bytes);
    if (err && errlen) err[0] = '\0';
    int train;
    if (split && strcmp(split, "train") == 0) train = 1;
    else if (split && strcmp(split, "test") == 0) train = 0;
    else {
        dataset_set_err(err, errlen, "unknown split '%s' for dataset text (valid: train, test)", split ? split : "(null)");
        return -1;
    }
    const char *file = path && path[0] ? path : TEXT_DEFAULT_PATH;
    if (strlen(file) >= sizeof ds->source) {
        dataset_set_err(err, errlen, "data.path is %zu bytes long (at most %zu): %.64s...", strlen(file),
                        sizeof ds->source - 1, file);
        return -1;
    }
    if (seq_len < 1) {
        dataset_set_err(err, errlen, "data.seq_len=%d: a sequence needs at least 1 byte", seq_len);
        return -1;
    }
    unsigned char *bytes;
    size_t n_bytes;
    if (read_file(file, max_bytes, &bytes, &n_bytes, err, errlen) != 0) return -1;
    if (n_bytes == 0) {
        dataset_set_err(err, errlen, "%s: the text file is empty (data.name=text needs a non-empty UTF-8 file)", file);
        free(bytes);
        return -1;
    }
    long long bad = text_utf8_invalid_offset(bytes, n_bytes);
    if (bad >= 0) {
        dataset_set_err(err, errlen, "%s: not UTF-8: invalid byte 0x%02X at byte offset %lld (data.name=text reads UTF-8 "
                        "text; convert the file, e.g. with iconv)", file, bytes[bad], bad);
        free(bytes);
        return -1;
    }
    size_t total = n_bytes / (size_t)seq_len; // whole sequences; the tail is dropped
    if (total < TEXT_VALIDATION_EVERY) {
        dataset_set_err(err, errlen, "%s: %zu bytes hold %zu sequences of data.seq_len=%d bytes; the split needs at least "
                        "%d (every %dth is validation): use a longer file or a smaller data.seq_len", file, n_bytes,
                        total, seq_len, TEXT_VALIDATION_EVERY, TEXT_VALIDATION_EVERY);
        free(bytes);
        return -1;
    }
    if (total > (size_t)2147483647) {
        dataset_set_err(err, errlen, "%s: %zu sequences is more than 2^31-1 (use a larger data.seq_len)", file, total);
        free(bytes);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < total; i++) n += (i % TEXT_VALIDATION_EVERY == TEXT_VALIDATION_EVERY - 1) != train;
    uint8_t *rows = xmalloc(n * (size_t)seq_len, "text sequences");
    size_t out = 0;
    for (size_t i = 0; i < total; i++) {
        int validation = i % TEXT_VALIDATION_EVERY == TEXT_VALIDATION_EVERY - 1;
        if (validation == train) continue;
        memcpy(rows + out * (size_t)seq_len, bytes + i * (size_t)seq_len, (size_t)seq_len);
        out++;
    }
    free(bytes);
    if (data_prints_note(&ds->prints, file, max_bytes, err, errlen) != 0) {
        free(rows);
        return -1;
    }
    snprintf(ds->name, sizeof ds->name, "text");
    snprintf(ds->source, sizeof ds->source, "%s", file);
    ds->n = (int)n;
    ds->channels = 1;
    ds->height = seq_len;
    ds->width = 1;
    ds->vocab = TEXT_VOCAB;
    ds->kind = &dataset_text;
    ds->num_classes = TEXT_BYTES;
    ds->pixels = rows;
    ds->labels = xcalloc(n, sizeof *ds->labels, "text labels");
    for (int c = 0; c < 3; c++) ds->mean[c] = 0.0f, ds->std[c] = 1.0f;
    return 0;
}

void text_make_batch(const dataset *ds, const int *indices, int B, int32_t *tokens, int32_t *labels) {
    const int L = ds->height;
    for (int b = 0; b < B; b++) {
        if (indices[b] < 0 || indices[b] >= ds->n)
            die_fail("dataset %s: batch position %d asks for row %d, outside [0, %d)", ds->name, b, indices[b], ds->n);
        const uint8_t *src = ds->pixels + (size_t)indices[b] * L;
        for (int t = 0; t < L; t++) tokens[(size_t)b * L + t] = src[t];
        labels[b] = ds->labels[indices[b]];
    }
}

// ---------------------------------------------------------------- registry entry (../registry.h)
// Sequences of the file: 9 in 10 train; the count from the file's size when it is there.
static dataset_shape shape_text(const dataset_options *opt) {
    dataset_shape s = {opt->seq_len, 1, TEXT_BYTES, 0, -1, -1};
    struct stat st;
    if (opt->seq_len > 0 && stat(opt->path && opt->path[0] ? opt->path : TEXT_DEFAULT_PATH, &st) == 0) {
        long total = (long)(st.st_size / opt->seq_len);
        s.train_n = total - total / TEXT_VALIDATION_EVERY;
        s.test_n = total / TEXT_VALIDATION_EVERY; // the validation sequences, which evaluation reads
    }
    return s;
}

static int load_text(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen) {
    return text_load(ds, opt, split, err, errlen);
}

static void batch_text(const dataset *ds, const int *indices, int B, const augment_config *aug, uint32_t seed, uint32_t epoch,
                       uint32_t step, float *images, int32_t *labels) {
    text_make_batch(ds, indices, B, (int32_t *)images, labels); // no augmentation
}

const dataset_kind dataset_text = {.name = "text", .description = "any UTF-8 file as byte sequences of data.seq_len, every 10th sequence for validation, for objective.name=mlm", .tokens = 1, .vocab = TEXT_VOCAB, .shape = shape_text, .load = load_text,
                                   .make_batch = batch_text};
