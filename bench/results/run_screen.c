// bench/results/run_screen.c — damaged /final groups and duplicate run files are left out of a
// results set before anything is counted (rules: run_screen.h).
#include "run_screen.h"
#include "text_index.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// /final attributes that are text, and numbers a run may record as NaN ("not measured").
static const char *const final_text[] = {"metric_info", NULL};
static const char *const final_may_be_nan[] = {"init_pe_to_content", NULL};

static int listed(const char *const *list, const char *name) {
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], name)) return 1;
    return 0;
}

int rr_final_check(const rr_run *r, char *why, size_t whylen) {
    if (strcmp(rr_run_status(r), "done")) return 0;
    if (r->final.n == 0) {
        snprintf(why, whylen, "status done but no /final attributes (no results recorded)");
        return -1;
    }
    for (int i = 0; i < r->final.n; i++) {
        const rr_attr *a = &r->final.items[i];
        if (a->nvalues != 1) {
            snprintf(why, whylen, "/final %s holds %lld values, not one", a->name, a->nvalues);
            return -1;
        }
        if (listed(final_text, a->name)) {
            if (a->type != 's') {
                snprintf(why, whylen, "/final %s is not text", a->name);
                return -1;
            }
            continue;
        }
        if (a->type == 's') {
            snprintf(why, whylen, "/final %s is a string ('%.40s'), not a number", a->name, a->text);
            return -1;
        }
        if (a->type != 'i' && a->type != 'd') {
            snprintf(why, whylen, "/final %s is not a number %s", a->name, a->text);
            return -1;
        }
        if (!isfinite(a->num) && !(isnan(a->num) && listed(final_may_be_nan, a->name))) {
            snprintf(why, whylen, "/final %s is %s, not a finite number", a->name, a->text);
            return -1;
        }
    }
    return 0;
}

void rr_screen_damaged(rr_set *set) {
    int n = set->nruns;
    char **why = xcalloc((size_t)n + 1, sizeof *why, "screening");
    for (int r = 0; r < n; r++) {
        char msg[256];
        if (rr_final_check(&set->runs[r], msg, sizeof msg) != 0) why[r] = xstrdup(msg, "reason");
    }
    rr_set_leave_out(set, why, RR_LEFT_DAMAGED);
    for (int r = 0; r < n; r++) free(why[r]);
    free(why);
}

// How well the file's place fits the run: 2 for the name <run-id>.h5, 1 more for a folder
// named after the stage.
static int place_score(const rr_run *r, const char *stage) {
    const char *id = rr_attr_text(&r->root, "run_id", "");
    const char *base = strrchr(r->path, '/');
    base = base ? base + 1 : r->path;
    size_t n = strlen(id);
    int score = 0;
    if (n && !strncmp(base, id, n) && !strcmp(base + n, ".h5")) score += 2;
    size_t sl = strlen(stage);
    if (base - r->path > (long)sl && base[-1] == '/' && !strncmp(base - 1 - sl, stage, sl) &&
        (base - 1 - sl == r->path || base[-2 - (long)sl] == '/'))
        score += 1;
    return score;
}

// The run's identity keys: (experiment, stage, run id) and (experiment, stage, every /config
// attribute with its value, the seed included); the second is "" when the run has no /config.
static void identity_keys(const rr_run *r, const char *stage, text_key *by_id, text_key *by_config) {
    tk_reset(by_id), tk_reset(by_config);
    tk_add(by_id, rr_attr_text(&r->root, "experiment", "")), tk_add(by_id, stage), tk_add(by_id, rr_attr_text(&r->root, "run_id", ""));
    if (r->config.n == 0) return;
    tk_add(by_config, rr_attr_text(&r->root, "experiment", "")), tk_add(by_config, stage);
    for (int i = 0; i < r->config.n; i++) tk_add(by_config, r->config.items[i].name), tk_add(by_config, r->config.items[i].text);
}

// The earlier of two candidate runs (-1: none).
static int earlier(int a, int b) { return a < 0 ? b : b < 0 ? a : a < b ? a : b; }

void rr_screen_duplicates(rr_set *set) {
    int n = set->nruns;
    int *group = xcalloc((size_t)n + 1, sizeof *group, "screening"); // the first file of the same run
    int *best = xcalloc((size_t)n + 1, sizeof *best, "screening");   // per group: the file counted
    char **why = xcalloc((size_t)n + 1, sizeof *why, "screening");
    char **stage = xcalloc((size_t)n + 1, sizeof *stage, "screening"); // rr_run_stage: as results_read.c groups it
    // One hash lookup per run (not a comparison with every earlier run): the first earlier file
    // with the same run id, or (either without a run id) the same /config.
    text_index by_id = {0}, by_config_no_id = {0}, by_config = {0};
    text_key id_key = {0}, config_key = {0};
    for (int r = 0; r < n; r++) {
        const rr_run *a = &set->runs[r];
        stage[r] = rr_run_stage(a);
        identity_keys(a, stage[r], &id_key, &config_key);
        int has_id = rr_attr_text(&a->root, "run_id", "")[0] != 0, has_config = a->config.n > 0;
        int q = -1;
        if (has_id) q = earlier(ti_get(&by_id, id_key.s), has_config ? ti_get(&by_config_no_id, config_key.s) : -1);
        else if (has_config) q = ti_get(&by_config, config_key.s);
        group[r] = q >= 0 ? group[q] : r;
        if (has_id) ti_put(&by_id, id_key.s, r);
        if (has_config) ti_put(&by_config, config_key.s, r);
        if (has_config && !has_id) ti_put(&by_config_no_id, config_key.s, r);
    }
    ti_free(&by_id), ti_free(&by_config_no_id), ti_free(&by_config), tk_free(&id_key), tk_free(&config_key);
    for (int r = 0; r < n; r++) { // the better-placed file is counted (the earlier by path on a tie)
        if (group[r] == r) best[r] = r;
        else if (place_score(&set->runs[r], stage[r]) > place_score(&set->runs[best[group[r]]], stage[best[group[r]]])) best[group[r]] = r;
    }
    for (int r = 0; r < n; r++) {
        int counted = best[group[r]];
        if (r == counted) continue;
        const char *id = rr_attr_text(&set->runs[counted].root, "run_id", "");
        const char *rid = rr_attr_text(&set->runs[r].root, "run_id", "");
        int same_id = id[0] && !strcmp(id, rid);
        char msg[4400];
        snprintf(msg, sizeof msg, "duplicate of run %s (%s as %s, which is counted)", id[0] ? id : rid[0] ? rid : "(no run id)",
                 same_id ? "the same run id" : "the same configuration and seed", set->runs[counted].path);
        why[r] = xstrdup(msg, "reason");
    }
    rr_set_leave_out(set, why, RR_LEFT_DUPLICATE);
    for (int r = 0; r < n; r++) free(why[r]), free(stage[r]);
    free(why), free(group), free(best), free(stage);
}

void rr_screen(rr_set *set) {
    rr_screen_damaged(set);
    rr_screen_duplicates(set);
}
