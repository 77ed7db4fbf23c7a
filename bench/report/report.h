// bench/report/report.h — `posbench report DIR [--format md,csv,json,html] [--diff OLD.json]`: one Markdown table per
// stage of the run files below DIR, written to stdout and atomically to DIR/REPORT.md
// (core/safe_file.h: a temporary name of its own, renamed); --format csv,json also writes the tables and findings as CSV and JSON
// beside it (bench/report/report_formats.h), html REPORT.html (report_html.h).
//
// Table of a stage (stages and configurations as bench/results/results_read.h groups them):
//   columns: the axes (dotted /config keys, sorted), `n`, `updates` and `images seen` (the
//   training budget with its init chain's: bench/report/budget_cells.h), one column per metric, a
//   `paper <metric>` column right after a metric that the experiment's `reference:` gives numbers for,
//   and `status` when some run of the stage is not `done`.
//   rows: one per configuration, sorted by axis values (numerically where numeric).
//   n: runs of the configuration whose status is `done` (only those enter the cells).
//   metrics: the numeric /final attributes present in every `done` run of the stage, except
//   `steps`, `diverged_step` and the budget attributes; order: top1, top5, pos_top1, loss, the others by name,
//   params, flops_per_step, train_time_s, images_per_s, peak_mem_bytes.
//   cells: "M ± S", M the mean and S the sample standard deviation (divisor n-1, two passes
//   in double) of the stored values, each multiplied by the scale and printed with the
//   metric's format;
//   n = 1 gives "M ± —" (undefined spread), n = 0 gives "—". Formats (header; scale; digits;
//   column order; mean only) come from the runs' /final metric_info (the metric tables of
//   objectives/metric.h and bench/results/run_metrics.c; files written before it: the same
//   built-in tables), e.g. top1: "top1 (%)"; x100; %.2f; loss: "loss"; 1; %.4f; params:
//   "params (M)"; 1e-6; %.3f, mean only; a metric no table names: "<name>"; 1; %.4g
//   status: counts per status, done first, then diverged, failed, running, others by name:
//   "2 done, 1 diverged".
// Paper numbers: the `reference:` list of the experiment file `posbench run` keeps,
// DIR/<experiment>/experiment.yaml (or DIR/experiment.yaml; bench/experiment/reference_spec.h,
// report_refs.h). Results folders written before issue 28 have DIR/<experiment>/reference.tsv or
// DIR/reference.tsv instead ('#' lines and blank lines ignored), one number per line:
//   stage<TAB>key=value[,key=value...]<TAB>metric<TAB>value<TAB>source[<TAB>same_data|other_data]
// (the sixth field: whether the paper measured on our data; absent = other data). A column
// with any number on other data is headed `paper (other data) <metric>`, else `paper <metric>`.
// stage "*" matches every stage; the keys are /config keys (a "<stage>." prefix is
// dropped), values compare numerically when both are numbers; "" or "*" matches every
// row. The value is printed verbatim (the paper's units) in `paper <metric>`; the sources
// are listed under the table; lines matching no row are reported on stderr.
// Caveats: under the last stage table of each experiment, its caveats (the `caveats:` list of its
// experiment.yaml and "one seed" where n = 1: bench/report/caveats.h); also at the head of its
// findings table.
// Findings: after the stage tables (before the list of unreadable files), one section per
// experiment.yaml below DIR that has findings (a paper's claims with our numbers and a
// verdict: bench/report/findings.h), and per findings.tsv of an older folder without one
// (findings_tsv.h).
// Header of a stage's table: "N runs, M configurations, seeds S." and, when the stage lacks runs,
// "**Not in this table:** K missing (runs the experiment file enumerates with no run file), D
// damaged, C left out as copies of a counted run, E left out as runs of an earlier version"
// (counts of zero are not named). The axes include every matrix key of the stage its
// experiment's copy names, even where the runs left hold one value of it (run_select.h).
// Runs left out: a done run with a damaged /final, a second file of a run (run_screen.h) and a
// run of an earlier version of its experiment (report_versions.h) enter no table or finding:
// each is named on stderr ("posbench: warning: left out PATH: why") and listed under "Run files
// left out" after the findings; an experiment with runs of an earlier version gets a
// "**Not used:** N runs ..." line under its last stage table and at the head of its findings.
// --diff OLD.json: the section "Changed since OLD.json" after the head (bench/report/findings_diff.h).
// Exit status: 0 ok; 2 bad input (no DIR, DIR not a directory, no *.h5 under it or every one
// left out, malformed
// reference.tsv, an experiment.yaml copy that does not load, or its findings; a --diff file that is
// missing, unreadable or not a findings file); 1 when REPORT.md
// cannot be written.
#pragma once
#include "../results/results_read.h"

int cmd_report(int argc, char **argv); // argv: the arguments after "report"
void report_help(void);
