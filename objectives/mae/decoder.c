// objectives/mae/decoder.c — MAE's light decoder (see decoder.h): a sub-model of the backbone's blocks
// declared into the owning model's tables, and its forward/backward around them.
#include "decoder.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct model_decoder {
    model sub;                 // the blocks' model: width dd, all T tokens, sin2d, owner = the model
    float *mask_token, *dmask_token;   // (dd)
    float *norm_w, *norm_b, *dnorm_w, *dnorm_b; // (dd)
    float *pred_w, *pred_b, *dpred_w, *dpred_b; // (D, dd), (D)
    float *mask_rows;          // (B·(T - K), dd) copies of the mask token; gradient buffer alike
    float *dmask_rows;
    float *norm, *dnorm, *norm_mean, *norm_rstd; // (B, T, dd), (B, T)
    float *pred, *dpred;       // (B, T, D)
    float *masked, *masked_host; // (B, T - K) ints: the masked tokens per image
    float *zeros;              // (B·(T - K)) ints, all 0 (the mask-token gather)
    int K, D;                  // kept tokens per image, outputs per token
};

// The model's decoder: its extension state (m->extension_state, set by decoder_ready).
static model_decoder *decoder_of(const model *m) { return m->extension_state; }

// The decoder's blocks as a model config: the encoder's grid, width dd, no cls change.
static model_config sub_config(const model_config *c) {
    model_config d = *c;
    d.dim = c->request.decoder_dim;
    d.depth = c->request.decoder_depth;
    d.pe_kind = "sin2d";
    memset(d.pe_own, 0, sizeof d.pe_own); // sin2d has no settings of its own
    d.drop_path = 0.0f;
    d.dropout = 0.0f;
    d.request = (model_request){0}; // the decoder asks nothing: no decoder, no masking, no token head
    d.max_image_size = c->image_size;
    return d;
}

static const char *decoder_config_error(const model_config *c) {
    static char msg[256];
    if (c->request.decoder_dim < 2 || c->request.decoder_dim % 2 != 0 || c->request.decoder_dim % c->heads != 0) {
        snprintf(msg, sizeof msg, "mae.decoder_dim=%d: the decoder's width must be even (its sin2d pairs cos and sin) and "
                 "a multiple of model.heads=%d (valid: e.g. %d)", c->request.decoder_dim, c->heads, 2 * c->heads);
        return msg;
    }
    if (c->request.decoder_depth < 1 || c->features > 0 || c->request.keep_tokens < 1 || !c->request.token_head || c->request.token_outputs != c->request.decoder_dim) {
        snprintf(msg, sizeof msg, "mae.decoder_depth=%d: the decoder needs at least one block, image input and an "
                 "encoder on kept tokens (valid: >= 1 with objective.name=mae)", c->request.decoder_depth);
        return msg;
    }
    return NULL;
}

static int outputs_per_token(const model_config *c) { return c->channels * c->patch * c->patch; }

static void decoder_declare_params(model *m) {
    model_decoder *dec = xcalloc(1, sizeof *dec, "MAE decoder");
    m->extension_state = dec;
    model *s = &dec->sub;
    s->cfg = sub_config(&m->cfg);
    s->owner = m;
    s->prefix = "decoder.";
    s->ops = m->ops;
    s->max_batch = m->max_batch;
    s->arch = m->arch;
    s->pe = posenc_find("sin2d");
    s->arch_state = s->arch->state_size ? xcalloc(1, s->arch->state_size, "decoder blocks' state") : NULL;
    s->pe_state = s->pe->state_size ? xcalloc(1, s->pe->state_size, "decoder sin2d state") : NULL;
    s->t0 = m->t0;
    s->image_size = m->image_size, s->rows = m->rows, s->cols = m->cols, s->grid = m->grid, s->N = m->N, s->T = m->T;
    s->rows0 = s->rows_max = m->rows, s->cols0 = s->cols_max = m->cols, s->grid0 = s->grid_max = m->grid;
    s->T0 = s->T_max = m->T, s->N_max = m->N;
    s->M_alloc = s->M = m->T;
    dec->K = m->cfg.request.keep_tokens;
    dec->D = outputs_per_token(&m->cfg);
    int dd = s->cfg.dim;
    model_add_param(s, "mask_token", INIT_TRUNC_NORMAL, 0, dd, 0, &dec->mask_token, &dec->dmask_token);
    s->arch->declare_params(s);
    model_add_param(s, "norm.weight", INIT_ONE, 0, dd, 0, &dec->norm_w, &dec->dnorm_w);
    model_add_param(s, "norm.bias", INIT_ZERO, 0, dd, 0, &dec->norm_b, &dec->dnorm_b);
    model_add_param(s, "pred.weight", INIT_LINEAR, 1, dec->D, dd, &dec->pred_w, &dec->dpred_w);
    model_add_param(s, "pred.bias", INIT_ZERO, 0, dec->D, 0, &dec->pred_b, &dec->dpred_b);
}

