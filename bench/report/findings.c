// bench/report/findings.c — a paper's claims (finding structs, bench/experiment/findings_spec.h)
// checked against a results set (rules and output in findings.h). Order of work: read the
// findings of every experiment.yaml kept below the report's directory; for each finding
// select the runs of each side, split them by `per` (and `x`), take the means, decide;
// render the Markdown.
#include "findings.h"
#include "stats.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- selecting runs -----------------------------------------------------------------
// The /config value of key for a run of `stage` ("—" when absent); "<stage>.key" falls
// back to "key" when the qualified name is absent.
static const char *key_value(const rr_set *set, int run, const char *key, const char *stage) {
    size_t sl = strlen(stage);
    if (!rr_attr_get(&set->runs[run].config, key) && !strncmp(key, stage, sl) && key[sl] == '.') key += sl + 1;
    return rr_config_value(set, run, key);
}

typedef struct {
    int *runs;
    int n;
} run_list;

static void run_list_add(run_list *l, int run) {
    int *g = realloc(l->runs, (size_t)(l->n + 1) * sizeof *g);
    if (!g) die_fail("out of memory checking findings");
    l->runs = g;
    l->runs[l->n++] = run;
}

// Every run of (experiment, sel->stage) whose /config matches sel->match.
static run_list select_runs(const rr_set *set, const char *experiment, const finding_sel *sel) {
    run_list l = {0};
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment) || strcmp(st->name, sel->stage)) continue;
        for (int i = 0; i < st->nruns; i++) {
            int ok = 1;
            for (int m = 0; m < sel->nmatch && ok; m++)
                ok = rr_value_equal(key_value(set, st->runs[i], sel->match[m].key, sel->stage), sel->match[m].value);
            if (ok) run_list_add(&l, st->runs[i]);
        }
    }
    return l;
}

typedef struct {
    const char *label; // the key's value (first spelling seen); "" for an unsplit group
    run_list runs;
} run_group;

typedef struct {
    run_group *items;
    int n;
    int key_absent; // the key is absent from every run's /config
} run_groups;

static int cmp_group(const void *pa, const void *pb) {
    return rr_value_cmp(((const run_group *)pa)->label, ((const run_group *)pb)->label);
}

// Splits runs by the value of key (one group labelled "" when key is NULL), sorted by value.
static run_groups split_runs(const rr_set *set, const run_list *l, const char *key, const char *stage) {
    run_groups g = {0};
    g.key_absent = key != NULL && l->n > 0;
    for (int i = 0; i < l->n; i++) {
        const char *v = key ? key_value(set, l->runs[i], key, stage) : "";
        if (key && strcmp(v, "—")) g.key_absent = 0;
        int k = 0;
        while (k < g.n && !rr_value_equal(g.items[k].label, v)) k++;
        if (k == g.n) {
            run_group *p = realloc(g.items, (size_t)(g.n + 1) * sizeof *p);
            if (!p) die_fail("out of memory checking findings");
            g.items = p;
            g.items[g.n++] = (run_group){v, {0}};
        }
        run_list_add(&g.items[k].runs, l->runs[i]);
    }
    if (g.n > 1) qsort(g.items, (size_t)g.n, sizeof *g.items, cmp_group);
    return g;
}

static void free_groups(run_groups *g) {
    for (int k = 0; k < g->n; k++) free(g->items[k].runs.runs);
    free(g->items);
}

// ---- means and verdicts -------------------------------------------------------------
typedef struct {
    finding_verdict v;
    char why[1024];
} verdict;

