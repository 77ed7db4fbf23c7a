// objectives/simclr/projection.h — SimCLR's projection head g (docs/methods.md "Contrastive:
// SimCLR"): z = W2 ReLU(W1 f + b1) + b2 on the backbone feature f (the model's cls token, or the
// mean of its tokens without one). Its first Linear is the model's classifier head (named
// "proj.0", num_classes = simclr.hidden_dim: the objective sets that in configure_model); the
// ReLU and the second Linear "proj.2" (proj_outputs = simclr.proj_dim) are this model
// extension, declared into the model's tables, so AdamW, checkpoints and the HDF5 weights see
// them. `init:` finetuning from a SimCLR run leaves proj.* behind (the new model has its own head).
// Tensors: proj.2.weight (P, H) (trunc normal 0.02, decayed), proj.2.bias (P) zero.
#pragma once
#include "../../models/model.h"

extern const model_extension simclr_projection_extension;

// From the last model_forward's head output (B, H) (model's logits): returns z (B, P), backend.
const float *simclr_projection_forward(model *m, int B);
// Where the caller writes dz (B, P) (zeroed with the model's activation gradients), and the
// backward from it into the head's output gradient (model_dlogits); then call model_backward.
float *simclr_projection_dz(model *m);
void simclr_projection_backward(model *m, int B);
