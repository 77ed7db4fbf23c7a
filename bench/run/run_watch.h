// bench/run/run_watch.h — what `posbench watch DIR` shows: every run below a results directory
// with its state and its latest live metrics. Read-only: it takes no lock and writes nothing.
//
// The runs are found from their files (recursively, symbolic links not followed): <id>.h5,
// <id>.h5.partial, <id>.ckpt, <id>.lock, <id>.metrics.jsonl, and the links of names/ folders
// (bench/run/run_names.h), which also name the runs not started yet. A run's state:
//   running   its lock file (<id>.lock) names a live process (the runner or `posbench train`)
//   done, diverged, damaged   otherwise, its <id>.h5 as `posbench run` and `list` judge it
//             (run_file_status, bench/store/run_files.h: the results' own screening)
//   stopped   no live lock and no .h5, but a .h5.partial or .ckpt: interrupted (kill, crash,
//             --stop-after); the next `posbench run` or `train` of it resumes it
//   queued    no file but its names/ link (or only its metrics file): not started yet
// Step, loss, ETA and the last evaluation come from the last lines of <id>.metrics.jsonl
// (bench/train/metrics_log.h); runs written before that file existed show none.
// Between scans in one process, a .h5 whose inode, size and modification time are unchanged
// keeps its judged state (it is not opened again), so refreshing a large folder stays cheap.
#pragma once
#include <stddef.h>

typedef enum { WATCH_RUNNING, WATCH_QUEUED, WATCH_STOPPED, WATCH_DONE, WATCH_DIVERGED, WATCH_DAMAGED, WATCH_STATES } watch_state;

typedef struct {
    char *base;          // <dir>/<run-id> (add .h5, .metrics.jsonl, ...)
    char *label;         // "<experiment>/<stage>/<names/ name>", else the base relative to DIR
    watch_state state;
    char why[256];       // damaged: what is wrong; running: who holds the lock
    int has_metrics;     // a metrics line was read
    long step, total_steps;
    double loss, train_time_s, time;
    double eta_s;        // running: train_time_s / step x (total_steps - step); NaN otherwise
    char eval[256];      // the last evaluation, in units ("top1 81.25% top5 97.00% loss 0.52"), "" when none
    long eval_step;
} watch_run;

// "running", "queued", ...
const char *watch_state_name(watch_state s);
// Every run below dir, sorted by label. 0, or -1 with err set when dir cannot be read.
int watch_scan(const char *dir, watch_run **runs, int *n, char *err, size_t errlen);
void watch_runs_free(watch_run *runs, int n);
