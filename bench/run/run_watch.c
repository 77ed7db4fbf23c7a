// bench/run/run_watch.c — the runs of a results directory and their live state for `posbench
// watch` (rules in run_watch.h).
#include "run_watch.h"
#include "../results/run_metrics.h"
#include "../store/run_files.h"
#include "../../core/common.h"
#include "../../core/safe_file.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *watch_state_name(watch_state s) {
    static const char *names[WATCH_STATES] = {"running", "queued", "stopped", "done", "diverged", "damaged"};
    return names[s];
}

typedef struct {
    watch_run *runs;
    int n, cap;
    const char *root;
} scan;

static const char *const suffixes[] = {".h5", ".h5.partial", ".ckpt", ".lock", ".metrics.jsonl"};

static watch_run *find_or_add(scan *s, const char *base) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->runs[i].base, base)) return &s->runs[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        s->runs = xrealloc(s->runs, (size_t)s->cap * sizeof *s->runs, "watched runs");
    }
    watch_run *r = &s->runs[s->n++];
    memset(r, 0, sizeof *r);
    r->base = xstrdup(base, "run path");
    r->eta_s = NAN;
    return r;
}

// names/<name> -> ../<id>.h5: the run <stage dir>/<id>, labelled <stage dir>/<name>.
static void add_name_link(scan *s, const char *names_dir, const char *name) {
    char path[4400], target[512];
    snprintf(path, sizeof path, "%s/%s", names_dir, name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 7) return;
    target[n] = 0;
    if (strncmp(target, "../", 3) || strchr(target + 3, '/') || strcmp(target + n - 3, ".h5")) return; // not one of ours
    char stage_dir[4400], base[4800], label[4800];
    snprintf(stage_dir, sizeof stage_dir, "%s", names_dir);
    *strrchr(stage_dir, '/') = 0;
    snprintf(base, sizeof base, "%s/%.*s", stage_dir, (int)(n - 6), target + 3);
    snprintf(label, sizeof label, "%s/%s", stage_dir, name);
    watch_run *r = find_or_add(s, base);
    free(r->label);
    r->label = xstrdup(label, "run label");
}

static void walk(scan *s, const char *dir, int is_names) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[4400];
        int w = snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        struct stat st;
        if (w < 0 || (size_t)w >= sizeof path || lstat(path, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            if (is_names) add_name_link(s, dir, ent->d_name);
        } else if (S_ISDIR(st.st_mode)) {
            walk(s, path, !strcmp(ent->d_name, "names"));
        } else if (S_ISREG(st.st_mode)) {
            size_t len = strlen(path);
            for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
                size_t sl = strlen(suffixes[k]);
                if (len > sl && !strcmp(path + len - sl, suffixes[k])) {
                    path[len - sl] = 0;
                    if (!strchr(strrchr(path, '/') + 1, '.')) find_or_add(s, path); // a run id has no dot
                    break;
                }
            }
        }
    }
    closedir(d);
}

// The number after "key": in a metrics line; NaN when absent or null.
static double json_number(const char *line, const char *key) {
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p) return NAN;
    char *end;
    double v = strtod(p + strlen(pat), &end);
    return end == p + strlen(pat) ? NAN : v;
}

// "top1 81.25% top5 97.00% loss 0.5213" from a line's eval_* keys, each in its unit.
static void eval_text(const char *line, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (const char *p = strstr(line, "\"eval_"); p && used < len; p = strstr(p + 1, "\"eval_")) {
        const char *name = p + 6, *q = strchr(name, '"');
        if (!q || q[1] != ':') continue;
        char metric[64];
        snprintf(metric, sizeof metric, "%.*s", (int)(q - name < 63 ? q - name : 63), name);
        char *end;
        double v = strtod(q + 2, &end);
        const metric_info *info = run_metrics_builtin(metric);
        double scale = info && info->scale != 0 ? info->scale : 1.0;
        const char *unit = info && info->unit ? info->unit : "";
        int w;
        if (end == q + 2) w = snprintf(out + used, len - used, "%s%s -", used ? " " : "", metric);
        else if (!strcmp(unit, "%")) w = snprintf(out + used, len - used, "%s%s %.2f%%", used ? " " : "", metric, v * scale);
        else w = snprintf(out + used, len - used, "%s%s %.4g%s", used ? " " : "", metric, v * scale, unit);
        if (w < 0) break;
        used += (size_t)w;
    }
}