// "finetune", "finetune with pe.kind=abs, model.dim=64": the runs a reason talks about
// (per_value: the `per` key's value of the group, NULL when the runs are not split).
static void describe_runs(const finding_sel *sel, const char *per, const char *per_value, char *out, size_t len) {
    snprintf(out, len, "%s", sel->stage);
    for (int m = 0; m < sel->nmatch; m++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", m ? ", " : " with ", sel->match[m].key, sel->match[m].value);
    if (per && per_value) snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", sel->nmatch ? ", " : " with ", per, per_value);
}

// Mean of the finite /final metric over the done runs of l. Returns 1 with *mean set, or 0
// with the reason (about the runs described by `who`) in why.
static int side_mean(const rr_set *set, const run_list *l, const char *metric, const char *who, double *mean, char *why,
                     size_t len) {
    int ndone = 0, n = 0;
    double sum = 0.0;
    for (int i = 0; i < l->n; i++) {
        const rr_run *r = &set->runs[l->runs[i]];
        if (strcmp(rr_run_status(r), "done")) continue;
        ndone++;
        const rr_attr *a = rr_attr_get(&r->final, metric);
        if (a && a->is_num && isfinite(a->num)) sum += a->num, n++;
    }
    *mean = n ? sum / n : NAN;
    if (l->n == 0) snprintf(why, len, "no runs of %s", who);
    else if (ndone == 0) snprintf(why, len, "no done runs of %s", who);
    else if (n == 0) snprintf(why, len, "no done run of %s has /final %s", who, metric);
    return n > 0;
}

static void metric_text(const char *metric, double v, char *out, size_t len) {
    if (isnan(v)) snprintf(out, len, "—");
    else report_metric_text(metric, v, out, len);
}

static void cat(char *out, size_t len, const char *fmt, const char *s) { snprintf(out + strlen(out), len - strlen(out), fmt, s); }

static void set_unmeasured(verdict *v, const char *why) {
    v->v = FINDING_NOT_MEASURED;
    snprintf(v->why, sizeof v->why, "%s", why);
}

// greater, at_least, at_most on one group of a-runs (and b-runs).
static verdict check_level(const rr_set *set, const finding *f, const run_list *a, const run_list *b, const char *per_value,
                           char *ours, size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], ta[64], tb[64];
    double ma, mb = NAN;
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    int ok_a = side_mean(set, a, f->a.metric, who, &ma, why, sizeof why);
    if (!ok_a) set_unmeasured(&v, why);
    metric_text(f->a.metric, ma, ta, sizeof ta);
    if (f->kind == FINDING_GREATER) {
        describe_runs(&f->b, f->per, per_value, who, sizeof who);
        int ok_b = side_mean(set, b, f->b.metric, who, &mb, why, sizeof why);
        if (!ok_b && ok_a) set_unmeasured(&v, why);
        metric_text(f->b.metric, mb, tb, sizeof tb);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s vs %s", ta, tb);
        if (v.v == FINDING_HOLDS && !(ma > mb)) v.v = FINDING_FAILS;
        return v;
    }
    cat(ours, len, "%s", ta);
    if (v.v == FINDING_HOLDS && !(f->kind == FINDING_AT_LEAST ? ma >= f->value : ma <= f->value)) v.v = FINDING_FAILS;
    return v;
}

// peak_inside, increasing, decreasing on one group of a-runs, along x.
static verdict check_trend(const rr_set *set, const finding *f, const run_list *a, const char *per_value, char *ours,
                           size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], t[64];
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    double m;
    if (!side_mean(set, a, f->a.metric, who, &m, why, sizeof why)) {
        cat(ours, len, "%s", "—");
        set_unmeasured(&v, why);
        return v;
    }
    run_groups g = split_runs(set, a, f->x, f->a.stage);
    if (g.key_absent) {
        cat(ours, len, "%s", "—");
        snprintf(why, sizeof why, "the runs of %s have no /config key %s", who, f->x);
        set_unmeasured(&v, why);
        free_groups(&g);
        return v;
    }
    double *means = xcalloc((size_t)g.n + 1, sizeof *means, "finding means");
    int np = 0;
    for (int k = 0; k < g.n; k++) {
        double mk;
        if (side_mean(set, &g.items[k].runs, f->a.metric, who, &mk, why, sizeof why)) means[np++] = mk;
        else mk = NAN;
        metric_text(f->a.metric, mk, t, sizeof t);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s%s: %s", k ? ", " : "", g.items[k].label, t);
    }
    int need = f->kind == FINDING_PEAK_INSIDE ? 3 : 2;
    if (v.v == FINDING_HOLDS && np < need) {
        snprintf(why, sizeof why, "%d value%s of %s with a mean among the runs of %s, need %d", np, np == 1 ? "" : "s", f->x,
                 who, need);
        set_unmeasured(&v, why);
    }
    if (v.v == FINDING_HOLDS) {
        int holds = 1;
        if (f->kind == FINDING_PEAK_INSIDE) {
            double inside = -INFINITY;
            for (int k = 1; k < np - 1; k++) inside = fmax(inside, means[k]);
            holds = inside > means[0] && inside > means[np - 1];
        } else {
            for (int k = 1; k < np; k++) holds &= f->kind == FINDING_INCREASING ? means[k] > means[k - 1] : means[k] < means[k - 1];
        }
        if (!holds) v.v = FINDING_FAILS;
    }
    free(means);
    free_groups(&g);
    return v;
}

