// bench/report/findings.h — a paper's claims checked against our measured results.
// An experiment's `findings:` list (docs/experiments.md; parsed into finding structs by
// bench/experiment/findings_spec.h) is read by `posbench report DIR` from the copy of the
// experiment file that `posbench run` keeps as <results>/<experiment>/experiment.yaml, and
// evaluated against the run files below DIR.
//
// Selecting runs (one side, `a` or `b`): the runs of stage `stage` of the file's experiment
// (root attrs `experiment` and `stage`, as bench/results/results_read.h groups them) whose /config
// matches every key=value of `match` (values compare numerically when both are numbers,
// else as text; a key absent from a run's /config that starts with "<stage>." is looked up
// without that prefix, like reference.tsv). Of those, only runs whose status is `done` and
// that have a finite /final `metric` are observations.
// Configurations are never pooled as seeds: when two done runs of a side that share their
// `per` and `x` values differ in any /config key other than the seed (train.seed,
// "<stage>.train.seed"; keys that only follow x or per, such as a parent stage's copy of the
// x key, do not count), the side is split into configurations by the keys that differ, and
// the claim is stated per configuration ("configurations not pooled: K=v: <cell>; ..."): a-
// configurations are paired with the b-configurations that agree on the keys differing on both
// sides (a key differing on one side only is not matched on: each such configuration is
// compared with each of the other side's); it holds iff it holds for every configuration.
// Metrics by nature (stats.h, report_metric_nature, one table):
//   sampled  (top1, loss, ...) seeds are the replicates: the t-tests below
//   exact    (act_bytes, backend_peak_bytes, params, flops_per_step) deterministic: one
//            run decides; the seeds of one configuration must agree (else "not measured (the
//            exact metric M differs between the seeds of ...)"); decided by the values with no
//            test: greater a > b, at_least a ≥ value, at_most a ≤ value, not_worse a − b +
//            margin ≥ 0, equivalent |a − b| ≤ margin, increasing / decreasing every step
//            along x strictly in the claimed direction, peak_inside the highest inner value
//            above both ends; otherwise "does not hold (exact: 485.0 < 531.0)"; ours shows
//            "exact, Δ ..." and no p (such a finding is not in the Holm family)
//   timed    (step_time_ms) the runs are the replicates, as for sampled metrics: each run's
//            observation is its /final value, the median of its own per-step times (the same
//            number the stage table shows), and a side's value is the mean over its runs ("median
//            step time of each run, then mean over runs"); the steps of one run are never
//            replicates (one run a side: "inconclusive (1 seed)")
// Tests (bench/report/significance.h; α = 0.05, one-sided in the claimed direction):
//   greater      Welch's t-test of mean(a) − mean(b) > 0
//   at_least     one-sample t-test of mean(a) − value > 0     at_most: < 0
//   peak_inside  the x values (sorted numerically, those with a mean only) number at least
//                3; the highest mean strictly inside (the first on ties) is tested against
//                the first and against the last x value's runs (Welch each); it holds when
//                both hold (an intersection–union test: no multiplicity correction needed)
//   increasing   the OLS slope of the metric on x (the numeric x values, or their ranks when
//   decreasing   one is not a number) over every observation, t-test of slope > 0 (< 0); at
//                least 2 x values with a mean
//   not_worse    Welch's t-test of mean(a) − mean(b) + margin > 0 (non-inferiority)
//   equivalent   TOST: Welch tests of mean(a) − mean(b) > −margin and < +margin, both at α
//                (holds iff both do: the 90% CI inside ±margin); ours shows "margin ±M, TOST p"
//   divide_by    (a side's key, any kind) each run's observation is metric / divide_by
//                (always sampled)
//   per K        (any kind) the runs are split by the value of /config key K and the kind is
//                checked for each value on its own; for `greater`, a- and b-runs with equal
//                values are paired (values on one side only are listed as unpaired and not
//                checked). It holds iff it holds for every value.
// `x` and `per` keys are looked up like match keys.
// Verdict of one test, p = its one-sided p-value for the claim:
//   "holds"                    p < 0.05, i.e. the printed 90% interval's bound on the claim's
//                              side (the one-sided 95% bound) excludes the null (0, −margin,
//                              ±margin) — and still so after Holm (below)
//   "does not hold (significant against)"  1 − p < 0.05: the data are significantly against
//                              the claim (not_worse / at_least: the interval excludes the
//                              margin / value the other way; equivalent: "significantly above /
//                              below the margin": the 90% CI entirely outside ±margin)
//   "inconclusive (...)"       otherwise, also when the effect has the wrong sign or is 0 but
//                              is not significant ("opposite direction, not significant; ",
//                              "no difference, ", equivalent: "outside the margin, not
//                              significant; "), followed by the seeds a stated effect needs:
//                              "needs N seeds per side for <effect>" — N the smallest n for
//                              80% power (significance.h, with the observed variances) at the
//                              finding's `effect` ("an effect of 2.00 (the stated effect)"),
//                              else for not_worse / equivalent at a true difference of 0 ("a
//                              true Δ of +0.00 (the margin, a true difference of 0)"); never
//                              the observed effect. Without either: "seeds not planned: its
//                              experiment file states no `effect:` for this finding". Units: "seeds" (at_least/at_most),
//                              "seeds per x value" (trends); "needs more than 1000". No
//                              seeds are planned where the 90% CI of Δ excludes 0 (greater,
//                              at_least, at_most, trends: decided then) or, for not_worse /
//                              equivalent, the true Δ the plan assumes: "a true Δ of +0.00
//                              (...) lies outside the 90% CI: no seeds planned for it", else
//                              "the 90% CI excludes 0: no seeds planned"
//   "inconclusive (1 seed)"    a side (a peak or both its ends; every x value) has one run of a
//                              sampled metric
// Several tests (configurations, per values, a peak's two ends): does not hold > not measured
// > inconclusive > holds; qualifiers of the deciding rank are listed "value: why; ..." ("vs
// END: why" for a peak's end). The finding's p is the largest of its parts' (all must hold),
// the opposite's p the smallest.
// Holm: the family is the experiment (the findings of one experiment file, by its name), never
// the folder a report reads, so `posbench report` of a parent folder and of the experiment's own
// folder give a finding the same corrected p. Each finding with a test enters the family once
// with the p it is judged on: the against p for a "does not hold (significant against)"
// verdict, the claim's p otherwise; findings that state the same comparison (kind, sides,
// per, x, value, margin) enter once and share its adjusted p. A "holds" whose adjusted p
// >= 0.05 becomes "inconclusive (not significant after Holm's correction over M comparisons of
// experiment `E`)"; a "significant against" whose adjusted p >= 0.05 becomes "inconclusive
// (against the claim, not significant after Holm's correction over ...)". The ours cell ends
// "; claim p = 0.012, against p = 0.988; Holm p = 0.048 (claim; 7 comparisons, experiment `E`)".
// Caveats of a finding's own runs end its verdict cell: "[caveats: 2 runs on a side (fewer than
// 3 seeds); a device mix: Intel Xeon (3 runs), cuda (3 runs); a GPU timing: ...]"
// (finding_caveats in findings.c).
// "not measured (why)": a side selects no runs, none of them `done`, no done run with the
// metric, the key of `per`/`x` absent from every selected run, no `per` value common to a
// and b, no configuration of a matching one of b, or fewer x values with a mean than the
// kind needs.
// Output: one section per experiment.yaml with findings (files in path order), then per
// findings.tsv without an experiment.yaml beside it (an older folder: findings_tsv.h), appended to
// the report:
//   ## Findings (experiment `NAME`)
//
//   | claim | ours | paper | verdict |
//   |---|---|---|---|
//   | <claim> | <ours> | <paper> | <verdict> |
// `ours` holds the means and the test, formatted like the report's cells
// (report_metric_text: top-k in %, %.2f; differences signed):
//   greater      "81.20 vs 78.45 (n = 3 vs 3, Δ +2.75, 90% CI [+0.80, +4.70], p = 0.012)"
//   at_least     "97.50 (n = 3, Δ +2.50, 90% CI [...], p = 0.030) (claim ≥ 95.00)"
//   trends       "0: 80.10, 0.25: 82.30, 0.5: 79.00 (n = 9, fitted change over the range
//                -1.10, 90% CI [...], p = 0.700)" — the slope times (last x − first x)
//   peak_inside  "0: 80.10, 0.25: 82.30, 0.5: 79.00 (peak 0.25 vs 0: n = 3 vs 3, Δ +2.20,
//                90% CI [...], p = 0.040; vs 0.5: n = 3 vs 3, Δ ...)"
//   exact        "531.0 vs 485.0 (n = 1 vs 1, exact, Δ +46.0)"; trends "... (exact)"
//   timed        "21.1 vs 20.1 (n = 3 vs 3 runs; median step time of each run, then mean over
//                runs, Δ +1.0, 90% CI ...)"
// p is one-sided for the claim ("p < 0.001", "p > 0.999" at the ends); the interval is the
// two-sided 90% one, whose bound on the claim's side is the one-sided test's 95% bound. With
// one seed the test part is left out ("(n = 1 vs 3)"). With per: "abs: <that>; none: <that>"
// (along x: "abs: (<that>); ..."), then for greater "; unpaired: relbias (only in b)" when a
// value is on one side only; "—" for a side without a mean, or when the `per`/`x` key is
// absent.
#pragma once
#include "../experiment/findings_spec.h"
#include "../results/results_read.h"
#include "findings_rules.h" // finding_verdict, FINDING_ALPHA
#include <stddef.h>
#include <stdio.h>

