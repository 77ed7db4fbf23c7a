// objectives/mlm/mlm.h — masked language modelling over byte tokens (gMLP §4, BERT's recipe;
// docs/methods.md "Masked language modelling"): which positions of a sequence are chosen and what
// replaces them, and the loss over the chosen positions.
// Per sequence of L tokens: exactly k = mlm_chosen_count(L) = round(0.15·L) positions (at
// least 1) are chosen: the first k of a Philox permutation of 0..L-1. Of the chosen, in that
// (random) order, exactly round(0.8·k) become [MASK], the next round(0.1·k) a random byte
// (uniform over 0..255, so it may equal the original, as BERT's), and the rest stay unchanged.
// Sequence b draws from rng_stream_make(seed, RNG_MLM, epoch, step, first_index + b): the
// permutation, then one rng_below(256) per random replacement in order, so the draws depend
// on neither the thread count nor the batch split, and a resumed run draws the same.
// posbench choice: exact counts per sequence (BERT draws each position's fate independently,
// so its rates hold on average); the rates are the paper's.
// Loss: cross entropy of the (B, T, 256) token-head logits against the original byte at every
// chosen position, averaged over the B·k chosen positions; the cls row (t0 = 1) and the other
// positions are ignored (target -1). No label smoothing.
#pragma once
#include "../../core/ops.h"
#include <stdint.h>

#define MLM_RATE 0.15
#define MLM_MASK_SHARE 0.8
#define MLM_RANDOM_SHARE 0.1

// What happened to a position (mlm_corrupt's `action`, for tests and samples).
enum { MLM_NOT_CHOSEN = 0, MLM_MASKED = 1, MLM_RANDOM = 2, MLM_KEPT = 3 };

// round(0.15·L), at least 1 (L >= 1).
int mlm_chosen_count(int L);
// The split of k chosen positions: round(0.8·k) masked, round(0.1·k) random, the rest kept.
void mlm_split(int k, int *masked, int *random);
// Corrupts tokens (B, L) in place (ids 0..255 in; 0..256 out, 256 = mask_token) and writes
// targets (B, t0 + L): -1 for the cls row and unchosen positions, the original byte at chosen
// ones. action (B, L) may be NULL. perm: L ints of scratch.
void mlm_corrupt(int32_t *tokens, int32_t *targets, uint8_t *action, int B, int L, int t0, int mask_token,
                 uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first_index, int *perm);

typedef struct {
    const ops_backend *ops;
    int max_batch, T, K;  // rows per sequence (t0 + L), classes (256)
    int32_t *targets;     // (max_batch, T) backend
    int32_t *targets_host;// (max_batch, T) host, pinned, whole pages of its own (uploaded asynchronously)
    float *probs;         // (max_batch, T, K) backend
    float *losses;        // (max_batch, T) backend
    int *pred;            // (max_batch, T) backend argmax
    int *pred_host;       // (max_batch, T) host
} mlm_loss;

void mlm_loss_create(mlm_loss *o, const ops_backend *ops, int max_batch, int T, int K);
void mlm_loss_free(mlm_loss *o);
// Uploads targets_host's first B rows; returns the mean loss over the `chosen` target rows of
// logits (B, T, K) (their sum over B·T rows in a fixed order, divided by chosen).
double mlm_loss_forward(mlm_loss *o, const float *logits, int B, long chosen);
// The same in two parts, for the training step without host reads: mlm_loss_upload uploads
// targets_host's first B rows (before the step, outside a captured graph); mlm_loss_forward_to
// writes the same mean into `loss` (one double of backend memory) and reads nothing back.
void mlm_loss_upload(mlm_loss *o, int B);
void mlm_loss_forward_to(mlm_loss *o, const float *logits, int B, long chosen, double *loss);
// dlogits (B, T, K) += d(mean loss)/dlogits.
void mlm_loss_backward(mlm_loss *o, float *dlogits, int B, long chosen);
// Chosen positions whose argmax logit is the original byte (a row with a non-finite logit
// never counts).
long mlm_count_correct(mlm_loss *o, const float *logits, int B);