// The last line of the metrics file and the last line with an evaluation. A running retrain of a
// finished run writes <id>.metrics.jsonl.partial (bench/train/metrics_log.h): that one is read
// then. The file is read as core/safe_file.h reads (regular, never blocking on a FIFO, within
// SAFE_TEXT_CAP, each line within SAFE_LINE_CAP); one that is refused says why in r->eval.
static void read_metrics(watch_run *r) {
    char path[4400], err[4600];
    struct stat st;
    snprintf(path, sizeof path, "%s.metrics.jsonl.partial", r->base);
    if (r->state != WATCH_RUNNING || lstat(path, &st) != 0) snprintf(path, sizeof path, "%s.metrics.jsonl", r->base);
    FILE *f;
    int missing;
    if (safe_fopen_read(path, SAFE_TEXT_CAP, SAFE_NOFOLLOW, &f, &missing, err, sizeof err) != SAFE_OK) {
        if (!missing) snprintf(r->eval, sizeof r->eval, "metrics not read: %.200s", err);
        return;
    }
    char *line = NULL, *last = NULL, *last_eval = NULL;
    size_t cap = 0;
    int got, skipped = 0;
    while ((got = safe_read_line(f, &line, &cap, SAFE_LINE_CAP)) != 0) {
        if (got < 0) { // a line past the cap: skipped, said after the evaluation text
            skipped++;
            continue;
        }
        if (feof(f)) break; // no newline: being written, the previous line is the last whole one
        free(last);
        last = xstrdup(line, "metrics line");
        if (strstr(line, "\"eval_")) free(last_eval), last_eval = xstrdup(line, "metrics line");
    }
    free(line);
    fclose(f);
    if (last) {
        r->has_metrics = 1;
        r->step = (long)json_number(last, "step");
        r->total_steps = (long)json_number(last, "total_steps");
        r->loss = json_number(last, "loss");
        r->train_time_s = json_number(last, "train_time_s");
        r->time = json_number(last, "time");
    }
    if (last_eval) {
        eval_text(last_eval, r->eval, sizeof r->eval);
        r->eval_step = (long)json_number(last_eval, "step");
    }
    if (skipped) {
        size_t used = strlen(r->eval);
        snprintf(r->eval + used, sizeof r->eval - used, "%s%d metrics line%s longer than %zu bytes skipped", used ? "; " : "",
                 skipped, skipped == 1 ? "" : "s", SAFE_LINE_CAP);
    }
    free(last);
    free(last_eval);
}

// The pid in <base>.lock when that process is alive (kill(pid, 0)); 0 otherwise.
static long live_lock_holder(const char *base) {
    char path[4400], text[64] = "", err[64];
    snprintf(path, sizeof path, "%s.lock", base);
    FILE *f; // a lock that is not a regular file (a FIFO) holds nobody and never blocks the view
    if (safe_fopen_read(path, -1, SAFE_NOFOLLOW, &f, NULL, err, sizeof err) != SAFE_OK) return 0;
    if (!fgets(text, sizeof text, f)) text[0] = 0;
    fclose(f);
    long pid = strtol(text, NULL, 10);
    if (pid <= 0) return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM ? pid : 0;
}

static int exists(const char *base, const char *suffix) {
    char path[4400];
    snprintf(path, sizeof path, "%s%s", base, suffix);
    return access(path, F_OK) == 0;
}

