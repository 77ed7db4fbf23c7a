// objectives/dino/head.c — DINO's head (see head.h): the model extension that declares its
// tensors, and its forward / backward around the backbone.
#include "head.h"
#include "dino.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *head_config_error(const model_config *c) {
    if (c->request.token_head || c->num_classes < 1 || c->request.head_bottleneck < 1 || c->request.head_prototypes < 1)
        return "internal: the DINO head needs the classifier head (dino.hidden_dim outputs), dino.bottleneck_dim and dino.out_dim";
    return NULL;
}

static void head_declare_params(model *m) {
    const model_config *c = &m->cfg;
    int H = c->num_classes, P = c->request.head_bottleneck, K = c->request.head_prototypes;
    model_add_param(m, "dino_head.mlp1.weight", INIT_LINEAR, 1, H, H, NULL, NULL);
    model_add_param(m, "dino_head.mlp1.bias", INIT_ZERO, 0, H, 0, NULL, NULL);
    model_add_param(m, "dino_head.mlp2.weight", INIT_LINEAR, 1, P, H, NULL, NULL);
    model_add_param(m, "dino_head.mlp2.bias", INIT_ZERO, 0, P, 0, NULL, NULL);
    // weight_v of weight_norm; its gain weight_g is the constant 1, not a parameter
    model_add_param(m, "dino_head.last_layer.weight_v", INIT_LINEAR, 1, K, P, NULL, NULL);
}

static void head_declare_acts(model *m) { (void)m; } // the objective owns the head's activations (dino_head)

static double head_forward_flops(const model_config *c) {
    double H = c->num_classes, P = c->request.head_bottleneck, K = c->request.head_prototypes;
    return 2.0 * (H * H + H * P + P * K);
}

const model_extension dino_head_extension = {
    .config_error = head_config_error,
    .declare_params = head_declare_params,
    .declare_acts = head_declare_acts,
    .forward_flops = head_forward_flops,
};

static size_t offset_of(const model *m, const char *name) {
    int i = tensor_table_find(&m->params, name);
    if (i < 0) die_fail("internal: the DINO head's tensor %s is not in the model", name);
    return m->params.items[i].offset;
}

void dino_head_init(dino_head *h, model *m, int rows_max) {
    memset(h, 0, sizeof *h);
    h->m = m, h->ops = m->ops, h->rows_max = rows_max;
    h->H = m->cfg.num_classes, h->P = m->cfg.request.head_bottleneck, h->K = m->cfg.request.head_prototypes;
    h->w1 = offset_of(m, "dino_head.mlp1.weight"), h->b1 = offset_of(m, "dino_head.mlp1.bias");
    h->w2 = offset_of(m, "dino_head.mlp2.weight"), h->b2 = offset_of(m, "dino_head.mlp2.bias");
    h->v = offset_of(m, "dino_head.last_layer.weight_v");
    size_t R = (size_t)rows_max, H = (size_t)h->H, P = (size_t)h->P, K = (size_t)h->K;
    const ops_backend *ops = h->ops;
    float **rh[] = {&h->g0, &h->a1, &h->g1, &h->dg0, &h->da1, &h->dg1};
    for (int i = 0; i < 6; i++) *rh[i] = ops->alloc(R * H * sizeof(float), "DINO head activations");
    float **rp[] = {&h->z, &h->zn, &h->dz, &h->dzn};
    for (int i = 0; i < 4; i++) *rp[i] = ops->alloc(R * P * sizeof(float), "DINO head bottleneck");
    h->out = ops->alloc(R * K * sizeof(float), "DINO head logits");
    h->dout = ops->alloc(R * K * sizeof(float), "DINO head logit gradients");
    h->W = ops->alloc(K * P * sizeof(float), "DINO prototypes (normalised)");
    h->dW = ops->alloc(K * P * sizeof(float), "DINO prototype gradients");
    h->dv = ops->alloc(K * P * sizeof(float), "DINO prototype gradients (weight norm backward)");
    h->norms = ops->alloc(R * sizeof(float), "DINO bottleneck norms");
    h->wnorms = ops->alloc(K * sizeof(float), "DINO prototype norms");
}

void dino_head_free(dino_head *h) {
    const ops_backend *ops = h->ops;
    if (!ops) return;
    float *dev[] = {h->g0, h->a1, h->g1, h->z, h->zn, h->W, h->out, h->dg0, h->da1, h->dg1, h->dz, h->dzn, h->dout, h->dW,
                    h->dv, h->norms, h->wnorms};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) ops->free(dev[i]);
    memset(h, 0, sizeof *h);
}

void dino_head_weights(dino_head *h) {
    h->ops->unit_rows_forward(h->W, h->wnorms, h->m->param + h->v, h->K, h->P, 0); // torch's _weight_norm, g = 1: no clamp
}

const float *dino_head_forward(dino_head *h, const float *a0, int R) {
    const ops_backend *ops = h->ops;
    const float *param = h->m->param;
    int H = h->H, P = h->P, K = h->K;
    if (R > h->rows_max) die_fail("internal: DINO head forward of %d rows (buffers for %d)", R, h->rows_max);
    h->a0 = a0;
    ops->gelu_forward(h->g0, a0, (size_t)R * H);
    ops->linear_forward(h->a1, h->g0, param + h->w1, param + h->b1, R, H, H);
    ops->gelu_forward(h->g1, h->a1, (size_t)R * H);
    ops->linear_forward(h->z, h->g1, param + h->w2, param + h->b2, R, H, P);
    ops->unit_rows_forward(h->zn, h->norms, h->z, R, P, 1); // F.normalize
    ops->linear_forward(h->out, h->zn, h->W, NULL, R, P, K);
    return h->out;
}

void dino_head_backward(dino_head *h, int R) {
    const ops_backend *ops = h->ops;
    model *m = h->m;
    const float *param = m->param;
    float *grad = m->grad;
    int H = h->H, P = h->P, K = h->K;
    ops->zero(h->dzn, (size_t)R * P);
    ops->linear_backward(h->dzn, h->dW, NULL, h->dout, h->zn, h->W, R, P, K);
    ops->unit_rows_backward(h->dz, h->dzn, h->zn, h->norms, R, P);
    ops->zero(h->dg1, (size_t)R * H);
    ops->linear_backward(h->dg1, grad + h->w2, grad + h->b2, h->dz, h->g1, param + h->w2, R, H, P);
    ops->zero(h->da1, (size_t)R * H);
    ops->gelu_backward(h->da1, h->dg1, h->a1, (size_t)R * H);
    ops->zero(h->dg0, (size_t)R * H);
    ops->linear_backward(h->dg0, grad + h->w1, grad + h->b1, h->da1, h->g0, param + h->w1, R, H, H);
    ops->gelu_backward(model_dlogits(m), h->dg0, h->a0, (size_t)R * H);
    model_backward(m, R);
}

void dino_head_zero_dW(dino_head *h) { h->ops->zero(h->dW, (size_t)h->K * h->P); }

void dino_head_finish_dW(dino_head *h, const float *gate) {
    size_t KP = (size_t)h->K * h->P;
    h->ops->unit_rows_backward(h->dv, h->dW, h->W, h->wnorms, h->K, h->P);
    h->ops->ema_update(h->m->grad + h->v, h->dv, KP, gate, NULL); // v's gradient (0 so far) = 1·0 + gate·dv
}
