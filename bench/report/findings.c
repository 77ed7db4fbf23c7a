// bench/report/findings.c — a paper's claims (finding structs, bench/experiment/findings_spec.h)
// checked against a results set (rules and output in findings.h). Order of work: read the
// findings of every experiment.yaml kept below the report's directory; for each finding
// select the runs of each side, split them by `per` (and `x`), take the means, decide;
// render the Markdown.
#include "findings.h"
#include "caveats.h"
#include "significance.h"
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

// ---- values, tests and verdicts --------------------------------------------------------
// Every done run with a finite /final metric is one observation (its seed is the unit); the
// tests are in significance.h, the rules in findings.h.
#define FINDING_ALPHA 0.05

typedef struct {
    finding_verdict v;
    char why[1024]; // not measured: the reason; does not hold / inconclusive: the qualifier
} verdict;

// "finetune", "finetune with pe.kind=abs, model.dim=64": the runs a reason talks about
// (per_value: the `per` key's value of the group, NULL when the runs are not split).
static void describe_runs(const finding_sel *sel, const char *per, const char *per_value, char *out, size_t len) {
    snprintf(out, len, "%s", sel->stage);
    for (int m = 0; m < sel->nmatch; m++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", m ? ", " : " with ", sel->match[m].key, sel->match[m].value);
    if (per && per_value) snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", sel->nmatch ? ", " : " with ", per, per_value);
}

typedef struct {
    double *v; // the finite /final metric of each done run (malloc'd; free it)
    int n;
    double mean;
} side_values;

// The observations of l: sel->metric of each done run, divided by its sel->divide_by when
// that is set (both finite, the divisor non-zero). Returns 1 with at least one value, or 0
// with the reason (about the runs described by `who`) in why.
static int side_collect(const rr_set *set, const run_list *l, const finding_sel *sel, const char *who, side_values *out,
                        char *why, size_t len) {
    int ndone = 0;
    out->v = xcalloc((size_t)l->n + 1, sizeof *out->v, "finding values");
    out->n = 0;
    for (int i = 0; i < l->n; i++) {
        const rr_run *r = &set->runs[l->runs[i]];
        if (strcmp(rr_run_status(r), "done")) continue;
        ndone++;
        const rr_attr *a = rr_attr_get(&r->final, sel->metric);
        if (!a || !a->is_num || !isfinite(a->num)) continue;
        double v = a->num;
        if (sel->divide_by) {
            const rr_attr *d = rr_attr_get(&r->final, sel->divide_by);
            if (!d || !d->is_num || !isfinite(d->num) || d->num == 0) continue;
            v /= d->num;
        }
        out->v[out->n++] = v;
    }
    double var;
    sig_mean_var(out->v, out->n, &out->mean, &var);
    if (l->n == 0) snprintf(why, len, "no runs of %s", who);
    else if (ndone == 0) snprintf(why, len, "no done runs of %s", who);
    else if (out->n == 0 && sel->divide_by)
        snprintf(why, len, "no done run of %s has a finite /final %s and a finite non-zero /final %s", who, sel->metric, sel->divide_by);
    else if (out->n == 0) snprintf(why, len, "no done run of %s has /final %s", who, sel->metric);
    return out->n > 0;
}

// A side's value as the report shows its metric (top-k in %), or a ratio (divide_by) in %.
static void metric_text(const finding_sel *sel, double v, char *out, size_t len) {
    if (isnan(v)) snprintf(out, len, "—");
    else if (sel->divide_by) snprintf(out, len, "%.2f%%", 100.0 * v);
    else report_metric_text(sel->metric, v, out, len);
}

// A difference in the side's display units with its sign: "+8.37", "-0.40".
static void signed_text(const finding_sel *sel, double v, char *out, size_t len) {
    if (len < 2) return;
    out[0] = v < 0 ? '-' : '+';
    metric_text(sel, fabs(v), out + 1, len - 1);
}

static void cat(char *out, size_t len, const char *fmt, const char *s) { snprintf(out + strlen(out), len - strlen(out), fmt, s); }

// "Δ +8.37, 95% CI [+5.12, +11.62], p = 0.001" (label replaces "Δ"); p is for the claim.
// With a margin (kinds not_worse and equivalent: margin_sign "" or "±"; NULL for the others)
// ", margin ±1.00" comes before p, and an equivalence's p is named "TOST p".
static void test_text_margin(const finding_sel *sel, const char *label, const sig_test *t, double p_claim,
                             const char *margin_sign, double margin, char *ours, size_t len) {
    char e[64], lo[64], hi[64], p[32], m[80] = "";
    signed_text(sel, t->effect, e, sizeof e), signed_text(sel, t->lo, lo, sizeof lo), signed_text(sel, t->hi, hi, sizeof hi);
    const char *p_name = margin_sign && margin_sign[0] ? "TOST p" : "p";
    if (p_claim < 0.001) snprintf(p, sizeof p, "%s < 0.001", p_name);
    else if (p_claim > 0.999) snprintf(p, sizeof p, "%s > 0.999", p_name);
    else snprintf(p, sizeof p, "%s = %.3f", p_name, p_claim);
    if (margin_sign) {
        char mt[64];
        metric_text(sel, margin, mt, sizeof mt);
        snprintf(m, sizeof m, ", margin %s%s", margin_sign, mt);
    }
    snprintf(ours + strlen(ours), len - strlen(ours), "%s %s, 95%% CI [%s, %s]%s, %s", label, e, lo, hi, m, p);
}

static void test_text(const finding_sel *sel, const char *label, const sig_test *t, double p_claim, char *ours, size_t len) {
    test_text_margin(sel, label, t, p_claim, NULL, 0.0, ours, len);
}

static void set_unmeasured(verdict *v, const char *why) {
    v->v = FINDING_NOT_MEASURED;
    snprintf(v->why, sizeof v->why, "%s", why);
}

// The verdict of a computed test whose claim is effect > 0 (dir 1) or effect < 0 (dir -1);
// needed: the sample size the observed effect would need (-1: beyond SIG_N_MAX), unit: what
// it counts ("seeds per side").
static verdict decide(const sig_test *t, int dir, int needed, const char *unit) {
    verdict v = {FINDING_HOLDS, ""};
    double p_claim = dir > 0 ? t->p : 1.0 - t->p;
    if (p_claim < FINDING_ALPHA) return v;
    v.v = FINDING_FAILS;
    if (1.0 - p_claim < FINDING_ALPHA) snprintf(v.why, sizeof v.why, "significant against");
    else if (t->effect == 0) snprintf(v.why, sizeof v.why, "no difference");
    else if (dir * t->effect < 0) snprintf(v.why, sizeof v.why, "opposite direction, not significant");
    else {
        v.v = FINDING_INCONCLUSIVE;
        if (needed > 0) snprintf(v.why, sizeof v.why, "needs %d %s", needed, unit);
        else snprintf(v.why, sizeof v.why, "needs more than %d %s", SIG_N_MAX, unit);
    }
    return v;
}

// equivalent (TOST): the claim |effect| < margin holds when both one-sided tests do
// (effect > −margin and effect < margin, each at α; the same as the 90% CI inside
// ±margin); it does not hold when the effect is significantly outside the band (either
// one-sided test significant the other way) or the observed |effect| is at least the
// margin; otherwise inconclusive, with the n per side the nearer bound would need
// (the power of its one-sided test: an approximation of TOST's power).
static verdict decide_equivalent(const sig_test *t, double margin, double *p_tost) {
    verdict v = {FINDING_HOLDS, ""};
    sig_test above = sig_shifted(*t, margin), below = sig_shifted(*t, -margin); // effect + m > 0, effect − m < 0
    double p_above = above.p, p_below = 1.0 - below.p;
    *p_tost = p_above > p_below ? p_above : p_below;
    if (*p_tost < FINDING_ALPHA) return v;
    v.v = FINDING_FAILS;
    if (1.0 - p_above < FINDING_ALPHA) snprintf(v.why, sizeof v.why, "significantly below the margin");
    else if (1.0 - p_below < FINDING_ALPHA) snprintf(v.why, sizeof v.why, "significantly above the margin");
    else if (fabs(t->effect) >= margin) snprintf(v.why, sizeof v.why, "outside the margin, not significant");
    else {
        v.v = FINDING_INCONCLUSIVE;
        int needed = sig_n_welch(margin - fabs(t->effect), t->va, t->vb);
        if (needed > 0) snprintf(v.why, sizeof v.why, "needs %d seeds per side", needed);
        else snprintf(v.why, sizeof v.why, "needs more than %d seeds per side", SIG_N_MAX);
    }
    return v;
}

static verdict one_seed(void) {
    verdict v = {FINDING_INCONCLUSIVE, "1 seed"};
    return v;
}

static int verdict_rank(finding_verdict v) {
    return v == FINDING_FAILS ? 3 : v == FINDING_NOT_MEASURED ? 2 : v == FINDING_INCONCLUSIVE ? 1 : 0;
}

// Folds one part's verdict (a `per` value's, a peak's end's) into the whole: does not hold >
// not measured > inconclusive > holds. Qualifiers of equal rank are listed "label: why; ...";
// a not-measured reason names its runs already, so only the first is kept.
static void combine(verdict *all, const verdict *one, const char *label) {
    int ra = verdict_rank(all->v), ro = verdict_rank(one->v);
    if (ro == 0 || ro < ra || (ro == ra && one->v == FINDING_NOT_MEASURED)) return;
    char part[1100];
    if (label && one->v != FINDING_NOT_MEASURED) snprintf(part, sizeof part, "%s: %s", label, one->why);
    else snprintf(part, sizeof part, "%s", one->why);
    if (ro > ra) all->v = one->v, all->why[0] = '\0';
    if (all->why[0]) cat(all->why, sizeof all->why, "%s", "; ");
    cat(all->why, sizeof all->why, "%s", part);
}

// The two-sample test of a finding with b on the observations of each side: greater
// (Welch, a − b > 0), not_worse (Welch, a − b + margin > 0: non-inferiority) or equivalent
// (TOST, |a − b| < margin). Appends the test to ours.
static verdict two_sample(const finding *f, const side_values *sa, const side_values *sb, char *ours, size_t len) {
    sig_test t = sig_welch(sa->v, sa->n, sb->v, sb->n);
    cat(ours, len, "%s", ", ");
    if (f->kind == FINDING_EQUIVALENT) {
        double p_tost;
        verdict v = decide_equivalent(&t, f->margin, &p_tost);
        test_text_margin(&f->a, "Δ", &t, p_tost, "±", f->margin, ours, len);
        return v;
    }
    double shift = f->kind == FINDING_NOT_WORSE ? f->margin : 0.0;
    sig_test claim = sig_shifted(t, shift);
    test_text_margin(&f->a, "Δ", &t, claim.p, f->kind == FINDING_NOT_WORSE ? "" : NULL, f->margin, ours, len);
    return decide(&claim, 1, sig_n_welch(claim.effect, t.va, t.vb), "seeds per side");
}

// greater, not_worse, equivalent (a against b), at_least, at_most (a against value) on one
// group of runs.
static verdict check_level(const rr_set *set, const finding *f, const run_list *a, const run_list *b, const char *per_value,
                           char *ours, size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], ta[64], tb[64];
    side_values sa = {0}, sb = {0};
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    int ok_a = side_collect(set, a, &f->a, who, &sa, why, sizeof why);
    if (!ok_a) set_unmeasured(&v, why);
    metric_text(&f->a, sa.mean, ta, sizeof ta);
    if (finding_kinds[f->kind].needs_b) {
        describe_runs(&f->b, f->per, per_value, who, sizeof who);
        int ok_b = side_collect(set, b, &f->b, who, &sb, why, sizeof why);
        if (!ok_b && ok_a) set_unmeasured(&v, why);
        metric_text(&f->b, sb.mean, tb, sizeof tb);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s vs %s", ta, tb);
        if (v.v == FINDING_HOLDS) {
            snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d vs %d", sa.n, sb.n);
            if (sa.n < 2 || sb.n < 2) v = one_seed();
            else v = two_sample(f, &sa, &sb, ours, len);
            cat(ours, len, "%s", ")");
        }
    } else {
        cat(ours, len, "%s", ta);
        if (v.v == FINDING_HOLDS) {
            int dir = f->kind == FINDING_AT_LEAST ? 1 : -1;
            snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d", sa.n);
            if (sa.n < 2) v = one_seed();
            else {
                sig_test t = sig_one_sample(sa.v, sa.n, f->value);
                cat(ours, len, "%s", ", ");
                test_text(&f->a, "Δ", &t, dir > 0 ? t.p : 1.0 - t.p, ours, len);
                v = decide(&t, dir, sig_n_one_sample(t.effect, t.va), "seeds");
            }
            cat(ours, len, "%s", ")");
        }
    }
    free(sa.v), free(sb.v);
    return v;
}

