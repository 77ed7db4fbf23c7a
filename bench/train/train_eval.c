// bench/train/train_eval.c — the run's per-epoch evaluation in a run across processes: an
// objective whose evaluation shares its batches among the ranks (objective_kind.sharded_eval,
// objectives/eval_shard.h) is evaluated by every rank at once, each its 1/N of the batches,
// the sums gathered and added in batch order, so every rank gets the scores one process would
// compute, bitwise; any other objective is evaluated by rank 0 alone (train_internal.h).
#include "train_internal.h"
#include "../../core/comm.h"

int train_evaluates_here(const run *r) { return r->comm->rank == 0 || r->obj.kind->sharded_eval; }

eval_scores train_evaluate(run *r) {
    objective_env *env = &r->env;
    env->shard_rank = r->comm->rank;
    env->shard_ranks = r->obj.kind->sharded_eval ? r->comm->size : 1;
    env->shard_sum_f64 = r->comm->sum_f64;
    eval_scores e = r->obj.kind->evaluate(&r->obj, env);
    env->shard_ranks = 1; // any other evaluation (rank 0's end-of-run records) is one process's
    return e;
}
