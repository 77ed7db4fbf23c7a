// bench/report/findings.c — a paper's claims (finding structs, bench/experiment/findings_spec.h)
// checked against a results set (rules and output in findings.h). Order of work: read the
// findings of every experiment.yaml kept below the report's directory; for each finding
// select the runs of each side, split them by `per` (and `x`), take the means, decide (the
// verdict rules and the "ours" texts: findings_rules.c); the caveats of its runs. Holm's
// correction per experiment and the Markdown: findings_report.c.
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
// tests are in significance.h, the rules that turn them into verdicts in findings_rules.h.

// "finetune", "finetune with pe.kind=abs, model.dim=64": the runs a reason talks about
// (per_value: the `per` key's value of the group, NULL when the runs are not split).
static void describe_runs(const finding_sel *sel, const char *per, const char *per_value, char *out, size_t len) {
    snprintf(out, len, "%s", sel->stage);
    for (int m = 0; m < sel->nmatch; m++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", m ? ", " : " with ", sel->match[m].key, sel->match[m].value);
    if (per && per_value) snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", sel->nmatch ? ", " : " with ", per, per_value);
}

typedef struct {
    double *v; // the observations (malloc'd; free it): one per done run
    int n;
    double mean;
    int nruns;     // done runs with the metric
    int disagree;  // METRIC_EXACT: the runs' values differ (relative 1e-9)
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
    out->nruns = out->n, out->disagree = 0;
    metric_nature nat = report_metric_nature(sel->metric);
    if (nat.nature == METRIC_EXACT && !sel->divide_by)
        for (int i = 1; i < out->n; i++)
            if (fabs(out->v[i] - out->v[0]) > 1e-9 * fmax(fabs(out->v[0]), 1.0)) out->disagree = 1;
    double var;
    sig_mean_var(out->v, out->n, &out->mean, &var);
    if (l->n == 0) snprintf(why, len, "no runs of %s", who);
    else if (ndone == 0) snprintf(why, len, "no done runs of %s", who);
    else if (out->n == 0 && sel->divide_by)
        snprintf(why, len, "no done run of %s has a finite /final %s and a finite non-zero /final %s", who, sel->metric, sel->divide_by);
    else if (out->n == 0) snprintf(why, len, "no done run of %s has /final %s", who, sel->metric);
    return out->n > 0;
}


// The two-sample test of a finding with b on the observations of each side: greater
// (Welch, a − b > 0), not_worse (Welch, a − b + margin > 0: non-inferiority) or equivalent
// (TOST, |a − b| < margin). Appends the test to ours. unit: what a side's n counts.
static verdict two_sample(const finding *f, const side_values *sa, const side_values *sb, const char *unit, char *ours, size_t len) {
    sig_test t = sig_welch(sa->v, sa->n, sb->v, sb->n);
    plan pl = rule_plan_for(f);
    char needs[400];
    finding_text_cat(ours, len, "%s", ", ");
    if (f->kind == FINDING_EQUIVALENT) {
        double p_tost;
        rule_plan_text(&pl, sig_n_welch(pl.planned, t.va, t.vb), unit, needs, sizeof needs);
        rule_plan_outside(&pl, &t, f->has_effect ? f->effect : 0.0, needs, sizeof needs);
        verdict v = rule_decide_equivalent(&t, f->margin, needs, &p_tost);
        finding_test_text_margin(&f->a, "Δ", &t, p_tost, "±", f->margin, ours, len);
        return v;
    }
    double shift = f->kind == FINDING_NOT_WORSE ? f->margin : 0.0;
    sig_test claim = sig_shifted(t, shift);
    finding_test_text_margin(&f->a, "Δ", &t, claim.p, f->kind == FINDING_NOT_WORSE ? "" : NULL, f->margin, ours, len);
    rule_plan_text(&pl, sig_n_welch(pl.planned, t.va, t.vb), unit, needs, sizeof needs);
    if (f->kind == FINDING_GREATER) rule_plan_excluded(&pl, &t, 1, needs, sizeof needs);
    else rule_plan_outside(&pl, &t, f->has_effect ? f->effect : 0.0, needs, sizeof needs);
    return rule_decide(&claim, 1, needs);
}

// The same kinds on exact values (one value a side: every seed agrees): decided by the
// values themselves, no test.
static verdict two_exact(const finding *f, double a, double b, char *ours, size_t len) {
    char d[64], shown[400], ta[64], tb[64], m[64];
    double diff = a - b;
    finding_signed_text(&f->a, diff, d, sizeof d);
    finding_metric_text(&f->a, a, ta, sizeof ta), finding_metric_text(&f->b, b, tb, sizeof tb), finding_metric_text(&f->a, f->margin, m, sizeof m);
    snprintf(ours + strlen(ours), len - strlen(ours), ", exact, Δ %s", d);
    if (f->kind == FINDING_EQUIVALENT) {
        snprintf(ours + strlen(ours), len - strlen(ours), ", margin ±%s", m);
        snprintf(shown, sizeof shown, "|Δ| = %s > margin %s", d + 1, m);
        return rule_decide_exact(f->margin - fabs(diff), 1, shown);
    }
    if (f->kind == FINDING_NOT_WORSE) {
        snprintf(ours + strlen(ours), len - strlen(ours), ", margin %s", m);
        snprintf(shown, sizeof shown, "%s is more than %s below %s", ta, m, tb);
        return rule_decide_exact(diff + f->margin, 1, shown);
    }
    snprintf(shown, sizeof shown, "%s %s %s", ta, diff == 0 ? "=" : "<", tb);
    return rule_decide_exact(diff, 0, shown);
}

// What a timed metric's side value is (findings.h): the runs are its replicates.
static const char *const timed_statistic = "; median step time of each run, then mean over runs";

// greater, not_worse, equivalent (a against b), at_least, at_most (a against value) on one
// configuration's runs (or a side without mixed configurations).
static verdict check_level_plain(const rr_set *set, const finding *f, const run_list *a, const run_list *b, const char *per_value,
                                 char *ours, size_t len) {
    verdict v = rule_verdict(FINDING_HOLDS, "");
    char who[512], whob[512] = "", why[1024], ta[64], tb[64];
    side_values sa = {0}, sb = {0};
    int exact = report_metric_nature(f->a.metric).nature == METRIC_EXACT && !f->a.divide_by;
    const char *stat = report_metric_nature(f->a.metric).nature == METRIC_TIMED && !f->a.divide_by ? timed_statistic : "";
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    int ok_a = side_collect(set, a, &f->a, who, &sa, why, sizeof why);
    if (!ok_a) rule_set_unmeasured(&v, why);
    finding_metric_text(&f->a, sa.mean, ta, sizeof ta);
    if (finding_kinds[f->kind].needs_b) {
        describe_runs(&f->b, f->per, per_value, whob, sizeof whob);
        int ok_b = side_collect(set, b, &f->b, whob, &sb, why, sizeof why);
        if (!ok_b && ok_a) rule_set_unmeasured(&v, why);
        finding_metric_text(&f->b, sb.mean, tb, sizeof tb);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s vs %s", ta, tb);
        if (v.v == FINDING_HOLDS) {
            snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d vs %d%s%s", sa.nruns, sb.nruns, stat[0] ? " runs" : "", stat);
            if (exact && (sa.disagree || sb.disagree)) v = rule_exact_disagree(sa.disagree ? &f->a : &f->b, sa.disagree ? who : whob);
            else if (exact) v = two_exact(f, sa.v[0], sb.v[0], ours, len);
            else if (sa.n < 2 || sb.n < 2) v = rule_one_seed();
            else v = two_sample(f, &sa, &sb, "seeds per side", ours, len);
            if (!exact) v.min_runs = sa.nruns < sb.nruns ? sa.nruns : sb.nruns;
            finding_text_cat(ours, len, "%s", ")");
        }
    } else {
        finding_text_cat(ours, len, "%s", ta);
        if (v.v == FINDING_HOLDS) {
            int dir = f->kind == FINDING_AT_LEAST ? 1 : -1;
            snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d%s%s", sa.nruns, stat[0] ? " runs" : "", stat);
            if (exact && sa.disagree) v = rule_exact_disagree(&f->a, who);
            else if (exact) {
                char d[64], shown[400], tv[64];
                finding_signed_text(&f->a, sa.v[0] - f->value, d, sizeof d), finding_metric_text(&f->a, f->value, tv, sizeof tv);
                snprintf(ours + strlen(ours), len - strlen(ours), ", exact, Δ %s", d);
                snprintf(shown, sizeof shown, "%s %s %s", ta, dir > 0 ? "<" : ">", tv);
                v = rule_decide_exact(dir * (sa.v[0] - f->value), 1, shown);
            } else if (sa.n < 2) v = rule_one_seed();
            else {
                sig_test t = sig_one_sample(sa.v, sa.n, f->value);
                plan pl = rule_plan_for(f);
                char needs[400];
                rule_plan_text(&pl, sig_n_one_sample(pl.planned, t.va), "seeds", needs, sizeof needs);
                rule_plan_excluded(&pl, &t, dir, needs, sizeof needs);
                finding_text_cat(ours, len, "%s", ", ");
                finding_test_text(&f->a, "Δ", &t, dir > 0 ? t.p : 1.0 - t.p, ours, len);
                v = rule_decide(&t, dir, needs);
            }
            if (!exact) v.min_runs = sa.nruns;
            finding_text_cat(ours, len, "%s", ")");
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

// peak_inside, increasing, decreasing on exact values (one a configuration): the peak above
// both ends, or every step along x in the claimed direction (strictly).
static verdict trend_exact(const finding *f, const run_groups *g, const side_values *sv, const int *with_mean, int np, char *ours,
                           size_t len) {
    char shown[400], t1[64], t2[64];
    if (f->kind == FINDING_PEAK_INSIDE) {
        int peak = with_mean[1];
        for (int k = 2; k < np - 1; k++)
            if (sv[with_mean[k]].mean > sv[peak].mean) peak = with_mean[k];
        int lo = with_mean[0], hi = with_mean[np - 1];
        snprintf(ours + strlen(ours), len - strlen(ours), " (exact; peak %s)", g->items[peak].label);
        double d = fmin(sv[peak].mean - sv[lo].mean, sv[peak].mean - sv[hi].mean);
        finding_metric_text(&f->a, sv[peak].mean, t1, sizeof t1);
        snprintf(shown, sizeof shown, "the highest inner value %s is not above both ends", t1);
        return rule_decide_exact(d, 0, shown);
    }
    int dir = f->kind == FINDING_INCREASING ? 1 : -1;
    finding_text_cat(ours, len, "%s", " (exact)");
    for (int k = 1; k < np; k++) {
        double d = dir * (sv[with_mean[k]].mean - sv[with_mean[k - 1]].mean);
        if (d > 0) continue;
        finding_metric_text(&f->a, sv[with_mean[k - 1]].mean, t1, sizeof t1), finding_metric_text(&f->a, sv[with_mean[k]].mean, t2, sizeof t2);
        snprintf(shown, sizeof shown, "%s at %s, %s at %s", t1, g->items[with_mean[k - 1]].label, t2, g->items[with_mean[k]].label);
        return rule_decide_exact(d, 0, shown);
    }
    return rule_decide_exact(1.0, 0, "");
}

// peak_inside, increasing, decreasing on one configuration's a-runs along x: the highest inner
// mean against each end (Welch), or the OLS slope of the metric on x over every observation;
// exact metrics by their values (trend_exact).
static verdict check_trend_plain(const rr_set *set, const finding *f, const run_list *a, const char *per_value, char *ours,
                                 size_t len) {
    verdict v = rule_verdict(FINDING_HOLDS, "");
    char who[512], why[1024], t[64];
    int exact = report_metric_nature(f->a.metric).nature == METRIC_EXACT && !f->a.divide_by;
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    side_values all;
    int ok = side_collect(set, a, &f->a, who, &all, why, sizeof why);
    free(all.v);
    if (!ok) {
        finding_text_cat(ours, len, "%s", "—");
        rule_set_unmeasured(&v, why);
        return v;
    }
    run_groups g = split_runs(set, a, f->x, f->a.stage);
    if (g.key_absent) {
        finding_text_cat(ours, len, "%s", "—");
        snprintf(why, sizeof why, "the runs of %s have no /config key %s", who, f->x);
        rule_set_unmeasured(&v, why);
        free_groups(&g);
        return v;
    }
    side_values *sv = xcalloc((size_t)g.n + 1, sizeof *sv, "finding values");
    int *with_mean = xcalloc((size_t)g.n + 1, sizeof *with_mean, "finding values");
    int np = 0, nmax = 0, nmin = 0, ntotal = 0, disagree = -1;
    const char *stat = report_metric_nature(f->a.metric).nature == METRIC_TIMED && !f->a.divide_by ? "; each run's median step time" : "";
    for (int k = 0; k < g.n; k++) {
        if (side_collect(set, &g.items[k].runs, &f->a, who, &sv[k], why, sizeof why)) {
            with_mean[np++] = k;
            if (nmin == 0 || sv[k].n < nmin) nmin = sv[k].n;
        } else sv[k].mean = NAN;
        if (sv[k].disagree && disagree < 0) disagree = k;
        nmax = sv[k].n > nmax ? sv[k].n : nmax, ntotal += sv[k].n;
        finding_metric_text(&f->a, sv[k].mean, t, sizeof t);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s%s: %s", k ? ", " : "", g.items[k].label, t);
    }
    const char *unit = "seeds per x value";
    int need = f->kind == FINDING_PEAK_INSIDE ? 3 : 2;
    plan pl = rule_plan_for(f);
    char needs[400];
    if (np < need) {
        snprintf(why, sizeof why, "%d value%s of %s with a mean among the runs of %s, need %d", np, np == 1 ? "" : "s", f->x,
                 who, need);
        rule_set_unmeasured(&v, why);
    } else if (exact && disagree >= 0) {
        char w2[700];
        snprintf(w2, sizeof w2, "%s at %s=%s", who, f->x, g.items[disagree].label);
        v = rule_exact_disagree(&f->a, w2);
    } else if (exact) {
        v = trend_exact(f, &g, sv, with_mean, np, ours, len);
    } else if (f->kind == FINDING_PEAK_INSIDE) {
        int peak = with_mean[1];
        for (int k = 2; k < np - 1; k++)
            if (sv[with_mean[k]].mean > sv[peak].mean) peak = with_mean[k];
        snprintf(ours + strlen(ours), len - strlen(ours), " (peak %s", g.items[peak].label);
        int ends[2] = {with_mean[0], with_mean[np - 1]};
        if (sv[peak].n < 2 || (sv[ends[0]].n < 2 && sv[ends[1]].n < 2)) v = rule_one_seed(); // no test has 2 seeds a side
        else v.p_claim = 0.0; // folded by combine: the largest end's p
        for (int e = 0; e < 2; e++) {
            const side_values *p = &sv[peak], *q = &sv[ends[e]];
            char label[160];
            snprintf(label, sizeof label, "vs %s", g.items[ends[e]].label);
            snprintf(ours + strlen(ours), len - strlen(ours), "%s %s: n = %d vs %d", e ? ";" : "", label, p->n, q->n);
            verdict one;
            if (p->n < 2 || q->n < 2) one = rule_one_seed();
            else {
                sig_test st = sig_welch(p->v, p->n, q->v, q->n);
                finding_text_cat(ours, len, "%s", ", ");
                finding_test_text(&f->a, "Δ", &st, st.p, ours, len);
                rule_plan_text(&pl, sig_n_welch(pl.planned, st.va, st.vb), "seeds per side", needs, sizeof needs);
                one = rule_decide(&st, 1, needs);
            }
            if (strcmp(v.why, "1 seed")) rule_combine(&v, &one, label);
        }
        finding_text_cat(ours, len, "%s", ")");
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
        snprintf(ours + strlen(ours), len - strlen(ours), " (n = %d%s%s", n, stat[0] ? " runs" : "", stat);
        if (nmax < 2) v = rule_one_seed();
        else {
            // the slope times the x range: the fitted change from the first to the last x value
            double range = xs[np - 1] - xs[0];
            sig_test st = sig_slope(ox, oy, n), shown = st;
            shown.effect *= range, shown.lo *= range, shown.hi *= range, shown.lo90 *= range, shown.hi90 *= range;
            int dir = f->kind == FINDING_INCREASING ? 1 : -1;
            finding_text_cat(ours, len, "%s", ", ");
            finding_test_text(&f->a, "fitted change over the range", &shown, dir > 0 ? st.p : 1.0 - st.p, ours, len);
            rule_plan_text(&pl, sig_n_slope(pl.planned / range, st.va, sxx1, np), unit, needs, sizeof needs);
            v = rule_decide(&st, dir, needs);
        }
        finding_text_cat(ours, len, "%s", ")");
        free(xs), free(ox), free(oy);
    }
    if (!exact && np >= need) v.min_runs = nmin;
    for (int k = 0; k < g.n; k++) free(sv[k].v);
    free(sv), free(with_mean);
    free_groups(&g);
    return v;
}

// ---- configurations pooled on a side ---------------------------------------------------
// A side's runs are seeds of one configuration only when their /config agree on every key but
// the seed (train.seed, "<stage>.train.seed") and the keys the finding splits by (per, x).
// When they do not, the keys that differ split them into configurations and the claim is
// stated per configuration (holds iff it holds for each): a-configurations are paired with
// b-configurations that agree on the keys differing on both sides; a key differing on one
// side only is not matched on.
typedef struct {
    char **keys;
    int n;
} key_list;

static int is_seed_key(const char *key) {
    size_t kl = strlen(key);
    return !strcmp(key, "train.seed") || (kl > 11 && !strcmp(key + kl - 11, ".train.seed"));
}

// Does key name the split key `split` (which may carry a "<stage>." prefix)?
static int is_split_key(const char *key, const char *split, const char *stage) {
    if (!split) return 0;
    size_t sl = strlen(stage);
    if (!strncmp(split, stage, sl) && split[sl] == '.') split += sl + 1;
    return !strcmp(key, split);
}

static int key_list_has(const key_list *k, const char *key) {
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->keys[i], key)) return 1;
    return 0;
}

static void key_list_add(key_list *k, const char *key) {
    if (key_list_has(k, key)) return;
    char **g = realloc(k->keys, (size_t)(k->n + 1) * sizeof *g);
    if (!g) die_fail("out of memory checking findings");
    k->keys = g;
    k->keys[k->n++] = xstrdup(key, "findings keys");
}

static void key_list_free(key_list *k) {
    for (int i = 0; i < k->n; i++) free(k->keys[i]);
    free(k->keys);
    memset(k, 0, sizeof *k);
}

// Do runs i and j have the same value of the split key `split` (NULL: no such key)?
static int same_split(const rr_set *set, int i, int j, const char *split, const char *stage) {
    return !split || rr_value_equal(key_value(set, i, split, stage), key_value(set, j, split, stage));
}

// The /config keys whose values differ between two done runs of l that share their x and per
// values (seed and split keys left out; a key that only follows x or per, such as a parent
// stage's copy of the x key, is not a configuration of its own).
static key_list varying_keys(const rr_set *set, const run_list *l, const finding *f, const char *stage) {
    key_list k = {0};
    for (int i = 0; i < l->n; i++) {
        int ri = l->runs[i];
        if (strcmp(rr_run_status(&set->runs[ri]), "done")) continue;
        for (int j = 0; j < i; j++) {
            int rj = l->runs[j];
            if (strcmp(rr_run_status(&set->runs[rj]), "done") || !same_split(set, ri, rj, f->x, stage) ||
                !same_split(set, ri, rj, f->per, stage))
                continue;
            for (int side = 0; side < 2; side++) { // keys either run has
                const rr_attrs *c = &set->runs[side ? rj : ri].config;
                for (int q = 0; q < c->n; q++) {
                    const char *key = c->items[q].name;
                    if (is_seed_key(key) || is_split_key(key, f->per, stage) || is_split_key(key, f->x, stage) || key_list_has(&k, key))
                        continue;
                    if (!rr_value_equal(rr_config_value(set, ri, key), rr_config_value(set, rj, key))) key_list_add(&k, key);
                }
            }
        }
    }
    return k;
}

static int done_count(const rr_set *set, const run_list *l) {
    int n = 0;
    for (int i = 0; l && i < l->n; i++) n += !strcmp(rr_run_status(&set->runs[l->runs[i]]), "done");
    return n;
}

typedef struct {
    char label[512];      // "k1=v1, k2=v2" over the side's differing keys
    run_list runs;
} config_group;

// Splits the done runs of l by their values of keys (one group when there are none).
static int split_configs(const rr_set *set, const run_list *l, const key_list *keys, config_group **out) {
    int n = 0;
    *out = NULL;
    for (int i = 0; i < l->n; i++) {
        if (strcmp(rr_run_status(&set->runs[l->runs[i]]), "done")) continue;
        char label[512] = "";
        for (int k = 0; k < keys->n; k++)
            snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s=%s", k ? ", " : "", keys->keys[k],
                     rr_config_value(set, l->runs[i], keys->keys[k]));
        int g = 0;
        while (g < n && strcmp((*out)[g].label, label)) g++;
        if (g == n) {
            config_group *p = realloc(*out, (size_t)(n + 1) * sizeof *p);
            if (!p) die_fail("out of memory checking findings");
            *out = p;
            memset(&p[n], 0, sizeof p[n]);
            snprintf(p[n].label, sizeof p[n].label, "%s", label);
            n++;
        }
        run_list_add(&(*out)[g].runs, l->runs[i]);
    }
    for (int i = 1; i < n; i++) // in the order of their values (numbers as numbers), key by key
        for (int j = i; j > 0; j--) {
            int c = 0;
            for (int k = 0; k < keys->n && c == 0; k++)
                c = rr_value_cmp(rr_config_value(set, (*out)[j - 1].runs.runs[0], keys->keys[k]),
                                 rr_config_value(set, (*out)[j].runs.runs[0], keys->keys[k]));
            if (c <= 0) break;
            config_group t = (*out)[j - 1];
            (*out)[j - 1] = (*out)[j], (*out)[j] = t;
        }
    return n;
}

static void free_configs(config_group *g, int n) {
    for (int i = 0; i < n; i++) free(g[i].runs.runs);
    free(g);
}

// Do runs ra and rb agree on every key of shared?
static int configs_match(const rr_set *set, int ra, int rb, const key_list *shared) {
    for (int k = 0; k < shared->n; k++)
        if (!rr_value_equal(rr_config_value(set, ra, shared->keys[k]), rr_config_value(set, rb, shared->keys[k]))) return 0;
    return 1;
}

// A level finding (two-sample or against a value) on a and b: plain when neither side mixes
// configurations, else per configuration.
static verdict check_level(const rr_set *set, const finding *f, const run_list *a, const run_list *b, const char *per_value,
                           char *ours, size_t len) {
    int two = finding_kinds[f->kind].needs_b;
    key_list ka = varying_keys(set, a, f, f->a.stage), kb = {0};
    if (two) kb = varying_keys(set, b, f, f->b.stage);
    if ((ka.n == 0 && kb.n == 0) || done_count(set, a) == 0 || (two && done_count(set, b) == 0)) {
        key_list_free(&ka), key_list_free(&kb);
        return check_level_plain(set, f, a, b, per_value, ours, len);
    }
    key_list shared = {0};
    for (int i = 0; i < ka.n; i++)
        if (key_list_has(&kb, ka.keys[i])) key_list_add(&shared, ka.keys[i]);
    config_group *ga, *gb = NULL;
    int na = split_configs(set, a, &ka, &ga), nb = two ? split_configs(set, b, &kb, &gb) : 1;
    verdict all = rule_verdict(FINDING_HOLDS, "");
    all.p_claim = 0.0;
    int parts = 0;
    finding_text_cat(ours, len, "%s", "configurations not pooled: ");
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            if (two && !configs_match(set, ga[i].runs.runs[0], gb[j].runs.runs[0], &shared)) continue;
            char label[1100];
            if (two && kb.n > shared.n) snprintf(label, sizeof label, "%s vs %s", ga[i].label[0] ? ga[i].label : "a", gb[j].label);
            else snprintf(label, sizeof label, "%s", ga[i].label[0] ? ga[i].label : gb[j].label);
            finding_text_cat(ours, len, parts++ ? "; %s: " : "%s: ", label);
            verdict one = check_level_plain(set, f, &ga[i].runs, two ? &gb[j].runs : NULL, per_value, ours, len);
            rule_combine(&all, &one, label);
        }
    if (parts == 0) {
        all = rule_verdict(FINDING_NOT_MEASURED, "no configuration of a matches one of b on the keys both vary");
        finding_text_cat(ours, len, "%s", "—");
    }
    free_configs(ga, na), free_configs(gb, two ? nb : 0);
    key_list_free(&ka), key_list_free(&kb), key_list_free(&shared);
    return all;
}

