// bench/results/results_read.c — results directories: the run files below a directory (read
// with run_read.c), grouped into stages, axes and configurations (results_read.h).
#include "results_read.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// ---- directories --------------------------------------------------------------------

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

// Appends the regular files below dir whose name matches (exact, or suffix after '*') to
// *paths; unreadable subdirectories are skipped. -1 when dir itself cannot be read.
static int scan_dir(const char *dir, const char *pattern, char ***paths, int *n, int *cap, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read directory %s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = xmalloc(len, "path");
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        int match = pattern[0] == '*' ? ends_with(e->d_name, pattern + 1) : !strcmp(e->d_name, pattern);
        if (lstat(p, &st) != 0) {
            free(p);
        } else if (S_ISDIR(st.st_mode)) {
            scan_dir(p, pattern, paths, n, cap, err, errlen); // an unreadable subdirectory is skipped
            free(p);
        } else if (match) { // a link, FIFO or device too: its reader refuses it by name, never silently skipped
            rr_grow((void **)paths, *n, cap, sizeof(char *));
            (*paths)[(*n)++] = p;
        } else {
            free(p);
        }
    }
    closedir(d);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char **paths;
    int n;
} path_list;

int rr_find_files(const char *dir, const char *pattern, char ***paths, int *n, char *err, size_t errlen) {
    int cap = 0;
    *paths = NULL, *n = 0;
    if (scan_dir(dir, pattern, paths, n, &cap, err, errlen) < 0) return -1;
    if (*n > 1) qsort(*paths, (size_t)*n, sizeof(char *), cmp_str);
    return 0;
}

const char *rr_config_value(const rr_set *set, int run, const char *key) {
    return rr_attr_text(&set->runs[run].config, key, "—");
}

static char *parent_name(const char *path) {
    char *copy = xstrdup(path, "path");
    char *slash = strrchr(copy, '/');
    if (slash) *slash = '\0';
    slash = strrchr(copy, '/');
    char *name = xstrdup(slash ? slash + 1 : copy, "stage name");
    free(copy);
    return name;
}

static const rr_set *g_sort_set; // qsort has no context argument
static const rr_stage *g_sort_stage;

static int cmp_config(const void *pa, const void *pb) {
    const rr_config *a = pa, *b = pb;
    for (int i = 0; i < g_sort_stage->naxes; i++) {
        int c = rr_value_cmp(a->values[i], b->values[i]);
        if (c) return c;
    }
    return 0;
}

static int cmp_seed(const void *pa, const void *pb) {
    long a = rr_run_seed(&g_sort_set->runs[*(const int *)pa]), b = rr_run_seed(&g_sort_set->runs[*(const int *)pb]);
    return a < b ? -1 : a > b;
}

static const char *stage_started(const rr_set *set, const rr_stage *s) {
    const char *best = NULL;
    for (int i = 0; i < s->nruns; i++) {
        const char *t = rr_attr_text(&set->runs[s->runs[i]].root, "started", NULL);
        if (t && (!best || strcmp(t, best) < 0)) best = t;
    }
    return best ? best : "~";
}

static int cmp_stage(const void *pa, const void *pb) {
    const rr_stage *a = pa, *b = pb;
    int c = strcmp(stage_started(g_sort_set, a), stage_started(g_sort_set, b));
    if (!c) c = strcmp(a->experiment, b->experiment);
    return c ? c : strcmp(a->name, b->name);
}

// Axes, configurations and their labels for one stage.
static void build_stage(rr_set *set, rr_stage *s) {
    int cap = 0;
    for (int i = 0; i < s->nruns; i++) { // keys of every run; an axis when values differ
        const rr_attrs *cfg = &set->runs[s->runs[i]].config;
        for (int k = 0; k < cfg->n; k++) {
            const char *key = cfg->items[k].name;
            size_t kl = strlen(key); // the seed, also a parent stage's ("pretrain.train.seed"), is not an axis
            if (!strcmp(key, "train.seed") || (kl > 11 && !strcmp(key + kl - 11, ".train.seed"))) continue;
            int known = 0;
            for (int a = 0; a < s->naxes && !known; a++) known = !strcmp(s->axes[a], key);
            if (known) continue;
            const char *v0 = rr_config_value(set, s->runs[0], key);
            int differs = 0;
            for (int j = 1; j < s->nruns && !differs; j++) differs = strcmp(v0, rr_config_value(set, s->runs[j], key)) != 0;
            if (!differs) continue;
            rr_grow((void **)&s->axes, s->naxes, &cap, sizeof(char *));
            s->axes[s->naxes++] = xstrdup(key, "axis");
        }
    }
    if (s->naxes > 1) qsort(s->axes, (size_t)s->naxes, sizeof(char *), cmp_str);
    s->configs = xcalloc((size_t)s->nruns, sizeof *s->configs, "configurations");
    for (int i = 0; i < s->nruns; i++) {
        int run = s->runs[i], found = -1;
        for (int c = 0; c < s->nconfigs && found < 0; c++) {
            int same = 1;
            for (int a = 0; a < s->naxes && same; a++) same = !strcmp(s->configs[c].values[a], rr_config_value(set, run, s->axes[a]));
            if (same) found = c;
        }
        if (found < 0) {
            rr_config *c = &s->configs[found = s->nconfigs++];
            c->values = xcalloc((size_t)s->naxes + 1, sizeof(char *), "axis values");
            size_t len = 4;
            for (int a = 0; a < s->naxes; a++) {
                c->values[a] = xstrdup(rr_config_value(set, run, s->axes[a]), "axis value");
                len += strlen(s->axes[a]) + strlen(c->values[a]) + 3;
            }
            c->label = xcalloc(len, 1, "configuration label");
            if (s->naxes == 0) strcpy(c->label, "all");
            for (int a = 0; a < s->naxes; a++)
                sprintf(c->label + strlen(c->label), "%s%s=%s", a ? ", " : "", s->axes[a], c->values[a]);
            c->runs = xcalloc((size_t)s->nruns, sizeof(int), "configuration runs");
        }
        s->configs[found].runs[s->configs[found].nruns++] = run;
    }
    g_sort_stage = s;
    if (s->nconfigs > 1) qsort(s->configs, (size_t)s->nconfigs, sizeof *s->configs, cmp_config);
    for (int c = 0; c < s->nconfigs; c++)
        if (s->configs[c].nruns > 1) qsort(s->configs[c].runs, (size_t)s->configs[c].nruns, sizeof(int), cmp_seed);
}

