// objectives/eval_shard.h — an objective's evaluation loop shared by the ranks of a run across
// processes (objective_env.shard_ranks > 1; bench/train/train.c sets it around the evaluations
// every rank makes at once), bitwise equal to one process's: the loop's batches stay the same
// (eval.batch images each), batch k is evaluated by rank k mod ranks alone, which writes the
// batch's sums into row k of a (batches, width) table of doubles zeroed on every rank; the
// communicator's rank-ordered sum (core/comm.h) then gives every rank every row exactly (the
// other ranks' rows are 0, and x + 0 = x), and the columns are summed over the rows in batch
// order, as the one-process loop adds them batch after batch. With shard_ranks <= 1 (one
// process, or a call on rank 0 alone) every batch is this process's and nothing is exchanged.
#pragma once
#include "objective.h"

typedef struct {
    const objective_env *env;
    int batches, width;
    double *rows;    // (batches, width)
    double **lists;  // (batches) eval_shard_keep's values of each batch (NULL: none kept)
    size_t *counts;  // (batches) their rows
} eval_shard;

// An evaluation of n items in batches of `chunk` (the last one smaller), `width` sums per batch.
void eval_shard_begin(eval_shard *s, const objective_env *env, int n, int chunk, int width);
// Whether this rank evaluates batch k (items [k chunk, ...)).
int eval_shard_mine(const eval_shard *s, int k);
// Batch k's row of `width` sums (zeroed), for this rank's batches.
double *eval_shard_row(eval_shard *s, int k);
// Every rank's rows to every rank; sums[c] = ((0 + row_0[c]) + row_1[c]) + ... in batch order.
// Frees the table.
void eval_shard_end(eval_shard *s, double *sums);

// A sum that runs over every item rather than batch by batch (GVP adds each predicted patch's
// loss in turn): batch k's `count` rows of `width` values kept (this rank's batches), and, after
// every batch, every rank's rows of every batch concatenated in batch order (*count rows; the
// caller frees it): the counts are gathered first, then the rows, through the ordered sum as
// above. Frees the table (use it instead of eval_shard_end).
void eval_shard_keep(eval_shard *s, int k, const double *values, size_t count);
double *eval_shard_end_list(eval_shard *s, size_t *count);