// A trend finding: plain when the a-runs differ only in x (and seeds), else per configuration.
static verdict check_trend(const rr_set *set, const finding *f, const run_list *a, const char *per_value, char *ours, size_t len) {
    key_list ka = varying_keys(set, a, f, f->a.stage);
    if (ka.n == 0) {
        key_list_free(&ka);
        return check_trend_plain(set, f, a, per_value, ours, len);
    }
    config_group *ga;
    int na = split_configs(set, a, &ka, &ga);
    verdict all = rule_verdict(FINDING_HOLDS, "");
    all.p_claim = 0.0;
    finding_text_cat(ours, len, "%s", "configurations not pooled: ");
    for (int i = 0; i < na; i++) {
        finding_text_cat(ours, len, i ? "; %s: (" : "%s: (", ga[i].label);
        verdict one = check_trend_plain(set, f, &ga[i].runs, per_value, ours, len);
        finding_text_cat(ours, len, "%s", ")");
        rule_combine(&all, &one, ga[i].label);
    }
    free_configs(ga, na);
    key_list_free(&ka);
    return all;
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
        if (n++ == 0) finding_text_cat(ours, len, "%s", ours[0] ? "; unpaired: " : "unpaired: ");
        else finding_text_cat(ours, len, "%s", ", ");
        finding_text_cat(ours, len, "%s", from->items[k].label);
    }
    if (n) finding_text_cat(ours, len, " (only in %s)", side);
}

