// objectives/mlm/objective.c — objective.name=mlm (gMLP §4; docs/methods.md "Masked language
// modelling"): byte-level masked language modelling on data.name=text. The model gets a
// 256-way token head on every token ("mlm_head"); each training batch is corrupted as mlm.h
// says (15% chosen, 80/10/10) and the loss is the cross entropy on the chosen positions.
// Each epoch: validation perplexity exp(mean loss over the chosen positions) and the accuracy
// of the argmax byte there, with each validation sequence's masking fixed for the whole run
// (drawn at (seed, RNG_MLM, EVAL_EPOCH, 0, sequence index)), so epochs compare like for like.
// Metrics: /eval perplexity, accuracy; /final the same for the last epoch.
#include "../objective.h"
#include "mlm.h"
#include "../eval_shard.h"
#include "../../core/common.h"
#include "../../datasets/text/text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_EPOCH 0xE0000000u // RNG epoch slot of the validation masking

typedef struct {
    mlm_loss loss;
    int *perm;   // (L) permutation scratch
    long chosen; // chosen positions of the last training batch
} mlm_state;

static void mlm_configure_model(const objective_settings *s, model_config *mc) {
    mc->request.token_head = 1; // row t0 + n of the (B, T, 256) logits predicts byte n; the cls row is ignored
    mc->request.token_outputs = TEXT_BYTES;
    mc->request.head_name = "mlm_head";
}

static void mlm_obj_create(objective *o) {
    model *m = o->model;
    if (m->cfg.vocab != TEXT_VOCAB) die_fail("internal: objective.name=mlm on a model without the byte embedding");
    mlm_state *st = xcalloc(1, sizeof *st, "mlm objective");
    mlm_loss_create(&st->loss, o->ops, o->max_batch, m->T, TEXT_BYTES);
    st->perm = xmalloc((size_t)m->N * sizeof(int), "mlm permutation");
    o->state = st;
}

static void mlm_obj_free(objective *o) {
    mlm_state *st = o->state;
    if (!st) return;
    mlm_loss_free(&st->loss);
    free(st->perm);
    free(st);
}

// Corrupts the B sequences in the model's staging input and fills the loss's targets; returns
// the number of chosen positions.
static long corrupt_batch(objective *o, int B, uint32_t epoch, uint32_t step, uint32_t first_index) {
    mlm_state *st = o->state;
    model *m = o->model;
    int32_t *tokens = (int32_t *)model_images(m); // (B, L) token ids
    mlm_corrupt(tokens, st->loss.targets_host, NULL, B, m->N, m->t0, TEXT_MASK_TOKEN, o->s.seed, epoch, step,
                first_index, st->perm);
    return (long)B * mlm_chosen_count(m->N);
}

static double mlm_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    mlm_state *st = o->state;
    st->chosen = corrupt_batch(o, B, rng.epoch, rng.step, rng.index);
    const float *logits = model_forward(o->model, B, 1, rng);
    return mlm_loss_forward(&st->loss, logits, B, st->chosen);
}

// The training step's draws (the step without host reads calls it before every step, replayed or
// not, on the batch just loaded): the corrupted tokens in the model's staging input, which the
// forward uploads, and the targets, uploaded here from their pinned rows. The count of chosen
// positions is B·round(0.15·L) every step (static shapes). Waits first for the previous step's
// uploads to have read both.
static void mlm_train_stage(objective *o, int B, rng_addr rng) {
    mlm_state *st = o->state;
    o->ops->upload_wait();
    st->chosen = corrupt_batch(o, B, rng.epoch, rng.step, rng.index);
    mlm_loss_upload(&st->loss, B);
}

// The draws were staged by mlm_train_stage: nothing is drawn here; the mean stays on the backend.
static void mlm_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    mlm_state *st = o->state;
    const float *logits = model_forward(o->model, B, 1, rng);
    mlm_loss_forward_to(&st->loss, logits, B, st->chosen, loss);
}

static void mlm_train_backward(objective *o, int B) {
    mlm_state *st = o->state;
    mlm_loss_backward(&st->loss, model_dlogits(o->model), B, st->chosen);
    model_backward(o->model, B);
}

// Perplexity and accuracy over the chosen positions of the whole validation split.
static eval_scores mlm_evaluate(objective *o, objective_env *env) {
    mlm_state *st = o->state;
    eval_shard sh; // per batch: the loss sum, the correct and the chosen positions (the ranks share the batches)
    eval_shard_begin(&sh, env, env->test_n, env->eval_batch, 3);
    for (int b = 0, start = 0; start < env->test_n; b++, start += env->eval_batch) {
        if (!eval_shard_mine(&sh, b)) continue;
        int B = env->test_n - start < env->eval_batch ? env->test_n - start : env->eval_batch;
        env->load_test(env, start, B, o->model->image_size);
        long k = corrupt_batch(o, B, EVAL_EPOCH, 0, (uint32_t)start);
        const float *logits = model_forward(o->model, B, 0, (rng_addr){0});
        double *row = eval_shard_row(&sh, b);
        row[0] = mlm_loss_forward(&st->loss, logits, B, k) * (double)k;
        row[1] = (double)mlm_count_correct(&st->loss, logits, B);
        row[2] = (double)k;
    }
    double sum[3];
    eval_shard_end(&sh, sum);
    double loss_sum = sum[0];
    long correct = (long)sum[1], chosen = (long)sum[2];
    double loss = loss_sum / (double)chosen;
    eval_scores e = {{exp(loss), (double)correct / (double)chosen}, loss};
    return e;
}

static int mlm_train_keys(const objective *o) { return o->model->T; }

static const metric_info mlm_metrics[] = {
    {"perplexity", "", 1, -1, 0, NULL, 3, 0, 0, METRIC_SAMPLED}, // exp(mean loss over the chosen positions)
    {"accuracy", "%", 100, 1, 0, NULL, 2, 1, 0, METRIC_SAMPLED}, // argmax byte at the chosen positions
    {NULL},
};

const objective_kind objective_mlm = {
    .name = "mlm",
    .description = "masked language modelling pretraining on byte tokens (data.name=text)",
    .metric_names = {"perplexity", "accuracy"},
    .metrics = mlm_metrics,
    .text_input = 1,
    .one_size_why = "(one sequence length, data.seq_len)",
    .progress = "epoch %d/%d  loss %.4f  validation perplexity %.4f accuracy %.2f%%  (%.0f s)",
    .final_line = "final: perplexity=%.4f accuracy=%.2f%% time=%.0fs\n",
    .configure_model = mlm_configure_model,
    .create = mlm_obj_create,
    .free = mlm_obj_free,
    .train_forward = mlm_train_forward,
    .train_backward = mlm_train_backward,
    .train_forward_to = mlm_train_forward_to,
    .train_stage = mlm_train_stage,
    .evaluate = mlm_evaluate,
    .sharded_eval = 1,
    .record_final = NULL,
    .train_keys = mlm_train_keys,
};
