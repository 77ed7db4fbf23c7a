// core/user_cache.c — the per-user cache directory and its checksummed files (user_cache.h).
#include "user_cache.h"
#include "common.h"
#include "safe_file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "crc32_bytes.h"

// Creates dir (one level) with mode 0700 unless it is already a directory. 0, or -1 with err.
static int ensure_dir(const char *dir, char *err, size_t errlen) {
    struct stat st;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the cache directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the cache directory %s is not a directory", dir);
        return -1;
    }
    return 0;
}

int user_cache_path(const char *name, char *out, size_t len, char *err, size_t errlen) {
    const char *own = getenv("POSBENCH_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (own && own[0]) {
        if (snprintf(dir, sizeof dir, "%s", own) >= (int)sizeof dir) goto too_long;
    } else {
        char base[4096];
        if (xdg && xdg[0]) {
            if (snprintf(base, sizeof base, "%s", xdg) >= (int)sizeof base) goto too_long;
        } else if (home && home[0]) {
            if (snprintf(base, sizeof base, "%s/.cache", home) >= (int)sizeof base) goto too_long;
        } else {
            snprintf(err, errlen, "no cache directory: POSBENCH_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset");
            return -1;
        }
        if (ensure_dir(base, err, errlen) != 0) return -1;
        if (snprintf(dir, sizeof dir, "%s/posbench", base) >= (int)sizeof dir) goto too_long;
    }
    if (ensure_dir(dir, err, errlen) != 0) return -1;
    if (snprintf(out, len, "%s/%s", dir, name) >= (int)len) goto too_long;
    return 0;
too_long:
    snprintf(err, errlen, "the cache directory's path is too long");
    return -1;
}

int user_cache_read(const char *name, char *path, size_t pathlen, char **body, char *err, size_t errlen) {
    *body = NULL;
    char why[512];
    if (user_cache_path(name, path, pathlen, why, sizeof why) != 0) return 0; // no cache: nothing cached
    char *text = NULL;
    size_t n = 0;
    int missing = 0;
    if (safe_read_file(path, USER_CACHE_CAP, SAFE_NOFOLLOW, &text, &n, &missing, err, errlen) != SAFE_OK)
        return missing ? 0 : -1;
    // The last line: "crc32 XXXXXXXX\n", the CRC-32 of every byte before it.
    const char *tail = n >= 15 ? text + n - 15 : NULL;
    unsigned crc = 0;
    char end = 0;
    if (!tail || (tail != text && tail[-1] != '\n') || strlen(text) != n || sscanf(tail, "crc32 %8x%c", &crc, &end) != 2 ||
        end != '\n') {
        snprintf(err, errlen, "%s: damaged cache file (it does not end with its \"crc32 XXXXXXXX\" line)", path);
        free(text);
        return -1;
    }
    size_t body_n = (size_t)(tail - text);
    unsigned long want = crc32_bytes(0, text, body_n);
    if (want != crc) {
        snprintf(err, errlen, "%s: damaged cache file (its CRC-32 is %08lx, its last line says %08x)", path, want, crc);
        free(text);
        return -1;
    }
    text[body_n] = '\0';
    *body = text;
    return 1;
}

int user_cache_write(const char *name, const char *body, char *err, size_t errlen) {
    char path[4200];
    if (user_cache_path(name, path, sizeof path, err, errlen) != 0) return -1;
    size_t n = strlen(body), nl = n > 0 && body[n - 1] != '\n';
    char *text = xmalloc(n + nl + 16, "cache file");
    memcpy(text, body, n);
    if (nl) text[n++] = '\n';
    snprintf(text + n, 16, "crc32 %08lx\n", (unsigned long)crc32_bytes(0, text, n));
    int rc = safe_write_file(path, text, n + 15, err, errlen);
    free(text);
    return rc == SAFE_OK ? 0 : -1;
}
