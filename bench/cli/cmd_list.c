// bench/cli/cmd_list.c — `posbench list EXPERIMENT.yaml [--scale S] [--out DIR]`: every run of
// the expanded experiment with its id, stage, init (parent) run id, status and axis values,
// then one count line per stage. Loads and validates exactly as `posbench run` does, so a
// bad file fails here first (exit 2, "file:line:col: message").
#include "../experiment/experiment.h"
#include "../../core/common.h"
#include <stdio.h>
#include <string.h>

static void list_help(void) {
    printf("usage: posbench list EXPERIMENT.yaml [--scale S] [--out DIR]\n"
           "Validates the experiment and prints every run it expands to: run id, stage, the run id\n"
           "it starts from (init), status and axis values. Status: done (<out>/<experiment>/<stage>/\n"
           "<run-id>.h5 exists), partial (.h5.partial or .ckpt exists, the run will resume) or pending.\n"
           "  --scale S   apply the experiment's override set S (see its scales:)\n"
           "  --out DIR   results directory (default results)\n");
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

    int sw = 5;
    for (int s = 0; s < e.nstages; s++)
        if ((int)strlen(e.stage_names[s]) > sw) sw = (int)strlen(e.stage_names[s]);
    printf("experiment %s (%s)%s%s: %d runs in %d stage%s; results in %s/%s/\n", e.name, e.path,
           e.scale[0] ? ", scale " : "", e.scale, e.nruns, e.nstages, e.nstages == 1 ? "" : "s", out, e.name);
    printf("%-12s  %-*s  %-12s  %-7s  %s\n", "run id", sw, "stage", "init", "status", "axes");
    int count[EXP_MAX_STAGES][3] = {{0}};
    for (int i = 0; i < e.nruns; i++) {
        const exp_run *r = &e.runs[i];
        const char *st = experiment_run_status(&e, i, out);
        count[r->stage_index][st[0] == 'd' ? 0 : st[0] == 'p' && st[1] == 'a' ? 1 : 2]++;
        printf("%-12s  %-*s  %-12s  %-7s  %s\n", r->run_id, sw, r->stage, r->parent >= 0 ? e.runs[r->parent].run_id : "-",
               st, r->axes);
    }
    int total[3] = {0};
    for (int s = 0; s < e.nstages; s++) {
        char from[100] = "";
        if (e.stage_init[s] >= 0) snprintf(from, sizeof from, ", init from %s", e.stage_names[e.stage_init[s]]);
        printf("%s: %d runs%s (%d done, %d partial, %d pending)\n", e.stage_names[s], e.stage_runs[s], from,
               count[s][0], count[s][1], count[s][2]);
        for (int k = 0; k < 3; k++) total[k] += count[s][k];
    }
    if (e.nstages > 1)
        printf("total: %d runs (%d done, %d partial, %d pending)\n", e.nruns, total[0], total[1], total[2]);
    experiment_free(&e);
    return 0;
}
