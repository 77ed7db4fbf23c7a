// tests/model_testing.h — helpers for the whole-model tests (test_vit, test_gmlp, test_gvp, test_mae,
// test_mp3): random inputs and labels in a model's staging input, and parameters moved off their
// initial values. The model must live on the CPU backend (its arenas are host memory), except for
// the trainee below, which reads its arenas through the backend.
#pragma once
#include "../core/tensorfile.h"
#include "../models/model.h"
#include "../objectives/objective.h"
#include "gradcheck.h"
#include <stdint.h>

// Images (or a sequence) of B inputs uniform in [-1.5, 1.5) at stream tag, labels (b·3 + tag)
// mod num_classes.
void test_model_fill_batch(model *m, int32_t *labels, int B, unsigned tag);
// Adds uniform noise in [-amplitude, amplitude) (stream tag) to every parameter, so LayerNorm
// weights leave 1, biases 0 and near-zero initialisations their start, and each path of the
// model shapes the loss.
void test_model_perturb(model *m, float amplitude, unsigned tag);
// gradcheck of every parameter tensor of m (named "LABEL TENSOR") against the gradients already
// in m->grad, with loss(ctx) evaluating the model's loss; returns how many failed.
int test_model_gradcheck_params(const char *label, model *m, void *ctx, gradcheck_loss_fn loss, gradcheck_tol tol);
// Sets c's encoding (pe.kind) or backbone (model.arch) to `kind` and its own settings
// (pe_own, arch_own) as the module's read_keys reads them from keys at their defaults except
// the "key=value" strings given (NULL-terminated), e.g.
// test_model_set_pe(&c, "rope", "pe.rope_dims=1", NULL). The encoding is the one c runs
// (posenc_for_model: set c->features and c->vocab first), as in model_config_from_config.
void test_model_set_pe(model_config *c, const char *kind, ...);
void test_model_set_arch(model_config *c, const char *kind, ...);
// Adds the oracles' shape entries config.{channels, image_size, patch, dim, depth, heads,
// mlp_ratio, cls} of c (tests/torch_oracle.py reads them).
void test_model_dump_shape(tensorfile *tf, const model_config *c);
// Adds param.<name> and grad.<name> of every parameter (the oracles' entries).
void test_model_dump(tensorfile *tf, const model *m);

// An objective (test_gvp, test_mae) on a small image model: 12 px, patch 3, d 16, 2 blocks,
// 2 heads, cls, 2 classes, pe.kind `pe`; its config checked, the model as the objective
// configures it, parameters perturbed (0.2, tag 8), the staging images of max_batch inputs
// uniform in [-1, 1) (tag 9). Its loss is one training forward of B images at objective_case_rng.
typedef struct {
    model m;
    objective o;
    int B;
} objective_case;
extern const rng_addr objective_case_rng; // {seed 3, epoch 1, step 4}
void objective_case_create(objective_case *c, const objective_kind *kind, const objective_settings *s, const char *pe,
                           int B, int max_batch);
void objective_case_free(objective_case *c);
double objective_case_loss(void *p); // (objective_case *): the mean loss of the training forward
void objective_case_grads(objective_case *c); // the forward, then zeroed gradients and the backward

// A model and its objective with AdamW moments on any backend, as the step tests (test_host_reads,
// test_host_reads_views) train two of them side by side: the caller creates m and o, then
// trainee_alloc_adam allocates the moments (zeroed by the backend's alloc) on m's backend.
typedef struct {
    model m;
    objective o;
    float *adam_m, *adam_v;
} trainee;
void trainee_alloc_adam(trainee *t);
void trainee_free(trainee *t); // the moments, the objective, the model
// 1 when the arenas (parameters, AdamW moments) of a and b are bitwise equal.
int trainee_same_state(const trainee *a, const trainee *b);