// A finding with `per`: the kind checked for each value of the per key.
static verdict check_per(const rr_set *set, const finding *f, const run_list *a, const run_list *b, char *ours, size_t len) {
    verdict all = rule_verdict(FINDING_HOLDS, "");
    all.p_claim = 0.0; // folded by combine
    run_groups ga = split_runs(set, a, f->per, f->a.stage), gb = {0};
    int two = finding_kinds[f->kind].needs_b;
    if (two) gb = split_runs(set, b, f->per, f->b.stage);
    const char *absent = ga.key_absent ? f->a.stage : gb.key_absent ? f->b.stage : NULL;
    if (absent) {
        finding_text_cat(ours, len, "%s", "—");
        snprintf(all.why, sizeof all.why, "the runs of %s have no /config key %s", absent, f->per);
        all.v = FINDING_NOT_MEASURED;
        free_groups(&ga), free_groups(&gb);
        return all;
    }
    int common = 0;
    for (int k = 0; k < ga.n; k++) {
        int j = two ? group_index(&gb, ga.items[k].label) : -1;
        if (two && j < 0) continue;
        finding_text_cat(ours, len, common++ ? "; %s: " : "%s: ", ga.items[k].label);
        int trend = finding_kinds[f->kind].needs_x;
        if (trend) finding_text_cat(ours, len, "%s", "(");
        verdict one = trend ? check_trend(set, f, &ga.items[k].runs, ga.items[k].label, ours, len)
                            : check_level(set, f, &ga.items[k].runs, two ? &gb.items[j].runs : NULL, ga.items[k].label, ours, len);
        if (trend) finding_text_cat(ours, len, "%s", ")");
        rule_combine(&all, &one, ga.items[k].label);
    }
    if (two) list_unpaired(&ga, &gb, "a", ours, len), list_unpaired(&gb, &ga, "b", ours, len);
    if (common == 0 && all.v == FINDING_HOLDS) {
        snprintf(all.why, sizeof all.why, two ? "no value of %s common to a and b" : "no runs to split by %s", f->per);
        all.v = FINDING_NOT_MEASURED;
    }
    free_groups(&ga), free_groups(&gb);
    return all;
}

