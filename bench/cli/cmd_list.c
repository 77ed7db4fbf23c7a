// bench/cli/cmd_list.c — `posbench list EXPERIMENT.yaml [--scale S] [--out DIR]`: every run of
// the expanded experiment with its id, stage, init (parent) run id, status and axis values,
// then one count line per stage; with --budgets, every run's updates and images seen. Loads and validates exactly as `posbench run` does, so a
// bad file fails here first (exit 2, "file:line:col: message").
#include "../experiment/exp_tables.h"
#include "../config/config.h"
#include "../experiment/experiment.h"
#include "../train/budget.h"
#include "../../core/common.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void list_help(void) {
    printf("usage: posbench list EXPERIMENT.yaml [--scale S] [--out DIR] [--budgets]\n"
           "Validates the experiment and prints every run it expands to: run id, stage, the run id\n"
           "it starts from (init), status and axis values. Status: done or diverged (<out>/<experiment>/\n"
           "<stage>/<run-id>.h5 opens and its status says so), damaged (that file exists but does not\n"
           "open or has no final status; posbench run --force sets it aside), partial (.h5.partial or\n"
           ".ckpt exists, the run will resume) or pending.\n"
           "  --scale S   apply the experiment's override set S (see its scales:)\n"
           "  --out DIR   results directory (default results)\n"
           "  --budgets   also print every run's training budget: updates and images seen, with those of\n"
           "              its init chain (a finetune run) or of the chain it matches (a budget: stage);\n"
           "              reads the training splits of runs that count epochs (bench/train/budget.h)\n");
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

// A run's own updates (a budget: stage: its chain's sum, as the trainer derives it).
static long own_updates(const experiment *e, int i) {
    const exp_run *r = &e->runs[i];
    if (r->budget >= 0) {
        long sum = 0;
        for (int q = r->budget; q >= 0; q = e->runs[q].parent) sum += own_updates(e, q);
        return sum;
    }
    return budget_updates_of_config(&r->cfg);
}

// "budgets:" table: run id, stage, updates, images seen (totals over the init chain), and where
// they come from ("pretrain 1404 + finetune 460").
static void print_budgets(const experiment *e, int sw) {
    printf("budgets: updates and images seen, a finetune run's with its init chain's, a budget: stage's = its chain's\n");
    printf("%-12s  %-*s  %10s  %12s  %s\n", "run id", sw, "stage", "updates", "images", "from");
    for (int i = 0; i < e->nruns; i++) {
        const exp_run *r = &e->runs[i];
        long updates = 0, images = 0;
        char from[1024] = "";
        int chain[EXP_MAX_STAGES], n = 0;
        for (int q = r->budget >= 0 ? r->budget : r->parent; q >= 0 && n < EXP_MAX_STAGES; q = e->runs[q].parent) chain[n++] = q;
        for (int k = n - 1; k >= 0; k--) {
            long u = own_updates(e, chain[k]);
            updates += u, images += u * cfg_int(&e->runs[chain[k]].cfg, "train.batch");
            snprintf(from + strlen(from), sizeof from - strlen(from), "%s%s %ld", strlen(from) ? " + " : "", e->runs[chain[k]].stage, u);
        }
        long own = own_updates(e, i);
        if (r->budget < 0) { // its own training, after its init chain's
            updates += own, images += own * cfg_int(&r->cfg, "train.batch");
            if (n) snprintf(from + strlen(from), sizeof from - strlen(from), " + %s %ld", r->stage, own);
        } else {
            snprintf(from + strlen(from), sizeof from - strlen(from), " (matched)");
        }
        printf("%-12s  %-*s  %10ld  %12ld  %s\n", r->run_id, sw, r->stage, updates, images, from);
    }
}

int cmd_list(int argc, char **argv) {
    const char *path = NULL, *scale = NULL, *out = "results";
    int budgets = 0;
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
        } else if (!strcmp(a, "--budgets")) {
            budgets = 1;
        } else if (a[0] == '-') {
            const char *valid = "--scale S, --out DIR, --budgets, --help";
            die_input("unknown flag '%s'%s for posbench list (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        } else if (path) {
            die_input("posbench list takes one experiment file (got '%s' and '%s')", path, a);
        } else {
            path = a;
        }
    }
    if (!path) die_input("posbench list needs an experiment file (posbench list EXPERIMENT.yaml [--scale S])");
    struct stat sb; // as posbench run: a file named --out would list every run as damaged
    if (stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode))
        die_input("--out %s is not a directory (a file of that name exists): name a results directory", out);
    static experiment e; // large (axes, seeds): keep it off the stack
    char err[4096];
    if (experiment_load(&e, path, scale, err, sizeof err) != 0) die_input("%s", err);
    // reference:, figures: and findings: checked exactly as `posbench run` checks them
    if (exp_tables_write(&e, NULL, err, sizeof err) != 0) die_input("%s", err);

    int sw = 5;
    for (int s = 0; s < e.nstages; s++)
        if ((int)strlen(e.stage_names[s]) > sw) sw = (int)strlen(e.stage_names[s]);
    printf("experiment %s (%s)%s%s: %d runs in %d stage%s; results in %s/%s/\n", e.name, vis(e.path),
           e.scale[0] ? ", scale " : "", e.scale, e.nruns, e.nstages, e.nstages == 1 ? "" : "s", vis(out), e.name);
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
               st, vis(r->axes));
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
    if (budgets) print_budgets(&e, sw);
    experiment_free(&e);
    return 0;
}
