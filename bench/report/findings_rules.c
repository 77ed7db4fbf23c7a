// bench/report/findings_rules.c — the verdict rules (findings_rules.h): tests, exact
// comparisons and missing sides into verdicts, parts folded into one, planned seeds, and the
// texts of the "ours" column. findings.c selects the runs and calls these.
#include "findings_rules.h"
#include "stats.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

verdict rule_verdict(finding_verdict v, const char *why) {
    verdict r = {v, "", NAN, NAN, 0};
    snprintf(r.why, sizeof r.why, "%s", why);
    return r;
}

// A side's value as the report shows its metric (top-k in %), or a ratio (divide_by) in %.
void finding_metric_text(const finding_sel *sel, double v, char *out, size_t len) {
    if (isnan(v)) snprintf(out, len, "—");
    else if (sel->divide_by) snprintf(out, len, "%.2f%%", 100.0 * v);
    else report_metric_text(sel->metric, v, out, len);
}

// A difference in the side's display units with its sign: "+8.37", "-0.40".
void finding_signed_text(const finding_sel *sel, double v, char *out, size_t len) {
    if (len < 2) return;
    out[0] = v < 0 ? '-' : '+';
    finding_metric_text(sel, fabs(v), out + 1, len - 1);
}

void finding_text_cat(char *out, size_t len, const char *fmt, const char *s) { snprintf(out + strlen(out), len - strlen(out), fmt, s); }

// "Δ +8.37, 90% CI [+5.12, +11.62], p = 0.001" (label replaces "Δ"); p is for the claim. The
// interval is the two-sided 90% one: its bound on the claim's side is the one-sided 95% bound
// that the one-sided 5% test matches (p < 0.05 iff that bound excludes the null).
// With a margin (kinds not_worse and equivalent: margin_sign "" or "±"; NULL for the others)
// ", margin ±1.00" comes before p, and an equivalence's p is named "TOST p".
void finding_test_text_margin(const finding_sel *sel, const char *label, const sig_test *t, double p_claim,
                             const char *margin_sign, double margin, char *ours, size_t len) {
    char e[64], lo[64], hi[64], p[32], m[80] = "";
    finding_signed_text(sel, t->effect, e, sizeof e), finding_signed_text(sel, t->lo90, lo, sizeof lo), finding_signed_text(sel, t->hi90, hi, sizeof hi);
    const char *p_name = margin_sign && margin_sign[0] ? "TOST p" : "p";
    if (p_claim < 0.001) snprintf(p, sizeof p, "%s < 0.001", p_name);
    else if (p_claim > 0.999) snprintf(p, sizeof p, "%s > 0.999", p_name);
    else snprintf(p, sizeof p, "%s = %.3f", p_name, p_claim);
    if (margin_sign) {
        char mt[64];
        finding_metric_text(sel, margin, mt, sizeof mt);
        snprintf(m, sizeof m, ", margin %s%s", margin_sign, mt);
    }
    snprintf(ours + strlen(ours), len - strlen(ours), "%s %s, 90%% CI [%s, %s]%s, %s", label, e, lo, hi, m, p);
}

void finding_test_text(const finding_sel *sel, const char *label, const sig_test *t, double p_claim, char *ours, size_t len) {
    finding_test_text_margin(sel, label, t, p_claim, NULL, 0.0, ours, len);
}

void rule_set_unmeasured(verdict *v, const char *why) {
    v->v = FINDING_NOT_MEASURED;
    snprintf(v->why, sizeof v->why, "%s", why);
}

