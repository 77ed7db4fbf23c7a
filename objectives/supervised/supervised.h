// objectives/supervised/supervised.h — the supervised loss: label-smoothed softmax cross entropy
// on the model's logits, its gradient, and top-1/top-5 counting (the objective is objective.c).
#pragma once
#include "../../core/ops.h"
#include <stdint.h>

typedef struct {
    const ops_backend *ops;
    int max_batch, num_classes;
    float smoothing;
    float *probs;   // (max_batch, K) backend
    float *losses;  // (max_batch) backend
    int *rank;      // (max_batch) backend: rank of the true class
    int *rank_host; // (max_batch)
} supervised;

void supervised_create(supervised *s, const ops_backend *ops, int max_batch, int num_classes,
                       float smoothing);
void supervised_free(supervised *s);
// Mean loss over the batch (summed by ops->sum); keeps the probabilities for the backward pass.
// logits and labels are backend pointers.
double supervised_forward(supervised *s, const float *logits, const int32_t *labels, int B);
// supervised_forward with the mean loss left in backend memory: *loss (one double) = the value
// supervised_forward returns, without a host read.
void supervised_forward_to(supervised *s, const float *logits, const int32_t *labels, int B, double *loss);
// dlogits (B, K) += d(mean loss)/dlogits.
void supervised_backward(supervised *s, float *dlogits, const int32_t *labels, int B);
// Counts images whose label is the top-1 / among the top-5 logits (ties: lower class first; a
// row with a non-finite logit counts as wrong): ops->class_rank, then the ranks downloaded.
void supervised_count_topk(supervised *s, const float *logits, const int32_t *labels, int B, long *top1, long *top5);
