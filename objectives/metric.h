// objectives/metric.h — what a /final metric is: its unit, the scale it is shown at, whether
// higher is better, whether it needs labels, how the report heads and orders its column, and
// how it varies between runs. Each objective lists its own metrics (objective_kind.metrics);
// the trainer's own (loss, params, probes, ...) are bench/results/run_metrics.c's. The trainer
// writes the table of a run into its file (/final attribute `metric_info`), so the report reads
// units and direction from the file, not from metric names.
#pragma once
#include <stddef.h>

// How a metric varies between runs of one configuration (the findings judge it by this):
//   METRIC_SAMPLED  a random outcome of the seed: seeds are the replicates (top1, loss, ...)
//   METRIC_EXACT    a deterministic count (activation bytes, parameters, FLOPs per step)
//   METRIC_TIMED    a wall-clock time per step: /final holds the median of the /train column
//                   of the same name
typedef enum { METRIC_SAMPLED, METRIC_EXACT, METRIC_TIMED } metric_nature_kind;

typedef struct metric_info {
    const char *name;   // the /final attribute; a trailing '*' matches any rest ("top1_rate*")
    const char *unit;   // of the shown value: "%", "M", "GFLOP", "s", "ms", "MiB", "" (none)
    double scale;       // shown value = stored value * scale (0 reads as 1)
    int higher_is_better; // 1 higher, -1 lower, 0 neither (sizes, counts)
    int needs_labels;   // 1: measured against class labels
    const char *header; // the column name (NULL: the name, with " (unit)" when unit): metric_column_name
    int digits;         // decimals shown (-1: %.4g)
    int rank;           // column order in the report's tables (smaller first; unknown metrics 50)
    int mean_only;      // 1: the tables show the mean without ± std
    metric_nature_kind nature;
} metric_info;

// The entry of `table` (ended by an entry with name NULL) that names `metric` (exactly, or by
// a '*' prefix; exact entries first); NULL when none does. "top1@40" is looked up as "top1".
const metric_info *metric_info_match(const metric_info *table, const char *metric);
// Value v of `metric` in its unit, as the console and the reports show it (v × the entry's scale:
// top1 0.8125 -> 81.25 %); v itself when the table has no entry or no scale.
double metric_value_shown(const metric_info *table, const char *metric, double v);
// One table line, as the results files store it (tab-separated: name unit scale
// higher_is_better needs_labels header digits rank mean_only nature), without a newline.
// Returns what snprintf returns.
int metric_info_format(const metric_info *m, char *buf, size_t len);

// A metric's one column name, the same in REPORT.md's tables, `report --format csv|json`, `posbench
// export` and load_runs (python/posbench_results.py), and the axis label of its figures: the
// entry's header ("step (ms)") when it has one, else "<metric> (<unit>)" ("top1 (%)"), else the
// metric's name; a per-size metric "<base>@<size>" is "<base's column name> at <size> px"
// ("top1 (%) at 56 px"). m NULL (no entry): the name as given. Returns what snprintf returns.
int metric_column_name(const metric_info *m, const char *metric, char *buf, size_t len);
