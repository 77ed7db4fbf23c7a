// datasets/data_files.c — data file checks (regular files, data.max_bytes) and content
// fingerprints (data_files.h).
#include "data_files.h"
#include "file_read.h"
#include "../core/common.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

long long data_max_bytes_or_default(long long max_bytes) { return max_bytes >= 1 ? max_bytes : DATA_MAX_BYTES_DEFAULT; }

static const char *type_name(mode_t m) {
    return S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : S_ISREG(m) ? "a regular file" : "not a regular file";
}

int data_file_check(const char *path, const char *what, long long max_bytes, long long *size, char *err, size_t errlen) {
    max_bytes = data_max_bytes_or_default(max_bytes);
    struct stat st;
    if (stat(path, &st) != 0) {
        dataset_set_err(err, errlen, "%s: cannot open %s: %s", path, what, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        dataset_set_err(err, errlen, "%s: is %s, not a regular file (%s must be a regular file)", path,
                        type_name(st.st_mode), what);
        return -1;
    }
    if ((long long)st.st_size > max_bytes) {
        dataset_set_err(err, errlen, "%s: %lld bytes is more than data.max_bytes=%lld (%s; raise data.max_bytes to "
                        "read it)", path, (long long)st.st_size, max_bytes, what);
        return -1;
    }
    if (size) *size = (long long)st.st_size;
    return 0;
}

int data_dir_check(const char *path, const char *what, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0) {
        dataset_set_err(err, errlen, "%s: cannot open %s: %s", path, what, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        dataset_set_err(err, errlen, "%s: is %s, not a directory (%s must be a directory)", path, type_name(st.st_mode), what);
        return -1;
    }
    return 0;
}

// ---------------------------------------------------------------- CRC-32 of files, cached
typedef struct {
    char *path;
    dev_t dev;
    ino_t ino;
    long long size;
    struct timespec mtime;
    uint32_t crc;
} crc_memo;
static crc_memo *g_memo;
static int g_nmemo, g_capmemo;

static int same_file(const crc_memo *m, const char *path, const struct stat *st) {
    return !strcmp(m->path, path) && m->dev == st->st_dev && m->ino == st->st_ino && m->size == (long long)st->st_size &&
           m->mtime.tv_sec == st->st_mtim.tv_sec && m->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

int data_file_crc(const char *path, long long max_bytes, long long *size, uint32_t *crc, char *err, size_t errlen) {
    max_bytes = data_max_bytes_or_default(max_bytes);
    if (data_file_check(path, "a data file", max_bytes, NULL, err, errlen) != 0) return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        dataset_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { // replaced since the check
        dataset_set_err(err, errlen, "%s: not a regular file when opened", path);
        close(fd);
        return -1;
    }
    for (int i = 0; i < g_nmemo; i++)
        if (same_file(&g_memo[i], path, &st)) {
            *size = g_memo[i].size, *crc = g_memo[i].crc;
            close(fd);
            return 0;
        }
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = xmalloc(CHUNK, "fingerprint buffer");
    uLong c = crc32(0L, Z_NULL, 0);
    long long total = 0;
    for (;;) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            dataset_set_err(err, errlen, "%s: read error after %lld bytes: %s", path, total, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (got == 0) break;
        c = crc32(c, buf, (uInt)got);
        total += got;
        if (total > max_bytes) { // grew past the limit while read
            dataset_set_err(err, errlen, "%s: more than data.max_bytes=%lld bytes", path, max_bytes);
            free(buf);
            close(fd);
            return -1;
        }
    }
    free(buf);
    if (close(fd) != 0) {
        dataset_set_err(err, errlen, "%s: closing failed: %s", path, strerror(errno));
        return -1;
    }
    *size = total, *crc = (uint32_t)c;
    if (total == (long long)st.st_size) { // remember only what was read whole as stat said
        if (g_nmemo == g_capmemo) {
            int cap = g_capmemo ? 2 * g_capmemo : 64;
            crc_memo *grown = realloc(g_memo, (size_t)cap * sizeof *grown);
            if (!grown) return 0;
            g_memo = grown, g_capmemo = cap;
        }
        char *copy = strdup(path);
        if (!copy) return 0;
        g_memo[g_nmemo++] = (crc_memo){copy, st.st_dev, st.st_ino, total, st.st_mtim, *crc};
    }
    return 0;
}

// ---------------------------------------------------------------- fingerprint lists
void data_prints_add(char **list, const char *kind, uint32_t crc, long long size, const char *path) {
    char line[4400];
    int len = snprintf(line, sizeof line, "%s %08x %lld %s\n", kind, (unsigned)crc, size, path);
    if (len < 0 || (size_t)len >= sizeof line) die_fail("data file path too long: %.64s...", path);
    size_t have = *list ? strlen(*list) : 0;
    for (const char *p = *list; p && *p;) { // already there?
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p + 1) : strlen(p);
        if (n == (size_t)len && !memcmp(p, line, n)) return;
        p += n;
    }
    char *grown = realloc(*list, have + (size_t)len + 1);
    if (!grown) die_fail("out of memory for the data fingerprints");
    memcpy(grown + have, line, (size_t)len + 1);
    *list = grown;
}

void data_prints_merge(char **list, const char *other) {
    for (const char *p = other; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p + 1) : strlen(p);
        int dup = 0;
        for (const char *q = *list; q && *q && !dup;) {
            const char *qe = strchr(q, '\n');
            size_t m = qe ? (size_t)(qe - q + 1) : strlen(q);
            dup = m == n && !memcmp(p, q, n);
            q += m;
        }
        if (!dup) {
            size_t have = *list ? strlen(*list) : 0;
            char *grown = realloc(*list, have + n + 2);
            if (!grown) die_fail("out of memory for the data fingerprints");
            size_t w = n;
            memcpy(grown + have, p, n);
            if (p[n - 1] != '\n') grown[have + w++] = '\n';
            grown[have + w] = 0;
            *list = grown;
        }
        p += n;
    }
}

