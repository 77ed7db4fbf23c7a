// bench/crosscheck/torch_result.c — the PyTorch result file of `posbench crosscheck`: strict
// reading (every field checked, FILE:LINE errors), the cache key (script, interpreter, plan)
// and appending it once a fresh result validated (format and rules in torch_result.h).
#include "torch_result.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- the cache key --------------------------------------------------------------------
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

// Folds the bytes of the file at path into *h (its name is not part of it). 0, or -1 with why.
static int fnv_file(uint64_t *h, const char *path, char *why, size_t len) {
    FILE *f; // a regular file (the interpreter may be a link), never blocking
    if (safe_fopen_read(path, -1, SAFE_FOLLOW, &f, NULL, why, len) != SAFE_OK) return -1;
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) *h = fnv_bytes(*h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, len, "%s: read error", path);
        return -1;
    }
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// The script, then every other *.py of its directory by name (each with its name, so moving
// code between files changes the key).
static int script_hash(const char *script, uint64_t *h, char *why, size_t len) {
    *h = FNV_OFFSET;
    if (fnv_file(h, script, why, len) != 0) return -1;
    char dir[PATH_MAX];
    const char *slash = strrchr(script, '/'), *base = slash ? slash + 1 : script;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - script) : 1, slash ? script : ".");
    if (slash == script) snprintf(dir, sizeof dir, "/");
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, len, "%s: cannot list the script's directory: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".py") || !strcmp(e->d_name, base)) continue;
        if (n == cap) names = xrealloc(names, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *names, "crosscheck script files");
        names[n++] = xstrdup(e->d_name, "crosscheck script file");
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        *h = fnv_bytes(*h, names[i], strlen(names[i]) + 1);
        if (rc == 0 && fnv_file(h, path, why, len) != 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int torch_cache_key_compute(const char *script, const char *python, const char *plan, torch_cache_key *key, char *why,
                            size_t len) {
    if (script_hash(script, &key->script, why, len) != 0) return -1;
    char real[PATH_MAX];
    key->python = FNV_OFFSET;
    if (!realpath(python, real)) { // not runnable either: the key says so and the run will fail
        key->python = fnv_bytes(key->python, python, strlen(python) + 1);
    } else {
        key->python = fnv_bytes(key->python, real, strlen(real) + 1);
        if (fnv_file(&key->python, real, why, len) != 0) return -1;
    }
    key->plan = FNV_OFFSET;
    return fnv_file(&key->plan, plan, why, len);
}

const char *torch_cache_key_diff(const torch_cache_key *a, const torch_cache_key *b) {
    return a->script != b->script ? "the script" : a->python != b->python ? "the interpreter" : a->plan != b->plan ? "the plan" : NULL;
}

int torch_result_append_key(const char *path, const torch_cache_key *key, char *why, size_t len) {
    FILE *f; // never through a link or device at path (core/safe_file.h)
    if (safe_fopen_update(path, "a", &f, why, len) != SAFE_OK) return -1;
    fprintf(f, "cache_script %016llx\ncache_python %016llx\ncache_plan %016llx\n", (unsigned long long)key->script,
            (unsigned long long)key->python, (unsigned long long)key->plan);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(why, len, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

// ---- reading --------------------------------------------------------------------------
int torch_result_has_key(const char *path) {
    FILE *f;
    char why[64];
    if (safe_fopen_read(path, SAFE_TEXT_CAP, SAFE_NOFOLLOW, &f, NULL, why, sizeof why) != SAFE_OK) return 0;
    char line[256];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = !strncmp(line, "cache_script ", 13);
    fclose(f);
    return found;
}

void torch_result_free(torch_result *r) {
    free(r->losses);
    r->losses = NULL, r->nlosses = 0;
}

enum { V_PROB, V_NONNEG, V_NONNEG_NAN, V_LOSSES, V_INIT, V_EMBED, V_HEX };

// The kind of value a key carries; -1 for an unknown key.
static int key_kind(const char *k) {
    if (!strcmp(k, "top1") || !strcmp(k, "pos_top1_eta0") || !strcmp(k, "pos_top1_nonblank_eta0")) return V_PROB;
    if (!strncmp(k, "top1@", 5) && k[5] && strspn(k + 5, "0123456789") == strlen(k + 5)) return V_PROB;
    if (!strcmp(k, "loss") || !strcmp(k, "init_max_abs_diff") || !strcmp(k, "seconds")) return V_NONNEG;
    if (!strcmp(k, "content_rms") || !strcmp(k, "posenc_rms")) return V_NONNEG_NAN;
    if (!strcmp(k, "step_losses")) return V_LOSSES;
    if (!strcmp(k, "init")) return V_INIT;
    if (!strcmp(k, "embed_init")) return V_EMBED;
    if (!strcmp(k, "cache_script") || !strcmp(k, "cache_python") || !strcmp(k, "cache_plan")) return V_HEX;
    return -1;
}

// A whole token as a number (nan and inf spelled as strtod takes them). 0, or -1.
static int number(const char *tok, double *v) {
    char *end;
    errno = 0;
    *v = strtod(tok, &end);
    return end == tok || *end || (errno == ERANGE && isfinite(*v) && *v != 0) ? -1 : 0;
}

#define MAX_KEYS 64

// One line (without its newline) into r. 0, or -1 with why.
static int read_line(const char *path, int lineno, char *line, const char *metric, long steps, torch_result *r, char seen[][32],
                     int *seen_line, int *nseen, char *why, size_t len) {
    char *save = NULL, *key = strtok_r(line, " ", &save);
    if (!key) {
        snprintf(why, len, "%s:%d: an empty line (every line is 'key value...')", path, lineno);
        return -1;
    }
    int kind = key_kind(key);
    if (kind < 0) {
        snprintf(why, len, "%s:%d: unknown key '%.40s' (valid: top1, top1@S, loss, pos_top1_eta0, pos_top1_nonblank_eta0, init, "
                 "embed_init, init_max_abs_diff, content_rms, posenc_rms, seconds, step_losses, cache_script, cache_python, cache_plan)",
                 path, lineno, key);
        return -1;
    }
    for (int i = 0; i < *nseen; i++)
        if (!strcmp(seen[i], key)) {
            snprintf(why, len, "%s:%d: %s appears twice (first at line %d)", path, lineno, key, seen_line[i]);
            return -1;
        }
    if (*nseen == MAX_KEYS) {
        snprintf(why, len, "%s:%d: more than %d keys", path, lineno, MAX_KEYS);
        return -1;
    }
    snprintf(seen[*nseen], 32, "%s", key), seen_line[(*nseen)++] = lineno;
    char *tok = strtok_r(NULL, " ", &save);
    if (kind == V_LOSSES) {
        for (; tok; tok = strtok_r(NULL, " ", &save)) {
            double v;
            if (number(tok, &v) != 0 || v < 0) {
                snprintf(why, len, "%s:%d: step_losses: value %d '%.40s' is not a loss (a number >= 0; nan or inf: diverged)", path,
                         lineno, r->nlosses + 1, tok);
                return -1;
            }
            if (r->nlosses >= steps) {
                snprintf(why, len, "%s:%d: step_losses has more than the plan's %ld steps", path, lineno, steps);
                return -1;
            }
            r->losses[r->nlosses++] = v;
        }
        if (r->nlosses != steps) {
            snprintf(why, len, "%s:%d: step_losses has %d values; the plan has %ld steps", path, lineno, r->nlosses, steps);
            return -1;
        }
        return 0;
    }
    char *extra = tok ? strtok_r(NULL, " ", &save) : NULL;
    if (!tok || extra) {
        snprintf(why, len, "%s:%d: %s takes one value (got %s)", path, lineno, key, tok ? "more" : "none");
        return -1;
    }
    if (kind == V_INIT || kind == V_EMBED) {
        int ok = kind == V_INIT ? !strcmp(tok, "ours") || !strcmp(tok, "torch") || !strcmp(tok, "timm")
                                : !strcmp(tok, "timm") || !strcmp(tok, "xavier") || !strcmp(tok, "normal002");
        if (!ok) {
            snprintf(why, len, "%s:%d: %s '%.40s' (valid: %s)", path, lineno, key, tok, kind == V_INIT ? "ours, torch, timm" : "timm, xavier, normal002");
            return -1;
        }
        snprintf(kind == V_INIT ? r->init : r->embed_init, sizeof r->init, "%s", tok);
        return 0;
    }
    if (kind == V_HEX) {
        char *end;
        errno = 0;
        unsigned long long h = strtoull(tok, &end, 16);
        if (strlen(tok) != 16 || *end || errno) {
            snprintf(why, len, "%s:%d: %s '%.40s' is not 16 hex digits", path, lineno, key, tok);
            return -1;
        }
        *(!strcmp(key, "cache_script") ? &r->key.script : !strcmp(key, "cache_python") ? &r->key.python : &r->key.plan) = h;
        return 0;
    }
    double v;
    if (number(tok, &v) != 0) {
        snprintf(why, len, "%s:%d: %s '%.40s' is not a number", path, lineno, key, tok);
        return -1;
    }
    if (kind == V_PROB && !(isnan(v) || (v >= 0 && v <= 1))) {
        snprintf(why, len, "%s:%d: %s %s is outside [0, 1] (a fraction of the test images)", path, lineno, key, tok);
        return -1;
    }
    if ((kind == V_NONNEG && !(isfinite(v) && v >= 0)) || (kind == V_NONNEG_NAN && !(isnan(v) || (isfinite(v) && v >= 0)))) {
        snprintf(why, len, "%s:%d: %s %s is not a %snumber >= 0", path, lineno, key, tok, kind == V_NONNEG ? "finite " : "");
        return -1;
    }
    if (!strcmp(key, metric)) r->value = v;
    else if (!strcmp(key, "init_max_abs_diff")) r->init_diff = v;
    else if (!strcmp(key, "content_rms")) r->content_rms = v;
    else if (!strcmp(key, "posenc_rms")) r->posenc_rms = v;
    return 0;
}

int torch_result_read(const char *path, const char *metric, long steps, int need_key, torch_result *r, char *why, size_t len) {
    memset(r, 0, sizeof *r);
    r->value = r->init_diff = r->content_rms = r->posenc_rms = NAN;
    if (steps < 0 || steps > 100000000) {
        snprintf(why, len, "%s: the plan's step count %ld is out of range", path, steps);
        return -1;
    }
    FILE *f; // a regular file (a FIFO never blocks), never through a link, within what its steps can fill
    if (safe_fopen_read(path, TORCH_RESULT_FIXED_BYTES + (long long)(steps + 1) * TORCH_RESULT_LINE_BYTES, SAFE_NOFOLLOW, &f,
                        NULL, why, len) != SAFE_OK)
        return -1;
    r->losses = xcalloc((size_t)steps + 1, sizeof *r->losses, "crosscheck losses");
    char seen[MAX_KEYS][32], *line = NULL;
    int seen_line[MAX_KEYS], nseen = 0, lineno = 0, rc = 0;
    size_t cap = 0;
    ssize_t n;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (n == 0 || line[n - 1] != '\n') {
            snprintf(why, len, "%s:%d: the last line has no end (the file was cut while being written)", path, lineno);
            rc = -1;
            break;
        }
        line[n - 1] = '\0';
        if ((size_t)(n - 1) != strlen(line)) {
            snprintf(why, len, "%s:%d: a NUL byte in the line", path, lineno);
            rc = -1;
            break;
        }
        rc = read_line(path, lineno, line, metric, steps, r, seen, seen_line, &nseen, why, len);
    }
    if (rc == 0 && ferror(f)) snprintf(why, len, "%s: read error", path), rc = -1;
    free(line);
    fclose(f);
    // Required lines (checked after the whole file, so a bad line is named first).
    const char *required[] = {metric, "init", "init_max_abs_diff", "content_rms", "posenc_rms", "seconds", "step_losses",
                              need_key ? "cache_script" : NULL, "cache_python", "cache_plan"};
    for (size_t k = 0; rc == 0 && k < sizeof required / sizeof required[0] && required[k]; k++) {
        int have = 0;
        for (int i = 0; i < nseen; i++) have |= !strcmp(seen[i], required[k]);
        if (!have) snprintf(why, len, "%s: no %s line (%d lines read)", path, required[k], lineno), rc = -1;
    }
    for (int i = 0; rc == 0 && i < nseen; i++)
        if (!strncmp(seen[i], "cache_", 6)) r->has_key++;
    if (rc == 0 && r->has_key && r->has_key != 3) snprintf(why, len, "%s: only %d of the 3 cache_* lines", path, r->has_key), rc = -1;
    if (rc == 0 && !strcmp(r->init, "torch") && !r->embed_init[0]) snprintf(why, len, "%s: init torch without an embed_init line", path), rc = -1;
    if (rc != 0) {
        torch_result_free(r);
        return -1;
    }
    return 0;
}
