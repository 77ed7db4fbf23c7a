// bench/train/train_faults.h — hooks the training loop calls at fixed points of a run, and the
// test-only fault injection behind them (train_faults.c), so train_run holds no test code.
// Tests set, in the environment of `posbench train` / `posbench run`:
//   POSBENCH_FAULT_NAN_STEP=S   a weight is poisoned with NaN before step S (1-based), so the
//                               divergence path runs for real;
//   POSBENCH_FAULT_KILL_STEP=S  SIGKILL to the whole process group (the sweep and its runs)
//                               right after step S and its checkpoint, so the kill -9 tests do
//                               not depend on how fast the machine is;
//   POSBENCH_FAULT_NAN_EVAL=E   a weight is poisoned right before the evaluation at the end of
//                               epoch E (1-based): finite training loss, NaN logits;
//   POSBENCH_FAULT_FAIL_STEP=S  this process fails (die_fail, exit 1) right after step S: one
//                               rank of a run across processes failing (tests/e2e_mpi.sh);
//   POSBENCH_FAULT_SELF_KILL_STEP=S  SIGKILL to this process alone right after step S: a rank
//                               that dies without a word;
//   POSBENCH_FAULT_HANG_STEP=S  SIGSTOP to this process alone right after step S: a rank that
//                               hangs without dying (core/comm_mpi.c's bounded wait ends the job);
//   POSBENCH_FAULT_RANK=R       the variables above act on rank R alone (a run across processes).
#pragma once
#include "../../models/model.h"

typedef struct {
    void *ctx;
    // Before global step `step` (1-based) runs on m.
    void (*before_step)(void *ctx, model *m, long step);
    // After step `step` and its checkpoint (if one was due).
    void (*after_step)(void *ctx, model *m, long step);
    // Before the evaluation at the end of epoch `epoch` (1-based).
    void (*before_eval)(void *ctx, model *m, int epoch);
} train_hooks;

// The fault-injection hooks the POSBENCH_FAULT_* variables ask for (read once per call); NULL
// when none is set, which is every run outside the tests.
const train_hooks *train_fault_hooks(void);
