// bench/results/results_read.c — results directories: the run files below a directory (read
// with run_read.c), grouped into stages, axes and configurations (results_read.h).
#include "results_read.h"
#include "text_index.h"
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

static char *parent_name(const char *path);

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

char *rr_run_stage(const rr_run *r) {
    const char *stage = rr_attr_text(&r->root, "stage", NULL);
    return stage ? xstrdup(stage, "stage name") : parent_name(r->path);
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

typedef struct {
    const char *started;
    rr_stage stage;
} stage_order;

static int cmp_stage(const void *pa, const void *pb) {
    const stage_order *a = pa, *b = pb;
    int c = strcmp(a->started, b->started);
    if (!c) c = strcmp(a->stage.experiment, b->stage.experiment);
    return c ? c : strcmp(a->stage.name, b->stage.name);
}

static int is_seed_key(const char *key) { // the seed, also a parent stage's ("pretrain.train.seed"), is not an axis
    size_t kl = strlen(key);
    return !strcmp(key, "train.seed") || (kl > 11 && !strcmp(key + kl - 11, ".train.seed"));
}

// Axes, configurations and their labels for one stage; linear in its runs and their keys (one
// hash lookup per key of each run, one per run for its configuration).
typedef struct {
    const char *name, *first; // the key and its first value in a run that has it
    int present, differs;     // runs that have it; whether a value differs from first
} key_seen;

static void build_stage(rr_set *set, rr_stage *s) {
    // A key is an axis when its value (an absent key reading "—") is not the same in every run.
    text_index key_index = {0};
    key_seen *keys = NULL;
    int nkeys = 0, key_cap = 0;
    for (int i = 0; i < s->nruns; i++) {
        const rr_attrs *cfg = &set->runs[s->runs[i]].config;
        for (int k = 0; k < cfg->n; k++) {
            const rr_attr *a = &cfg->items[k];
            if (is_seed_key(a->name)) continue;
            int idx = ti_put(&key_index, a->name, nkeys);
            if (idx == nkeys) {
                rr_grow((void **)&keys, nkeys, &key_cap, sizeof *keys);
                keys[nkeys++] = (key_seen){.name = a->name, .first = a->text};
            }
            keys[idx].present++;
            keys[idx].differs |= strcmp(keys[idx].first, a->text) != 0;
        }
    }
    for (int h = 0; h < set->nhints; h++) { // the matrix keys of the stage: axes when its files hold them
        const rr_stage_hint *hint = &set->hints[h];
        if (strcmp(hint->experiment, s->experiment) || strcmp(hint->stage, s->name)) continue;
        s->nmissing = hint->nmissing;
        for (int a = 0; a < hint->naxes; a++) {
            int k = ti_get(&key_index, hint->axes[a]);
            if (k >= 0) keys[k].differs = 1;
        }
    }
    int axis_cap = 0;
    for (int k = 0; k < nkeys; k++) {
        if (!keys[k].differs && (keys[k].present == s->nruns || !strcmp(keys[k].first, "—"))) continue;
        rr_grow((void **)&s->axes, s->naxes, &axis_cap, sizeof(char *));
        s->axes[s->naxes++] = xstrdup(keys[k].name, "axis");
    }
    ti_free(&key_index);
    free(keys);
    if (s->naxes > 1) qsort(s->axes, (size_t)s->naxes, sizeof(char *), cmp_str);
    // Configurations: one per distinct assignment of the axes (a hash of the values).
    s->configs = xcalloc((size_t)s->nruns + 1, sizeof *s->configs, "configurations");
    int *config_of = xcalloc((size_t)s->nruns + 1, sizeof *config_of, "configurations");
    text_index config_index = {0};
    text_key key = {0};
    for (int i = 0; i < s->nruns; i++) {
        int run = s->runs[i];
        tk_reset(&key);
        for (int a = 0; a < s->naxes; a++) tk_add(&key, rr_config_value(set, run, s->axes[a]));
        int found = ti_put(&config_index, key.s ? key.s : "", s->nconfigs);
        if (found == s->nconfigs) {
            rr_config *c = &s->configs[s->nconfigs++];
            c->values = xcalloc((size_t)s->naxes + 1, sizeof(char *), "axis values");
            size_t len = 4;
            for (int a = 0; a < s->naxes; a++) {
                c->values[a] = xstrdup(rr_config_value(set, run, s->axes[a]), "axis value");
                len += strlen(s->axes[a]) + strlen(c->values[a]) + 3;
            }
            c->label = xcalloc(len, 1, "configuration label");
            size_t used = 0;
            if (s->naxes == 0) snprintf(c->label, len, "all");
            for (int a = 0; a < s->naxes; a++)
                used += (size_t)snprintf(c->label + used, len - used, "%s%s=%s", a ? ", " : "", s->axes[a], c->values[a]);
        }
        config_of[i] = found;
        s->configs[found].nruns++;
    }
    ti_free(&config_index);
    tk_free(&key);
    for (int c = 0; c < s->nconfigs; c++) {
        s->configs[c].runs = xcalloc((size_t)s->configs[c].nruns, sizeof(int), "configuration runs");
        s->configs[c].nruns = 0;
    }
    for (int i = 0; i < s->nruns; i++) s->configs[config_of[i]].runs[s->configs[config_of[i]].nruns++] = s->runs[i];
    free(config_of);
    g_sort_stage = s;
    if (s->nconfigs > 1) qsort(s->configs, (size_t)s->nconfigs, sizeof *s->configs, cmp_config);
    for (int c = 0; c < s->nconfigs; c++)
        if (s->configs[c].nruns > 1) qsort(s->configs[c].runs, (size_t)s->configs[c].nruns, sizeof(int), cmp_seed);
}

// Groups set->runs into stages (by experiment and stage), each into configurations; one hash
// lookup per run.
static void group_stages(rr_set *set) {
    int stage_cap = 0;
    set->nexperiments = 0;
    g_sort_set = set;
    text_index stage_index = {0}, experiment_index = {0};
    text_key key = {0};
    int *stage_of = xcalloc((size_t)set->nruns + 1, sizeof *stage_of, "stages");
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        const char *exp = rr_attr_text(&run->root, "experiment", "");
        const char *stage = rr_attr_text(&run->root, "stage", NULL);
        char *pname = stage ? NULL : parent_name(run->path);
        if (!stage) stage = pname;
        tk_reset(&key), tk_add(&key, exp), tk_add(&key, stage);
        int found = ti_put(&stage_index, key.s, set->nstages);
        if (found == set->nstages) {
            rr_grow((void **)&set->stages, set->nstages, &stage_cap, sizeof(rr_stage));
            rr_stage *s = &set->stages[set->nstages++];
            memset(s, 0, sizeof *s);
            s->experiment = xstrdup(exp, "experiment"), s->name = xstrdup(stage, "stage");
            size_t known = experiment_index.n;
            ti_put(&experiment_index, exp, 0);
            set->nexperiments += experiment_index.n > known;
        }
        stage_of[r] = found;
        set->stages[found].nruns++;
        free(pname);
    }
    for (int s = 0; s < set->nstages; s++) {
        set->stages[s].runs = xcalloc((size_t)set->stages[s].nruns + 1, sizeof(int), "stage runs");
        set->stages[s].nruns = 0;
    }
    for (int r = 0; r < set->nruns; r++) set->stages[stage_of[r]].runs[set->stages[stage_of[r]].nruns++] = r;
    free(stage_of);
    ti_free(&stage_index), ti_free(&experiment_index), tk_free(&key);
    for (int s = 0; s < set->nstages; s++) build_stage(set, &set->stages[s]);
    if (set->nstages > 1) { // by earliest start (computed once per stage), then experiment, name
        stage_order *order = xcalloc((size_t)set->nstages, sizeof *order, "stage order");
        for (int s = 0; s < set->nstages; s++) order[s].started = stage_started(set, &set->stages[s]), order[s].stage = set->stages[s];
        qsort(order, (size_t)set->nstages, sizeof *order, cmp_stage);
        for (int s = 0; s < set->nstages; s++) set->stages[s] = order[s].stage;
        free(order);
    }
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
        l->stage = rr_run_stage(&set->runs[r]);
        l->run_id = xstrdup(rr_attr_text(&set->runs[r].root, "run_id", ""), "run id");
        rr_free(&set->runs[r]);
    }
    set->nruns = kept;
    if (set->nleft > 1) qsort(set->left, (size_t)set->nleft, sizeof *set->left, cmp_left);
    free_stages(set);
    group_stages(set);
}

