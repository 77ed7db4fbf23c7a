// tests/model_testing.c — whole-model test helpers (model_testing.h).
#include "model_testing.h"
#include "testing.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// The key reader of test_model_set_pe / test_model_set_arch: "key=value" strings, else the key's
// default in the tables of the encodings and backbones.
enum { SET_MAX = 16 };
typedef struct {
    const char *set[SET_MAX];
    int n;
} key_values;

static const char *default_in(const cfg_key *keys, const char *key) {
    for (const cfg_key *k = keys; k && k->key; k++)
        if (!strcmp(k->key, key)) return k->fallback;
    return NULL;
}

static const char *key_text(const void *ctx, const char *key) {
    const key_values *kv = ctx;
    size_t len = strlen(key);
    for (int i = 0; i < kv->n; i++)
        if (!strncmp(kv->set[i], key, len) && kv->set[i][len] == '=') return kv->set[i] + len + 1;
    const char *v = NULL;
    for (int i = 0; !v && posenc_at(i); i++) {
        v = default_in(posenc_at(i)->keys, key);
        if (!v && posenc_at(i)->sequence_kind) v = default_in(posenc_at(i)->sequence_kind->keys, key);
    }
    for (int i = 0; !v && backbone_at(i); i++) v = default_in(backbone_at(i)->keys, key);
    if (!v) die_fail("test: no encoding or backbone key %s", key);
    return v;
}
static long key_text_int(const void *ctx, const char *key) {
    const char *v = key_text(ctx, key);
    return !strcmp(v, "true") ? 1 : !strcmp(v, "false") ? 0 : strtol(v, NULL, 10);
}
static double key_text_float(const void *ctx, const char *key) { return strtod(key_text(ctx, key), NULL); }

static key_reader reader_of(key_values *kv, va_list ap) {
    kv->n = 0;
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *)) {
        if (kv->n == SET_MAX) die_fail("test: more than %d keys", SET_MAX);
        kv->set[kv->n++] = s;
    }
    return (key_reader){.ctx = kv, .int_value = key_text_int, .float_value = key_text_float, .str_value = key_text};
}

void test_model_set_pe(model_config *c, const char *kind, ...) {
    key_values kv;
    va_list ap;
    va_start(ap, kind);
    key_reader r = reader_of(&kv, ap);
    va_end(ap);
    c->pe_kind = kind;
    if (!posenc_for_model(c)) die_fail("test: pe.kind=%s is not an encoding", kind);
    posenc_read_own(&r, c);
}

void test_model_set_arch(model_config *c, const char *kind, ...) {
    key_values kv;
    va_list ap;
    va_start(ap, kind);
    key_reader r = reader_of(&kv, ap);
    va_end(ap);
    c->arch = kind;
    if (!backbone_find(kind)) die_fail("test: model.arch=%s is not a backbone", kind);
    backbone_read_own(&r, c);
}

void trainee_alloc_adam(trainee *t) {
    const ops_backend *ops = t->m.ops;
    t->adam_m = ops->alloc(t->m.params.total * sizeof(float), "adam m");
    t->adam_v = ops->alloc(t->m.params.total * sizeof(float), "adam v");
}

void trainee_free(trainee *t) {
    t->m.ops->free(t->adam_m);
    t->m.ops->free(t->adam_v);
    objective_free(&t->o);
    model_free(&t->m);
}

int trainee_same_state(const trainee *a, const trainee *b) {
    size_t n = a->m.params.total;
    float *x = xmalloc(n * sizeof(float), "x"), *y = xmalloc(n * sizeof(float), "y");
    int same = 1;
    const float *pa[3] = {a->m.param, a->adam_m, a->adam_v}, *pb[3] = {b->m.param, b->adam_m, b->adam_v};
    for (int k = 0; k < 3 && same; k++) {
        a->m.ops->download(x, pa[k], n * sizeof(float));
        b->m.ops->download(y, pb[k], n * sizeof(float));
        same = memcmp(x, y, n * sizeof(float)) == 0;
    }
    free(x);
    free(y);
    return same;
}