plan rule_plan_for(const finding *f) {
    plan p = {NAN, ""};
    char t[64];
    double e = f->has_effect ? f->effect : 0.0;
    const char *src = f->has_effect ? "the stated effect" : "the margin, a true difference of 0";
    if (f->kind == FINDING_NOT_WORSE) {
        p.planned = e + f->margin;
        finding_signed_text(&f->a, e, t, sizeof t);
        snprintf(p.shown, sizeof p.shown, "a true Δ of %s (%s)", t, src);
    } else if (f->kind == FINDING_EQUIVALENT) {
        p.planned = f->margin - fabs(e);
        finding_signed_text(&f->a, e, t, sizeof t);
        snprintf(p.shown, sizeof p.shown, "a true Δ of %s (%s)", t, src);
    } else if (f->has_effect) {
        p.planned = f->effect;
        finding_metric_text(&f->a, f->effect, t, sizeof t);
        snprintf(p.shown, sizeof p.shown, "an effect of %s (the stated effect)", t);
    }
    return p;
}

void rule_plan_text(const plan *p, int needed, const char *unit, char *out, size_t len) {
    if (isnan(p->planned)) snprintf(out, len, "seeds not planned: its experiment file states no `effect:` for this finding");
    else if (needed > 0) snprintf(out, len, "needs %d %s for %s", needed, unit, p->shown);
    else snprintf(out, len, "needs more than %d %s for %s", SIG_N_MAX, unit, p->shown);
}

// A directional claim (dir 1: effect > 0, -1: effect < 0) whose stated effect lies beyond the
// test's 90% interval: the data rule that effect out (one-sided 5%), so the seeds it would need
// (fewer than ours, often) say nothing; out says so instead. Keeps out otherwise.
void rule_plan_excluded(const plan *p, const sig_test *t, int dir, char *out, size_t len) {
    if (!t->ok || isnan(p->planned) || !(p->planned > 0)) return;
    double bound = dir > 0 ? t->hi90 : -t->lo90; // the interval's end on the claim's side
    if (bound < p->planned) snprintf(out, len, "%s lies beyond the 90%% CI: any effect here is smaller", p->shown);
}

void rule_plan_outside(const plan *p, const sig_test *t, double truth, char *out, size_t len) {
    if (!t->ok || isnan(p->planned)) return;
    if (truth < t->lo90 || truth > t->hi90) snprintf(out, len, "%s lies outside the 90%% CI: no seeds planned for it", p->shown);
    else if (t->lo90 > 0 || t->hi90 < 0) snprintf(out, len, "the 90%% CI excludes 0: no seeds planned");
}

// The verdict of a computed test whose claim is effect > 0 (dir 1) or effect < 0 (dir -1):
// holds when the claim's one-sided p < α (its 90% interval's bound excludes the null); does
// not hold only when the opposite one-sided p < α (significantly against); otherwise
// inconclusive, the wrong sign named, with the seeds a stated effect needs (needs: the text).
verdict rule_decide(const sig_test *t, int dir, const char *needs) {
    verdict v = {FINDING_HOLDS, "", NAN, NAN, 0};
    double p_claim = dir > 0 ? t->p : 1.0 - t->p;
    v.p_claim = p_claim, v.p_against = 1.0 - p_claim;
    if (p_claim < FINDING_ALPHA) return v;
    if (1.0 - p_claim < FINDING_ALPHA) {
        v.v = FINDING_FAILS;
        snprintf(v.why, sizeof v.why, "significant against");
        return v;
    }
    v.v = FINDING_INCONCLUSIVE;
    const char *sign = t->effect == 0 ? "no difference, " : dir * t->effect < 0 ? "opposite direction, not significant; " : "";
    snprintf(v.why, sizeof v.why, "%s%s", sign, needs);
    return v;
}

