// tests/test_findings_margin.c — the findings that compare the right quantity
// (bench/report/findings.h): relative quantities (`divide_by`), non-inferiority (`not_worse`,
// one-sided Welch against −margin) and equivalence (`equivalent`, TOST), on synthetic run
// files written with bench/results/results.h, and the spec's refusals.
// Known answers (mpmath, 30 digits): with a = b = {0.80, 0.81, 0.82} (3 seeds a side), Welch
// gives Δ = 0, SE = 0.00816496580927726, df = 4; P(T_4 ≥ √6) = 0.0352419984551100 is the
// non-inferiority p at margin 0.02 (√6·SE = 0.02); t_{0.95,4} = 2.13184678632665, so the
// verdict edge is margin 0.0174064561209747: holds just above it, inconclusive just below.
// With Δ = 0.05 (a = {0.85, 0.86, 0.87}) the TOST p is 0.989344 (margin 0.02: significantly
// above the margin), 0.713304 (0.045: outside the margin, not significant: inconclusive, as the 90% CI
// [+3.26, +6.74] reaches inside ±4.5), 0.143932 (0.06:
// inside, inconclusive) and 0.0106558 (0.08: holds); that interval excludes 0, so no seeds are
// planned there (for a true difference of 0 nor a stated `effect:`). Relative drops: abs drops 0.21 from 0.81
// and CAPE 0.19 from 0.57, so abs degrades more in points (p = 0.0352, the same √6 as above)
// but less relative to its start (significant against). Files are removed unless a check
// failed or POSBENCH_TEST_KEEP is set; under a second.
#include "testing.h"
#include "findings_testing.h"
#include "../bench/experiment/findings_spec.h"
#include "../bench/report/findings.h"
#include "../bench/report/significance.h"
#include "../bench/results/results.h"
#include "../bench/results/results_read.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[256] = "/tmp/posbench_findings_margin_XXXXXX";

#define SE_EQUAL 0.00816496580927726032732428024902
#define T95_DF4 2.13184678632665031834686666672
#define P_SQRT6_DF4 0.0352419984551099737784881520261

// One done run of stage vit with pe.kind=pe, seed s and the given /final metrics.
static void write_run(const char *pe, int s, double top1, double top1_28, double drop56) {
    char path[512];
    snprintf(path, sizeof path, "%s/exp/vit/%s%d.h5", g_dir, pe, s);
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", "exp");
    results_attr_str(r, "/", "stage", "vit");
    results_attr_str(r, "/", "status", "done");
    results_attr_int(r, "/", "seed", s);
    results_attr_str(r, "/", "started", "2026-01-01T00:00:00Z");
    results_attr_int(r, "/config", "train.seed", s);
    results_attr_str(r, "/config", "pe.kind", pe);
    results_attr_double(r, "/final", "top1", top1);
    results_attr_double(r, "/final", "top1@28", top1_28);
    results_attr_double(r, "/final", "top1_drop@56", drop56);
    if (results_close(r) != 0) test_fail("setup", "cannot close %s", path);
}

static void make_runs(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/exp", g_dir), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/exp/vit", g_dir), mkdir(path, 0777);
    for (int s = 0; s < 3; s++) {
        write_run("abs", s, 0.80 + 0.01 * s, 0.80 + 0.01 * s, 0.20 + 0.01 * s);
        write_run("same", s, 0.80 + 0.01 * s, 0.80 + 0.01 * s, 0.20 + 0.01 * s);
        write_run("better", s, 0.85 + 0.01 * s, 0.85 + 0.01 * s, 0.20 + 0.01 * s);
        write_run("worse", s, 0.70 + 0.01 * s, 0.70 + 0.01 * s, 0.20 + 0.01 * s);
        write_run("cape", s, 0.56 + 0.01 * s, 0.56 + 0.01 * s, 0.18 + 0.01 * s);
    }
}

typedef struct {
    const char *yaml;    // the finding's fields after "- "
    const char *verdict; // the verdict text's start
} margin_case;

