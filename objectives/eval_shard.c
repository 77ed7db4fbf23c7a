// objectives/eval_shard.c — evaluation batches shared by the ranks, gathered and summed in
// batch order (eval_shard.h).
#include "eval_shard.h"
#include "../core/common.h"
#include <stdlib.h>

void eval_shard_begin(eval_shard *s, const objective_env *env, int n, int chunk, int width) {
    if (chunk < 1) die_fail("internal: an evaluation in batches of %d", chunk);
    *s = (eval_shard){.env = env, .batches = n > 0 ? (n + chunk - 1) / chunk : 0, .width = width};
    s->rows = xcalloc((size_t)(s->batches > 0 ? s->batches : 1) * (size_t)width, sizeof(double), "evaluation batch sums");
}

static int sharded(const objective_env *env) { return env->shard_ranks > 1 && env->shard_sum_f64; }

int eval_shard_mine(const eval_shard *s, int k) {
    return !sharded(s->env) || k % s->env->shard_ranks == s->env->shard_rank;
}

double *eval_shard_row(eval_shard *s, int k) {
    if (k < 0 || k >= s->batches) die_fail("internal: evaluation batch %d of %d", k, s->batches);
    return s->rows + (size_t)k * s->width;
}

void eval_shard_end(eval_shard *s, double *sums) {
    if (sharded(s->env) && s->batches > 0) s->env->shard_sum_f64(s->rows, (size_t)s->batches * s->width);
    for (int c = 0; c < s->width; c++) sums[c] = 0.0;
    for (int k = 0; k < s->batches; k++)
        for (int c = 0; c < s->width; c++) sums[c] += s->rows[(size_t)k * s->width + c];
    free(s->rows);
    s->rows = NULL;
}
