// models/backbones/gmlp.h — the own settings of model.arch=gmlp and amlp (models/backbones/gmlp.c):
// what a model config's arch_own holds when its backbone is one of them (BACKBONE_OWN).
#pragma once
#include "../api/model_config.h"

typedef struct {
    int toeplitz;      // model.sgu_toeplitz: 0 = a dense spatial W (T, T); 1 = Toeplitz over the token index,
                       // W(i, j) = w[i - j] (token input); 2 = over the patch grid's 2D offset (relbias layout, cls entries)
    int tiny_attn_dim; // amlp (model.tiny_attn_dim): width of the single-head tiny attention
    // SGU ablations (gMLP Table 3; 0 = the paper's SGU): s = u + f(v) instead of u ⊙ f(v)
    // (model.sgu_gating=additive); one Z as u and v, no split (model.sgu_split=false); no
    // LayerNorm on v (model.sgu_norm=false)
    int additive, no_split, no_norm;
} gmlp_settings;

// The gmlp/amlp settings of c: its own when c's backbone is gmlp or amlp, else zeroed (the
// paper's SGU, dense W; tiny_attn_dim 0).
gmlp_settings gmlp_settings_of(const model_config *c);