static char g_edge_hi[64], g_edge_lo[64]; // margins just above and below the verdict edge

static void write_yaml(const char *path, const margin_case *cases, int n) {
    FILE *f = fopen(path, "w");
    if (!f) {
        test_fail("setup", "cannot write %s", path);
        return;
    }
    fputs("name: exp\nfindings:\n", f);
    for (int i = 0; i < n; i++) fprintf(f, "  - %s\n", cases[i].yaml);
    fclose(f);
}

static const char *verdict_text(finding_verdict v, const char *why, char *buf, size_t len) {
    if (v == FINDING_HOLDS) snprintf(buf, len, "holds");
    else if (v == FINDING_FAILS) snprintf(buf, len, "does not hold (%s)", why);
    else if (v == FINDING_INCONCLUSIVE) snprintf(buf, len, "inconclusive (%s)", why);
    else snprintf(buf, len, "not measured (%s)", why);
    return buf;
}

#define SIDE(pe, metric) "{stage: vit, match: {pe.kind: " pe "}, metric: " metric "}"
#define REL(pe) "{stage: vit, match: {pe.kind: " pe "}, metric: top1_drop@56, divide_by: top1@28}"

static void test_verdicts(void) {
    snprintf(g_edge_hi, sizeof g_edge_hi, "%.17g", T95_DF4 * SE_EQUAL * (1 + 1e-6));
    snprintf(g_edge_lo, sizeof g_edge_lo, "%.17g", T95_DF4 * SE_EQUAL * (1 - 1e-6));
    char edge_hi[512], edge_lo[512], eq_hi[512], eq_lo[512];
    snprintf(edge_hi, sizeof edge_hi, "{claim: W-edge-above, kind: not_worse, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: %s}", g_edge_hi);
    snprintf(edge_lo, sizeof edge_lo, "{claim: W-edge-below, kind: not_worse, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: %s}", g_edge_lo);
    snprintf(eq_hi, sizeof eq_hi, "{claim: E-edge-above, kind: equivalent, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: %s}", g_edge_hi);
    snprintf(eq_lo, sizeof eq_lo, "{claim: E-edge-below, kind: equivalent, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: %s}", g_edge_lo);
    const margin_case cases[] = {
        {edge_hi, "holds"},
        {edge_lo, "inconclusive (needs "},
        {"{claim: W-0.02, kind: not_worse, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.02}", "holds"},
        {"{claim: W-worse, kind: not_worse, a: " SIDE("worse", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.02}",
         "does not hold (significant against)"},
        {"{claim: W-zero-margin, kind: not_worse, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: 0}",
         "inconclusive (no difference, "}, // not significantly against: inconclusive, never "does not hold"
        {"{claim: W-per, kind: not_worse, a: {stage: vit, metric: top1}, b: {stage: vit, metric: top1}, margin: 0.02, per: pe.kind}", "holds"},
        {eq_hi, "holds"},
        {eq_lo, "inconclusive (needs "},
        {"{claim: E-0.02, kind: equivalent, a: " SIDE("better", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.02}",
         "does not hold (significantly above the margin)"},
        {"{claim: E-0.02-below, kind: equivalent, a: " SIDE("abs", "top1") ", b: " SIDE("better", "top1") ", margin: 0.02}",
         "does not hold (significantly below the margin)"},
        {"{claim: E-0.045, kind: equivalent, a: " SIDE("better", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.045}",
         // the 90% CI [+3.26, +6.74] reaches inside the margin but excludes a true Δ of 0: no seeds planned for it
         "inconclusive (outside the margin, not significant; a true Δ of +0.00 (the margin, a true difference of 0) lies outside the 90% CI: no seeds planned for it)"},
        {"{claim: E-0.06, kind: equivalent, a: " SIDE("better", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.06}",
         "inconclusive (a true Δ of +0.00 (the margin, a true difference of 0) lies outside the 90% CI: no seeds planned for it)"},
        {"{claim: E-0.06-effect, kind: equivalent, a: " SIDE("better", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.06, effect: 0.05}",
         "inconclusive (the 90% CI excludes 0: no seeds planned)"}, // a stated true Δ of 0.05 inside the CI, but the CI excludes 0
        {"{claim: E-effect-inside, kind: equivalent, a: " SIDE("same", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.01, effect: 0.005}",
         "inconclusive (needs "}, // Δ 0, 90% CI [-1.74, +1.74] holds 0 and the stated 0.50: the seeds that effect needs
        {"{claim: E-0.08, kind: equivalent, a: " SIDE("better", "top1") ", b: " SIDE("abs", "top1") ", margin: 0.08}", "holds"},
        {"{claim: R-points, kind: greater, a: " SIDE("abs", "top1_drop@56") ", b: " SIDE("cape", "top1_drop@56") "}", "holds"},
        {"{claim: R-relative, kind: greater, a: " REL("abs") ", b: " REL("cape") "}", "does not hold (significant against)"},
        {"{claim: R-missing, kind: greater, a: {stage: vit, match: {pe.kind: abs}, metric: top1, divide_by: top1@99}, b: " REL("cape") "}",
         "not measured (no done run of vit with pe.kind=abs has a finite /final top1 and a finite non-zero /final top1@99)"},
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/exp/experiment.yaml", g_dir);
    write_yaml(path, cases, n);
    findings_list fl;
    if (findings_load(path, &fl, err, sizeof err) != 0) {
        test_fail("findings_load margin cases", "%s", err);
        return;
    }
    rr_set set;
    if (rr_scan(g_dir, RR_ATTRS, &set, err, sizeof err) != 0) {
        test_fail("rr_scan", "%s", err);
        findings_list_free(&fl);
        return;
    }
    char ours[4][8192];
    for (int i = 0; i < n && i < fl.n; i++) {
        char o[8192], why[1024], text[1200], name[160];
        finding_verdict v = findings_eval(&set, "exp", &fl.items[i], o, sizeof o, why, sizeof why);
        verdict_text(v, why, text, sizeof text);
        snprintf(name, sizeof name, "finding %s: %s", fl.items[i].claim, cases[i].verdict);
        test_check(name, !strncmp(text, cases[i].verdict, strlen(cases[i].verdict)), "got '%s'; ours: %s", text, o);
        if (!strcmp(fl.items[i].claim, "W-0.02")) snprintf(ours[0], sizeof ours[0], "%s", o);
        if (!strcmp(fl.items[i].claim, "E-0.06")) snprintf(ours[1], sizeof ours[1], "%s", o);
        if (!strcmp(fl.items[i].claim, "R-relative")) snprintf(ours[2], sizeof ours[2], "%s", o);
        if (!strcmp(fl.items[i].claim, "R-points")) snprintf(ours[3], sizeof ours[3], "%s", o);
    }
    // Exact cells: the p-values are the known answers above, printed to 3 decimals.
    const char *want_w = "81.00 vs 81.00 (n = 3 vs 3, Δ +0.00, 90% CI [-1.74, +1.74], margin 2.00, p = 0.035)"; // ±t_{0.95,4}·SE
    test_check("not_worse cell: margin and the non-inferiority p (P(T_4 >= sqrt 6) = 0.0352)", !strcmp(ours[0], want_w), "got '%s', want '%s'", ours[0], want_w);
    const char *want_e = "86.00 vs 81.00 (n = 3 vs 3, Δ +5.00, 90% CI [+3.26, +6.74], margin ±6.00, TOST p = 0.144)";
    test_check("equivalent cell: margin ± and the TOST p (0.143932)", !strcmp(ours[1], want_e), "got '%s', want '%s'", ours[1], want_e);
    test_check("relative cell in percent of the divisor", strstr(ours[2], "25.92% vs 33.32%") != NULL, "got '%s'", ours[2]);
    test_check("points cell: abs drops more (p = 0.035)", strstr(ours[3], "21.00 vs 19.00") && strstr(ours[3], "p = 0.035"), "got '%s'", ours[3]);
    rr_set_free(&set);
    findings_list_free(&fl);
}

// sig_shifted against the known answers: the non-inferiority p and the TOST bounds.
static void test_shifted(void) {
    double a[3] = {0.80, 0.81, 0.82}, b[3] = {0.85, 0.86, 0.87};
    sig_test t = sig_welch(a, 3, a, 3);
    sig_test s = sig_shifted(t, 0.02);
    test_check("sig_shifted: P(T_4 >= sqrt 6) at margin 0.02", fabs(s.p - P_SQRT6_DF4) < 1e-10 && fabs(s.df - 4) < 1e-12 && fabs(s.se - SE_EQUAL) < 1e-12,
               "p %.15g df %g se %.15g", s.p, s.df, s.se);
    sig_test e = sig_welch(b, 3, a, 3);
    double p_above = sig_shifted(e, 0.06).p, p_below = 1.0 - sig_shifted(e, -0.06).p;
    test_check("sig_shifted: TOST bounds at Δ 0.05, margin 0.06 (mpmath 8.78177e-05, 0.143932067)",
               fabs(p_above - 0.0000878176913082324554) < 1e-10 && fabs(p_below - 0.143932067363345331) < 1e-9, "above %.12g below %.12g", p_above, p_below);
    sig_test z = sig_shifted(sig_welch((double[]){1, 1}, 2, (double[]){1, 1}, 2), 0.5);
    test_check("sig_shifted: zero variance, effect moved above 0 gives p 0", z.ok && z.p == 0.0 && z.effect == 0.5, "p %g effect %g", z.p, z.effect);
    sig_test bad = sig_shifted(sig_welch(a, 1, a, 3), 0.5);
    test_check("sig_shifted: a test that cannot be computed stays so", !bad.ok && isnan(bad.p), "ok %d", bad.ok);
}

// The spec's refusals, each naming file:line:col.
static void test_refusals(void) {
    static const findings_refusal bad[] = {
        {"name: exp\nfindings:\n  - {claim: c, kind: not_worse, a: {stage: vit, metric: top1}, b: {stage: vit, metric: top1}}\n",
         ":3:5: findings: kind 'not_worse' needs margin"},
        {"name: exp\nfindings:\n  - {claim: c, kind: equivalent, a: {stage: vit, metric: top1}, b: {stage: vit, metric: top1}, margin: 0}\n",
         ":3:104: findings: margin must be a number > 0"},
        {"name: exp\nfindings:\n  - {claim: c, kind: not_worse, a: {stage: vit, metric: top1}, b: {stage: vit, metric: top1}, margin: -0.01}\n",
         ":3:103: findings: margin must be a number >= 0"},
        {"name: exp\nfindings:\n  - {claim: c, kind: greater, a: {stage: vit, metric: top1}, b: {stage: vit, metric: top1}, margin: 0.01}\n",
         ":3:93: findings: kind 'greater' does not use margin"},
        {"name: exp\nfindings:\n  - {claim: c, kind: greater, a: {stage: vit, metric: top1, divide_by: eval.top1}, b: {stage: vit, metric: top1}}\n",
         ":3:72: findings: a: divide_by: metric 'eval.top1' is a /eval series"},
    };
    findings_check_refusals(g_dir, bad, (int)(sizeof bad / sizeof bad[0]), "findings refusal");
}

int main(void) {
    results_process_init();
    if (!mkdtemp(g_dir)) {
        test_fail("setup", "mkdtemp failed");
        return 1;
    }
    make_runs();
    test_shifted();
    test_verdicts();
    test_refusals();
    if (test_exit_code() == 0 && !getenv("POSBENCH_TEST_KEEP")) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    } else {
        fprintf(stderr, "files kept in %s\n", g_dir);
    }
    return test_exit_code();
}