int data_prints_note(char **list, const char *path, long long max_bytes, char *err, size_t errlen) {
    long long size;
    uint32_t crc;
    if (data_file_crc(path, max_bytes, &size, &crc, err, errlen) != 0) return -1;
    data_prints_add(list, "file", crc, size, path);
    return 0;
}

typedef struct {
    char kind[8];
    unsigned crc;
    long long size;
    char path[4200];
} print_line;

// Parses the line at *p (advancing past it). 1 parsed, 0 at the end, -1 malformed.
static int next_line(const char **p, print_line *l) {
    if (!*p || !**p) return 0;
    const char *end = strchr(*p, '\n');
    size_t n = end ? (size_t)(end - *p) : strlen(*p);
    char text[4400];
    if (n >= sizeof text) return -1;
    memcpy(text, *p, n);
    text[n] = 0;
    *p += n + (end ? 1 : 0);
    int at = 0;
    if (sscanf(text, "%7s %8x %lld %n", l->kind, &l->crc, &l->size, &at) != 3 || at == 0 || !text[at]) return -1;
    if (strcmp(l->kind, "file") && strcmp(l->kind, "wavs")) return -1;
    snprintf(l->path, sizeof l->path, "%s", text + at);
    return 1;
}

static const print_line *find_path(const print_line *lines, int n, const char *path) {
    for (int i = 0; i < n; i++)
        if (!strcmp(lines[i].path, path)) return &lines[i];
    return NULL;
}

static int parse_all(const char *text, print_line **out) {
    int n = 0, cap = 0, rc;
    print_line *v = NULL, l;
    const char *p = text;
    while ((rc = next_line(&p, &l)) == 1) {
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            v = realloc(v, (size_t)cap * sizeof *v);
            if (!v) die_fail("out of memory for the data fingerprints");
        }
        v[n++] = l;
    }
    *out = v;
    return rc < 0 ? -1 : n;
}

static void describe(char *why, size_t len, const print_line *was, const print_line *now) {
    snprintf(why, len, "%s: %s%lld bytes, CRC-32 %08x when recorded; now %lld bytes, CRC-32 %08x", was->path,
             !strcmp(was->kind, "wavs") ? "its .wav clips: " : "", was->size, was->crc, now->size, now->crc);
}

int data_prints_equal(const char *a, const char *b, char *why, size_t whylen) {
    print_line *la = NULL, *lb = NULL;
    int na = parse_all(a ? a : "", &la), nb = parse_all(b ? b : "", &lb), same = 1;
    if (na < 0 || nb < 0) {
        snprintf(why, whylen, "the recorded data fingerprints are malformed");
        same = 0;
    }
    for (int i = 0; same && i < na; i++) {
        const print_line *o = find_path(lb, nb, la[i].path);
        if (!o) snprintf(why, whylen, "%s: read when recorded, not read now", la[i].path), same = 0;
        else if (o->crc != la[i].crc || o->size != la[i].size || strcmp(o->kind, la[i].kind)) describe(why, whylen, &la[i], o), same = 0;
    }
    for (int i = 0; same && i < nb; i++)
        if (!find_path(la, na, lb[i].path)) snprintf(why, whylen, "%s: read now, not when recorded", lb[i].path), same = 0;
    free(la);
    free(lb);
    return same;
}

int data_prints_verify(const char *recorded, data_print_fn wavs_print, long long max_bytes, char *why, size_t whylen) {
    print_line *l = NULL;
    int n = parse_all(recorded ? recorded : "", &l), ok = 1;
    if (n < 0) {
        snprintf(why, whylen, "the recorded data fingerprints are malformed");
        ok = 0;
    }
    for (int i = 0; ok && i < n; i++) {
        print_line now = l[i];
        char err[4600];
        int rc = !strcmp(l[i].kind, "file") ? data_file_crc(l[i].path, max_bytes, &now.size, (uint32_t *)&now.crc, err, sizeof err)
                                            : wavs_print ? wavs_print(l[i].path, max_bytes, &now.size, (uint32_t *)&now.crc, err, sizeof err)
                                                       : (snprintf(err, sizeof err, "no reader for a '%s' line", l[i].kind), -1);
        if (rc != 0) snprintf(why, whylen, "%s: recorded, now unreadable: %s", l[i].path, err), ok = 0;
        else if (now.crc != l[i].crc || now.size != l[i].size) describe(why, whylen, &l[i], &now), ok = 0;
    }
    free(l);
    return ok;
}
