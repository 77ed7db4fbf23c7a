// models/api/model_view.h — what a position encoding (models/posenc/) sees of the model it encodes:
// its config and current grid (model_view, a snapshot taken at the start of a hook; the hooks
// never change the model), its own state, and the calls that declare and upload its tensors.
// models/model_view.c and model_tables.c implement it; posenc includes this instead of model.h.
#pragma once
#include "model_config.h"
#include "../../core/ops.h"
#include <stddef.h>

// How a parameter starts (model_init_params draws every tensor from its own stream).
// trunc normal: std 0.02; near zero: U(-1e-3/n, 1e-3/n), n = the tensor's first dimension
// (gMLP's spatial weights: n tokens); uniform: U(-b, b), b = the tensor's init_bound (set with
// model_set_init_bound after model_add_param).
// INIT_LINEAR: a Linear layer's weight (out, in), drawn by model.linear_init: trunc-normal std 0.02
// (timm) or Xavier-uniform U(±√(6 / (in + out))) (MAE's code); INIT_TRUNC_NORMAL: tables and
// tokens (position tables, cls / mask / query tokens, the text token table), always std 0.02.
typedef enum { INIT_ZERO, INIT_ONE, INIT_TRUNC_NORMAL, INIT_NEAR_ZERO, INIT_UNIFORM, INIT_LINEAR } param_init;

typedef struct {
    const model_config *cfg;
    const ops_backend *ops;
    void *state;                   // the encoding's own (model.pe_state)
    int max_batch, t0;             // t0 = cls ? 1 : 0
    int N, T, rows, cols, grid;    // the current grid (model.h: model's fields of the same names)
    int rows0, cols0, T0;          // at cfg.image_size (the tables' grid)
    int rows_max, cols_max, N_max, T_max, M_alloc; // the largest (arena sizing)
    float *cls_index;              // (B) the cls gather's indices (backend; model_batch)
    float *x0;                     // (B, T, d) the tokens a per-image addition goes to (backend)
} model_view;

model_view model_view_of(const struct model *m);
void *model_pe_state(const struct model *m); // model_view_of(m).state

// For the backbone and position-encoding modules: declare a parameter (d1 = 0: 1-D; init and
// weight decay), an activation (grad != NULL: it also gets a gradient buffer), a gradient
// buffer with no activation of its own, or a staging input of n floats (or ints). The named
// pointers given (any may be NULL) are set once the arenas exist. Returns the table index.
int model_add_param(struct model *m, const char *name, param_init init, int decay, int d0, int d1, float **value, float **grad);
void model_set_init_bound(struct model *m, int param_index, float bound); // INIT_UNIFORM's bound
int model_add_act(struct model *m, const char *name, size_t n, float **value, float **grad);
// The same for an activation laid out images first, (max_batch, ...) with every smaller input a
// prefix of each image's part: its gradient is cleared only for the batch that trains
// (model_zero_act_grads_batch). n must be a multiple of max_batch.
int model_add_batch_act(struct model *m, const char *name, size_t n, float **value, float **grad);
int model_add_grad_only(struct model *m, const char *name, size_t n, float **grad);
int model_add_batch_grad_only(struct model *m, const char *name, size_t n, float **grad); // images first
int model_add_input(struct model *m, const char *name, size_t n, float **backend, float **host);
// Copies the first n floats of a staged input (host, as bound by model_add_input) to the backend.
void model_upload(struct model *m, const float *host, size_t n);

