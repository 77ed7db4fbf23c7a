// models/model_config.c — what a model config allows and costs, without building a model: the
// token grid at a size, whether a size can be an input (model_resolution_error), whether the
// config goes together (model_config_error: the model's own rules, then the encoding's, the
// backbone's and the extension's config_error), and the forward FLOPs per image.
#include "api/model_config.h"
#include "backbone.h"
#include "posenc/encoding.h"
#include <stdio.h>
#include <string.h>

void backbone_read_keys(const key_reader *r, model_config *c) {
    c->arch = key_str(r, "model.arch");
    backbone_read_own(r, c);
}

void backbone_read_own(const key_reader *r, model_config *c) {
    memset(c->arch_own, 0, sizeof c->arch_own);
    const backbone_kind *k = backbone_find(c->arch); // NULL: an unknown name, which model_config_error names
    if (k && k->read_keys) k->read_keys(r, c);
}

int model_max_size(const model_config *c) { return c->max_image_size > c->image_size ? c->max_image_size : c->image_size; }

void model_grid_at(const model_config *c, int size, int *rows, int *cols) {
    *rows = model_config_is_sequence(c) ? 1 : size / c->patch;
    *cols = model_config_is_sequence(c) ? size : size / c->patch;
}

// Values per embedded token: a patch's pixels, or a frame's features.
int model_token_inputs(const model_config *c) { return c->features > 0 ? c->features : c->channels * c->patch * c->patch; }

const char *model_resolution_error(const model_config *c, int size, const char *key) {
    static char msg[256];
    if (c->patch < 1 || size < c->patch || size % c->patch != 0) {
        snprintf(msg, sizeof msg, "%s: image size %d is not a multiple of model.patch=%d (valid: %d, %d, %d, ...)", key,
                 size, c->patch, c->patch, 2 * c->patch, 3 * c->patch);
        return msg;
    }
    if (size > model_max_size(c)) {
        snprintf(msg, sizeof msg, "%s: image size %d is larger than the %d the model was built for", key, size, model_max_size(c));
        return msg;
    }
    int rows, cols;
    model_grid_at(c, size, &rows, &cols);
    if (c->request.ref_tokens > rows * cols) {
        snprintf(msg, sizeof msg, "%s: size %d has %d tokens, fewer than the %d reference tokens", key, size,
                 rows * cols, c->request.ref_tokens);
        return msg;
    }
    return NULL;
}

