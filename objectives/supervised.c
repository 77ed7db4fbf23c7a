// objectives/supervised.c — cross-entropy objective and top-k accuracy.
#include "supervised.h"
#include "../core/common.h"
#include <stdlib.h>

void supervised_create(supervised *s, const ops_backend *ops, int max_batch, int num_classes,
                       float smoothing) {
    s->ops = ops;
    s->max_batch = max_batch;
    s->num_classes = num_classes;
    s->smoothing = smoothing;
    s->probs = xmalloc_aligned((size_t)max_batch * num_classes * sizeof(float), "class probabilities");
    s->losses = xmalloc_aligned((size_t)max_batch * sizeof(float), "per-image losses");
}

void supervised_free(supervised *s) {
    free(s->probs);
    free(s->losses);
}

double supervised_forward(supervised *s, const float *logits, const int32_t *labels, int B) {
    s->ops->softmax_xent_forward(s->losses, s->probs, logits, (const int *)labels, B,
                                 s->num_classes, s->smoothing);
    double sum = 0.0;
    for (int b = 0; b < B; b++) sum += s->losses[b];
    return sum / B;
}

void supervised_backward(supervised *s, float *dlogits, const int32_t *labels, int B) {
    s->ops->softmax_xent_backward(dlogits, s->probs, (const int *)labels, B, s->num_classes,
                                  s->smoothing, 1.0f / (float)B);
}

void supervised_topk(const float *logits, const int32_t *labels, int B, int K, long *top1,
                     long *top5) {
    for (int b = 0; b < B; b++) {
        const float *z = logits + (size_t)b * K;
        int y = labels[b], rank = 0; // classes strictly ahead of the true one
        for (int k = 0; k < K; k++)
            if (z[k] > z[y] || (z[k] == z[y] && k < y)) rank++;
        if (rank < 1) (*top1)++;
        if (rank < 5) (*top5)++;
    }
}
