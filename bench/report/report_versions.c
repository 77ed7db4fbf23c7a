// bench/report/report_versions.c — leaving out the runs of earlier versions of an experiment
// (rules: report_versions.h).
#include "report_versions.h"
#include "../experiment/experiment.h"
#include "../experiment/yaml_tree.h"
#include "../results/text_index.h"
#include "../text/markdown_text.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The run ids of an experiment's copy (one hash lookup per run file, however many runs it enumerates).
typedef text_index id_set;

static void add_ids(id_set *s, const experiment *e) {
    for (int i = 0; i < e->nruns; i++) ti_put(s, e->runs[i].run_id, 1);
}

static int has_id(const id_set *s, const char *id) { return ti_get(s, id) >= 0; }

int report_copy_path(const char *dir, const char *name, char *path, size_t pathlen) {
    static experiment e; // large
    char why[2048];
    for (int k = 0; k < 2; k++) {
        if (k == 0) snprintf(path, pathlen, "%s/%s/experiment.yaml", dir, name);
        else snprintf(path, pathlen, "%s/experiment.yaml", dir);
        if (access(path, F_OK) != 0) continue;
        int ok = experiment_load(&e, path, NULL, why, sizeof why) == 0 && !strcmp(e.name, name);
        experiment_free(&e);
        if (ok) return 1;
    }
    return 0;
}

// The run ids of experiment `name`'s copy under dir at every scale into ids, its path into
// path. 0 when there is no copy of that name that loads.
static int copy_ids(const char *dir, const char *name, id_set *ids, char *path, size_t pathlen) {
    static experiment e; // large
    char why[2048];
    if (!report_copy_path(dir, name, path, pathlen) || experiment_load(&e, path, NULL, why, sizeof why) != 0) {
        experiment_free(&e);
        return 0;
    }
    add_ids(ids, &e);
    const ynode *scales = ytree_get(e.tree, "scales", NULL);
    int nscales = scales && scales->kind == YT_MAP ? scales->n : 0;
    char **names = xcalloc((size_t)nscales + 1, sizeof *names, "scales");
    for (int i = 0; i < nscales; i++) names[i] = xstrdup(scales->key[i]->text, "scale");
    experiment_free(&e);
    for (int i = 0; i < nscales; i++) {
        if (experiment_load(&e, path, names[i], why, sizeof why) == 0) add_ids(ids, &e);
        experiment_free(&e);
        free(names[i]);
    }
    free(names);
    return 1;
}

void report_current_versions(rr_set *set, const char *dir) {
    char **why = xcalloc((size_t)set->nruns + 1, sizeof *why, "versions");
    int n = set->nruns;
    for (int s = 0; s < set->nstages; s++) {
        const char *name = set->stages[s].experiment;
        int first = 1; // once per experiment
        for (int q = 0; q < s && first; q++) first = strcmp(set->stages[q].experiment, name) != 0;
        if (!first || !name[0]) continue;
        id_set ids = {0};
        char path[4400];
        if (copy_ids(dir, name, &ids, path, sizeof path)) {
            int total = 0, current = 0;
            for (int r = 0; r < n; r++) {
                const rr_run *run = &set->runs[r];
                if (strcmp(rr_attr_text(&run->root, "experiment", ""), name)) continue;
                total++, current += has_id(&ids, rr_attr_text(&run->root, "run_id", ""));
            }
            if (current == 0 && total > 0) // not the file these runs were made from: nothing to tell apart
                warn_msg("none of the %d runs of experiment '%s' is a run of %s (at any scale): "
                                "it is not the file they were made from, so all of them are used", total, name, path);
            for (int r = 0; r < n && current > 0; r++) {
                const rr_run *run = &set->runs[r];
                if (strcmp(rr_attr_text(&run->root, "experiment", ""), name)) continue;
                const char *id = rr_attr_text(&run->root, "run_id", "");
                if (has_id(&ids, id)) continue;
                char msg[4600];
                snprintf(msg, sizeof msg, "run %s is not a run of %s at any scale (an earlier version of the experiment)",
                         id[0] ? id : "(no run id)", path);
                why[r] = xstrdup(msg, "reason");
            }
        }
        ti_free(&ids);
    }
    rr_set_leave_out(set, why, RR_LEFT_EARLIER);
    for (int r = 0; r < n; r++) free(why[r]);
    free(why);
}

int report_earlier_count(const rr_set *set, const char *experiment) {
    int n = 0;
    for (int i = 0; i < set->nleft; i++) n += set->left[i].kind == RR_LEFT_EARLIER && !strcmp(set->left[i].experiment, experiment);
    return n;
}

char *report_earlier_note(const rr_set *set, const char *experiment) {
    int n = report_earlier_count(set, experiment);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    if (n)
        fprintf(f, "**Not used:** %d run%s of an earlier version of this experiment %s not used (their run ids are not "
                   "among those of its experiment.yaml; listed under \"Run files left out\").\n\n", n, n == 1 ? "" : "s",
                n == 1 ? "is" : "are");
    if (fclose(f) != 0) die_fail("report: cannot build a note: %s", strerror(errno));
    return out;
}

char *report_left_markdown(const rr_set *set, int warn) {
    static const char *title[] = {"damaged (a done run whose /final is not sound)", "duplicates (a second file of a run that is counted)",
                                  "earlier versions of their experiment"};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    if (set->nleft) fprintf(f, "Run files left out (not in any table, finding or figure):\n\n");
    for (int i = 0; i < set->nleft; i++) {
        const rr_left *l = &set->left[i];
        if (i == 0 || set->left[i - 1].kind != l->kind) {
            int count = 0;
            for (int k = i; k < set->nleft && set->left[k].kind == l->kind; k++) count++;
            fprintf(f, "%s- %d %s:\n", i ? "" : "", count, title[l->kind]);
        }
        fputs("  - ", f), md_text(f, l->path), fputs(": ", f), md_text(f, l->why), fputc('\n', f); // one line each (markdown_text.h)
        if (warn) fputs("posbench: warning: left out ", stderr), visible_text(stderr, l->path, NULL), fputs(": ", stderr),
            visible_text(stderr, l->why, NULL), fputc('\n', stderr); // no control reaches the terminal (visible_text.h)
    }
    if (set->nleft) fprintf(f, "\n");
    if (fclose(f) != 0) die_fail("report: cannot build the list of files left out: %s", strerror(errno));
    return out;
}
