// bench/experiment/findings_check.h — checks of a finding (and a figure) against the runs the
// experiment expands to, so a claim that could never be measured is an error when the file loads
// (`posbench run`, `list`: file:line:col, exit 2) instead of a "not measured" after the runs:
//   - metric (and divide_by): a /final attribute some run of the stage records: its objective's
//     metric table (objectives/*: objective_kind.metrics), the trainer's
//     (bench/results/run_metrics.c), or one of the trainer's other /final attributes (steps,
//     updates, best_step, ...); NAME@SIZE is NAME's. `top11` is an error naming the valid ones.
//   - match key: value: some run of the stage has that value (a "<stage>.<key>" through its
//     init/budget chain), at the loaded scale or at another of the file's `scales:` (a value of
//     the full matrix that --scale smoke leaves out is fine); keys whose runs cannot be told are
//     not judged.
//   - x of increasing / decreasing / peak_inside: a key with ordered values (integer, float or
//     boolean); a text key (pe.kind, data.name) has no order a slope or a peak could follow.
#pragma once
#include "experiment.h"
#include <stddef.h>

// 1 when `metric` (without "final.") is recorded by some run of `stage` (NULL: any stage);
// else 0 with the metrics those runs record in valid (comma-separated, truncated to fit).
int findings_metric_known(const experiment *e, const char *stage, const char *metric, char *valid, size_t validlen);
// 1 when some run of `stage` (at e's scale, else at another scale of e's file) has `value` for
// config key index `idx` (key: as written, "<stage>.<key>" for a parent's) or when that cannot be
// told; else 0 with the values the runs have in seen (comma-separated).
int findings_value_exists(const experiment *e, const char *stage, const char *key, int idx, const char *value, char *seen,
                          size_t seenlen);
// 1 when config key idx has ordered values (CFG_INT, CFG_FLOAT, CFG_BOOL).
int findings_key_ordered(int idx);
