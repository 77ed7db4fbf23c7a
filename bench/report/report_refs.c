// bench/report/report_refs.c — the reference numbers of a report (report_refs.h).
#include "report_refs.h"
#include "../experiment/experiment.h"
#include "../experiment/reference_spec.h"
#include "../experiment/yaml_tree.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void free_refs(ref_table *t) {
    for (int i = 0; i < t->n; i++) {
        free(t->items[i].stage), free(t->items[i].match), free(t->items[i].metric);
        free(t->items[i].value), free(t->items[i].source);
    }
    free(t->items);
}

// Reads DIR/reference.tsv when present. 0 ok; -1 with err on a malformed line.
int load_refs_tsv(const char *dir, ref_table *t, char *err, size_t errlen) {
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s/reference.tsv", dir);
    FILE *f;
    int missing;
    if (safe_fopen_read(t->path, SAFE_TEXT_CAP, SAFE_NOFOLLOW, &f, &missing, err, errlen) != SAFE_OK) return missing ? 0 : -1;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, tcap = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        char *field[7] = {0}, *p = line;
        int nf = 0;
        for (; nf < 7; nf++) { // strsep keeps empty fields
            field[nf] = strsep(&p, "\t");
            if (!field[nf]) break;
        }
        if ((nf != 5 && nf != 6) || (nf == 6 && strcmp(field[5], "same_data") && strcmp(field[5], "other_data"))) {
            snprintf(err, errlen, "%s:%d: expected 5 or 6 tab-separated fields (stage, key=value[,key=value], metric, value, source"
                     "[, same_data|other_data]), found %d%s", t->path, lineno, nf, nf == 6 ? " with a sixth field other than same_data/other_data" : "");
            free(line), fclose(f);
            return -1;
        }
        if (lineno == 1 && !strcmp(field[0], "stage") && !strcmp(field[2], "metric")) continue; // a header
        if (!field[0][0] || !field[2][0] || !field[3][0]) {
            snprintf(err, errlen, "%s:%d: stage, metric and value must not be empty", t->path, lineno);
            free(line), fclose(f);
            return -1;
        }
        if (t->n == tcap) {
            tcap = tcap ? 2 * tcap : 16;
            ref_line *g = realloc(t->items, (size_t)tcap * sizeof *g);
            if (!g) die_fail("out of memory reading %s", t->path);
            t->items = g;
        }
        ref_line *r = &t->items[t->n++];
        r->stage = xstrdup(field[0], "ref"), r->match = xstrdup(field[1], "ref"), r->metric = xstrdup(field[2], "ref");
        r->value = xstrdup(field[3], "ref"), r->source = xstrdup(field[4], "ref"), r->line = lineno, r->used = 0;
        r->same_data = nf == 6 && !strcmp(field[5], "same_data");
    }
    free(line);
    fclose(f);
    return 0;
}


// How many of set's runs of `experiment` have a run id among e's runs.
static int runs_matched(const experiment *e, const char *name, const rr_set *set, int *total) {
    int hit = 0;
    *total = 0;
    for (int r = 0; r < set->nruns; r++) {
        if (strcmp(rr_attr_text(&set->runs[r].root, "experiment", ""), name)) continue;
        const char *id = rr_attr_text(&set->runs[r].root, "run_id", "");
        (*total)++;
        for (int i = 0; i < e->nruns; i++)
            if (!strcmp(e->runs[i].run_id, id)) {
                hit++;
                break;
            }
    }
    return hit;
}

