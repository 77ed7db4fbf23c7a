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
// that have a finite /final `metric` enter the means; a mean is over all of them (seeds and
// configurations together) unless `per` or `x` split them.
//   greater      mean(a) > mean(b)
//   at_least     mean(a) >= value        at_most   mean(a) <= value
//   peak_inside  the x values (sorted numerically, those with a mean only) number at least
//                3 and the highest mean lies strictly inside: it beats both the first and
//                the last x value's means (a tie with an end does not hold)
//   increasing   means strictly increase along x (at least 2 values of x with a mean)
//   decreasing   means strictly decrease along x (at least 2)
//   per K        (any kind) the runs are split by the value of /config key K and the kind is
//                checked for each value on its own; for `greater`, a- and b-runs with equal
//                values are paired (values on one side only are listed as unpaired and not
//                checked). It holds iff it holds for every value.
// `x` and `per` keys are looked up like match keys.
// Verdict: "holds"; "does not hold" (one failing value of `per` is enough); or
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
// `ours` holds the means that decided the verdict, formatted like the report's cells
// (report_metric_text: top-k in %, %.2f): greater "81.20 vs 78.45"; at_least/at_most
// "97.50 (claim ≥ 95.00)"; along x "0: 80.10, 0.25: 82.30, 0.5: 79.00" ("—" for an x value
// without a mean); with per "abs: <that>; none: <that>" (along x: "abs: (<that>); ..."),
// then for greater "; unpaired: relbias (only in b)" when a value is on one side only; "—"
// for a side without a mean, or when the `per`/`x` key is absent.
#pragma once
#include "../experiment/findings_spec.h"
#include "../results/results_read.h"
#include <stddef.h>

// The verdict and `ours` cell of finding f of experiment `experiment` over the runs of set.
typedef enum { FINDING_HOLDS, FINDING_FAILS, FINDING_NOT_MEASURED } finding_verdict;
finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len);

// Reads the findings of every experiment.yaml below dir (recursively, in path order;
// symlinks and dot entries not followed, unreadable subdirectories skipped) and renders their
// sections as Markdown into *md (malloc'd, "" when there is none; free it). 0 ok; -1 with
// "path:line:col: message" in err for a malformed file (*md is then NULL).
int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen);
