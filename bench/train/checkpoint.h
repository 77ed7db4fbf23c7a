// bench/train/checkpoint.h — a run's checkpoint (<run-id>.ckpt: step, time, parameters, AdamW
// moments, the recorded history) and final weights (<run-id>.weights), as checksummed
// tensorfiles (core/tensorfile.h). A checkpoint is resumed only when every entry passes its
// checksum and its state is consistent with this run (run id, step in range, history rows
// matching the step, finite parameters and moments); anything else is refused naming the file.
#pragma once
#include "train_internal.h"

void checkpoint_write(run *r);
// The scheduler's account of the run so far (earlier segments + this one since r->sched_base):
// 1 with the seconds its threads ran and waited for a CPU, 0 when a segment went unmeasured.
int run_sched_total(const run *r, double *run_s, double *wait_s);
// 1 when the run's checkpoint was loaded into r (step, time, arenas, history); 0 when there is
// none. A bad checkpoint ends the process (exit 2) naming the file and what is wrong.
int checkpoint_resume(run *r);
// The final parameters beside the results file, for stages that start from them.
void weights_write(run *r);
// Starts from another run's final weights: every tensor with the same name and shape is copied
// (the rest keeps its fresh initialisation, e.g. a new classifier or a position embedding the
// init run did not have); prints both lists and keeps the counts for /init tensors_loaded and
// tensors. A tensor of the file with the same name but another shape (the head's aside) means
// the models differ: exit 2 naming them, unless train.init_partial.
void weights_load_init(run *r, const char *path);
