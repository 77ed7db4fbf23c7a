// bench/train/train_faults.c — the test-only fault injection (train_faults.h) as train_hooks:
// each hook acts only at the step or epoch its variable names.
#include "train_faults.h"
#include "../../core/common.h"
#include <math.h>
#include <signal.h>
#include <stdlib.h>

typedef struct {
    long nan_step, kill_step, nan_eval_epoch; // 0: not asked
    long fail_step, self_kill_step;           // this process alone: die_fail, SIGKILL
    long hang_step;                           // this process alone: SIGSTOP (hangs, alive)
} faults;

// The first parameter of m becomes NaN (uploaded like any host write to the backend). With
// token ids (cfg.vocab, e.g. MLM on text) the first parameter is token 0's embedding, which a
// batch without byte 0 never reads: there the first element of every token's row becomes NaN,
// so every input reads a NaN, as every patch reads patch_embed.weight[0].
static void poison(model *m) {
    const float nan = NAN;
    if (!m->weights.token_w) {
        m->ops->upload(m->param, &nan, sizeof nan);
        return;
    }
    for (int v = 0; v < m->cfg.vocab; v++) m->ops->upload(m->weights.token_w + (size_t)v * m->cfg.dim, &nan, sizeof nan);
}

static void before_step(void *ctx, model *m, long step) {
    const faults *f = ctx;
    if (f->nan_step > 0 && step == f->nan_step) poison(m);
}

static void after_step(void *ctx, model *m, long step) {
    const faults *f = ctx;
    if (f->kill_step > 0 && step == f->kill_step) kill(0, SIGKILL);
    if (f->fail_step > 0 && step == f->fail_step) die_fail("fault injection: failing after step %ld", step);
    if (f->self_kill_step > 0 && step == f->self_kill_step) raise(SIGKILL);
    if (f->hang_step > 0 && step == f->hang_step) raise(SIGSTOP);
}

static void before_eval(void *ctx, model *m, int epoch) {
    const faults *f = ctx;
    if (f->nan_eval_epoch > 0 && epoch == f->nan_eval_epoch) poison(m);
}

static long env_long(const char *name) {
    const char *v = getenv(name);
    return v ? atol(v) : 0;
}

// POSBENCH_FAULT_RANK=R: the faults act on rank R of a run across processes alone (the
// launcher's OMPI_COMM_WORLD_RANK or PMI_RANK), so `posbench train --ranks N`, which gives every
// rank one environment, can fail a single rank.
static int this_rank_faults(void) {
    const char *want = getenv("POSBENCH_FAULT_RANK");
    if (!want || !*want) return 1;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank) rank = getenv("PMI_RANK");
    return rank && atol(rank) == atol(want);
}

const train_hooks *train_fault_hooks(void) {
    static faults f;
    if (!this_rank_faults()) return NULL;
    static train_hooks hooks = {.ctx = &f, .before_step = before_step, .after_step = after_step, .before_eval = before_eval};
    f = (faults){.nan_step = env_long("POSBENCH_FAULT_NAN_STEP"), .kill_step = env_long("POSBENCH_FAULT_KILL_STEP"),
                 .nan_eval_epoch = env_long("POSBENCH_FAULT_NAN_EVAL"), .fail_step = env_long("POSBENCH_FAULT_FAIL_STEP"),
                 .self_kill_step = env_long("POSBENCH_FAULT_SELF_KILL_STEP"), .hang_step = env_long("POSBENCH_FAULT_HANG_STEP")};
    return f.nan_step || f.kill_step || f.nan_eval_epoch || f.fail_step || f.self_kill_step || f.hang_step ? &hooks : NULL;
}
