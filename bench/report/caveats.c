// bench/report/caveats.c — per-experiment caveats for the report (rules: caveats.h).
#include "caveats.h"
#include "../experiment/caveats_spec.h"
#include "../experiment/yaml_tree.h"
#include "../text/markdown_text.h"
#include "../../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *experiment;
    int n;
    char **text; // the file's caveats, then the automatic ones
} caveat_set;

static caveat_set *g_sets;
static int g_nsets;

static caveat_set *find_set(const char *experiment, int create) {
    for (int i = 0; i < g_nsets; i++)
        if (!strcmp(g_sets[i].experiment, experiment)) return &g_sets[i];
    if (!create) return NULL;
    caveat_set *grown = realloc(g_sets, (size_t)(g_nsets + 1) * sizeof *grown);
    if (!grown) die_fail("out of memory reading caveats");
    g_sets = grown;
    caveat_set *s = &g_sets[g_nsets++];
    memset(s, 0, sizeof *s);
    s->experiment = xstrdup(experiment, "caveats");
    return s;
}

static void add_text(caveat_set *s, const char *text, size_t len) {
    char **grown = realloc(s->text, (size_t)(s->n + 1) * sizeof *grown);
    if (!grown) die_fail("out of memory reading caveats");
    s->text = grown;
    char *t = xmalloc(len + 1, "caveat");
    memcpy(t, text, len);
    t[len] = '\0';
    s->text[s->n++] = t;
}

static int read_file(const char *path, char *err, size_t errlen) {
    ynode *root = NULL;
    if (ytree_load(path, &root, err, errlen) != 0) return -1;
    const ynode *name = root && root->kind == YT_MAP ? ytree_get(root, "name", NULL) : NULL;
    const ynode *list = root && root->kind == YT_MAP ? ytree_get(root, "caveats", NULL) : NULL;
    int rc = caveats_check(path, list, err, errlen);
    if (rc == 0 && list && name && name->kind == YT_SCALAR) {
        caveat_set *s = find_set(name->text, 1);
        for (int i = 0; i < list->n; i++) {
            size_t len = strlen(list->val[i]->text);
            while (len > 0 && (list->val[i]->text[len - 1] == '\n' || list->val[i]->text[len - 1] == ' ')) len--;
            add_text(s, list->val[i]->text, len);
        }
    }
    ytree_free(root);
    return rc;
}

// "one seed" for the stages of `experiment` whose every configuration has at most one done run.
static void one_seed(const rr_set *set, const char *experiment) {
    char names[2048] = "";
    int stages = 0, single = 0;
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment)) continue;
        int max_n = 0;
        for (int c = 0; c < st->nconfigs; c++) {
            int n = 0;
            for (int k = 0; k < st->configs[c].nruns; k++) n += !strcmp(rr_run_status(&set->runs[st->configs[c].runs[k]]), "done");
            if (n > max_n) max_n = n;
        }
        if (max_n == 0) continue; // nothing finished: no numbers to qualify
        stages++;
        if (max_n > 1) continue;
        single++;
        char *name = md_code_dup(st->name); // one line (bench/text/markdown_text.h)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s`%s`", names[0] ? ", " : "", name);
        free(name);
    }
    if (!single) return;
    char text[2300];
    if (single == stages)
        snprintf(text, sizeof text, "one seed: every configuration has a single run (n = 1: no spread over seeds; a finding can only pool configurations)");
    else
        snprintf(text, sizeof text, "one seed in stage%s %s: a single run per configuration there (n = 1: no spread over seeds)",
                 single > 1 ? "s" : "", names);
    add_text(find_set(experiment, 1), text, strlen(text));
}

