// tests/test_vit_init.c — the ViT's parameter initialisation (models/init.c through model_create):
// model.trunc_normal (timm's absolute ±2 bounds by default, the old ±2 std cut with std2),
// model.embed_init on the patch and speech-frame projections (timm, xavier, normal002), and
// model.linear_init=xavier (MAE's code) against timm's rule, every other tensor bit for bit the same.
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../models/model.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

// model.trunc_normal: timm's bounds (±2 absolute: in effect N(0, 0.02²)) by default, the old ±2 std
// cut (std 0.02 · 0.8796) with std2. Pooled over every trunc-normal tensor of a d 64 model.
static void test_trunc_normal(void) {
    double stds[2] = {0}, beyond[2] = {0}, maxabs[2] = {0};
    for (int rule = 0; rule < 2; rule++) {
        model_config cfg = {.channels = 1, .image_size = 16, .patch = 4, .dim = 64, .depth = 2, .heads = 2, .mlp_ratio = 2,
                            .cls = 1, .pe_kind = "abs", .num_classes = 10, .trunc_normal = rule ? MODEL_TRUNC_STD2 : MODEL_TRUNC_TIMM};
        model m;
        model_create(&m, &cfg, &ops_cpu, 2, 7);
        double sq = 0, n = 0, out = 0, mx = 0;
        for (int i = 0; i < m.params.count; i++) {
            const tensor_info *info = &m.params.items[i];
            if (info->init != INIT_TRUNC_NORMAL && info->init != INIT_LINEAR) continue; // Linear weights too, under timm
            const float *v = m.param + info->offset;
            for (size_t k = 0; k < info->numel; k++) {
                double a = fabs((double)v[k]);
                sq += a * a, n += 1, out += a > 0.04, mx = a > mx ? a : mx;
            }
        }
        stds[rule] = sqrt(sq / n), beyond[rule] = out / n, maxabs[rule] = mx;
        model_free(&m);
    }
    // N(0, 1): 4.55% beyond 2 std; a normal cut at ±2 std has std 0.8796.
    test_check("init: model.trunc_normal=timm (the default) draws N(0, 0.02^2) as timm's trunc_normal_ does",
               fabs(stds[0] / 0.02 - 1) < 0.03 && beyond[0] > 0.035 && beyond[0] < 0.056,
               "std %.5f, %.2f%% beyond 0.04", stds[0], 100 * beyond[0]);
    test_check("init: model.trunc_normal=std2 cuts at ±2 std (posbench's rule before the audit)",
               fabs(stds[1] / (0.02 * 0.8796) - 1) < 0.03 && maxabs[1] <= 0.04f, "std %.5f, max |w| %.5f", stds[1], maxabs[1]);
}

// model.embed_init on the speech frame projection (fan_in 40 features, d 32) and a 4x4 patch
// (fan_in 16): timm and xavier values inside their bound, with the uniform's std bound/sqrt(3)
// (within 6%: 1280 / 512 draws), the bias U(+-1/sqrt(fan_in)) for both; normal002 bit for bit the
// trunc-normal 0.02 stream and a zero bias (the runs before the key); every other parameter
// bitwise the same under the three rules (each tensor draws from its own stream).
static void test_embed_init(void) {
    model_config base[2] = {
        {.channels = 1, .image_size = 20, .features = 40, .patch = 1, .dim = 32, .depth = 1, .heads = 2, .mlp_ratio = 2,
         .cls = 1, .pe_kind = "sin1d", .num_classes = 12},
        {.channels = 1, .image_size = 8, .patch = 4, .dim = 32, .depth = 1, .heads = 2, .mlp_ratio = 2, .cls = 1,
         .pe_kind = "abs", .num_classes = 3}};
    for (int c = 0; c < 2; c++) {
        model m[3];
        for (int rule = 0; rule < 3; rule++) {
            model_config cfg = base[c];
            cfg.embed_init = rule;
            model_create(&m[rule], &cfg, &ops_cpu, 2, 9);
        }
        int fan_in = c == 0 ? 40 : 16, d = 32, ok = 1;
        char what[200] = "";
        for (int rule = 0; rule < 2; rule++) {
            float wb = rule == MODEL_EMBED_INIT_XAVIER ? sqrtf(6.0f / (float)(fan_in + d)) : 1.0f / sqrtf((float)fan_in);
            float bb = 1.0f / sqrtf((float)fan_in);
            const float *w = m[rule].weights.patch_w, *b = m[rule].weights.patch_b;
            double ss = 0;
            int inside = 1;
            for (int k = 0; k < d * fan_in; k++) ss += (double)w[k] * w[k], inside &= fabsf(w[k]) <= wb;
            for (int k = 0; k < d; k++) inside &= fabsf(b[k]) <= bb;
            double std = sqrt(ss / (d * fan_in)), want = wb / sqrt(3.0);
            if (!inside || fabs(std / want - 1.0) > 0.06) {
                ok = 0;
                snprintf(what, sizeof what, "rule %d: std %.4f want %.4f, inside %d", rule, std, want, inside);
            }
        }
        rng_stream s = rng_stream_make(9, RNG_INIT, 0, 0, (uint32_t)tensor_table_find(&m[2].params, "patch_embed.weight"));
        for (int k = 0; k < d * fan_in; k++) ok &= m[2].weights.patch_w[k] == rng_trunc_normal(&s, 0.02f, model_trunc_normal_cut(&m[2].cfg));
        for (int k = 0; k < d; k++) ok &= m[2].weights.patch_b[k] == 0.0f;
        for (int i = 0; i < m[0].params.count; i++) {
            const tensor_info *info = &m[0].params.items[i];
            if (strstr(info->name, "patch_embed")) continue;
            for (int rule = 1; rule < 3; rule++)
                ok &= !memcmp(m[0].param + info->offset, m[rule].param + info->offset, info->numel * sizeof(float));
        }
        test_check(c == 0 ? "embed_init: speech frames (fan_in 40): timm, xavier bounds and std; normal002 as before; rest unchanged"
                          : "embed_init: 4x4 patches (fan_in 16): timm, xavier bounds and std; normal002 as before; rest unchanged",
                   ok, "%s", what[0] ? what : "normal002 stream or another tensor differs");
        for (int rule = 0; rule < 3; rule++) model_free(&m[rule]);
    }
}

