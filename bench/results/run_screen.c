// bench/results/run_screen.c — damaged /final groups and duplicate run files are left out of a
// results set before anything is counted (rules: run_screen.h).
#include "run_screen.h"
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

// The run's stage: root attr `stage`, else its folder's name (as results_read.c groups it).
static void stage_of(const rr_run *r, char *out, size_t len) {
    const char *st = rr_attr_text(&r->root, "stage", NULL);
    if (st) {
        snprintf(out, len, "%s", st);
        return;
    }
    const char *end = strrchr(r->path, '/'), *start = end;
    while (start && start > r->path && start[-1] != '/') start--;
    snprintf(out, len, "%.*s", end && start ? (int)(end - start) : 0, start ? start : "");
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

// Do the two runs have the same /config (every attribute, the seed included)?
static int same_config(const rr_run *a, const rr_run *b) {
    if (a->config.n == 0 || a->config.n != b->config.n) return 0;
    for (int i = 0; i < a->config.n; i++)
        if (strcmp(a->config.items[i].name, b->config.items[i].name) || strcmp(a->config.items[i].text, b->config.items[i].text))
            return 0;
    return 1;
}

void rr_screen_duplicates(rr_set *set) {
    int n = set->nruns;
    int *group = xcalloc((size_t)n + 1, sizeof *group, "screening"); // the first file of the same run
    char **why = xcalloc((size_t)n + 1, sizeof *why, "screening");
    char (*stage)[256] = xcalloc((size_t)n + 1, sizeof *stage, "screening");
    for (int r = 0; r < n; r++) group[r] = r, stage_of(&set->runs[r], stage[r], sizeof stage[r]);
    for (int r = 0; r < n; r++) {
        const rr_run *a = &set->runs[r];
        const char *exp = rr_attr_text(&a->root, "experiment", ""), *id = rr_attr_text(&a->root, "run_id", "");
        for (int q = 0; q < r && group[r] == r; q++) {
            const rr_run *b = &set->runs[q];
            const char *qid = rr_attr_text(&b->root, "run_id", "");
            if (strcmp(exp, rr_attr_text(&b->root, "experiment", "")) || strcmp(stage[r], stage[q])) continue;
            if ((id[0] && !strcmp(id, qid)) || ((!id[0] || !qid[0]) && same_config(a, b))) group[r] = group[q];
        }
    }
    for (int g = 0; g < n; g++) {
        if (group[g] != g) continue;
        int best = g; // the better-placed file is counted (the earlier by path on a tie)
        for (int r = g + 1; r < n; r++)
            if (group[r] == g && place_score(&set->runs[r], stage[r]) > place_score(&set->runs[best], stage[best])) best = r;
        for (int r = g; r < n; r++) {
            if (group[r] != g || r == best) continue;
            const char *id = rr_attr_text(&set->runs[best].root, "run_id", "");
            const char *rid = rr_attr_text(&set->runs[r].root, "run_id", "");
            int same_id = id[0] && !strcmp(id, rid);
            char msg[4400];
            snprintf(msg, sizeof msg, "duplicate of run %s (%s as %s, which is counted)", id[0] ? id : rid[0] ? rid : "(no run id)",
                     same_id ? "the same run id" : "the same configuration and seed", set->runs[best].path);
            why[r] = xstrdup(msg, "reason");
        }
    }
    rr_set_leave_out(set, why, RR_LEFT_DUPLICATE);
    for (int r = 0; r < n; r++) free(why[r]);
    free(why), free(group), free(stage);
}

void rr_screen(rr_set *set) {
    rr_screen_damaged(set);
    rr_screen_duplicates(set);
}