// Which device trained the experiment's done runs (root attribute `device`), when any was not the
// CPU: a reader must know that step times, images/s and memory are the GPU's, and that one
// configuration trains to (slightly) other numbers on another device (floating-point order).
static void devices(const rr_set *set, const char *experiment) {
    const char *names[8];
    int counts[8], nnames = 0, non_cpu = 0;
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment)) continue;
        for (int k = 0; k < st->nruns; k++) {
            const rr_run *r = &set->runs[st->runs[k]];
            if (strcmp(rr_run_status(r), "done")) continue;
            const char *dev = rr_attr_text(&r->root, "device", "cpu");
            if (!strncmp(dev, "cpu", 3)) dev = "cpu"; // cpu and cpu-guarded: the same arithmetic
            else non_cpu = 1;
            int i = 0;
            while (i < nnames && strcmp(names[i], dev)) i++;
            if (i == nnames) {
                if (nnames == 8) continue;
                names[nnames] = dev;
                counts[nnames++] = 0;
            }
            counts[i]++;
        }
    }
    if (!non_cpu) return;
    char list[512] = "";
    for (int i = 0; i < nnames; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s (%d run%s)", i == 0 ? "" : i == nnames - 1 ? " and " : ", ",
                 names[i], counts[i], counts[i] == 1 ? "" : "s");
    char text[1024];
    snprintf(text, sizeof text,
             "trained on %s: step times, images/s and memory are each device's, not comparable across devices; "
             "a configuration trains to slightly different numbers on another device (floating-point order)%s",
             list, nnames > 1 ? ", and its seeds here mix devices" : "");
    add_text(find_set(experiment, 1), text, strlen(text));
}

double caveats_run_cpu_wait(const rr_run *r) {
    const rr_attr *run = rr_attr_get(&r->root, "cpu_run_s"), *wait = rr_attr_get(&r->root, "cpu_wait_s");
    if (!run || !wait || !run->is_num || !wait->is_num || !(run->num > 0.0) || !(wait->num >= 0.0) || !isfinite(wait->num))
        return NAN;
    return wait->num / (run->num + wait->num);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int caveats_cpu_wait_text(const rr_set *set, const int *runs, int n, char *out, size_t len) {
    out[0] = '\0';
    double *f = xmalloc(((size_t)n + 1) * sizeof *f, "caveats");
    int known = 0, unknown = 0, over = 0;
    for (int i = 0; i < n; i++) {
        const rr_run *r = &set->runs[runs[i]];
        if (strcmp(rr_run_status(r), "done")) continue;
        double w = caveats_run_cpu_wait(r);
        if (isnan(w)) unknown++;
        else f[known++] = w, over += w > CAVEATS_CPU_WAIT_LIMIT;
    }
    if (known > 0) {
        qsort(f, (size_t)known, sizeof *f, cmp_double);
        double median = known % 2 ? f[known / 2] : 0.5 * (f[known / 2 - 1] + f[known / 2]);
        if (known == 1)
            snprintf(out, len, "the run waited for a CPU %.0f%% of its runnable time while it trained", 100.0 * f[0]);
        else
            snprintf(out, len, "%d runs waited for a CPU %.0f%% to %.0f%% of their runnable time while they trained (median %.0f%%)",
                     known, 100.0 * f[0], 100.0 * f[known - 1], 100.0 * median);
        if (over)
            snprintf(out + strlen(out), len - strlen(out), ": %s timings up to %.2fx as long as on an otherwise idle machine",
                     known == 1 ? "its" : "their", 1.0 / (1.0 - f[known - 1]));
        if (unknown)
            snprintf(out + strlen(out), len - strlen(out), "; %d run%s do%s not record it", unknown, unknown == 1 ? "" : "s",
                     unknown == 1 ? "es" : "");
    }
    free(f);
    return over;
}

// Timings under CPU contention: the done runs of `experiment` that waited for a CPU more than
// the limit while they trained (other processes on the machine), since their step times,
// images/s and train times then measure the load as much as the method.
static void cpu_contention(const rr_set *set, const char *experiment) {
    int n = 0, *runs = xmalloc(((size_t)set->nruns + 1) * sizeof *runs, "caveats");
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment)) continue;
        for (int k = 0; k < st->nruns; k++) runs[n++] = st->runs[k];
    }
    char summary[256];
    if (caveats_cpu_wait_text(set, runs, n, summary, sizeof summary) > 0) {
        char text[800];
        snprintf(text, sizeof text, "timings under CPU contention: %s; step (ms), images/s and train_time (s) measure the "
                 "machine's other load as well as the configuration", summary);
        add_text(find_set(experiment, 1), text, strlen(text));
    }
    free(runs);
}