// run_file_status of finished files, kept between refreshes while a file's inode, size and
// modification time stay the same (a finished .h5 is replaced, never edited, by posbench), so
// a refresh opens only the files that changed.
typedef struct {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    run_file_state state;
    char why[256];
} status_entry;
static status_entry *g_status;
static int g_nstatus, g_capstatus;

static run_file_state file_status(const char *h5, char *why, size_t whylen) {
    struct stat st;
    if (stat(h5, &st) != 0) return run_file_status(h5, why, whylen);
    status_entry *e = NULL;
    for (int i = 0; i < g_nstatus && !e; i++)
        if (!strcmp(g_status[i].path, h5)) e = &g_status[i];
    if (e && e->dev == st.st_dev && e->ino == st.st_ino && e->size == st.st_size && e->mtime.tv_sec == st.st_mtim.tv_sec &&
        e->mtime.tv_nsec == st.st_mtim.tv_nsec) {
        snprintf(why, whylen, "%s", e->why);
        return e->state;
    }
    if (!e) {
        if (g_nstatus == g_capstatus) {
            g_capstatus = g_capstatus ? 2 * g_capstatus : 64;
            g_status = xrealloc(g_status, (size_t)g_capstatus * sizeof *g_status, "watch status cache");
        }
        e = &g_status[g_nstatus++];
        e->path = xstrdup(h5, "watch status cache");
    }
    e->why[0] = 0;
    e->state = run_file_status(h5, e->why, sizeof e->why);
    e->dev = st.st_dev, e->ino = st.st_ino, e->size = st.st_size, e->mtime = st.st_mtim;
    snprintf(why, whylen, "%s", e->why);
    return e->state;
}

static void judge(watch_run *r) {
    long pid = live_lock_holder(r->base);
    char h5[4400];
    snprintf(h5, sizeof h5, "%s.h5", r->base);
    if (pid) {
        r->state = WATCH_RUNNING;
        snprintf(r->why, sizeof r->why, "process %ld", pid);
    } else {
        run_file_state st = file_status(h5, r->why, sizeof r->why);
        if (st == RUN_FILE_DONE) r->state = WATCH_DONE;
        else if (st == RUN_FILE_DIVERGED) r->state = WATCH_DIVERGED;
        else if (st == RUN_FILE_DAMAGED) r->state = WATCH_DAMAGED;
        else r->state = exists(r->base, ".h5.partial") || exists(r->base, ".ckpt") ? WATCH_STOPPED : WATCH_QUEUED;
    }
    read_metrics(r);
    if (r->state == WATCH_RUNNING && r->has_metrics && r->step > 0 && r->total_steps >= r->step && isfinite(r->train_time_s))
        r->eta_s = r->train_time_s / (double)r->step * (double)(r->total_steps - r->step);
}

static int by_label(const void *a, const void *b) { return strcmp(((const watch_run *)a)->label, ((const watch_run *)b)->label); }

int watch_scan(const char *dir, watch_run **runs, int *n, char *err, size_t errlen) {
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "%s: %s (give a results directory)", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory (give a results directory)", dir);
        return -1;
    }
    scan s = {.root = dir};
    walk(&s, dir, 0);
    size_t rootlen = strlen(dir);
    for (int i = 0; i < s.n; i++) {
        watch_run *r = &s.runs[i];
        const char *from = r->label ? r->label : r->base;
        const char *rel = !strncmp(from, dir, rootlen) && from[rootlen] == '/' ? from + rootlen + 1 : from;
        char *label = xstrdup(rel, "run label");
        free(r->label);
        r->label = label;
        judge(r);
    }
    if (s.n > 1) qsort(s.runs, (size_t)s.n, sizeof *s.runs, by_label);
    *runs = s.runs;
    *n = s.n;
    return 0;
}

void watch_runs_free(watch_run *runs, int n) {
    for (int i = 0; i < n; i++) free(runs[i].base), free(runs[i].label);
    free(runs);
}