static void decoder_declare_acts(model *m) {
    model_decoder *dec = decoder_of(m);
    model *s = &dec->sub;
    size_t B = (size_t)m->max_batch, T = (size_t)m->T, dd = (size_t)s->cfg.dim, BM = B * (T - (size_t)dec->K);
    model_add_input(s, "masked", BM, &dec->masked, &dec->masked_host);
    model_add_input(s, "zeros", BM, &dec->zeros, NULL); // never written: zero as allocated
    model_add_act(s, "mask_rows", BM * dd, &dec->mask_rows, &dec->dmask_rows);
    model_add_act(s, "tokens", B * T * dd, &s->activations.x0, &s->activation_grads.x0);
    s->pe->declare_acts(s);
    s->arch->declare_acts(s);
    model_add_act(s, "norm", B * T * dd, &dec->norm, &dec->dnorm);
    model_add_act(s, "norm.mean", B * T, &dec->norm_mean, NULL);
    model_add_act(s, "norm.rstd", B * T, &dec->norm_rstd, NULL);
    model_add_act(s, "pred", B * T * (size_t)dec->D, &dec->pred, &dec->dpred);
}

static void decoder_ready(model *m) {
    model *s = &decoder_of(m)->sub;
    if (s->pe->set_grid) s->pe->set_grid(s);
    if (s->arch->set_grid) s->arch->set_grid(s);
}

static void decoder_free(model *m) {
    model_decoder *dec = decoder_of(m);
    if (!dec) return; // the model was freed before its decoder was declared
    model *s = &dec->sub;
    if (s->pe->free) s->pe->free(s);
    if (s->arch->free) s->arch->free(s);
    free(s->pe_state);
    free(s->arch_state);
    free(dec);
    m->extension_state = NULL;
}

double decoder_forward_flops(const model_config *c) {
    model_config d = sub_config(c);
    int rows, cols;
    model_grid_at(c, c->image_size, &rows, &cols);
    int T = rows * cols + (c->cls ? 1 : 0);
    const backbone_kind *arch = backbone_find(c->arch);
    double blocks = arch ? d.depth * arch->block_flops(&d, T, T) : 0.0;
    return blocks + 2.0 * T * d.dim * outputs_per_token(c);
}

int *decoder_masked(model *m) { return (int *)decoder_of(m)->masked_host; }
float *decoder_dpred(model *m) { return decoder_of(m)->dpred; }

const float *decoder_forward(model *m, int B) {
    model_decoder *dec = decoder_of(m);
    model *s = &dec->sub;
    const ops_backend *ops = m->ops;
    int T = s->T, K = dec->K, Mk = T - K, dd = s->cfg.dim;
    if (m->keep != K) die_fail("internal: decoder_forward after a forward of %d tokens, not the %d kept", m->keep, K);
    model_upload(m, dec->masked_host, (size_t)B * Mk);
    // Tokens (B, T, dd): the mask token at the masked indices, the encoder's kept tokens (its
    // token head's output) at theirs; then the decoder's sin2d.
    ops->gather_tokens_forward(dec->mask_rows, dec->mask_token, (const int *)dec->zeros, 1, 1, B * Mk, dd);
    ops->scatter_tokens_forward(s->activations.x0, dec->mask_rows, (const int *)dec->masked, B, T, Mk, dd);
    ops->scatter_tokens_forward(s->activations.x0, m->activations.logits, (const int *)m->batch.keep_index, B, T, K, dd);
    s->pe->tokens_forward(s, B);
    const float *out = s->arch->forward(s, s->activations.x0, B, 0, 0.0f, (rng_addr){0});
    s->blocks_out = out;
    ops->layernorm_forward(dec->norm, dec->norm_mean, dec->norm_rstd, out, dec->norm_w, dec->norm_b, B * T, dd);
    ops->linear_forward(dec->pred, dec->norm, dec->pred_w, dec->pred_b, B * T, dd, dec->D);
    return dec->pred;
}

void decoder_backward(model *m, int B) {
    model_decoder *dec = decoder_of(m);
    model *s = &dec->sub;
    const ops_backend *ops = m->ops;
    int T = s->T, K = dec->K, Mk = T - K, dd = s->cfg.dim;
    ops->linear_backward(dec->dnorm, dec->dpred_w, dec->dpred_b, dec->dpred, dec->norm, dec->pred_w, B * T, dd, dec->D);
    ops->layernorm_backward(s->arch->output_grad(s), dec->dnorm_w, dec->dnorm_b, dec->dnorm, s->blocks_out, dec->norm_w,
                            dec->norm_mean, dec->norm_rstd, B * T, dd);
    float *dx = s->activation_grads.x0; // (B, T, dd); the fixed sin2d passes it through
    s->arch->backward(s, s->activations.x0, dx, B);
    ops->gather_tokens_forward(model_dlogits(m), dx, (const int *)m->batch.keep_index, B, T, K, dd);
    ops->gather_tokens_forward(dec->dmask_rows, dx, (const int *)dec->masked, B, T, Mk, dd);
    ops->gather_tokens_backward(dec->dmask_token, dec->dmask_rows, (const int *)dec->zeros, 1, 1, B * Mk, dd);
}

const float *decoder_pred(const model *m) { return decoder_of(m)->pred; }

const model_extension model_decoder_extension = {
    .config_error = decoder_config_error,
    .declare_params = decoder_declare_params,
    .declare_acts = decoder_declare_acts,
    .ready = decoder_ready,
    .free = decoder_free,
    .forward_flops = decoder_forward_flops,
};