const char *model_config_error(const model_config *c) {
    static char msg[256];
    const backbone_kind *arch = backbone_find(c->arch);
    if (!arch) {
        snprintf(msg, sizeof msg, "model.arch=%s is not a backbone (valid: %s)", c->arch, BACKBONE_CHOICES);
        return msg;
    }
    if (c->embed_init < MODEL_EMBED_INIT_TIMM || c->embed_init > MODEL_EMBED_INIT_NORMAL002) {
        snprintf(msg, sizeof msg, "model.embed_init is not one of %s", MODEL_EMBED_INIT_CHOICES);
        return msg;
    }
    if (c->trunc_normal < MODEL_TRUNC_TIMM || c->trunc_normal > MODEL_TRUNC_STD2) {
        snprintf(msg, sizeof msg, "model.trunc_normal is not one of %s", MODEL_TRUNC_CHOICES);
        return msg;
    }
    if (c->linear_init < MODEL_LINEAR_INIT_TIMM || c->linear_init > MODEL_LINEAR_INIT_XAVIER) {
        snprintf(msg, sizeof msg, "model.linear_init is not one of %s", MODEL_LINEAR_INIT_CHOICES);
        return msg;
    }
    if (c->features > 0 && (c->patch != 1 || c->channels != 1)) {
        snprintf(msg, sizeof msg, "model.patch=%d: a sequence input (%d features per frame) has one token per frame, so "
                 "model.patch must be 1", c->patch, c->features);
        return msg;
    }
    if (c->vocab > 0 && (c->patch != 1 || c->channels != 1 || c->features > 0)) {
        snprintf(msg, sizeof msg, "model.patch=%d: a token input (vocabulary %d) has one token per id, so model.patch "
                 "must be 1", c->patch, c->vocab);
        return msg;
    }
    if (c->request.query_stream && model_config_is_sequence(c))
        return "the two-stream model (objective.name=gvp) predicts image patches' pixels; a sequence input (speech frames) is "
               "not supported (valid with gvp: image data)";
    if (c->patch < 1 || c->image_size % c->patch != 0) {
        snprintf(msg, sizeof msg, "model.patch=%d does not divide the image size %d (valid: a divisor of %d)",
                 c->patch, c->image_size, c->image_size);
        return msg;
    }
    if (c->heads < 1 || c->dim % c->heads != 0) {
        snprintf(msg, sizeof msg, "model.heads=%d does not divide model.dim=%d", c->heads, c->dim);
        return msg;
    }
    if (c->dim < 1 || c->depth < 1 || c->mlp_ratio < 1 || c->num_classes < 1 || c->channels < 1)
        return "model.dim, model.depth, model.mlp_ratio must be >= 1";
    if (c->drop_path < 0.0f || c->drop_path >= 1.0f) return "model.drop_path must be in [0, 1)";
    if (c->dropout < 0.0f || c->dropout >= 1.0f) return "model.dropout must be in [0, 1)";
    if (c->max_image_size % c->patch != 0) {
        snprintf(msg, sizeof msg, "largest image size %d is not a multiple of model.patch=%d", c->max_image_size, c->patch);
        return msg;
    }
    if (c->bf16_activations && !arch->bf16_activations) {
        snprintf(msg, sizeof msg, "train.activations=bf16: model.arch=%s keeps its activations in fp32 (valid: "
                 "train.activations=fp32 with %s; bf16 with model.arch=vit)", arch->name, arch->name);
        return msg;
    }
    if (c->recompute_gelu && !c->bf16_activations)
        return "train.recompute=gelu recomputes the bf16 GELU output of train.activations=bf16: it needs "
               "train.activations=bf16 (valid: train.recompute=off with train.activations=fp32; off or gelu with bf16)";
    const posenc_kind *pe = posenc_for_model(c);
    if (!pe) {
        snprintf(msg, sizeof msg, "pe.kind=%s is not a position encoding (valid: %s)", c->pe_kind, posenc_names());
        return msg;
    }
    const char *why = pe->config_error ? pe->config_error(c) : NULL;
    if (why) return why;
    why = arch->config_error ? arch->config_error(c) : NULL; // what the blocks cannot do, with their reason
    if (why) return why;
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    int N = rows * cols, T = N + (c->cls ? 1 : 0);
    if (c->request.ref_tokens < 0 || c->request.ref_tokens > N) {
        snprintf(msg, sizeof msg, "%d reference tokens: must be in [0, %d] (the patches of one image)", c->request.ref_tokens, N);
        return msg;
    }
    if (c->request.ref_tokens > 0 && !pe->reference_table) {
        snprintf(msg, sizeof msg, "reference tokens (objective.ref_fraction > 0) keep a position encoding that every token "
                 "could have: pe.kind must be one of %s", posenc_reference_names());
        return msg;
    }
    if (c->request.context_tokens < 0 || c->request.context_tokens > T) {
        snprintf(msg, sizeof msg, "masked attention with %d key tokens: must be in [1, %d]", c->request.context_tokens, T);
        return msg;
    }
    if (c->request.context_tokens > 0 && !arch->masked_attention) {
        snprintf(msg, sizeof msg, "model.arch=%s has no attention to mask (the objective needs masked attention)", arch->name);
        return msg;
    }
    if (c->request.keep_tokens < 0 || c->request.keep_tokens > T || (c->request.keep_tokens > 0 && (c->request.query_stream || c->request.ref_tokens > 0 ||
                                                                             c->request.context_tokens > 0 || !c->request.token_head))) {
        snprintf(msg, sizeof msg, "internal: keep_tokens=%d needs a token head, no other masking and at most %d", c->request.keep_tokens, T);
        return msg;
    }
    if (c->request.keep_tokens > 0 && (!arch->masked_attention || pe->qk_forward || pe->bias_forward)) {
        snprintf(msg, sizeof msg, "MAE's encoder sees only the kept patches, so the blocks must not tie weights to token "
                 "positions: model.arch=%s pe.kind=%s (valid with mae: model.arch=vit, pe.kind none, abs, sin1d, sin2d, cape)",
                 arch->name, pe->name);
        return msg;
    }
    if (c->request.decoder_depth > 0 && !c->request.extension) return "internal: model.decoder_depth without its extension (objectives/mae/decoder.h)";
    why = c->request.extension && c->request.extension->config_error ? c->request.extension->config_error(c) : NULL;
    if (why) return why;
    if (c->request.query_stream && (!pe->reference_table || c->request.context_tokens != T || c->request.ref_tokens > 0)) {
        snprintf(msg, sizeof msg, "the two-stream model (objective.name=gvp) gives each query token the position encoding "
                 "of its target: pe.kind must be one of %s (pe.kind=%s)", posenc_reference_names(), pe->name);
        return msg;
    }
    return NULL;
}

double model_forward_flops_masked(const model_config *c, int M) {
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    double N = (double)rows * cols, T = N + (c->cls ? 1 : 0), d = c->dim, pd = model_token_inputs(c);
    double embed = c->vocab > 0 ? 0.0 : 2.0 * N * pd * d; // a table lookup is no multiply-add
    double head = c->request.token_head ? 2.0 * T * d * N : 2.0 * d * c->num_classes;
    const backbone_kind *arch = backbone_find(c->arch);
    if (c->request.keep_tokens > 0) { // MAE: blocks and token head on the kept tokens, then the decoder on every token
        double K = c->request.keep_tokens, outputs = c->request.token_outputs > 0 ? c->request.token_outputs : N;
        double blocks = arch ? c->depth * arch->block_flops(c, c->request.keep_tokens, c->request.keep_tokens) : 0.0;
        return embed + blocks + 2.0 * K * d * outputs + (c->request.extension ? c->request.extension->forward_flops(c) : 0.0);
    }
    double block = arch ? arch->block_flops(c, (int)T, M) : 0.0;
    return embed + c->depth * block + head;
}

double model_forward_flops(const model_config *c) {
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    int T = rows * cols + (c->cls ? 1 : 0);
    return model_forward_flops_masked(c, T);
}
