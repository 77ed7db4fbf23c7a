// datasets/verified_files.c — the per-user list of data files read whole and found intact
// (verified_files.h).
#include "verified_files.h"
#include "data_files.h"
#include "../core/common.h"
#include "../core/user_cache.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_NAME "verified-data"

// The fingerprint line of path ("file <crc> <size> <path>\n") into line; 0, or -1.
static int line_of(const char *path, long long max_bytes, char *line, size_t len) {
    long long size;
    uint32_t crc;
    char err[1024];
    if (data_file_crc(path, max_bytes, &size, &crc, err, sizeof err) != 0) return -1;
    int n = snprintf(line, len, "file %08x %lld %s\n", (unsigned)crc, size, path);
    return n > 0 && (size_t)n < len && !strchr(path, '\n') ? 0 : -1;
}

// The cached list (malloc'd body; "" when none or damaged, warned).
static char *read_list(void) {
    char path[4200], err[4600], *body = NULL;
    int rc = user_cache_read(CACHE_NAME, path, sizeof path, &body, err, sizeof err);
    static int warned; // once a process: the loads after it read the same damaged file
    if (rc < 0 && !warned++) warn_msg("%s; data files are checked whole again and the file rewritten", err);
    return rc == 1 ? body : xstrdup("", "verified data list");
}

// Is `line` (with its newline) one of the lines of list?
static int listed(const char *list, const char *line) {
    size_t n = strlen(line);
    for (const char *p = list; *p;) {
        if (!strncmp(p, line, n)) return 1;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

int data_file_verified(const char *path, long long max_bytes) {
    char line[4400];
    if (line_of(path, max_bytes, line, sizeof line) != 0) return 0;
    char *list = read_list();
    int yes = listed(list, line);
    free(list);
    return yes;
}

void data_file_mark_verified(const char *path, long long max_bytes) {
    char line[4400], err[4600];
    if (line_of(path, max_bytes, line, sizeof line) != 0) return;
    char *list = read_list();
    if (listed(list, line)) {
        free(list);
        return;
    }
    int lines = 0;
    for (const char *p = list; *p; p++) lines += *p == '\n';
    const char *keep = list; // drop the oldest lines beyond VERIFIED_MAX_LINES - 1
    for (; lines >= VERIFIED_MAX_LINES && strchr(keep, '\n'); lines--) keep = strchr(keep, '\n') + 1;
    size_t n = strlen(keep);
    char *body = xmalloc(n + strlen(line) + 1, "verified data list");
    memcpy(body, keep, n);
    strcpy(body + n, line);
    if (user_cache_write(CACHE_NAME, body, err, sizeof err) != 0)
        warn_msg("%s (data files are checked whole again next time)", err);
    free(body);
    free(list);
}
