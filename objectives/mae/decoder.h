// objectives/mae/decoder.h — MAE's light decoder (docs/methods.md "MAE"; papers' MAE baseline), for a model
// built with cfg.request.decoder_depth > 0 (and cfg.request.keep_tokens: the encoder saw the kept tokens only).
// The encoder's token head (the model's head, named decoder_embed by the objective) maps the
// kept tokens to the decoder width dd; the decoder puts them back at their token index, fills
// every other token with a learned mask token (dd), adds its own fixed sin2d (posbench's sin2d,
// CAPE eq. 3-4, cls row none), runs decoder_depth blocks of the model's backbone with width dd
// (heads and mlp_ratio as the encoder's, no dropout or drop path), a final LayerNorm and a
// linear prediction of every token's C·p·p pixels.
// The blocks are the backbone's own code: the decoder is a sub-model (models/model.h: owner,
// prefix) whose declarations go into the owning model's tables under "decoder.", so the
// optimizer, checkpoints, gradient checks and HDF5 names see one table; an `init:` finetuning
// from an MAE run finds no decoder tensor in its model and leaves them behind.
// Tensors: decoder.mask_token (dd), decoder.blocks.<l>.*, decoder.norm.{weight,bias} (dd),
// decoder.pred.weight (C·p·p, dd), decoder.pred.bias.
#pragma once
#include "../../models/model.h"

typedef struct model_decoder model_decoder;

// Called by model.c: config check (naming mae.decoder_dim / mae.decoder_depth), declarations
// (after the head's parameters; after the model's activations), the grid positions once the
// arenas exist, freeing, and the decoder's forward FLOPs per image (every token).
// They are model_decoder_extension's entries (model_config.request.extension, set by the MAE objective).
extern const model_extension model_decoder_extension;
double decoder_forward_flops(const model_config *c);

// The masked tokens of each image: host staging (B, T - keep_tokens) of token indices (the
// complement of model_keep's), written before decoder_forward.
int *decoder_masked(model *m);
// Forward of the decoder for B images from the last model_forward's token-head output (B, K,
// dd) over the kept tokens model_keep: returns the predictions (B, T, C·p·p), backend memory
// (row t0 + n: patch n in patchify's (c, py, px) order; the cls row is predicted too and is
// for the caller to ignore).
const float *decoder_forward(model *m, int B);
// Where the caller writes the predictions' gradient (B, T, C·p·p) (zeroed with the model's
// activation gradients), and the backward from it: the decoder's parameter gradients
// accumulate and the kept tokens' gradient goes to model_dlogits (then call model_backward).
float *decoder_dpred(model *m);
void decoder_backward(model *m, int B);
// The last decoder_forward's predictions (B, T, C·p·p), backend memory (tests, samples).
const float *decoder_pred(const model *m);
