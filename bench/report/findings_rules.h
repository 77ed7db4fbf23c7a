// bench/report/findings_rules.h — the verdict rules of bench/report/findings.c (what
// findings.h states): how a computed test (significance.h), an exact comparison or a missing
// side becomes a verdict, how the parts of a finding fold into one, the seeds an inconclusive
// test would need for a stated effect, and the texts of the "ours" column (values in the side's
// display units, a test with its 90% interval). Internal to the findings checker; known answers
// in tests/test_findings_rules.c.
#pragma once
#include "../experiment/findings_spec.h"
#include "significance.h"
#include <stddef.h>

// A finding's verdict (findings.h says what each means).
typedef enum { FINDING_HOLDS, FINDING_FAILS, FINDING_NOT_MEASURED, FINDING_INCONCLUSIVE } finding_verdict;
#define FINDING_ALPHA 0.05 // the level of every one-sided test (and of Holm's adjusted p)

typedef struct {
    finding_verdict v;
    char why[1024]; // not measured: the reason; does not hold / inconclusive: the qualifier
    double p_claim;   // the p of the claim (the largest over parts: all must hold); NaN: no test
    double p_against; // the p of the opposite (the smallest over parts); NaN: no test
    int min_runs;     // the fewest runs on a side of any test (0: none counted)
} verdict;

verdict rule_verdict(finding_verdict v, const char *why);
void rule_set_unmeasured(verdict *v, const char *why);
verdict rule_one_seed(void); // inconclusive (1 seed): a side without variance

// The seeds an inconclusive test would need, planned for a stated effect (findings.h): the
// finding's `effect`, else its margin (not_worse: a true difference of 0, so the claim's
// effect is the margin; equivalent: a true difference of 0, the distance to the margin),
// never the observed effect. planned: the claim's effect in the test's own units (a slope
// for trends; NaN: nothing stated); shown: the same in the side's display units as text;
// needed: the n from the power rule (significance.h; -1 beyond SIG_N_MAX).
typedef struct {
    double planned; // NaN: no effect stated
    char shown[160];
} plan;

plan rule_plan_for(const finding *f);
// "needs N <unit> for <shown>" (or why none can be planned) into out.
void rule_plan_text(const plan *p, int needed, const char *unit, char *out, size_t len);
// Replaces out when the stated effect lies beyond t's 90% interval on the claim's side (dir 1: effect > 0).
void rule_plan_excluded(const plan *p, const sig_test *t, int dir, char *out, size_t len);
// not_worse / equivalent: replaces out when the true difference the plan assumes (truth, in Δ's
// units: the stated effect, else 0) lies outside t's 90% interval of Δ (the data rule it out:
// "... lies outside the 90% CI: no seeds planned for it"), or when that interval excludes 0 ("the
// 90% CI excludes 0: no seeds planned"): no "needs N seeds" where the interval excludes 0.
void rule_plan_outside(const plan *p, const sig_test *t, double truth, char *out, size_t len);

// A computed test's verdict for the claim effect > 0 (dir 1) or < 0 (dir -1); needs: the plan's text.
verdict rule_decide(const sig_test *t, int dir, const char *needs);
// equivalent (TOST within ±margin); *p_tost gets the TOST p.
verdict rule_decide_equivalent(const sig_test *t, double margin, const char *needs, double *p_tost);
// An exact comparison: holds when d > 0 (or d == 0 with or_equal); shown: what was compared.
verdict rule_decide_exact(double d, int or_equal, const char *shown);
// Not measured: an exact metric that differs between the seeds of one configuration (who).
verdict rule_exact_disagree(const finding_sel *sel, const char *who);
// Folds a part's verdict (labelled) into the whole: does not hold > not measured > inconclusive > holds.
void rule_combine(verdict *all, const verdict *one, const char *label);

// Texts of the "ours" column: a side's value (top-k in %, a ratio in %), a signed difference,
// appending fmt with s to out, and a test ("Δ +8.37, 90% CI [...], p = 0.001"; with a margin
// when margin_sign is "" or "±").
void finding_metric_text(const finding_sel *sel, double v, char *out, size_t len);
void finding_signed_text(const finding_sel *sel, double v, char *out, size_t len);
void finding_text_cat(char *out, size_t len, const char *fmt, const char *s);
void finding_test_text_margin(const finding_sel *sel, const char *label, const sig_test *t, double p_claim,
                              const char *margin_sign, double margin, char *ours, size_t len);
void finding_test_text(const finding_sel *sel, const char *label, const sig_test *t, double p_claim, char *ours, size_t len);