// Groups set->runs into stages (by experiment and stage), each into configurations.
static void group_stages(rr_set *set) {
    int stage_cap = 0;
    set->nexperiments = 0;
    g_sort_set = set;
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        const char *exp = rr_attr_text(&run->root, "experiment", "");
        const char *stage = rr_attr_text(&run->root, "stage", NULL);
        char *pname = stage ? NULL : parent_name(run->path);
        if (!stage) stage = pname;
        int found = -1;
        for (int s = 0; s < set->nstages && found < 0; s++)
            if (!strcmp(set->stages[s].experiment, exp) && !strcmp(set->stages[s].name, stage)) found = s;
        if (found < 0) {
            rr_grow((void **)&set->stages, set->nstages, &stage_cap, sizeof(rr_stage));
            rr_stage *s = &set->stages[found = set->nstages++];
            memset(s, 0, sizeof *s);
            s->experiment = xstrdup(exp, "experiment"), s->name = xstrdup(stage, "stage");
            s->runs = xcalloc((size_t)set->nruns, sizeof(int), "stage runs");
            int seen = 0;
            for (int t = 0; t < found && !seen; t++) seen = !strcmp(set->stages[t].experiment, exp);
            if (!seen) set->nexperiments++;
        }
        set->stages[found].runs[set->stages[found].nruns++] = r;
        free(pname);
    }
    for (int s = 0; s < set->nstages; s++) build_stage(set, &set->stages[s]);
    if (set->nstages > 1) qsort(set->stages, (size_t)set->nstages, sizeof *set->stages, cmp_stage);
}

static void free_stages(rr_set *set) {
    for (int s = 0; s < set->nstages; s++) {
        rr_stage *st = &set->stages[s];
        for (int c = 0; c < st->nconfigs; c++) {
            for (int a = 0; a < st->naxes; a++) free(st->configs[c].values[a]);
            free(st->configs[c].values), free(st->configs[c].label), free(st->configs[c].runs);
        }
        for (int a = 0; a < st->naxes; a++) free(st->axes[a]);
        free(st->axes), free(st->configs), free(st->runs), free(st->experiment), free(st->name);
    }
    free(set->stages);
    set->stages = NULL, set->nstages = 0;
}

static int cmp_left(const void *pa, const void *pb) {
    const rr_left *a = pa, *b = pb;
    return a->kind != b->kind ? (a->kind < b->kind ? -1 : 1) : strcmp(a->path, b->path);
}

void rr_set_leave_out(rr_set *set, char *const *why, rr_left_kind kind) {
    int kept = 0, any = 0;
    for (int r = 0; r < set->nruns; r++) any |= why[r] != NULL;
    if (!any) return;
    set->left = realloc(set->left, (size_t)(set->nleft + set->nruns) * sizeof *set->left);
    if (!set->left) die_fail("out of memory reading results");
    for (int r = 0; r < set->nruns; r++) {
        if (!why[r]) {
            set->runs[kept++] = set->runs[r];
            continue;
        }
        rr_left *l = &set->left[set->nleft++];
        l->kind = kind, l->path = xstrdup(set->runs[r].path, "path"), l->why = xstrdup(why[r], "reason");
        l->experiment = xstrdup(rr_attr_text(&set->runs[r].root, "experiment", ""), "experiment");
        rr_free(&set->runs[r]);
    }
    set->nruns = kept;
    if (set->nleft > 1) qsort(set->left, (size_t)set->nleft, sizeof *set->left, cmp_left);
    free_stages(set);
    group_stages(set);
}

int rr_scan(const char *dir, int what, rr_set *set, char *err, size_t errlen) {
    memset(set, 0, sizeof *set);
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "cannot read directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", dir);
        return -1;
    }
    path_list pl = {0};
    if (rr_find_files(dir, "*.h5", &pl.paths, &pl.n, err, errlen) < 0) return -1;
    set->runs = xcalloc((size_t)pl.n, sizeof *set->runs, "runs");
    int skip_cap = 0;
    char msg[1400];
    for (int i = 0; i < pl.n; i++) {
        if (rr_read(pl.paths[i], what, &set->runs[set->nruns], msg, sizeof msg) == 0) {
            set->nruns++;
        } else {
            rr_grow((void **)&set->skipped, set->nskipped, &skip_cap, sizeof(char *));
            set->skipped[set->nskipped++] = xstrdup(msg, "skip message");
        }
        free(pl.paths[i]);
    }
    free(pl.paths);
    group_stages(set);
    return 0;
}

void rr_set_free(rr_set *set) {
    free_stages(set);
    for (int r = 0; r < set->nruns; r++) rr_free(&set->runs[r]);
    free(set->runs);
    for (int i = 0; i < set->nskipped; i++) free(set->skipped[i]);
    free(set->skipped);
    for (int i = 0; i < set->nleft; i++) free(set->left[i].path), free(set->left[i].why), free(set->left[i].experiment);
    free(set->left);
    memset(set, 0, sizeof *set);
}