// model.linear_init=xavier (MAE's code): every Linear weight (blocks, head) Xavier-uniform within
// √(6/(fan_in + fan_out)) with the uniform's std (within 6%, pooled); every other tensor (patch
// projection, tables, tokens, norms, biases) bit for bit what timm's rule gives; timm's Linear
// weights are the trunc-normal 0.02 stream of their tensor, as before the key existed.
static void test_linear_init(void) {
    model_config cfg = {.channels = 1, .image_size = 16, .patch = 4, .dim = 32, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "abs", .num_classes = 10};
    model m[2];
    for (int rule = 0; rule < 2; rule++) {
        model_config c = cfg;
        c.linear_init = rule;
        model_create(&m[rule], &c, &ops_cpu, 2, 11);
    }
    int linears = 0, outside = 0, others_differ = 0, timm_stream = 1;
    double ratio_sum = 0;
    for (int i = 0; i < m[0].params.count; i++) {
        const tensor_info *info = &m[0].params.items[i];
        const float *t = m[0].param + info->offset, *x = m[1].param + info->offset;
        if (info->init != INIT_LINEAR) {
            others_differ += memcmp(t, x, info->numel * sizeof(float)) != 0;
            continue;
        }
        linears++;
        float bound = sqrtf(6.0f / (float)(info->shape[0] + info->shape[1]));
        double ss = 0;
        for (size_t k = 0; k < info->numel; k++) ss += (double)x[k] * x[k], outside += fabsf(x[k]) > bound;
        ratio_sum += sqrt(ss / (double)info->numel) / (bound / sqrt(3.0));
        rng_stream s = rng_stream_make(11, RNG_INIT, 0, 0, (uint32_t)i);
        for (size_t k = 0; k < info->numel; k++) timm_stream &= t[k] == rng_trunc_normal(&s, 0.02f, model_trunc_normal_cut(&m[0].cfg));
    }
    double ratio = linears ? ratio_sum / linears : 0;
    // 2 blocks x (qkv, proj, fc1, fc2) + the head
    test_check("linear_init: xavier draws every Linear weight within sqrt(6/(in+out)) with the uniform's std; the rest unchanged",
               linears == 9 && outside == 0 && fabs(ratio - 1.0) < 0.06 && others_differ == 0,
               "%d Linear weights, %d values outside their bound, std / (bound/sqrt 3) = %.3f, %d other tensors differ", linears,
               outside, ratio, others_differ);
    test_check("linear_init: timm (the default) keeps each Linear weight's trunc-normal 0.02 stream", timm_stream, "%s",
               timm_stream ? "every value the stream's" : "a value differs");
    for (int rule = 0; rule < 2; rule++) model_free(&m[rule]);
}

int main(void) {
    posbench_set_threads(2);
    test_trunc_normal();
    test_embed_init();
    test_linear_init();
    return test_exit_code();
}
