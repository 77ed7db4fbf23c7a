// bench/report/run_select.c — the runs of a results folder that count, shared by report, plot
// and export (rules: run_select.h).
#include "run_select.h"
#include "report_versions.h"
#include "../experiment/experiment.h"
#include "../experiment/yaml_tree.h"
#include "../results/run_screen.h"
#include "../results/text_index.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The /config key under which a run of stage si records matrix key k ("" when the key is not
// this stage's): an unqualified key as written; the stage's own key without "<stage>."; a key of
// a stage it starts from (its init chain) as written, as the run records its parent's keys.
static void config_key_of(const experiment *e, int si, const exp_axis_key *k, char *out, size_t len) {
    out[0] = '\0';
    if (k->stage < 0) {
        snprintf(out, len, "%s", k->name);
        return;
    }
    if (k->stage == si) {
        size_t sl = strlen(e->stage_names[si]);
        snprintf(out, len, "%s", !strncmp(k->name, e->stage_names[si], sl) && k->name[sl] == '.' ? k->name + sl + 1 : k->name);
        return;
    }
    for (int p = e->stage_init[si], hops = 0; p >= 0 && hops < EXP_MAX_STAGES; p = e->stage_init[p], hops++)
        if (p == k->stage) {
            snprintf(out, len, "%s", k->name);
            return;
        }
}

// Does the copy's `scales:` name this scale?
static int has_scale(const experiment *e, const char *scale) {
    const ynode *scales = ytree_get(e->tree, "scales", NULL);
    for (int i = 0; scales && scales->kind == YT_MAP && i < scales->n; i++)
        if (!strcmp(scales->key[i]->text, scale)) return 1;
    return 0;
}

// The hint of (name, stage) in *hints, added (with the stage's matrix keys) when absent.
static rr_stage_hint *stage_hint(const experiment *e, int si, const char *name, rr_stage_hint **hints, int *nhints) {
    for (int k = 0; k < *nhints; k++)
        if (!strcmp((*hints)[k].experiment, name) && !strcmp((*hints)[k].stage, e->stage_names[si])) return &(*hints)[k];
    *hints = realloc(*hints, (size_t)(*nhints + 1) * sizeof **hints);
    if (!*hints) die_fail("out of memory reading experiment copies");
    rr_stage_hint *h = &(*hints)[(*nhints)++];
    memset(h, 0, sizeof *h);
    h->experiment = xstrdup(name, "hint"), h->stage = xstrdup(e->stage_names[si], "hint");
    h->axes = xcalloc(EXP_MAX_AXES * EXP_MAX_AXIS_KEYS + 1, sizeof *h->axes, "hint");
    for (int a = 0; a < e->naxes; a++)
        for (int k = 0; k < e->axes[a].nkeys && e->axes[a].nvalues > 1; k++) {
            char key[300];
            config_key_of(e, si, &e->axes[a].keys[k], key, sizeof key);
            if (key[0]) h->axes[h->naxes++] = xstrdup(key, "hint");
        }
    return h;
}

// Hints (matrix keys, missing runs) for experiment `name`, whose copy is at path: the copy is
// expanded at each scale its counted runs recorded (one `scales:` names; otherwise at none), and
// each run it enumerates whose run id no file that was read has (counted or left out) is missing.
static void experiment_hints(const rr_set *set, const char *name, const char *path, rr_stage_hint **hints, int *nhints) {
    static experiment e; // large
    char why[2048];
    text_index present = {0}, scales = {0};
    for (int r = 0; r < set->nruns; r++)
        if (!strcmp(rr_attr_text(&set->runs[r].root, "experiment", ""), name))
            ti_put(&present, rr_attr_text(&set->runs[r].root, "run_id", ""), 1);
    for (int i = 0; i < set->nleft; i++)
        if (!strcmp(set->left[i].experiment, name)) ti_put(&present, set->left[i].run_id, 1);
    int nscales = 0;
    const char **scale_names = xcalloc((size_t)set->nruns + 1, sizeof *scale_names, "scales");
    if (experiment_load(&e, path, NULL, why, sizeof why) == 0) // which recorded scales the copy names
        for (int r = 0; r < set->nruns; r++) {
            const rr_run *run = &set->runs[r];
            if (strcmp(rr_attr_text(&run->root, "experiment", ""), name)) continue;
            const char *sc = rr_attr_text(&run->root, "scale", "");
            if (!has_scale(&e, sc)) sc = "";
            if (ti_put(&scales, sc, nscales) == nscales) scale_names[nscales++] = sc;
        }
    experiment_free(&e);
    for (int sc = 0; sc < nscales; sc++) {
        if (experiment_load(&e, path, scale_names[sc][0] ? scale_names[sc] : NULL, why, sizeof why) != 0) {
            experiment_free(&e);
            continue;
        }
        int current = 0;
        for (int i = 0; i < e.nruns; i++) current += ti_get(&present, e.runs[i].run_id) >= 0;
        for (int si = 0; si < e.nstages && current > 0; si++) { // else not the file the runs were made from: no claim
            rr_stage_hint *h = stage_hint(&e, si, name, hints, nhints);
            for (int i = 0; i < e.nruns; i++) h->nmissing += e.runs[i].stage_index == si && ti_get(&present, e.runs[i].run_id) < 0;
        }
        experiment_free(&e);
    }
    ti_free(&present), ti_free(&scales);
    free(scale_names);
}

int run_select(const char *dir, int what, rr_set *set, char *err, size_t errlen) {
    if (rr_scan(dir, what, set, err, errlen) != 0) return -1;
    rr_screen(set);                    // damaged /final and second files of a run
    report_current_versions(set, dir); // runs of earlier versions of an experiment
    for (int i = 0; i < set->nskipped; i++) // no control of a file name reaches the terminal (visible_text.h)
        fputs("posbench: warning: left out ", stderr), visible_text(stderr, set->skipped[i], NULL), fputc('\n', stderr);
    free(report_left_markdown(set, 1)); // one warning per file left out
    rr_stage_hint *hints = NULL;
    int nhints = 0;
    for (int s = 0; s < set->nstages; s++) {
        const char *name = set->stages[s].experiment;
        int first = 1; // once per experiment
        for (int q = 0; q < s && first; q++) first = strcmp(set->stages[q].experiment, name) != 0;
        char path[4400];
        if (first && name[0] && report_copy_path(dir, name, path, sizeof path)) {
            int before = nhints;
            experiment_hints(set, name, path, &hints, &nhints);
            int missing = 0;
            for (int h = before; h < nhints; h++) missing += hints[h].nmissing;
            if (!missing) continue;
            fputs("posbench: warning: experiment ", stderr), visible_text(stderr, name, NULL);
            fprintf(stderr, ": %d run%s that ", missing, missing == 1 ? "" : "s"), visible_text(stderr, path, NULL);
            fprintf(stderr, " enumerates %s no run file (", missing == 1 ? "has" : "have");
            for (int h = before, k = 0; h < nhints; h++)
                if (hints[h].nmissing) {
                    fputs(k++ ? ", stage " : "stage ", stderr), visible_text(stderr, hints[h].stage, NULL);
                    fprintf(stderr, ": %d", hints[h].nmissing);
                }
            fprintf(stderr, ")\n");
        }
    }
    rr_set_hints(set, hints, nhints);
    for (int h = 0; h < nhints; h++) {
        for (int a = 0; a < hints[h].naxes; a++) free(hints[h].axes[a]);
        free(hints[h].axes), free(hints[h].experiment), free(hints[h].stage);
    }
    free(hints);
    return 0;
}