// The verdict and `ours` cell of finding f of experiment `experiment` over the runs of set.
finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len);

// The same with the p-values Holm's correction needs (before it: findings_holm fills the rest).
typedef struct {
    finding_verdict v;
    char why[1024];
    double p_claim;   // the claim's one-sided p (the largest of its parts); NaN: no test
    double p_against; // the opposite's one-sided p (the smallest of its parts); NaN: no test
    double p_holm;    // after findings_holm: the Holm-adjusted p of the side it is judged on
    int holm_against; // after findings_holm: 1 when judged on p_against (significant against before Holm)
    int holm_m;       // after findings_holm: the comparisons with a p in its family
    char caveats[512]; // what the reader must know about its runs ("" none): seeds, device mix, timing
} finding_result;
finding_result findings_eval_full(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len);
// Holm's correction over one family, the n findings of one experiment: each enters with the p it
// is judged on (findings.h, "Holm"); keys[i] names its comparison (findings with equal keys enter
// once; keys NULL: each its own). Adjusts the p's and downgrades a verdict its adjusted p no
// longer supports to inconclusive ("... over M comparisons of experiment `family`").
void findings_holm(finding_result *r, const char *const *keys, int n, const char *family);
// The comparison a finding states, as text (kind, sides, per, x, value, margin): two findings
// with the same text test the same hypothesis on the same runs. Into out.
void finding_comparison_key(const finding *f, char *out, size_t len);