// ---- caveats of a finding's own runs -------------------------------------------------------
// What its done runs (both sides) say about the verdict: fewer than 3 runs on a side of a test,
// a mix of devices or CPU models (root attrs device, cpu_model; cpu and cpu-guarded are one
// device), a timing or rate (step time, images/s) measured on a GPU (whether other processes
// shared it is not recorded) or by runs that waited for a CPU (caveats_cpu_wait_text).
static void finding_caveats(const rr_set *set, const finding *f, const run_list *a, const run_list *b, int min_runs, char *out,
                            size_t len) {
    const char *names[16];
    int counts[16], nnames = 0, gpu = 0;
    for (int side = 0; side < 2; side++) {
        const run_list *l = side ? b : a;
        for (int i = 0; l && i < l->n; i++) {
            const rr_run *r = &set->runs[l->runs[i]];
            if (strcmp(rr_run_status(r), "done")) continue;
            const char *dev = rr_attr_text(&r->root, "device", "cpu");
            if (!strncmp(dev, "cpu", 3)) dev = rr_attr_text(&r->root, "cpu_model", "cpu");
            else gpu = 1;
            int k = 0;
            while (k < nnames && strcmp(names[k], dev)) k++;
            if (k == nnames) {
                if (nnames == 16) continue;
                names[nnames] = dev, counts[nnames++] = 0;
            }
            counts[k]++;
        }
    }
    out[0] = '\0';
    if (min_runs > 0 && min_runs < 3)
        snprintf(out, len, "%d run%s on a side (fewer than 3 seeds)", min_runs, min_runs == 1 ? "" : "s");
    if (nnames > 1) {
        snprintf(out + strlen(out), len - strlen(out), "%sa device mix: ", out[0] ? "; " : "");
        for (int k = 0; k < nnames; k++)
            snprintf(out + strlen(out), len - strlen(out), "%s%s (%d run%s)", k ? ", " : "", names[k], counts[k], counts[k] == 1 ? "" : "s");
    }
    if (gpu && report_metric_is_timing(f->a.metric))
        snprintf(out + strlen(out), len - strlen(out), "%sa GPU timing: the run files do not record whether other processes shared the GPU",
                 out[0] ? "; " : "");
    if (report_metric_is_timing(f->a.metric)) { // its runs' wait for a CPU (caveats.h)
        int n = (a ? a->n : 0) + (b ? b->n : 0), k = 0;
        int *runs = xmalloc(((size_t)n + 1) * sizeof *runs, "findings");
        for (int i = 0; a && i < a->n; i++) runs[k++] = a->runs[i];
        for (int i = 0; b && i < b->n; i++) runs[k++] = b->runs[i];
        char wait[256];
        if (caveats_cpu_wait_text(set, runs, k, wait, sizeof wait) > 0)
            snprintf(out + strlen(out), len - strlen(out), "%sa timing under CPU contention: %s", out[0] ? "; " : "", wait);
        free(runs);
    }
}

