// bench/store/run_files.h — the files of one run, as every command sees them. A run lives at a
// base path <dir>/<run-id>: <base>.lock (who is running it), <base>.h5 (finished results),
// <base>.h5.partial (results while it runs), <base>.ckpt (its checkpoint), <base>.weights.
// `posbench train`, `posbench run` and `posbench list` decide what a run's state is here, and
// only here, so they can never disagree: "done" means the .h5 file opens as HDF5, its root
// attribute `status` says done and its /final is sound (one finite number per attribute:
// bench/results/run_screen.h), so a file no report would count is never skipped as done.
#pragma once
#include <stddef.h>

typedef enum {
    RUN_FILE_ABSENT,   // no <base>.h5
    RUN_FILE_DONE,     // opens, status "done", a sound /final
    RUN_FILE_DIVERGED, // opens, status "diverged" (final: reruns do not change it without --force)
    RUN_FILE_DAMAGED,  // exists but does not open as HDF5, has no done/diverged status, or says done with a damaged /final
} run_file_state;

// The state of the finished-results file at h5_path. For RUN_FILE_DAMAGED, why (when not
// NULL) gets what is wrong ("does not open as HDF5 (truncated or corrupt)", "status 'running'").
run_file_state run_file_status(const char *h5_path, char *why, size_t whylen);
// "absent", "done", "diverged", "damaged".
const char *run_file_state_name(run_file_state s);

// Renames a damaged file to <path>.damaged (or .damaged.2, .3, ... when taken), never over
// another file. 0 with the new name in moved; -1 with err set.
int run_file_set_aside(const char *path, char *moved, size_t movedlen, char *err, size_t errlen);

// The run lock: an flock on <base>.lock holding the holder's pid. The kernel drops it when the
// holder dies (even by kill -9). Returns the descriptor (keep it open while running), or -1
// when another process holds it: holder then says who ("process 1234"). Dies (exit 1) when
// the lock file cannot be created. Safe against a holder that unlinks the file as it releases.
int run_lock_take(const char *base, char *holder, size_t holderlen);
// Unlinks <base>.lock and closes fd.
void run_lock_release(const char *base, int fd);

// Every file a run has at <base> (.h5, .h5.partial, .ckpt, .weights, .lock, .metrics.jsonl and
// its .partial, .log) is absent or a regular file; anything else (a symbolic link, FIFO, device,
// directory) is bad input (exit 2) naming it: checked before a run takes its lock or writes.
void run_files_check(const char *base);

// snprintf that refuses to truncate: a path that does not fit is bad input (exit 2) naming
// what it was for. Every derived file name of a run is built with it.
void run_path_format(char *buf, size_t len, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
