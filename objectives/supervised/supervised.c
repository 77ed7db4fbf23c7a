// objectives/supervised/supervised.c — the supervised loss (label-smoothed cross entropy) and
// top-k counting on the backend.
#include "supervised.h"
#include "../../core/common.h"
#include <stdlib.h>

void supervised_create(supervised *s, const ops_backend *ops, int max_batch, int num_classes,
                       float smoothing) {
    s->ops = ops;
    s->max_batch = max_batch;
    s->num_classes = num_classes;
    s->smoothing = smoothing;
    s->probs = ops->alloc((size_t)max_batch * num_classes * sizeof(float), "class probabilities");
    s->losses = ops->alloc((size_t)max_batch * sizeof(float), "per-image losses");
    s->rank = ops->alloc((size_t)max_batch * sizeof(int), "ranks of the true class");
    s->rank_host = xmalloc((size_t)max_batch * sizeof(int), "ranks of the true class (host)");
}

void supervised_free(supervised *s) {
    s->ops->free(s->probs);
    s->ops->free(s->losses);
    s->ops->free(s->rank);
    free(s->rank_host);
}

double supervised_forward(supervised *s, const float *logits, const int32_t *labels, int B) {
    s->ops->softmax_xent_forward(s->losses, s->probs, logits, (const int *)labels, B,
                                 s->num_classes, s->smoothing);
    return s->ops->sum(s->losses, (size_t)B) / B;
}

void supervised_forward_to(supervised *s, const float *logits, const int32_t *labels, int B, double *loss) {
    s->ops->softmax_xent_forward(s->losses, s->probs, logits, (const int *)labels, B,
                                 s->num_classes, s->smoothing);
    s->ops->sum_to(loss, s->losses, (size_t)B, (double)B);
}

void supervised_backward(supervised *s, float *dlogits, const int32_t *labels, int B) {
    s->ops->softmax_xent_backward(dlogits, s->probs, (const int *)labels, B, s->num_classes,
                                  s->smoothing, 1.0f / (float)B);
}

void supervised_count_topk(supervised *s, const float *logits, const int32_t *labels, int B, long *top1, long *top5) {
    if (B > s->max_batch) die_fail("internal: supervised_count_topk batch %d > %d", B, s->max_batch);
    s->ops->class_rank(s->rank, logits, (const int *)labels, B, s->num_classes);
    s->ops->download(s->rank_host, s->rank, (size_t)B * sizeof(int));
    for (int b = 0; b < B; b++) {
        // rank K marks a row with NaN or ±Inf logits: never correct, even when K <= 5
        int r = s->rank_host[b];
        *top1 += r < 1 && r < s->num_classes;
        *top5 += r < 5 && r < s->num_classes;
    }
}
