// tests/model_testing.h — helpers for the whole-model tests (test_vit, test_gmlp, test_gvp,
// test_mp3): random inputs and labels in a model's staging input, and parameters moved off their
// initial values. The model must live on the CPU backend (its arenas are host memory).
#pragma once
#include "../core/tensorfile.h"
#include "../models/model.h"
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
// Adds param.<name> and grad.<name> of every parameter (the oracles' entries).
void test_model_dump(tensorfile *tf, const model *m);
