// bench/train/metrics_log.h — a run's live metrics: <run-id>.metrics.jsonl beside its .h5, one
// JSON object per line, each line written whole and flushed, so `tail -f`, pandas
// (read_json(lines=True)), `posbench watch` and any dashboard can follow a run while its HDF5
// file is still partial. The results file is not touched: the lines repeat what /train and /eval
// record (step, loss, lr, grad norm, the evaluation's metrics) plus throughput and times.
//
// Which steps get a line (deterministic, the same on a resumed run): every step that is a
// multiple of max(1, total_steps / 1000) (at most about 1000 training lines), every step with an
// evaluation (those lines carry its metrics), the last step, and a step whose loss was not
// finite (the run diverged there: "diverged": true, the loss null).
//
// A line (keys in this order; absent keys are not written):
//   run_id        the run's id
//   step          global steps done (1-based, as /train step)
//   total_steps   the run's length in steps
//   epoch         epochs done, fractional: step / steps_per_epoch
//   loss          the training loss of this step (/train loss at that step)
//   loss_avg      the mean training loss of the steps since the previous line's step (this one included)
//   lr, grad_norm this step's learning rate and gradient norm (before clipping)
//   images_per_s  training images per second over those steps (step time only, no evaluation)
//   train_time_s  training seconds so far, summed over resumed segments
//   time          wall-clock time the line was written (seconds since 1970, UTC)
//   eval_<m>      with an evaluation at this step: the objective's two metrics as /eval stores
//                 them (fractions for accuracies: top1 0.8125 is 81.25 %), and eval_loss
//   val_<m>       with train.early_stop: the validation metrics and val_loss of this step
//   diverged      true on the line of the step whose loss (or evaluation) was not finite
// Numbers are the shortest decimal that reads back as the same double; a number that is not
// finite is null, so every line is strict JSON (RFC 8259).
//
// Resuming: a run resumes from its checkpoint at step c, so lines of steps after c (written
// before a kill -9 hit between a line and the next checkpoint), and a last line cut short, are
// removed when the run resumes, and the resumed run writes those steps again: the finished file
// has exactly one line per logged step, as an uninterrupted run's. A run that starts without a
// checkpoint (fresh, --fresh, --force) starts the file anew.
//
// Retraining a finished run (--force, while <run-id>.h5 is there): the new attempt writes
// <run-id>.metrics.jsonl.partial, renamed over <run-id>.metrics.jsonl only after the new .h5
// replaced the old one (metrics_log_finish). An attempt that dies leaves the finished run with
// its own metrics, and its lines under the .partial name (a later --force resumes them).
// Every open goes through core/safe_file.h: a link, FIFO or device at the name is refused (exit 2).
#pragma once
#include "train_internal.h"

// Opens r's metrics file (<out>/<run-id>.metrics.jsonl) for a run at step r->step (0: fresh),
// keeping only the lines of steps <= r->step. Rank 0 only. Dies (exit 1) when it cannot be written.
void metrics_log_open(run *r);
// The line of global step `step` when it is due (rules above): loss, lr and grad_norm are that
// step's; eval and val its evaluation scores (NULL: none at this step); diverged marks the step
// as not finite (the line is then always written).
void metrics_log_step(run *r, long step, double loss, double lr, double grad_norm, const eval_scores *eval,
                      const eval_scores *val, int diverged);
void metrics_log_close(run *r);
// After the run's .h5 is in place: a .partial metrics file (a retrained finished run) is renamed
// over <run-id>.metrics.jsonl. Dies (exit 1, or 2 when a link or device sits at the name) on failure.
void metrics_log_finish(run *r);

// The byte offset where a metrics file's text must be cut so that it holds only complete lines
// of steps <= keep_step (the resume rule above); 0 when the file is absent. -1 with err when it
// cannot be read or is not a regular file (a line longer than SAFE_LINE_CAP ends what is kept).
long metrics_log_keep_bytes(const char *path, long keep_step, char *err, size_t errlen);
