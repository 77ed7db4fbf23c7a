// objectives/dino/head.h — DINO's projection head (main_dino.py DINOHead, nlayers 3): the
// backbone's [CLS] after the final LayerNorm (the mean of the tokens without cls) -> Linear(d, H)
// (the model's own classifier, named dino_head.mlp0) -> GELU -> Linear(H, H) -> GELU ->
// Linear(H, P) -> L2-normalise -> weight-normalised Linear(P, K, no bias) whose gain is fixed at 1:
// logits = ẑ·Wᵀ, W[k] = v[k]/‖v[k]‖. mlp1, mlp2 and the prototypes' v are declared into the
// model's own tables by the model extension dino_head_extension (so AdamW, clipping,
// checkpoints and the final weights cover them); the objective reaches them by name.
// Every layer runs on the backend, the two row normalisations too (unit_rows_forward/backward,
// core/ops_list.h): nothing of a training step comes back to the host.
#pragma once
#include "../../models/model.h"

extern const model_extension dino_head_extension;

typedef struct {
    model *m;
    const ops_backend *ops;
    int rows_max, H, P, K;
    size_t w1, b1, w2, b2, v;            // offsets of mlp1, mlp2 and last_layer.weight_v in the arenas
    const float *a0;                     // the last forward's classifier output (R, H), backend
    float *g0, *a1, *g1, *z, *zn, *W, *out;      // backend (R,H) (R,H) (R,H) (R,P) (R,P) (K,P) (R,K)
    float *dg0, *da1, *dg1, *dz, *dzn, *dout, *dW; // backend gradients of the same; dW accumulates
    float *norms, *wnorms;               // backend (R) ||z|| per row, (K) ||v[k]|| per prototype
    float *dv;                           // backend (K,P) the prototypes' gradient before the freeze gate
} dino_head;

// Buffers for forwards of up to rows_max images of model m (created with dino_head_extension).
void dino_head_init(dino_head *h, model *m, int rows_max);
void dino_head_free(dino_head *h);
// W from the current v (weight norm on the backend): after every change of the parameters.
void dino_head_weights(dino_head *h);
// The head on the model's last forward of R images (model_forward's output a0); returns the
// logits (R, K) in backend memory (h->out).
const float *dino_head_forward(dino_head *h, const float *a0, int R);
// From h->dout (R, K) (the loss's gradient, written by the caller) back into the model's dlogits
// (zeroed by the caller, with the other activation gradients), then model_backward: parameter
// gradients accumulate; the prototypes' dW accumulates in h->dW (zeroed by dino_head_zero_dW)
// until dino_head_finish_dW.
void dino_head_backward(dino_head *h, int R);
void dino_head_zero_dW(dino_head *h);
// The model's gradient of v (zeroed by the trainer) += gate[1] · weight-norm backward of the
// accumulated dW (ema_update with gate = {1, g}): g = 0 while the prototypes are frozen
// (DINO's cancel_gradients_last_layer), 1 after; gate (2 floats) in backend memory, so a replayed
// step reads the step's.
void dino_head_finish_dW(dino_head *h, const float *gate);