// The numeric value of each group's label, or its rank when any label is not a number.
static void x_positions(const run_groups *g, const int *with_mean, int np, double *x) {
    int numeric = 1;
    for (int k = 0; k < np && numeric; k++) {
        char *end;
        const char *s = g->items[with_mean[k]].label;
        x[k] = strtod(s, &end);
        numeric = end != s && *end == '\0' && isfinite(x[k]);
    }
    if (!numeric)
        for (int k = 0; k < np; k++) x[k] = k;
}

// peak_inside, increasing, decreasing on one group of a-runs, along x: the highest inner mean
// against each end (Welch), or the OLS slope of the metric on x over every run.
static verdict check_trend(const rr_set *set, const finding *f, const run_list *a, const char *per_value, char *ours,
                           size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], t[64];
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    side_values all;
    int ok = side_collect(set, a, &f->a, who, &all, why, sizeof why);
    free(all.v);
    if (!ok) {
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
    side_values *sv = xcalloc((size_t)g.n + 1, sizeof *sv, "finding values");
    int *with_mean = xcalloc((size_t)g.n + 1, sizeof *with_mean, "finding values");
    int np = 0, nmax = 0, ntotal = 0;
    for (int k = 0; k < g.n; k++) {
        if (side_collect(set, &g.items[k].runs, &f->a, who, &sv[k], why, sizeof why)) with_mean[np++] = k;
        else sv[k].mean = NAN;
        nmax = sv[k].n > nmax ? sv[k].n : nmax, ntotal += sv[k].n;
        metric_text(&f->a, sv[k].mean, t, sizeof t);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s%s: %s", k ? ", " : "", g.items[k].label, t);
    }
    int need = f->kind == FINDING_PEAK_INSIDE ? 3 : 2;
    if (np < need) {
        snprintf(why, sizeof why, "%d value%s of %s with a mean among the runs of %s, need %d", np, np == 1 ? "" : "s", f->x,
                 who, need);
        set_unmeasured(&v, why);
    } else if (f->kind == FINDING_PEAK_INSIDE) {
        int peak = with_mean[1];
        for (int k = 2; k < np - 1; k++)
            if (sv[with_mean[k]].mean > sv[peak].mean) peak = with_mean[k];
        snprintf(ours + strlen(ours), len - strlen(ours), " (peak %s", g.items[peak].label);
        int ends[2] = {with_mean[0], with_mean[np - 1]};
        if (sv[peak].n < 2 || (sv[ends[0]].n < 2 && sv[ends[1]].n < 2)) v = one_seed(); // no test has 2 seeds a side
        for (int e = 0; e < 2; e++) {
            const side_values *p = &sv[peak], *q = &sv[ends[e]];
            char label[160];
            snprintf(label, sizeof label, "vs %s", g.items[ends[e]].label);
            snprintf(ours + strlen(ours), len - strlen(ours), "%s %s: n = %d vs %d", e ? ";" : "", label, p->n, q->n);
            verdict one;
            if (p->n < 2 || q->n < 2) one = one_seed();
            else {
                sig_test st = sig_welch(p->v, p->n, q->v, q->n);
                cat(ours, len, "%s", ", ");
                test_text(&f->a, "Δ", &st, st.p, ours, len);
                one = decide(&st, 1, sig_n_welch(st.effect, st.va, st.vb), "seeds per side");
            }
            if (strcmp(v.why, "1 seed")) combine(&v, &one, label);
        }
        cat(ours, len, "%s", ")");
    } else {
        double *xs = xcalloc((size_t)np + 1, sizeof *xs, "finding values");
        double *ox = xcalloc((size_t)ntotal + 1, sizeof *ox, "finding values"), *oy = xcalloc((size_t)ntotal + 1, sizeof *oy, "finding values");
        x_positions(&g, with_mean, np, xs);
        int n = 0;
        double xbar = 0, sxx1 = 0;
        for (int k = 0; k < np; k++) {
            xbar += xs[k] / np;
            for (int i = 0; i < sv[with_mean[k]].n; i++) ox[n] = xs[k], oy[n++] = sv[with_mean[k]].v[i];
        }
        for (int k = 0; k < np; k++) sxx1 += (xs[k] - xbar) * (xs[k] - xbar);
        snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d", n);
        if (nmax < 2) v = one_seed();
        else {
            // the slope times the x range: the fitted change from the first to the last x value
            double range = xs[np - 1] - xs[0];
            sig_test st = sig_slope(ox, oy, n), shown = st;
            shown.effect *= range, shown.lo *= range, shown.hi *= range;
            int dir = f->kind == FINDING_INCREASING ? 1 : -1;
            cat(ours, len, "%s", ", ");
            test_text(&f->a, "fitted change over the range", &shown, dir > 0 ? st.p : 1.0 - st.p, ours, len);
            v = decide(&st, dir, sig_n_slope(st.effect, st.va, sxx1, np), "seeds per x value");
        }
        cat(ours, len, "%s", ")");
        free(xs), free(ox), free(oy);
    }
    for (int k = 0; k < g.n; k++) free(sv[k].v);
    free(sv), free(with_mean);
    free_groups(&g);
    return v;
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
    int two = finding_kinds[f->kind].needs_b;
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
        combine(&all, &one, ga.items[k].label);
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
    if (finding_kinds[f->kind].needs_b) b = select_runs(set, experiment, &f->b);
    verdict v;
    if (f->per && a.n > 0 && (!finding_kinds[f->kind].needs_b || b.n > 0)) v = check_per(set, f, &a, &b, ours, ours_len);
    else if (finding_kinds[f->kind].needs_x) v = check_trend(set, f, &a, NULL, ours, ours_len);
    else v = check_level(set, f, &a, &b, NULL, ours, ours_len);
    if (f->kind == FINDING_AT_LEAST || f->kind == FINDING_AT_MOST) {
        char t[64];
        metric_text(&f->a, f->value, t, sizeof t);
        snprintf(ours + strlen(ours), ours_len - strlen(ours), " (claim %s %s)", f->kind == FINDING_AT_LEAST ? "≥" : "≤", t);
    }
    snprintf(why, why_len, "%s", v.v == FINDING_HOLDS ? "" : v.why);
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
    fprintf(md, "## Findings (experiment `%s`)\n\n", fl->experiment);
    caveats_fprint(md, fl->experiment, CAVEATS_FINDINGS); // bench/report/caveats.h
    fprintf(md, "| claim | ours | paper | verdict |\n|---|---|---|---|\n");
    for (int i = 0; i < fl->n; i++) {
        const finding *f = &fl->items[i];
        char ours[8192], why[1024], verdict_text[1100];
        finding_verdict v = findings_eval(set, fl->experiment, f, ours, sizeof ours, why, sizeof why);
        if (v == FINDING_HOLDS) snprintf(verdict_text, sizeof verdict_text, "holds");
        else if (v == FINDING_FAILS) snprintf(verdict_text, sizeof verdict_text, "does not hold (%s)", why);
        else if (v == FINDING_INCONCLUSIVE) snprintf(verdict_text, sizeof verdict_text, "inconclusive (%s)", why);
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