finding_result findings_eval_full(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len) {
    ours[0] = '\0';
    run_list a = select_runs(set, experiment, &f->a), b = {0};
    if (finding_kinds[f->kind].needs_b) b = select_runs(set, experiment, &f->b);
    verdict v;
    if (f->per && a.n > 0 && (!finding_kinds[f->kind].needs_b || b.n > 0)) v = check_per(set, f, &a, &b, ours, ours_len);
    else if (finding_kinds[f->kind].needs_x) v = check_trend(set, f, &a, NULL, ours, ours_len);
    else v = check_level(set, f, &a, &b, NULL, ours, ours_len);
    if (f->kind == FINDING_AT_LEAST || f->kind == FINDING_AT_MOST) {
        char t[64];
        finding_metric_text(&f->a, f->value, t, sizeof t);
        snprintf(ours + strlen(ours), ours_len - strlen(ours), " (claim %s %s)", f->kind == FINDING_AT_LEAST ? "≥" : "≤", t);
    }
    finding_result r = {v.v, "", v.p_claim, v.p_against, NAN, 0, 0, ""};
    if (v.v == FINDING_NOT_MEASURED) r.p_claim = r.p_against = NAN;
    snprintf(r.why, sizeof r.why, "%s", v.v == FINDING_HOLDS ? "" : v.why);
    if (v.v != FINDING_NOT_MEASURED) finding_caveats(set, f, &a, finding_kinds[f->kind].needs_b ? &b : NULL, v.min_runs, r.caveats, sizeof r.caveats);
    free(a.runs), free(b.runs);
    return r;
}

finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len) {
    finding_result r = findings_eval_full(set, experiment, f, ours, ours_len);
    snprintf(why, why_len, "%s", r.why);
    return r.v;
}
