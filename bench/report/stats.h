// bench/report/stats.h — statistics and number formats shared by the report's tables
// (report.c), the findings' verdicts (findings.c) and the figures (plot.c). Formats: the
// table in report.h ("Formats"); a per-size metric "top1@40" is formatted as its base
// metric, with the size ("40 px") as its header.
#pragma once
#include "../results/results_read.h"
#include "../../objectives/metric.h"
#include <stddef.h>

typedef struct {
    char header[96];
    double scale;
    const char *fmt;
    int mean_only;
    int rank; // column order
} metric_fmt;

// How a /final metric varies between runs, which decides how the findings judge it
// (findings.h): the nature its metric table states (objectives/metric.h: sampled, exact or
// timed); a per-size metric "NAME@SIZE" has its base NAME's nature.
typedef struct {
    const char *metric;       // the /final attribute
    metric_nature_kind nature;
} metric_nature;
// Reads the metric tables of the runs of `set` (their /final metric_info) that the formats and
// natures below look metrics up in (then in the built-in tables, for files without one); NULL
// forgets them. Call after rr_scan, before anything formats a metric.
void report_metrics_from(const rr_set *set);
metric_nature report_metric_nature(const char *metric);
// Is metric a wall-clock measurement: a timed metric or a rate per second ("images/s")? Its
// value depends on what else ran on the device (findings.c names that caveat).
int report_metric_is_timing(const char *metric);

// How metric `full` is shown: header, scale, printf format, mean only, column rank.
metric_fmt report_metric_format(const char *full);
// Mean and sample std (divisor n-1; 0 when n < 2) of /final `metric` over the runs of
// configuration c whose status is `done` and that have the metric. Returns n.
int report_stats(const rr_set *set, const rr_config *c, const char *metric, double *mean, double *std);
// The scale a metric is shown with (100 for accuracies) and its column header ("top1 (%)").
double report_metric_scale(const char *metric, char *header, size_t len);
// The unit a metric is shown in ("%", "ms", "MiB"; "" when none or unknown); "top1@40" is top1's.
const char *report_metric_unit(const char *metric);
// The printf format of a scaled value of f: f->fmt, except that a metric shown without decimals
// (a count, a 0/1 flag) whose value (a mean over runs) is not whole gets two ("%.2f": 2 of 3
// runs collapsed is 0.67).
const char *report_value_format(const metric_fmt *f, double scaled);
// A value of a metric as the table cells print it: scaled and in the column's format
// ("81.20" for top1 = 0.812, "0.4321" for loss).
void report_metric_text(const char *metric, double value, char *buf, size_t len);
// The mean curve of configuration c over its seeds: series `group` ("train" or "eval"), columns
// xcol and ycol, rows in bins of consecutive rows so at most max_points remain (0: no binning).
// Per bin, each run's mean over the rows it has (finite values only; a diverged run stops
// contributing); x and y are the means of those over the runs, [lo, hi] the y mean's 95% CI
// over them (Student t, n − 1 df; lo = hi = y when n < 2) and n the runs in the bin.
// Returns the number of points (the arrays malloc'd; report_band_free even when 0).
typedef struct {
    double *x, *y, *lo, *hi;
    int *n;
} report_band;
long report_curve(const rr_set *set, const rr_config *c, const char *group, const char *xcol, const char *ycol,
                  long max_points, report_band *out);
void report_band_free(report_band *b);
// Half the width of the 95% CI of a mean of n values with sample std `std` (t, n − 1 df); 0 when n < 2.
double report_ci95_half(double std, int n);