// Folds one group's verdict into the finding's: a failure decides; else the first reason.
static void combine(verdict *all, const verdict *one) {
    if (all->v == FINDING_FAILS || one->v == FINDING_HOLDS) return;
    if (one->v == FINDING_FAILS) {
        all->v = FINDING_FAILS;
        return;
    }
    if (all->v == FINDING_NOT_MEASURED) return;
    all->v = FINDING_NOT_MEASURED;
    snprintf(all->why, sizeof all->why, "%s", one->why);
}

static int group_index(const run_groups *g, const char *label) {
    for (int k = 0; k < g->n; k++)
        if (rr_value_equal(g->items[k].label, label)) return k;
    return -1;
}

// Lists the values of `from` that `other` lacks: "unpaired: relbias (only in b)".
static void list_unpaired(const run_groups *from, const run_groups *other, const char *side, char *ours, size_t len) {
    int n = 0;
    for (int k = 0; k < from->n; k++) {
        if (group_index(other, from->items[k].label) >= 0) continue;
        if (n++ == 0) cat(ours, len, "%s", ours[0] ? "; unpaired: " : "unpaired: ");
        else cat(ours, len, "%s", ", ");
        cat(ours, len, "%s", from->items[k].label);
    }
    if (n) cat(ours, len, " (only in %s)", side);
}

// A finding with `per`: the kind checked for each value of the per key.
static verdict check_per(const rr_set *set, const finding *f, const run_list *a, const run_list *b, char *ours, size_t len) {
    verdict all = {FINDING_HOLDS, ""};
    run_groups ga = split_runs(set, a, f->per, f->a.stage), gb = {0};
    int two = f->kind == FINDING_GREATER;
    if (two) gb = split_runs(set, b, f->per, f->b.stage);
    const char *absent = ga.key_absent ? f->a.stage : gb.key_absent ? f->b.stage : NULL;
    if (absent) {
        cat(ours, len, "%s", "—");
        snprintf(all.why, sizeof all.why, "the runs of %s have no /config key %s", absent, f->per);
        all.v = FINDING_NOT_MEASURED;
        free_groups(&ga), free_groups(&gb);
        return all;
    }
    int common = 0;
    for (int k = 0; k < ga.n; k++) {
        int j = two ? group_index(&gb, ga.items[k].label) : -1;
        if (two && j < 0) continue;
        cat(ours, len, common++ ? "; %s: " : "%s: ", ga.items[k].label);
        int trend = finding_kinds[f->kind].needs_x;
        if (trend) cat(ours, len, "%s", "(");
        verdict one = trend ? check_trend(set, f, &ga.items[k].runs, ga.items[k].label, ours, len)
                            : check_level(set, f, &ga.items[k].runs, two ? &gb.items[j].runs : NULL, ga.items[k].label, ours, len);
        if (trend) cat(ours, len, "%s", ")");
        combine(&all, &one);
    }
    if (two) list_unpaired(&ga, &gb, "a", ours, len), list_unpaired(&gb, &ga, "b", ours, len);
    if (common == 0 && all.v == FINDING_HOLDS) {
        snprintf(all.why, sizeof all.why, two ? "no value of %s common to a and b" : "no runs to split by %s", f->per);
        all.v = FINDING_NOT_MEASURED;
    }
    free_groups(&ga), free_groups(&gb);
    return all;
}

finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len) {
    ours[0] = '\0';
    run_list a = select_runs(set, experiment, &f->a), b = {0};
    if (f->kind == FINDING_GREATER) b = select_runs(set, experiment, &f->b);
    verdict v;
    if (f->per && a.n > 0 && (f->kind != FINDING_GREATER || b.n > 0)) v = check_per(set, f, &a, &b, ours, ours_len);
    else if (finding_kinds[f->kind].needs_x) v = check_trend(set, f, &a, NULL, ours, ours_len);
    else v = check_level(set, f, &a, &b, NULL, ours, ours_len);
    if (f->kind == FINDING_AT_LEAST || f->kind == FINDING_AT_MOST) {
        char t[64];
        metric_text(f->a.metric, f->value, t, sizeof t);
        snprintf(ours + strlen(ours), ours_len - strlen(ours), " (claim %s %s)", f->kind == FINDING_AT_LEAST ? "≥" : "≤", t);
    }
    snprintf(why, why_len, "%s", v.v == FINDING_NOT_MEASURED ? v.why : "");
    free(a.runs), free(b.runs);
    return v.v;
}

// ---- finding the files and rendering --------------------------------------------------
// A Markdown table cell: '|' escaped, newlines flattened.
static void md_cell(FILE *f, const char *text) {
    fputc(' ', f);
    for (const char *p = text; *p; p++) {
        if (*p == '|') fputs("\\|", f);
        else fputc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p, f);
    }
    fputs(" |", f);
}

static void render_list(FILE *md, const rr_set *set, const findings_list *fl) {
    if (fl->n == 0) return;
    fprintf(md, "## Findings (experiment `%s`)\n\n| claim | ours | paper | verdict |\n|---|---|---|---|\n", fl->experiment);
    for (int i = 0; i < fl->n; i++) {
        const finding *f = &fl->items[i];
        char ours[4096], why[1024], verdict_text[1100];
        finding_verdict v = findings_eval(set, fl->experiment, f, ours, sizeof ours, why, sizeof why);
        if (v == FINDING_HOLDS) snprintf(verdict_text, sizeof verdict_text, "holds");
        else if (v == FINDING_FAILS) snprintf(verdict_text, sizeof verdict_text, "does not hold");
        else snprintf(verdict_text, sizeof verdict_text, "not measured (%s)", why);
        fputc('|', md);
        md_cell(md, f->claim), md_cell(md, ours), md_cell(md, f->paper), md_cell(md, verdict_text);
        fputc('\n', md);
    }
    fputc('\n', md);
}

int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen) {
    *md = NULL;
    struct { char **paths; int n; } pl = {0};
    char scan_err[1024];
    if (rr_find_files(dir, "experiment.yaml", &pl.paths, &pl.n, scan_err, sizeof scan_err) < 0) pl.n = 0; // rr_scan read dir already
    size_t mdlen = 0;
    FILE *out = open_memstream(md, &mdlen);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    int rc = 0;
    for (int i = 0; i < pl.n && rc == 0; i++) {
        findings_list fl;
        rc = findings_load(pl.paths[i], &fl, err, errlen);
        if (rc == 0) render_list(out, set, &fl), findings_list_free(&fl);
    }
    for (int i = 0; i < pl.n; i++) free(pl.paths[i]);
    free(pl.paths);
    if (fclose(out) != 0) die_fail("report: cannot build the findings section: %s", strerror(errno));
    if (rc != 0) {
        free(*md);
        *md = NULL;
    }
    return rc;
}