// DINO's collapse verdict (objectives/dino: /final dino_collapsed = 1, the teacher's entropy
// near 0 or near log K with KL(P_t || P_s) near 0): the done runs of `experiment` that collapsed,
// named with their stage and configuration, since their kNN and probe numbers measure a
// constant feature.
static void collapsed(const rr_set *set, const char *experiment) {
    char names[1536] = "";
    int count = 0;
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment)) continue;
        for (int c = 0; c < st->nconfigs; c++)
            for (int k = 0; k < st->configs[c].nruns; k++) {
                const rr_run *r = &set->runs[st->configs[c].runs[k]];
                const rr_attr *a = rr_attr_get(&r->final, "dino_collapsed");
                if (strcmp(rr_run_status(r), "done") || !a || !a->is_num || a->num != 1.0) continue;
                if (count++ < 6) {
                    char *name = md_code_dup(st->name), *label = md_text_dup(st->configs[c].label);
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s`%s` %s", names[0] ? "; " : "", name, label);
                    free(name), free(label);
                }
            }
    }
    if (!count) return;
    char text[2000];
    snprintf(text, sizeof text, "collapsed (DINO): %d run%s ended with the teacher's output entropy near 0 or near log K with "
             "KL(P_t || P_s) near 0 (/final dino_collapsed): %s%s; their kNN and probe numbers measure a collapsed feature",
             count, count == 1 ? "" : "s", names, count > 6 ? "; ..." : "");
    add_text(find_set(experiment, 1), text, strlen(text));
}

int caveats_load(const char *dir, const rr_set *set, char *err, size_t errlen) {
    caveats_free();
    char **paths = NULL, scan_err[1024];
    int n = 0, rc = 0;
    if (rr_find_files(dir, "experiment.yaml", &paths, &n, scan_err, sizeof scan_err) < 0) n = 0; // rr_scan read dir already
    for (int i = 0; i < n; i++) {
        if (rc == 0) rc = read_file(paths[i], err, errlen);
        free(paths[i]);
    }
    free(paths);
    for (int s = 0; rc == 0 && s < set->nstages; s++) {
        const char *exp = set->stages[s].experiment;
        int first = 1; // once per experiment, at its first stage
        for (int q = 0; q < s && first; q++) first = strcmp(set->stages[q].experiment, exp) != 0;
        if (first && exp[0]) {
            one_seed(set, exp);
            devices(set, exp);
            cpu_contention(set, exp);
            collapsed(set, exp);
        }
    }
    if (rc != 0) caveats_free();
    return rc;
}

void caveats_free(void) {
    for (int i = 0; i < g_nsets; i++) {
        for (int k = 0; k < g_sets[i].n; k++) free(g_sets[i].text[k]);
        free(g_sets[i].text);
        free(g_sets[i].experiment);
    }
    free(g_sets);
    g_sets = NULL;
    g_nsets = 0;
}

char *caveats_markdown(const char *experiment, int where) {
    const caveat_set *s = find_set(experiment, 0);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) die_fail("report: cannot open a memory stream for the caveats");
    if (s && s->n) {
        if (where == CAVEATS_FINDINGS) fprintf(f, "**Caveats** (read the verdicts with these):\n\n");
        else fputs("**Caveats** (experiment `", f), md_code(f, experiment), fputs("`):\n\n", f);
        for (int k = 0; k < s->n; k++) fputs("- ", f), md_cell(f, s->text[k]), fputc('\n', f); // one line each
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) die_fail("report: cannot build the caveats");
    return out;
}

void caveats_fprint(FILE *f, const char *experiment, int where) {
    char *md = caveats_markdown(experiment, where);
    fputs(md, f);
    free(md);
}

char *caveats_joined(const char *experiment) {
    const caveat_set *s = find_set(experiment, 0);
    size_t len = 1;
    for (int k = 0; s && k < s->n; k++) len += strlen(s->text[k]) + 2;
    char *out = xcalloc(len, 1, "caveats");
    for (int k = 0; s && k < s->n; k++) strcat(strcat(out, k ? "; " : ""), s->text[k]);
    return out;
}
