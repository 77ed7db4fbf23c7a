// tests/model_testing.c — whole-model test helpers (model_testing.h).
#include "model_testing.h"
#include "testing.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include <stdio.h>
#include <stdlib.h>

void test_model_fill_batch(model *m, int32_t *labels, int B, unsigned tag) {
    size_t n = m->cfg.features > 0 ? (size_t)B * m->image_size * m->cfg.features
                                   : (size_t)B * m->cfg.channels * m->image_size * m->image_size;
    test_fill_uniform(model_images(m), n, -1.5f, 1.5f, tag);
    for (int b = 0; b < B; b++) labels[b] = (int32_t)((b * 3 + tag) % (unsigned)m->cfg.num_classes);
}

void test_model_perturb(model *m, float amplitude, unsigned tag) {
    float *noise = xmalloc(m->params.total * sizeof(float), "noise");
    test_fill_uniform(noise, m->params.total, -amplitude, amplitude, tag);
    for (size_t i = 0; i < m->params.total; i++) m->param[i] += noise[i];
    free(noise);
}

int test_model_gradcheck_params(const char *label, model *m, void *ctx, gradcheck_loss_fn loss, gradcheck_tol tol) {
    int bad = 0;
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        char name[160];
        snprintf(name, sizeof name, "%s %s", label, info->name);
        bad += !gradcheck(name, ctx, loss, m->param + info->offset, m->grad + info->offset, info->numel, tol);
    }
    return bad;
}

void test_model_dump_shape(tensorfile *tf, const model_config *c) {
    const struct { const char *name; int value; } shape[] = {
        {"config.channels", c->channels}, {"config.image_size", c->image_size}, {"config.patch", c->patch},
        {"config.dim", c->dim}, {"config.depth", c->depth}, {"config.heads", c->heads},
        {"config.mlp_ratio", c->mlp_ratio}, {"config.cls", c->cls},
    };
    for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++) test_tf_scalar(tf, shape[i].name, shape[i].value);
}

void test_model_dump(tensorfile *tf, const model *m) {
    char name[160];
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        snprintf(name, sizeof name, "param.%s", info->name);
        tf_add(tf, name, TF_F32, info->ndim, info->shape, m->param + info->offset);
        snprintf(name, sizeof name, "grad.%s", info->name);
        tf_add(tf, name, TF_F32, info->ndim, info->shape, m->grad + info->offset);
    }
}

const rng_addr objective_case_rng = {.seed = 3, .epoch = 1, .step = 4};

void objective_case_create(objective_case *c, const objective_kind *kind, const objective_settings *s, const char *pe,
                           int B, int max_batch) {
    model_config cfg = {.channels = 1, .image_size = 12, .patch = 3, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = pe, .num_classes = 2,
                        // the init the objectives' finite-difference tolerances were set at (eps 1e-2 in
                        // float); timm's wider draws put more ReLU kinks inside the steps of test_simclr's
                        // projection head. What is checked is the gradient, not the init.
                        .trunc_normal = MODEL_TRUNC_STD2};
    const char *why = kind->config_error ? kind->config_error(s) : NULL;
    if (why) die_fail("test config: %s", why);
    kind->configure_model(s, &cfg);
    model_create(&c->m, &cfg, &ops_cpu, max_batch, 5);
    test_model_perturb(&c->m, 0.2f, 8);
    test_fill_uniform(model_images(&c->m), (size_t)max_batch * 144, -1.0f, 1.0f, 9);
    objective_create(&c->o, kind, s, &c->m, max_batch);
    c->B = B;
}

void objective_case_free(objective_case *c) {
    objective_free(&c->o);
    model_free(&c->m);
}

double objective_case_loss(void *p) {
    objective_case *c = p;
    return c->o.kind->train_forward(&c->o, c->B, NULL, objective_case_rng);
}

void objective_case_grads(objective_case *c) {
    objective_case_loss(c);
    ops_cpu.zero(c->m.grad, c->m.params.total);
    model_zero_act_grads(&c->m);
    c->o.kind->train_backward(&c->o, c->B);
}
