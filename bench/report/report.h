// bench/report/report.h — `posbench report DIR`: one Markdown table per stage of the run files
// below DIR, written to stdout and atomically to DIR/REPORT.md (REPORT.md.tmp, rename).
//
// Table of a stage (stages and configurations as bench/results/results_read.h groups them):
//   columns: the axes (dotted /config keys, sorted), `n`, one column per metric, a
//   `paper <metric>` column right after a metric that DIR/reference.tsv gives numbers for,
//   and `status` when some run of the stage is not `done`.
//   rows: one per configuration, sorted by axis values (numerically where numeric).
//   n: runs of the configuration whose status is `done` (only those enter the cells).
//   metrics: the numeric /final attributes present in every `done` run of the stage, except
//   `steps` and `diverged_step`; order: top1, top5, pos_top1, loss, the others by name,
//   params, flops_per_step, train_time_s, images_per_s, peak_mem_bytes.
//   cells: "M ± S", M the mean and S the sample standard deviation (divisor n-1, two passes
//   in double) of the stored values, each multiplied by the scale and printed with the
//   metric's format;
//   n = 1 gives "M ± —" (undefined spread), n = 0 gives "—". Formats (header; scale; printf):
//     names containing "top" (accuracies stored as fractions): "<name> (%)"; x100; %.2f
//     loss: "loss"; 1; %.4f          train_time_s: "train_time (s)"; 1; %.1f
//     images_per_s: "images/s"; 1; %.1f      peak_mem_bytes: "peak_mem (MiB)"; 2^-20; %.1f
//     step_time_ms: "step (ms)"; 1; %.1f      act_bytes: "activations (MiB)"; 2^-20; %.1f
//     params: "params (M)"; 1e-6; %.3f, mean only    flops_per_step: "GFLOP/step"; 1e-9;
//     %.3f, mean only                                others: "<name>"; 1; %.4g
//   status: counts per status, done first, then diverged, failed, running, others by name:
//   "2 done, 1 diverged".
// DIR/reference.tsv (optional; '#' lines and blank lines ignored), one number per line:
//   stage<TAB>key=value[,key=value...]<TAB>metric<TAB>value<TAB>source
// stage "*" matches every stage; the keys are /config keys (a "<stage>." prefix is
// dropped), values compare numerically when both are numbers; "" or "*" matches every
// row. The value is printed verbatim (the paper's units) in `paper <metric>`; the sources
// are listed under the table; lines matching no row are reported on stderr.
// Findings: after the stage tables (before the list of unreadable files), one section per findings.tsv below DIR (a paper's claims
// with our numbers and a verdict: bench/report/findings.h).
// Exit status: 0 ok; 2 bad input (no DIR, DIR not a directory, no *.h5 under it, malformed
// reference.tsv or findings.tsv); 1 when REPORT.md cannot be written.
#pragma once
#include "../results/results_read.h"

int cmd_report(int argc, char **argv); // argv: the arguments after "report"
void report_help(void);

// Mean and sample std (divisor n-1; 0 when n < 2) of /final `metric` over the runs of
// configuration c whose status is `done` and that have the metric. Returns n.
int report_stats(const rr_set *set, const rr_config *c, const char *metric, double *mean, double *std);
// The scale a metric is shown with (100 for accuracies) and its column header ("top1 (%)").
double report_metric_scale(const char *metric, char *header, size_t len);
// A value of a metric as the table cells print it: scaled and in the column's format
// ("81.20" for top1 = 0.812, "0.4321" for loss).
void report_metric_text(const char *metric, double value, char *buf, size_t len);
// The mean curve of configuration c: series `group` ("train" or "eval"), columns xcol and
// ycol; at each row index the mean over the runs that have that row (finite values only),
// then means over bins of consecutive rows so at most max_points remain (0: no binning).
// Returns the number of points in *xs, *ys (malloc'd, free both even when 0).
long report_curve(const rr_set *set, const rr_config *c, const char *group, const char *xcol, const char *ycol,
                  long max_points, double **xs, double **ys);