// Reads the findings of every experiment.yaml below dir (recursively, in path order;
// symlinks and dot entries not followed, unreadable subdirectories skipped) and renders their
// sections as Markdown into *md (malloc'd, "" when there is none; free it). 0 ok; -1 with
// "path:line:col: message" in err for a malformed file (*md is then NULL).
int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen);

// One finding as `posbench report --format csv,json` writes it (findings_export.h): the texts of
// its Markdown row and the numbers behind them.
typedef struct {
    char *experiment, *kind, *claim, *ours, *paper, *verdict; // verdict: the Markdown text
    finding_verdict v;
    double p_claim, p_against, p_holm; // NaN: no test; p_holm: of the side it was judged on
    const char *holm_side;             // "claim" or "against" (NULL: no test)
    int holm_m;                        // the comparisons of its family (its experiment)
    double ci_lo, ci_hi; // the 90% CI `ours` states, when it states exactly one (in its units); else NaN
    char *caveats;       // the finding's own caveats (seeds, device mix, timing), then the experiment's; "; "-joined
} finding_row;
// findings_report, also returning the rows (malloc'd; free with finding_rows_free) when rows is
// not NULL.
int findings_report_rows(const rr_set *set, const char *dir, char **md, finding_row **rows, int *nrows, char *err,
                         size_t errlen);
void finding_rows_free(finding_row *rows, int n);
// One Markdown table cell of text: " text |", '|' escaped, newlines and tabs flattened to spaces.
