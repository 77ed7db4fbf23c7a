// bench/results/run_metrics.h — the metric table of a run: what every run records besides its
// objective's metrics (loss, parameters, FLOPs, times, memory, the probes, early stopping), and
// the /final attribute `metric_info` that carries the run's whole table (these plus the
// objective's, objective_kind.metrics) in its file, one tab-separated line per metric
// (objectives/metric.h metric_info_format), so a report reads units and direction from the file.
// Files written before the attribute existed are read through run_metrics_builtin.
#pragma once
#include "../../objectives/metric.h"
#include "results.h"

// The trainer's own metrics, ended by {NULL}.
extern const metric_info run_metrics_common[];
// Writes /final metric_info: run_metrics_common, then objective_metrics (may be NULL).
void run_metrics_write(results *r, const metric_info *objective_metrics);
// The built-in entry for `metric`: run_metrics_common, then every objective's table in
// OBJECTIVE_KINDS order; NULL when none names it. For files without `metric_info`.
const metric_info *run_metrics_builtin(const char *metric);
// Parses the text of a `metric_info` attribute into a table ended by {NULL} (one malloc'd
// block holding the strings too: free() it). NULL when the text is malformed (*err says
// which line and why).
metric_info *run_metrics_parse(const char *text, char *err, size_t errlen);
