// objectives/supervised.h — supervised classification: label-smoothed softmax cross entropy
// on the model's logits, its gradient, and top-1/top-5 counting for evaluation.
#pragma once
#include "../core/ops.h"
#include <stdint.h>

typedef struct {
    const ops_backend *ops;
    int max_batch, num_classes;
    float smoothing;
    float *probs;   // (max_batch, K)
    float *losses;  // (max_batch)
} supervised;

void supervised_create(supervised *s, const ops_backend *ops, int max_batch, int num_classes,
                       float smoothing);
void supervised_free(supervised *s);
// Mean loss over the batch; keeps the probabilities for the backward pass.
double supervised_forward(supervised *s, const float *logits, const int32_t *labels, int B);
// dlogits (B, K) += d(mean loss)/dlogits.
void supervised_backward(supervised *s, float *dlogits, const int32_t *labels, int B);
// Counts images whose label is the top-1 / among the top-5 logits (ties: lower class first).
void supervised_topk(const float *logits, const int32_t *labels, int B, int K, long *top1,
                     long *top5);
