// models/init.c — how a model's parameters start: each tensor's rule from the table
// (param_init, models/api/model_view.h) drawn from its own Philox stream (seed, RNG_INIT, tensor
// index), so one tensor's rule never moves another's values; and the keys that choose the rules
// (model.trunc_normal, model.embed_init, model.linear_init; docs/methods.md "Initialisation").
#include "model.h"
#include "../core/common.h"
#include "../core/rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int model_trunc_normal_parse(const char *name) {
    if (!strcmp(name, "timm")) return MODEL_TRUNC_TIMM;
    if (!strcmp(name, "std2")) return MODEL_TRUNC_STD2;
    return -1;
}

float model_trunc_normal_cut(const model_config *c) {
    return c->trunc_normal == MODEL_TRUNC_STD2 ? 2.0f : 2.0f / 0.02f; // timm: ±2 absolute at std 0.02
}

int model_linear_init_parse(const char *name) {
    if (name && !strcmp(name, "timm")) return MODEL_LINEAR_INIT_TIMM;
    if (name && !strcmp(name, "xavier")) return MODEL_LINEAR_INIT_XAVIER;
    return -1;
}

int model_embed_init_parse(const char *name) {
    static const char *const names[] = {"timm", "xavier", "normal002"}; // MODEL_EMBED_INIT_* order
    for (int i = 0; i < 3; i++)
        if (name && !strcmp(name, names[i])) return i;
    return -1;
}

void model_init_params(model *m, uint32_t seed) {
    float *host = xmalloc_aligned(m->params.total * sizeof(float), "initial parameters");
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        float *p = host + info->offset;
        rng_stream s = rng_stream_make(seed, RNG_INIT, 0, 0, (uint32_t)i);
        switch ((param_init)info->init) {
        case INIT_ZERO: memset(p, 0, info->numel * sizeof(float)); break;
        case INIT_ONE: for (size_t k = 0; k < info->numel; k++) p[k] = 1.0f; break;
        case INIT_LINEAR:
            if (m->cfg.linear_init == MODEL_LINEAR_INIT_XAVIER) { // (out, in) = shape[0], shape[1]
                float bound = sqrtf(6.0f / (float)(info->shape[0] + info->shape[1]));
                for (size_t k = 0; k < info->numel; k++) p[k] = bound * (2.0f * rng_uniform(&s) - 1.0f);
                break;
            }
            // timm's rule: the same stream as a trunc-normal table
            __attribute__((fallthrough));
        case INIT_TRUNC_NORMAL: {
            float cut = model_trunc_normal_cut(&m->cfg);
            for (size_t k = 0; k < info->numel; k++) p[k] = rng_trunc_normal(&s, 0.02f, cut);
            break;
        }
        case INIT_UNIFORM: {
            float bound = info->init_bound;
            if (!(bound > 0.0f)) die_fail("internal: parameter %s has INIT_UNIFORM without a bound", info->name);
            for (size_t k = 0; k < info->numel; k++) p[k] = bound * (2.0f * rng_uniform(&s) - 1.0f);
            break;
        }
        case INIT_NEAR_ZERO: {
            float bound = 1e-3f / (float)info->shape[0];
            for (size_t k = 0; k < info->numel; k++) p[k] = bound * (2.0f * rng_uniform(&s) - 1.0f);
            break;
        }
        default: die_fail("internal: parameter %s has no initialisation", info->name);
        }
    }
    m->ops->upload(m->param, host, m->params.total * sizeof(float));
    free(host);
}