// equivalent (TOST): the claim |effect| < margin holds when both one-sided tests do
// (effect > −margin and effect < margin, each at α; the same as the 90% CI inside
// ±margin); it does not hold only when the effect is significantly outside the band (either
// one-sided test significant the other way: the 90% CI entirely beyond a margin); otherwise
// inconclusive ("outside the margin, not significant" when |Δ| ≥ margin), with the n per
// side the nearer bound needs at the planned true difference (plan_for; the power of one
// one-sided test: an approximation of TOST's power).
verdict rule_decide_equivalent(const sig_test *t, double margin, const char *needs, double *p_tost) {
    verdict v = {FINDING_HOLDS, "", NAN, NAN, 0};
    sig_test above = sig_shifted(*t, margin), below = sig_shifted(*t, -margin); // effect + m > 0, effect − m < 0
    double p_above = above.p, p_below = 1.0 - below.p;
    *p_tost = p_above > p_below ? p_above : p_below;
    v.p_claim = *p_tost, v.p_against = fmin(1.0 - p_above, 1.0 - p_below);
    if (*p_tost < FINDING_ALPHA) return v;
    v.v = FINDING_FAILS;
    if (1.0 - p_above < FINDING_ALPHA) snprintf(v.why, sizeof v.why, "significantly below the margin");
    else if (1.0 - p_below < FINDING_ALPHA) snprintf(v.why, sizeof v.why, "significantly above the margin");
    else {
        v.v = FINDING_INCONCLUSIVE;
        snprintf(v.why, sizeof v.why, "%s%s", fabs(t->effect) >= margin ? "outside the margin, not significant; " : "", needs);
    }
    return v;
}

verdict rule_one_seed(void) { return rule_verdict(FINDING_INCONCLUSIVE, "1 seed"); }

// An exact (deterministic) comparison: the claim's effect d (> 0 or, with or_equal, >= 0
// holds); shown: what was compared ("485.0 < 531.0").
verdict rule_decide_exact(double d, int or_equal, const char *shown) {
    verdict v = rule_verdict(FINDING_HOLDS, "");
    if (d > 0 || (or_equal && d == 0)) return v;
    v.v = FINDING_FAILS;
    snprintf(v.why, sizeof v.why, "exact: %s", shown);
    return v;
}

// A side whose exact metric differs between seeds of one configuration: not measured.
verdict rule_exact_disagree(const finding_sel *sel, const char *who) {
    verdict v = rule_verdict(FINDING_NOT_MEASURED, "");
    snprintf(v.why, sizeof v.why, "the exact metric %s differs between the seeds of %s", sel->metric, who);
    return v;
}

static int verdict_rank(finding_verdict v) {
    return v == FINDING_FAILS ? 3 : v == FINDING_NOT_MEASURED ? 2 : v == FINDING_INCONCLUSIVE ? 1 : 0;
}

// Folds one part's verdict (a `per` value's, a peak's end's) into the whole: does not hold >
// not measured > inconclusive > holds. Qualifiers of equal rank are listed "label: why; ...";
// a not-measured reason names its runs already, so only the first is kept.
void rule_combine(verdict *all, const verdict *one, const char *label) {
    // every part must hold: the claim's p is the largest part's (intersection–union), the
    // opposite's the smallest; a part without a test leaves the claim without one
    all->p_claim = isnan(one->p_claim) || isnan(all->p_claim) ? NAN : fmax(all->p_claim, one->p_claim);
    if (!isnan(one->p_against)) all->p_against = isnan(all->p_against) ? one->p_against : fmin(all->p_against, one->p_against);
    if (one->min_runs > 0 && (all->min_runs == 0 || one->min_runs < all->min_runs)) all->min_runs = one->min_runs;
    int ra = verdict_rank(all->v), ro = verdict_rank(one->v);
    if (ro == 0 || ro < ra || (ro == ra && one->v == FINDING_NOT_MEASURED)) return;
    char part[1100];
    if (label && one->v != FINDING_NOT_MEASURED) snprintf(part, sizeof part, "%s: %s", label, one->why);
    else snprintf(part, sizeof part, "%s", one->why);
    if (ro > ra) all->v = one->v, all->why[0] = '\0';
    if (all->why[0]) finding_text_cat(all->why, sizeof all->why, "%s", "; ");
    finding_text_cat(all->why, sizeof all->why, "%s", part);
}
