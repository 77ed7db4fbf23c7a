// objectives/mlm/mlm.c — MLM masking draws and the loss over the chosen positions (see mlm.h).
#include "mlm.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include <math.h>
#include <stdlib.h>

int mlm_chosen_count(int L) {
    int k = (int)lround(MLM_RATE * L);
    return k < 1 ? 1 : k;
}

void mlm_split(int k, int *masked, int *random) {
    *masked = (int)lround(MLM_MASK_SHARE * k);
    *random = (int)lround(MLM_RANDOM_SHARE * k);
    if (*masked + *random > k) *random = k - *masked; // cannot happen for shares 0.8 / 0.1; kept exact
}

void mlm_corrupt(int32_t *tokens, int32_t *targets, uint8_t *action, int B, int L, int t0, int mask_token,
                 uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first_index, int *perm) {
    int k = mlm_chosen_count(L), masked, random;
    mlm_split(k, &masked, &random);
    int T = t0 + L;
    for (int b = 0; b < B; b++) {
        int32_t *tok = tokens + (size_t)b * L, *tgt = targets + (size_t)b * T;
        uint8_t *act = action ? action + (size_t)b * L : NULL;
        for (int t = 0; t < T; t++) tgt[t] = -1;
        if (act)
            for (int n = 0; n < L; n++) act[n] = MLM_NOT_CHOSEN;
        rng_stream s = rng_stream_make(seed, RNG_MLM, epoch, step, first_index + (uint32_t)b);
        rng_permutation(&s, L, perm);
        for (int i = 0; i < k; i++) {
            int n = perm[i];
            if (tok[n] < 0 || tok[n] > 255) die_fail("mlm: token %d at position %d of sequence %d is not a byte", tok[n], n, b);
            tgt[t0 + n] = tok[n];
            int what = i < masked ? MLM_MASKED : i < masked + random ? MLM_RANDOM : MLM_KEPT;
            if (what == MLM_MASKED) tok[n] = mask_token;
            else if (what == MLM_RANDOM) tok[n] = (int32_t)rng_below(&s, 256);
            if (act) act[n] = (uint8_t)what;
        }
    }
}

void mlm_loss_create(mlm_loss *o, const ops_backend *ops, int max_batch, int T, int K) {
    o->ops = ops;
    o->max_batch = max_batch;
    o->T = T;
    o->K = K;
    size_t rows = (size_t)max_batch * T;
    o->targets = ops->alloc(rows * sizeof(int32_t), "MLM targets");
    o->targets_host = xmalloc_pages(rows * sizeof(int32_t), "MLM targets (host, pinned)");
    ops->pin_host(o->targets_host, rows * sizeof(int32_t));
    o->probs = ops->alloc(rows * K * sizeof(float), "MLM token probabilities");
    o->losses = ops->alloc(rows * sizeof(float), "MLM per-token losses");
    o->pred = ops->alloc(rows * sizeof(int), "MLM predicted tokens");
    o->pred_host = xmalloc(rows * sizeof(int), "MLM predicted tokens (host)");
}

void mlm_loss_free(mlm_loss *o) {
    if (!o->ops) return;
    o->ops->free(o->targets);
    o->ops->free(o->probs);
    o->ops->free(o->losses);
    o->ops->free(o->pred);
    o->ops->unpin_host(o->targets_host);
    free(o->targets_host);
    free(o->pred_host);
}

void mlm_loss_upload(mlm_loss *o, int B) {
    o->ops->upload(o->targets, o->targets_host, (size_t)B * o->T * sizeof(int32_t));
}

// Each row's loss (B·T) into o->losses (unchosen rows hold 0), against the uploaded targets.
static size_t row_losses(mlm_loss *o, const float *logits, int B) {
    size_t rows = (size_t)B * o->T;
    o->ops->softmax_xent_forward(o->losses, o->probs, logits, o->targets, (int)rows, o->K, 0.0f);
    return rows;
}

double mlm_loss_forward(mlm_loss *o, const float *logits, int B, long chosen) {
    mlm_loss_upload(o, B);
    size_t rows = row_losses(o, logits, B);
    return o->ops->sum(o->losses, rows) / (double)chosen;
}

void mlm_loss_forward_to(mlm_loss *o, const float *logits, int B, long chosen, double *loss) {
    size_t rows = row_losses(o, logits, B);
    o->ops->sum_to(loss, o->losses, rows, (double)chosen);
}

void mlm_loss_backward(mlm_loss *o, float *dlogits, int B, long chosen) {
    o->ops->softmax_xent_backward(dlogits, o->probs, o->targets, B * o->T, o->K, 0.0f, 1.0f / (float)chosen);
}

long mlm_count_correct(mlm_loss *o, const float *logits, int B) {
    size_t rows = (size_t)B * o->T;
    o->ops->argmax_rows(o->pred, logits, (int)rows, o->K);
    o->ops->download(o->pred_host, o->pred, rows * sizeof(int));
    long correct = 0;
    for (size_t r = 0; r < rows; r++) correct += o->targets_host[r] >= 0 && o->pred_host[r] == o->targets_host[r];
    return correct;
}