void rr_set_hints(rr_set *set, const rr_stage_hint *hints, int n) {
    if (n == 0) return;
    set->hints = realloc(set->hints, (size_t)(set->nhints + n) * sizeof *set->hints);
    if (!set->hints) die_fail("out of memory reading results");
    for (int h = 0; h < n; h++) {
        rr_stage_hint *to = &set->hints[set->nhints++];
        to->experiment = xstrdup(hints[h].experiment, "hint"), to->stage = xstrdup(hints[h].stage, "hint");
        to->naxes = hints[h].naxes, to->nmissing = hints[h].nmissing;
        to->axes = xcalloc((size_t)to->naxes + 1, sizeof *to->axes, "hint");
        for (int a = 0; a < to->naxes; a++) to->axes[a] = xstrdup(hints[h].axes[a], "hint");
    }
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
    for (int i = 0; i < set->nleft; i++) free(set->left[i].path), free(set->left[i].why), free(set->left[i].experiment), free(set->left[i].stage),
        free(set->left[i].run_id);
    free(set->left);
    for (int h = 0; h < set->nhints; h++) {
        rr_stage_hint *hint = &set->hints[h];
        for (int a = 0; a < hint->naxes; a++) free(hint->axes[a]);
        free(hint->axes), free(hint->experiment), free(hint->stage);
    }
    free(set->hints);
    memset(set, 0, sizeof *set);
}
