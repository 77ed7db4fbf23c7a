// bench/report/findings.h — a paper's claims checked against our measured results.
// An experiment's `findings:` list (README "Experiments"; parsed into finding structs by
// bench/experiment/findings_spec.h) is read by `posbench report DIR` from the copy of the
// experiment file that `posbench run` keeps as <results>/<experiment>/experiment.yaml, and
// evaluated against the run files below DIR.
//
// Selecting runs (one side, `a` or `b`): the runs of stage `stage` of the file's experiment
// (root attrs `experiment` and `stage`, as bench/results/results_read.h groups them) whose /config
// matches every key=value of `match` (values compare numerically when both are numbers,
// else as text; a key absent from a run's /config that starts with "<stage>." is looked up
// without that prefix, like reference.tsv). Of those, only runs whose status is `done` and
// that have a finite /final `metric` are observations: each is one seed of one
// configuration (a side may pool configurations unless `per` or `x` split them). Tests
// (bench/report/significance.h; α = 0.05, one-sided in the claimed direction):
//   greater      Welch's t-test of mean(a) − mean(b) > 0
//   at_least     one-sample t-test of mean(a) − value > 0     at_most: < 0
//   peak_inside  the x values (sorted numerically, those with a mean only) number at least
//                3; the highest mean strictly inside (the first on ties) is tested against
//                the first and against the last x value's runs (Welch each); it holds when
//                both hold (an intersection–union test: no multiplicity correction needed)
//   increasing   the OLS slope of the metric on x (the numeric x values, or their ranks when
//   decreasing   one is not a number) over every run, t-test of slope > 0 (< 0); at least 2
//                x values with a mean
//   not_worse    Welch's t-test of mean(a) − mean(b) + margin > 0 (non-inferiority)
//   equivalent   TOST: Welch tests of mean(a) − mean(b) > −margin and < +margin, both at α
//                (holds iff both do; "does not hold (significantly above / below the margin)",
//                "(outside the margin, not significant)", or inconclusive with the n per side
//                the nearer bound's one-sided test would need); ours shows "margin ±M, TOST p"
//   divide_by    (a side's key, any kind) each run's observation is metric / divide_by
//   per K        (any kind) the runs are split by the value of /config key K and the kind is
//                checked for each value on its own; for `greater`, a- and b-runs with equal
//                values are paired (values on one side only are listed as unpaired and not
//                checked). It holds iff it holds for every value.
// `x` and `per` keys are looked up like match keys.
// Verdict of one test, p = its one-sided p-value for the claim:
//   "holds"                    p < 0.05
//   "does not hold (significant against)"               1 − p < 0.05
//   "does not hold (opposite direction, not significant)" the effect is against the claim
//   "does not hold (no difference)"                     the effect is exactly 0
//   "inconclusive (needs N seeds per side)"             otherwise: N is the smallest n for
//                80% power at the observed effect and variances (significance.h; "seeds"
//                for at_least/at_most, "seeds per x value" for trends; "needs more than 1000")
//   "inconclusive (1 seed)"    a side (a peak or both ends; every x value) has one run
// Several tests (per values, a peak's two ends): does not hold > not measured > inconclusive
// > holds; qualifiers of the deciding rank are listed "value: why; ..." ("vs END: why" for
// a peak's end).
// "not measured (why)": a side selects no runs, none of them `done`, no done run with the
// metric, the key of `per`/`x` absent from every selected run, no `per` value common to a
// and b, or fewer x values with a mean than the kind needs.
// Output: one section per experiment.yaml with findings (files in path order), appended to
// the report:
//   ## Findings (experiment `NAME`)
//
//   | claim | ours | paper | verdict |
//   |---|---|---|---|
//   | <claim> | <ours> | <paper> | <verdict> |
// `ours` holds the means and the test, formatted like the report's cells
// (report_metric_text: top-k in %, %.2f; differences signed):
//   greater      "81.20 vs 78.45 (n = 3 vs 3, Δ +2.75, 95% CI [+0.40, +5.10], p = 0.012)"
//   at_least     "97.50 (n = 3, Δ +2.50, 95% CI [...], p = 0.030) (claim ≥ 95.00)"
//   trends       "0: 80.10, 0.25: 82.30, 0.5: 79.00 (n = 9, fitted change over the range
//                -1.10, 95% CI [...], p = 0.700)" — the slope times (last x − first x)
//   peak_inside  "0: 80.10, 0.25: 82.30, 0.5: 79.00 (peak 0.25 vs 0: n = 3 vs 3, Δ +2.20,
//                95% CI [...], p = 0.040; vs 0.5: n = 3 vs 3, Δ ...)"
// p is one-sided for the claim ("p < 0.001", "p > 0.999" at the ends); the 95% CI is
// two-sided (so a claim that holds with 0.025 ≤ p < 0.05 has a CI that reaches 0). With one
// seed the test part is left out ("(n = 1 vs 3)"). With per: "abs: <that>; none: <that>"
// (along x: "abs: (<that>); ..."), then for greater "; unpaired: relbias (only in b)" when a
// value is on one side only; "—" for a side without a mean, or when the `per`/`x` key is
// absent.
#pragma once
#include "../experiment/findings_spec.h"
#include "../results/results_read.h"
#include <stddef.h>

// The verdict and `ours` cell of finding f of experiment `experiment` over the runs of set.
typedef enum { FINDING_HOLDS, FINDING_FAILS, FINDING_NOT_MEASURED, FINDING_INCONCLUSIVE } finding_verdict;
finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len);
// The same with the p-values Holm's correction needs (before it: findings_holm fills the rest).
typedef struct {
    finding_verdict v;
    char why[1024];
    double p_claim;        // the claim's one-sided p (the largest of its parts); NaN: no test
    double p_against;      // the opposite's one-sided p (the smallest of its parts); NaN: no test
    double p_claim_holm;   // after findings_holm: Holm-adjusted p_claim
    double p_against_holm; // after findings_holm: Holm-adjusted p_against, for verdicts "does not hold"
    int holm_m;            // the number of findings with a p in the family
} finding_result;
finding_result findings_eval_full(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len);
// Holm's correction over the n findings of one report: adjusts the p's and downgrades a verdict
// its adjusted p no longer supports to inconclusive (findings.h, "Holm").
void findings_holm(finding_result *r, int n);

// Reads the findings of every experiment.yaml below dir (recursively, in path order;
// symlinks and dot entries not followed, unreadable subdirectories skipped) and renders their
// sections as Markdown into *md (malloc'd, "" when there is none; free it). 0 ok; -1 with
// "path:line:col: message" in err for a malformed file (*md is then NULL).
int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen);
