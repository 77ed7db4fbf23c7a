// bench/cli/cmd_list.c — `posbench list EXPERIMENT.yaml [--scale S] [--out DIR]`: every run of
// the expanded experiment with its id, stage, init (parent) run id, status and axis values,
// then one count line per stage. Loads and validates exactly as `posbench run` does, so a
// bad file fails here first (exit 2, "file:line:col: message").
#include "../experiment/exp_tables.h"
#include "../experiment/experiment.h"
#include "../../core/common.h"
#include <stdio.h>
#include <string.h>

static void list_help(void) {
    printf("usage: posbench list EXPERIMENT.yaml [--scale S] [--out DIR]\n"
           "Validates the experiment and prints every run it expands to: run id, stage, the run id\n"
           "it starts from (init), status and axis values. Status: done or diverged (<out>/<experiment>/\n"
           "<stage>/<run-id>.h5 opens and its status says so), damaged (that file exists but does not\n"
           "open or has no final status; posbench run --force sets it aside), partial (.h5.partial or\n"
           ".ckpt exists, the run will resume) or pending.\n"
           "  --scale S   apply the experiment's override set S (see its scales:)\n"
           "  --out DIR   results directory (default results)\n");
}

// "2 done, 1 diverged, 0 partial, 3 pending": done, partial and pending always, the others
// (diverged, damaged) when some run is.
static void count_text(const int *count, const char *const *kinds, int nkinds, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (int k = 0; k < nkinds; k++) {
        int always = !strcmp(kinds[k], "done") || !strcmp(kinds[k], "partial") || !strcmp(kinds[k], "pending");
        if (!always && count[k] == 0) continue;
        int w = snprintf(out + used, len - used, "%s%d %s", used ? ", " : "", count[k], kinds[k]);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
}

int cmd_list(int argc, char **argv) {
    const char *path = NULL, *scale = NULL, *out = "results";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            list_help();
            return 0;
        } else if (!strcmp(a, "--scale")) {
            if (i + 1 >= argc) die_input("--scale needs a scale name (see the experiment's scales:)");
            scale = argv[++i];
        } else if (!strcmp(a, "--out")) {
            if (i + 1 >= argc) die_input("--out needs a directory");
            out = argv[++i];
        } else if (a[0] == '-') {
            die_input("unknown flag '%s' for posbench list (valid: --scale S, --out DIR, --help)", a);
        } else if (path) {
            die_input("posbench list takes one experiment file (got '%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    if (!path) die_input("posbench list needs an experiment file (posbench list EXPERIMENT.yaml [--scale S])");
    static experiment e; // large (axes, seeds): keep it off the stack
    char err[4096];
    if (experiment_load(&e, path, scale, err, sizeof err) != 0) die_input("%s", err);
    // reference:, figures: and findings: checked exactly as `posbench run` checks them
    if (exp_tables_write(&e, NULL, err, sizeof err) != 0) die_input("%s", err);

    int sw = 5;
    for (int s = 0; s < e.nstages; s++)
        if ((int)strlen(e.stage_names[s]) > sw) sw = (int)strlen(e.stage_names[s]);
    printf("experiment %s (%s)%s%s: %d runs in %d stage%s; results in %s/%s/\n", e.name, e.path,
           e.scale[0] ? ", scale " : "", e.scale, e.nruns, e.nstages, e.nstages == 1 ? "" : "s", out, e.name);
    printf("%-12s  %-*s  %-12s  %-7s  %s\n", "run id", sw, "stage", "init", "status", "axes");
    static const char *kinds[] = {"done", "diverged", "damaged", "partial", "pending"};
    enum { NKINDS = 5 };
    int count[EXP_MAX_STAGES][NKINDS] = {{0}};
    for (int i = 0; i < e.nruns; i++) {
        const exp_run *r = &e.runs[i];
        const char *st = experiment_run_status(&e, i, out);
        int kind = 0;
        while (kind < NKINDS - 1 && strcmp(st, kinds[kind])) kind++;
        count[r->stage_index][kind]++;
        printf("%-12s  %-*s  %-12s  %-7s  %s\n", r->run_id, sw, r->stage, r->parent >= 0 ? e.runs[r->parent].run_id : "-",
               st, r->axes);
    }
    int total[NKINDS] = {0};
    for (int s = 0; s < e.nstages; s++) {
        char from[100] = "", counts[256];
        if (e.stage_init[s] >= 0) snprintf(from, sizeof from, ", init from %s", e.stage_names[e.stage_init[s]]);
        count_text(count[s], kinds, NKINDS, counts, sizeof counts);
        printf("%s: %d runs%s (%s)\n", e.stage_names[s], e.stage_runs[s], from, counts);
        for (int k = 0; k < NKINDS; k++) total[k] += count[s][k];
    }
    if (e.nstages > 1) {
        char counts[256];
        count_text(total, kinds, NKINDS, counts, sizeof counts);
        printf("total: %d runs (%s)\n", e.nruns, counts);
    }
    experiment_free(&e);
    return 0;
}
