// objectives/eval_shard.c — evaluation batches shared by the ranks, gathered and summed in
// batch order (eval_shard.h).
#include "eval_shard.h"
#include "../core/common.h"
#include <stdlib.h>
#include <string.h>

void eval_shard_begin(eval_shard *s, const objective_env *env, int n, int chunk, int width) {
    if (chunk < 1) die_fail("internal: an evaluation in batches of %d", chunk);
    *s = (eval_shard){.env = env, .batches = n > 0 ? (n + chunk - 1) / chunk : 0, .width = width};
    size_t slots = (size_t)(s->batches > 0 ? s->batches : 1);
    s->rows = xcalloc(slots * (size_t)width, sizeof(double), "evaluation batch sums");
    s->lists = xcalloc(slots, sizeof(double *), "evaluation batch lists");
    s->counts = xcalloc(slots, sizeof(size_t), "evaluation batch list lengths");
}

static void free_table(eval_shard *s) {
    for (int k = 0; k < s->batches; k++) free(s->lists[k]);
    free(s->rows), free(s->lists), free(s->counts);
    s->rows = NULL, s->lists = NULL, s->counts = NULL;
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
    free_table(s);
}

void eval_shard_keep(eval_shard *s, int k, const double *values, size_t count) {
    if (k < 0 || k >= s->batches || s->lists[k]) die_fail("internal: evaluation batch %d of %d kept twice", k, s->batches);
    s->lists[k] = xmalloc((count > 0 ? count : 1) * (size_t)s->width * sizeof(double), "evaluation batch values");
    memcpy(s->lists[k], values, count * (size_t)s->width * sizeof(double));
    s->counts[k] = count;
}

double *eval_shard_end_list(eval_shard *s, size_t *count) {
    int shared = sharded(s->env) && s->batches > 0;
    // Every batch's row count on every rank (a batch's owner wrote it, the others 0).
    for (int k = 0; k < s->batches; k++) s->rows[(size_t)k * s->width] = (double)s->counts[k];
    if (shared) s->env->shard_sum_f64(s->rows, (size_t)s->batches * s->width);
    size_t total = 0;
    for (int k = 0; k < s->batches; k++) total += (size_t)s->rows[(size_t)k * s->width];
    double *all = xcalloc((total > 0 ? total : 1) * (size_t)s->width, sizeof(double), "evaluation values of every batch");
    for (size_t k = 0, at = 0; k < (size_t)s->batches; at += (size_t)s->rows[k * s->width], k++)
        if (s->lists[k]) memcpy(all + at * s->width, s->lists[k], s->counts[k] * (size_t)s->width * sizeof(double));
    if (shared && total > 0) s->env->shard_sum_f64(all, total * (size_t)s->width);
    free_table(s);
    *count = total;
    return all;
}