int load_refs_yaml(const char *path, const char *name, const rr_set *set, ref_table *t, int *found, char *err, size_t errlen) {
    memset(t, 0, sizeof *t);
    *found = 0;
    if (access(path, F_OK) != 0) return 0;
    ynode *root = NULL;
    if (ytree_load(path, &root, err, errlen) != 0) return -1;
    const ynode *ref = ytree_get(root, "reference", NULL), *own = ytree_get(root, "name", NULL), *scales = ytree_get(root, "scales", NULL);
    int wanted = ref && !ytree_is_null(ref) && own && own->kind == YT_SCALAR && !strcmp(own->text, name);
    // the scale the runs were made at: "" (none) or one of scales:, the one whose run ids match most
    int nscales = wanted && scales && scales->kind == YT_MAP ? scales->n : 0;
    char **cand = xcalloc((size_t)nscales + 1, sizeof *cand, "scales");
    for (int i = 0; i < nscales; i++) cand[i + 1] = xstrdup(scales->key[i]->text, "scale");
    ytree_free(root);
    static experiment e; // large
    int best = -1, best_hit = -1, rc = 0;
    for (int i = 0; wanted && i <= nscales; i++) {
        char why[2048];
        if (experiment_load(&e, path, cand[i], why, sizeof why) != 0) {
            experiment_free(&e);
            if (i == 0) snprintf(err, errlen, "%s", why), rc = -1;
            if (i == 0) break;
            continue;
        }
        int total, hit = runs_matched(&e, name, set, &total);
        experiment_free(&e);
        if (hit > best_hit) best = i, best_hit = hit;
        if (hit == total) break;
    }
    if (rc == 0 && best >= 0) {
        reference_entry *entries = NULL;
        int n = 0;
        rc = experiment_load(&e, path, cand[best], err, errlen);
        if (rc == 0) rc = reference_parse(&e, &entries, &n, err, errlen);
        experiment_free(&e);
        if (rc == 0) {
            t->items = xcalloc((size_t)n + 1, sizeof *t->items, "reference");
            for (int i = 0; i < n; i++)
                t->items[i] = (ref_line){.stage = entries[i].stage, .match = entries[i].match, .metric = entries[i].metric,
                                         .value = entries[i].value, .source = entries[i].source, .line = entries[i].line,
                                         .same_data = entries[i].same_data};
            t->n = n;
            free(entries); // the strings now belong to t
            snprintf(t->path, sizeof t->path, "%s", path);
            *found = 1;
        }
    }
    for (int i = 0; i <= nscales; i++) free(cand[i]);
    free(cand);
    return rc;
}

typedef struct {
    int group; // position of the stage's experiment among the experiments, by first appearance
    int rank;  // the stage's index in its experiment copy's stage order (INT_MAX: unknown)
    int index; // position before ordering (keeps the sort stable)
} stage_key;

static stage_key *g_keys; // qsort has no context argument

static int cmp_stage_key(const void *pa, const void *pb) {
    const stage_key *a = &g_keys[*(const int *)pa], *b = &g_keys[*(const int *)pb];
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

// keys[s].rank for the stages s of set in experiment `experiment_name`: the stage's index in
// that experiment's copy under dir (its stage order); left INT_MAX where the copy does not load
// or lacks the stage. One load per experiment.
static void copy_stage_ranks(const rr_set *set, const char *dir, const char *experiment_name, stage_key *keys) {
    static experiment e; // large
    char path[4400], why[2048];
    int loaded = 0;
    for (int k = 0; k < 2 && !loaded; k++) {
        if (k == 0) snprintf(path, sizeof path, "%s/%s/experiment.yaml", dir, experiment_name);
        else snprintf(path, sizeof path, "%s/experiment.yaml", dir);
        if (access(path, F_OK) != 0) continue;
        if (experiment_load(&e, path, NULL, why, sizeof why) != 0 || strcmp(e.name, experiment_name)) {
            experiment_free(&e);
            continue;
        }
        loaded = 1;
    }
    for (int s = 0; s < set->nstages; s++) {
        if (strcmp(set->stages[s].experiment, experiment_name)) continue;
        for (int i = 0; loaded && i < e.nstages; i++)
            if (!strcmp(e.stage_names[i], set->stages[s].name)) keys[s].rank = i;
    }
    if (loaded) experiment_free(&e);
}

void report_order_stages(rr_set *set, const char *dir) {
    int n = set->nstages;
    if (n < 2) return;
    stage_key *keys = xcalloc((size_t)n, sizeof *keys, "stage order");
    int *order = xcalloc((size_t)n, sizeof *order, "stage order");
    for (int s = 0; s < n; s++) {
        const rr_stage *st = &set->stages[s];
        int group = s;
        for (int q = 0; q < s; q++)
            if (!strcmp(set->stages[q].experiment, st->experiment)) { group = keys[q].group; break; }
        keys[s].group = group, keys[s].index = s, keys[s].rank = INT_MAX, order[s] = s;
    }
    for (int s = 0; s < n; s++) // an experiment's first stage: rank all of its stages from one load
        if (keys[s].group == s && set->stages[s].experiment[0]) copy_stage_ranks(set, dir, set->stages[s].experiment, keys);
    g_keys = keys;
    qsort(order, (size_t)n, sizeof *order, cmp_stage_key);
    rr_stage *sorted = xcalloc((size_t)n, sizeof *sorted, "stage order");
    for (int s = 0; s < n; s++) sorted[s] = set->stages[order[s]];
    memcpy(set->stages, sorted, (size_t)n * sizeof *sorted);
    free(sorted), free(order), free(keys);
}