// tests/test_gmlp.c — gMLP and aMLP (models/backbones/gmlp.c, the token-mixing ops of
// core/cpu/mixing_cpu.c): finite-difference gradients of the ops (spatial projection with and
// without bias, gating) against a double-precision reference of the forward; whole-model
// gradients of every parameter of 2-block gMLP/aMLP models (dense W, Toeplitz 1D and 2D, the
// tiny attention, mean pool, abs encoding, dropout and drop path, and at a grid other than the
// built one: dense W resampled, Toeplitz offsets clipped); at initialisation a block equals
// the FFN it starts as; Toeplitz W is translation-equivariant on a 64-token sequence and
// depends only on the 2D offset on a grid; resampling (constant W -> constant rescaled by
// N0/N, cls entries kept) and the round trip to the built grid bit for bit; the refusals (MP3,
// attention encodings, an odd d_ffn, tiny_attn_dim 0); the SGU ablations of Table 3 (additive
// gating, no split, no norm on v, and all three): one block against the formula written with
// plain ops (1e-5 relative), parameter shapes, gradients of gMLP and Toeplitz-1D aMLP models,
// vit refusing the keys; the PyTorch oracle (tests/torch_oracle.py
// with the torch twin tests/torch_gmlp.py: loss, logits and every gradient against float64
// PyTorch 1.13 for gMLP with dense W, Toeplitz 1D and 2D, and aMLP).
// Tolerances: ops GRADCHECK_DEFAULT; whole models eps 3e-3, |err| <= 5e-4 + 3e-2·|g|, 8 entries
// per tensor (as tests/test_vit.c); forward reference 1e-5 relative.
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/tensorfile.h"
#include "../models/model.h"
#include "../models/backbones/gmlp.h"
#include "../objectives/supervised/supervised.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ops_backend *ops = &ops_cpu;

// ---------------------------------------------------------------- ops
typedef struct { float *out, *in, *W, *b, *dout; int B, T, C; } mix_ctx;
static double mix_loss(void *p) {
    mix_ctx *c = p;
    ops->token_mix_forward(c->out, c->in, c->W, c->b, c->B, c->T, c->C);
    return gradcheck_dot(c->out, c->dout, (size_t)c->B * c->T * c->C);
}

static void test_token_mix(void) {
    mix_ctx c = {.B = 3, .T = 7, .C = 5};
    size_t n = 105;
    c.in = test_rnd(n, -1, 1, 1), c.W = test_rnd(49, -1, 1, 2), c.b = test_rnd(7, -1, 1, 3);
    c.out = test_zeros(n), c.dout = test_rnd(n, -1, 1, 4);
    mix_loss(&c);
    double worst = 0;
    for (int b = 0; b < c.B; b++)
        for (int i = 0; i < c.T; i++)
            for (int ch = 0; ch < c.C; ch++) {
                double ref = c.b[i];
                for (int j = 0; j < c.T; j++) ref += (double)c.W[i * c.T + j] * c.in[(b * c.T + j) * c.C + ch];
                worst = fmax(worst, fabs(ref - c.out[(b * c.T + i) * c.C + ch]));
            }
    test_check("token mix forward = Σ_j W[i, j] in[b, j, c] + bias[i] (double reference)", worst < 1e-5, "max |diff| %.3g", worst);
    float *din = test_zeros(n), *dW = test_zeros(49), *db = test_zeros(7);
    ops->token_mix_backward(din, dW, db, c.dout, c.in, c.W, c.B, c.T, c.C);
    gradcheck("token mix input", &c, mix_loss, c.in, din, n, GRADCHECK_DEFAULT);
    gradcheck("token mix W", &c, mix_loss, c.W, dW, 49, GRADCHECK_DEFAULT);
    gradcheck("token mix bias", &c, mix_loss, c.b, db, 7, GRADCHECK_DEFAULT);
    float before = dW[10];
    ops->token_mix_backward(NULL, dW, NULL, c.dout, c.in, c.W, c.B, c.T, c.C);
    test_check("token mix backward accumulates", fabsf(dW[10] - 2 * before) <= 1e-6f * fabsf(before) + 1e-7f,
               "dW[10] %g after two passes, %g after one", dW[10], before);
    // Without bias: the same product, no bias term.
    float *nob = test_zeros(n);
    mix_loss(&c); // gradcheck left the last perturbed output in c.out
    ops->token_mix_forward(nob, c.in, c.W, NULL, c.B, c.T, c.C);
    worst = 0;
    for (size_t k = 0; k < n; k++) worst = fmax(worst, fabs((nob[k] + c.b[(k / c.C) % c.T]) - c.out[k]));
    test_check("token mix without bias = with bias minus bias[i]", worst < 1e-5, "max |diff| %.3g", worst);
    free(c.in); free(c.W); free(c.b); free(c.out); free(c.dout); free(din); free(dW); free(db); free(nob);
}

typedef struct { float *out, *a, *g, *dout; size_t n; } gate_ctx;
static double gate_loss(void *p) {
    gate_ctx *c = p;
    ops->gate_forward(c->out, c->a, c->g, c->n);
    return gradcheck_dot(c->out, c->dout, c->n);
}
static void test_gate(void) {
    gate_ctx c = {.n = 37};
    c.a = test_rnd(37, -2, 2, 5), c.g = test_rnd(37, -2, 2, 6), c.out = test_zeros(37), c.dout = test_rnd(37, -1, 1, 7);
    gate_loss(&c);
    int exact = 1;
    for (size_t k = 0; k < c.n; k++) exact &= c.out[k] == c.a[k] * c.g[k];
    test_check("gate forward = a ⊙ g", exact, "37 products bit for bit");
    float *da = test_zeros(37), *dg = test_zeros(37);
    ops->gate_backward(da, dg, c.dout, c.a, c.g, c.n);
    gradcheck("gate a", &c, gate_loss, c.a, da, 37, GRADCHECK_DEFAULT);
    gradcheck("gate g", &c, gate_loss, c.g, dg, 37, GRADCHECK_DEFAULT);
    free(c.a); free(c.g); free(c.out); free(c.dout); free(da); free(dg);
}

// ---------------------------------------------------------------- whole models
typedef struct { model *m; supervised *obj; int32_t *labels; int B, training; } model_ctx;
static const rng_addr model_loss_rng = {.seed = 5, .epoch = 1, .step = 2};

static double model_loss(void *p) {
    model_ctx *c = p;
    return supervised_forward(c->obj, model_forward(c->m, c->B, c->training, model_loss_rng), c->labels, c->B);
}

static void model_grads(model_ctx *c) {
    model *m = c->m;
    model_loss(c);
    m->ops->zero(m->grad, m->params.total);
    model_zero_act_grads(m);
    supervised_backward(c->obj, model_dlogits(m), c->labels, c->B);
    model_backward(m, c->B);
}

static float *param(model *m, const char *name) {
    int i = tensor_table_find(&m->params, name);
    return i < 0 ? NULL : m->param + m->params.items[i].offset;
}
static float *act(model *m, const char *name) {
    int i = tensor_table_find(&m->acts, name);
    return i < 0 ? NULL : m->act + m->acts.items[i].offset;
}

static void gradcheck_model_at(const char *label, model_config cfg, int training, int size) {
    model m;
    model_create(&m, &cfg, ops, 3, 11);
    if (size > 0) model_set_resolution(&m, size);
    test_model_perturb(&m, 0.1f, 40);
    supervised obj;
    supervised_create(&obj, ops, 3, cfg.num_classes, 0.1f);
    int32_t labels[3];
    test_model_fill_batch(&m, labels, 3, 41);
    model_ctx c = {&m, &obj, labels, 3, training};
    model_grads(&c);
    gradcheck_tol tol = {3e-3, 5e-4, 3e-2, 8};
    test_model_gradcheck_params(label, &m, &c, model_loss, tol);
    supervised_free(&obj);
    model_free(&m);
}

// gmlp's own settings of a config (gmlp and amlp share them: switching arch keeps them).
#define SGU(c) BACKBONE_OWN(&(c), gmlp_settings)

static model_config base_config(void) {
    model_config c = {.arch = "gmlp", .channels = 1, .image_size = 8, .patch = 4, .dim = 16, .depth = 2,
                      .heads = 2, .mlp_ratio = 2, .cls = 1, .pe_kind = "none", .num_classes = 5};
    SGU(c)->tiny_attn_dim = 8;
    return c;
}

static void test_model_gradients(void) {
    model_config c = base_config();
    gradcheck_model_at("gmlp[cls]", c, 0, 0);
    c.cls = 0, c.channels = 2, c.pe_kind = "abs";
    gradcheck_model_at("gmlp[meanpool,abs]", c, 0, 0);
    c = base_config(), SGU(c)->toeplitz = 1;
    gradcheck_model_at("gmlp[cls,toeplitz1d]", c, 0, 0);
    SGU(c)->toeplitz = 2;
    gradcheck_model_at("gmlp[cls,toeplitz2d]", c, 0, 0);
    c = base_config(), c.dropout = 0.1f, c.drop_path = 0.5f;
    gradcheck_model_at("gmlp[dropout,droppath]", c, 1, 0);
    c = base_config(), c.arch = "amlp";
    gradcheck_model_at("amlp[cls]", c, 0, 0);
    SGU(c)->toeplitz = 2, c.cls = 0;
    gradcheck_model_at("amlp[meanpool,toeplitz2d]", c, 0, 0);
    // Built for 8 px (2x2 grid), run at 12 px (3x3): W resampled; Toeplitz clipped.
    c = base_config(), c.max_image_size = 12;
    gradcheck_model_at("gmlp[cls,8px W at 12px]", c, 0, 12);
    SGU(c)->toeplitz = 2;
    gradcheck_model_at("gmlp[cls,toeplitz2d,8px table at 12px]", c, 0, 12);
    c = base_config(), c.arch = "amlp", c.max_image_size = 12, SGU(c)->toeplitz = 1;
    gradcheck_model_at("amlp[cls,toeplitz1d,8px table at 12px]", c, 0, 12);
    // 3 blocks: the shared activation gradients are cleared between blocks (W's and b's whole)
    // and the output gradient's ping-pong pair is used in both directions.
    c = base_config(), c.depth = 3, c.max_image_size = 12, c.dropout = 0.1f, c.drop_path = 0.5f;
    gradcheck_model_at("gmlp[3 blocks,dropout,droppath,8px W at 12px]", c, 1, 12);
    c = base_config(), c.depth = 3, c.arch = "amlp", SGU(c)->toeplitz = 2;
    gradcheck_model_at("amlp[3 blocks,toeplitz2d]", c, 0, 0);
}

// ---------------------------------------------------------------- initialisation
// At init (W ~ 1e-3/n, b = 1) the first block is the FFN x + V·(GELU(U_u·LN(x)) ⊙ 1): with W set
// to zero exactly it equals that FFN bit for bit, and at the drawn init within 1e-3 relative.
static void ffn_reference(model *m, float *out, int B) {
    int d = m->cfg.dim, e = m->cfg.mlp_ratio * d / 2, BT = B * m->T;
    const float *x = m->activations.x0;
    float *ln = test_zeros((size_t)BT * d), *mean = test_zeros(BT), *rstd = test_zeros(BT), *u = test_zeros((size_t)BT * e), *g = test_zeros((size_t)BT * e);
    float *y = test_zeros((size_t)BT * d);
    ops->layernorm_forward(ln, mean, rstd, x, param(m, "blocks.0.norm.weight"), param(m, "blocks.0.norm.bias"), BT, d);
    ops->linear_forward(u, ln, param(m, "blocks.0.proj_in.weight"), param(m, "blocks.0.proj_in.bias"), BT, d, e);
    ops->gelu_forward(g, u, (size_t)BT * e);
    ops->linear_forward(y, g, param(m, "blocks.0.proj_out.weight"), param(m, "blocks.0.proj_out.bias"), BT, e, d);
    ops->residual_forward(out, x, y, NULL, B, (size_t)m->T * d);
    free(ln); free(mean); free(rstd); free(u); free(g); free(y);
}

static void test_init_is_ffn(void) {
    model_config c = base_config();
    c.image_size = 16, c.dim = 24, c.mlp_ratio = 4;
    model m;
    model_create(&m, &c, ops, 4, 3);
    int32_t labels[4];
    test_model_fill_batch(&m, labels, 4, 9);
    float *W = param(&m, "blocks.0.sgu.spatial.weight"), *b = param(&m, "blocks.0.sgu.spatial.bias");
    int T = m.T, ones = 1;
    double bound = 0;
    for (int i = 0; i < T * T; i++) bound = fmax(bound, fabs(W[i]));
    for (int i = 0; i < T; i++) ones &= b[i] == 1.0f;
    test_check("gmlp init: W ~ U(-1e-3/n, 1e-3/n), b = 1", ones && bound > 0 && bound <= 1e-3 / T,
               "max |W| %.3g, bound %.3g (n = %d)", bound, 1e-3 / T, T);
    size_t n = (size_t)4 * T * c.dim;
    float *ref = test_zeros(n), *got = test_zeros(n);
    model_forward(&m, 4, 0, (rng_addr){0});
    memcpy(got, model_block_output(&m, 0), n * sizeof(float));
    ffn_reference(&m, ref, 4);
    double worst = 0, scale = 0;
    for (size_t k = 0; k < n; k++) worst = fmax(worst, fabs(got[k] - ref[k])), scale = fmax(scale, fabs(ref[k]));
    test_check("gmlp init: a block equals its FFN (W near zero, b = 1)", worst <= 1e-3 * scale, "max |diff| %.3g (max |out| %.3g)", worst, scale);
    memset(W, 0, (size_t)T * T * sizeof(float));
    model_forward(&m, 4, 0, (rng_addr){0});
    ffn_reference(&m, ref, 4);
    test_check("gmlp with W = 0, b = 1: a block is its FFN bit for bit", memcmp(model_block_output(&m, 0), ref, n * sizeof(float)) == 0,
               "%zu values", n);
    free(ref);
    free(got);
    model_free(&m);
}

static void expect_refusal(const char *name, model_config c, const char *a, const char *b);

// ---------------------------------------------------------------- SGU ablations (Table 3)
// One block (dense W, perturbed parameters) against the formula written with plain ops:
// Z = GELU(LN(x)·U + b_U); u = Z[:, :e], v = Z[:, e:] (split) or v = u (no split); vn = LN(v)
// or v (no norm); f = W·vn + b; s = u ⊙ f or u + f (additive); out = x + s·Vᵀ + b_V.
static void ablation_reference(model *m, float *out, int B) {
    const model_config *c = &m->cfg;
    int d = c->dim, E = c->mlp_ratio * d, e = SGU(*c)->no_split ? E : E / 2, T = m->T, BT = B * T, zw = SGU(*c)->no_split ? e : 2 * e;
    const float *x = m->activations.x0;
    float *ln = test_zeros((size_t)BT * d), *mean = test_zeros(BT), *rstd = test_zeros(BT);
    float *zpre = test_zeros((size_t)BT * zw), *z = test_zeros((size_t)BT * zw), *u = test_zeros((size_t)BT * e),
          *v = test_zeros((size_t)BT * e), *vn = test_zeros((size_t)BT * e), *f = test_zeros((size_t)BT * e),
          *sg = test_zeros((size_t)BT * e), *y = test_zeros((size_t)BT * d);
    ops->layernorm_forward(ln, mean, rstd, x, param(m, "blocks.0.norm.weight"), param(m, "blocks.0.norm.bias"), BT, d);
    ops->linear_forward(zpre, ln, param(m, "blocks.0.proj_in.weight"), param(m, "blocks.0.proj_in.bias"), BT, d, zw);
    ops->gelu_forward(z, zpre, (size_t)BT * zw);
    for (int r = 0; r < BT; r++)
        for (int k = 0; k < e; k++) {
            u[(size_t)r * e + k] = z[(size_t)r * zw + k];
            v[(size_t)r * e + k] = SGU(*c)->no_split ? z[(size_t)r * zw + k] : z[(size_t)r * zw + e + k];
        }
    if (SGU(*c)->no_norm) memcpy(vn, v, (size_t)BT * e * sizeof(float));
    else ops->layernorm_forward(vn, mean, rstd, v, param(m, "blocks.0.sgu.norm.weight"), param(m, "blocks.0.sgu.norm.bias"), BT, e);
    const float *W = param(m, "blocks.0.sgu.spatial.weight"), *bias = param(m, "blocks.0.sgu.spatial.bias");
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++)
            for (int k = 0; k < e; k++) {
                double acc = bias[i];
                for (int j = 0; j < T; j++) acc += (double)W[(size_t)i * T + j] * vn[((size_t)b * T + j) * e + k];
                f[((size_t)b * T + i) * e + k] = (float)acc;
            }
    for (size_t k = 0; k < (size_t)BT * e; k++) sg[k] = SGU(*c)->additive ? u[k] + f[k] : u[k] * f[k];
    ops->linear_forward(y, sg, param(m, "blocks.0.proj_out.weight"), param(m, "blocks.0.proj_out.bias"), BT, e, d);
    for (size_t k = 0; k < (size_t)BT * d; k++) out[k] = x[k] + y[k];
    free(ln); free(mean); free(rstd); free(zpre); free(z); free(u); free(v); free(vn); free(f); free(sg); free(y);
}

static void test_ablations(void) {
    struct { const char *label; int additive, no_split, no_norm; } cases[] = {
        {"multiplicative split norm (the SGU)", 0, 0, 0}, {"additive", 1, 0, 0}, {"no split", 0, 1, 0},
        {"no norm", 0, 0, 1}, {"additive, no split, no norm", 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_config c = base_config();
        c.depth = 1, c.image_size = 12, SGU(c)->additive = cases[i].additive, SGU(c)->no_split = cases[i].no_split;
        SGU(c)->no_norm = cases[i].no_norm;
        model m;
        model_create(&m, &c, ops, 2, 3);
        test_model_perturb(&m, 0.3f, 60);
        int32_t labels[2];
        test_model_fill_batch(&m, labels, 2, 61);
        size_t n = (size_t)2 * m.T * c.dim;
        float *ref = test_zeros(n);
        model_forward(&m, 2, 0, (rng_addr){0});
        ablation_reference(&m, ref, 2);
        const float *got = model_block_output(&m, 0);
        double worst = 0, scale = 0;
        for (size_t k = 0; k < n; k++) worst = fmax(worst, fabs(got[k] - ref[k])), scale = fmax(scale, fabs(ref[k]));
        int E = c.mlp_ratio * c.dim, e = SGU(c)->no_split ? E : E / 2;
        int pi = tensor_table_find(&m.params, "blocks.0.proj_in.weight"), po = tensor_table_find(&m.params, "blocks.0.proj_out.weight");
        int shapes = m.params.items[pi].numel == (size_t)E * c.dim && m.params.items[po].numel == (size_t)c.dim * e &&
                     (tensor_table_find(&m.params, "blocks.0.sgu.norm.weight") < 0) == SGU(c)->no_norm;
        char name[160];
        snprintf(name, sizeof name, "gmlp ablation %s: block = formula, parameter shapes", cases[i].label);
        test_check(name, worst <= 1e-5 * scale && shapes, "max |diff| %.3g (max |out| %.3g); proj_in (%d, %d), proj_out (%d, %d)",
                   worst, scale, E, c.dim, c.dim, e);
        free(ref);
        model_free(&m);
        c.depth = 2, c.image_size = 8;
        snprintf(name, sizeof name, "gmlp[%s]", cases[i].label);
        if (i > 0) gradcheck_model_at(name, c, 0, 0);
        c.arch = "amlp", SGU(c)->toeplitz = 1;
        snprintf(name, sizeof name, "amlp[toeplitz1d,%s]", cases[i].label);
        if (i > 0) gradcheck_model_at(name, c, 0, 0);
    }
    model_config c = base_config();
    test_model_set_arch(&c, "vit", "model.sgu_gating=additive", NULL), c.pe_kind = "abs";
    expect_refusal("vit refuses the SGU ablation keys", c, "model.sgu_gating", "model.arch=vit has none");
    c = base_config(), c.dim = 15, c.mlp_ratio = 1, c.heads = 3, SGU(c)->no_split = 1;
    test_check("gmlp without the split accepts an odd d_ffn", model_config_error(&c) == NULL, "%s",
               model_config_error(&c) ? model_config_error(&c) : "accepted");
}

// ---------------------------------------------------------------- Toeplitz and resampling
static void test_toeplitz(void) {
    // 1D over a 64-token sequence (32 px, patch 4, no cls).
    model_config c = base_config();
    c.image_size = 32, c.cls = 0, SGU(c)->toeplitz = 1, c.depth = 1;
    model m;
    model_create(&m, &c, ops, 1, 5);
    test_model_perturb(&m, 0.1f, 6);
    int32_t labels[1];
    test_model_fill_batch(&m, labels, 1, 7);
    model_forward(&m, 1, 0, (rng_addr){0});
    int T = m.T, K = 2 * T - 1;
    const float *W = act(&m, "blocks.0.sgu.spatial.W"), *w = param(&m, "blocks.0.sgu.spatial.toeplitz");
    int toeplitz = W && w && m.params.items[tensor_table_find(&m.params, "blocks.0.sgu.spatial.toeplitz")].numel == (size_t)K;
    for (int i = 0; toeplitz && i < T; i++)
        for (int j = 0; j < T; j++) toeplitz &= W[i * T + j] == w[i - j + T - 1];
    test_check("toeplitz 1d: W(i, j) = w[i - j] with 2n-1 entries", toeplitz, "n = %d", T);
    // Equivariance: a compactly supported v shifted by k tokens gives the output shifted by k.
    const int C = 3, k = 9;
    float *v = test_zeros((size_t)T * C), *vs = test_zeros((size_t)T * C), *o = test_zeros((size_t)T * C), *os = test_zeros((size_t)T * C);
    test_fill_uniform(v + 20 * C, 10 * C, -1, 1, 8); // tokens 20..29
    memcpy(vs + (20 + k) * C, v + 20 * C, 10 * C * sizeof(float));
    ops->token_mix_forward(o, v, W, NULL, 1, T, C);
    ops->token_mix_forward(os, vs, W, NULL, 1, T, C);
    double worst = 0;
    for (int i = k; i < T; i++)
        for (int ch = 0; ch < C; ch++) worst = fmax(worst, fabs(os[i * C + ch] - o[(i - k) * C + ch]));
    test_check("toeplitz 1d: shifting the input by 9 tokens shifts the output by 9", toeplitz && worst < 1e-6, "max |diff| %.3g", worst);
    free(v); free(vs); free(o); free(os);
    model_free(&m);

    // 2D over a 4x4 grid with cls: W depends only on the 2D offset of two patches.
    c = base_config(), c.image_size = 16, SGU(c)->toeplitz = 2, c.depth = 1;
    model_create(&m, &c, ops, 1, 5);
    test_model_perturb(&m, 0.1f, 6);
    test_model_fill_batch(&m, labels, 1, 7);
    model_forward(&m, 1, 0, (rng_addr){0});
    W = act(&m, "blocks.0.sgu.spatial.W");
    T = m.T;
    int g = m.grid, same = 1, distinct = 0;
    for (int i = 1; i < T; i++)
        for (int j = 1; j < T; j++)
            for (int i2 = 1; i2 < T; i2++)
                for (int j2 = 1; j2 < T; j2++) {
                    int dr = (i - 1) / g - (j - 1) / g, dc = (i - 1) % g - (j - 1) % g;
                    int dr2 = (i2 - 1) / g - (j2 - 1) / g, dc2 = (i2 - 1) % g - (j2 - 1) % g;
                    if (dr == dr2 && dc == dc2) same &= W[i * T + j] == W[i2 * T + j2];
                    else distinct += W[i * T + j] != W[i2 * T + j2];
                }
    test_check("toeplitz 2d: W of two patches depends only on their 2D offset", same && distinct > 0,
               "grid %dx%d, %d pairs with other offsets differ", g, g, distinct);
    model_free(&m);
}

// A constant patch block of W resamples to the constant times N0/N; cls -> cls, patch -> cls
// stay, cls -> patch is rescaled like the keys; b resamples to the same constants.
static void test_resampling(void) {
    model_config c = base_config();
    c.depth = 1, c.max_image_size = 12;
    model m;
    model_create(&m, &c, ops, 1, 5);
    float *W = param(&m, "blocks.0.sgu.spatial.weight"), *b = param(&m, "blocks.0.sgu.spatial.bias");
    int T0 = m.T0;
    for (int i = 0; i < T0; i++)
        for (int j = 0; j < T0; j++) W[i * T0 + j] = i == 0 && j == 0 ? 5.0f : i == 0 ? 2.0f : j == 0 ? 3.0f : 0.25f;
    for (int i = 0; i < T0; i++) b[i] = i == 0 ? 7.0f : 0.5f;
    model_set_resolution(&m, 12);
    int32_t labels[1];
    test_model_fill_batch(&m, labels, 1, 3);
    model_forward(&m, 1, 0, (rng_addr){0});
    const float *W2 = act(&m, "blocks.0.sgu.spatial.W"), *b2 = act(&m, "blocks.0.sgu.spatial.b");
    int T = m.T;
    double scale = 4.0 / 9.0, worst = 0;
    for (int i = 0; i < T; i++) {
        for (int j = 0; j < T; j++) {
            double want = i == 0 && j == 0 ? 5.0 : i == 0 ? 2.0 * scale : j == 0 ? 3.0 : 0.25 * scale;
            worst = fmax(worst, fabs(W2[i * T + j] - want));
        }
        worst = fmax(worst, fabs(b2[i] - (i == 0 ? 7.0 : 0.5)));
    }
    test_check("resampling 2x2 -> 3x3: constant W -> constant * N0/N, cls entries kept, b resampled", worst < 1e-6,
               "max |diff| %.3g", worst);
    model_free(&m);

    // Round trip: a model with room for 16 px, taken to 16 and back to 8, gives the logits of
    // a model built for 8 px only, bit for bit (dense and Toeplitz).
    for (int toeplitz = 0; toeplitz <= 2; toeplitz += 2) {
        model_config small = base_config(), big = base_config();
        SGU(small)->toeplitz = SGU(big)->toeplitz = toeplitz;
        big.max_image_size = 16;
        model a, bm;
        model_create(&a, &small, ops, 2, 7);
        model_create(&bm, &big, ops, 2, 7);
        test_model_perturb(&a, 0.1f, 8);
        memcpy(bm.param, a.param, a.params.total * sizeof(float));
        int32_t l2[2];
        model_set_resolution(&bm, 16);
        test_model_fill_batch(&bm, l2, 2, 9);
        model_forward(&bm, 2, 0, (rng_addr){0});
        model_set_resolution(&bm, 8);
        test_model_fill_batch(&bm, l2, 2, 10);
        test_model_fill_batch(&a, l2, 2, 10);
        float la[10];
        memcpy(la, model_forward(&a, 2, 0, (rng_addr){0}), sizeof la);
        const float *lb = model_forward(&bm, 2, 0, (rng_addr){0});
        char name[128];
        snprintf(name, sizeof name, "%s W: 8 px -> 16 px -> 8 px gives the logits of an 8 px model bit for bit",
                 toeplitz ? "toeplitz" : "dense");
        test_check(name, memcmp(la, lb, sizeof la) == 0, "first logit %g vs %g", la[0], lb[0]);
        model_free(&a);
        model_free(&bm);
    }
}

// ---------------------------------------------------------------- refusals
static void expect_refusal(const char *name, model_config c, const char *a, const char *b) {
    const char *why = model_config_error(&c);
    test_check(name, why && strstr(why, a) && (!b || strstr(why, b)), "%s", why ? why : "(accepted)");
}

static void test_refusals(void) {
    model_config c = base_config();
    test_check("gmlp and amlp configs accepted", model_config_error(&c) == NULL, "gmlp");
    c.request.context_tokens = 3;
    expect_refusal("gmlp refuses MP3 (W is position-specific)", c, "objective.name=mp3", "position-specific");
    c.arch = "amlp";
    expect_refusal("amlp refuses MP3", c, "model.arch=amlp", "objective.name=mp3");
    c = base_config(), test_model_set_pe(&c, "rope", "pe.rope_dims=2", NULL);
    expect_refusal("gmlp refuses pe.kind=rope", c, "pe.kind=rope", "none, abs, sin1d, sin2d, cape");
    c.pe_kind = "relbias";
    expect_refusal("gmlp refuses pe.kind=relbias", c, "pe.kind=relbias", "attention");
    c = base_config(), c.dim = 15, c.mlp_ratio = 1, c.heads = 3;
    expect_refusal("gmlp refuses an odd d_ffn", c, "model.mlp_ratio*model.dim", "even");
    c = base_config(), c.arch = "amlp", SGU(c)->tiny_attn_dim = 0;
    expect_refusal("amlp refuses tiny_attn_dim 0", c, "model.tiny_attn_dim", NULL);
}

// ---------------------------------------------------------------- PyTorch oracle
#define scalar test_tf_scalar

static void oracle_case(const char *dir, const char *label, model_config cfg, int B, float smoothing) {
    model m;
    model_create(&m, &cfg, ops, B, 3);
    test_model_perturb(&m, 0.1f, 50);
    supervised obj;
    supervised_create(&obj, ops, B, cfg.num_classes, smoothing);
    int32_t *labels = xmalloc((size_t)B * sizeof(int32_t), "labels");
    test_model_fill_batch(&m, labels, B, 51);
    model_ctx c = {&m, &obj, labels, B, 0};
    model_grads(&c);
    float loss = (float)model_loss(&c);
    tensorfile tf;
    tf_init(&tf);
    test_model_dump_shape(&tf, &cfg);
    scalar(&tf, "config.pos_abs", !strcmp(cfg.pe_kind, "abs"));
    scalar(&tf, "config.sin2d", !strcmp(cfg.pe_kind, "sin2d"));
    scalar(&tf, "config.arch", !strcmp(cfg.arch, "amlp") ? 2 : 1);
    scalar(&tf, "config.tiny_attn_dim", !strcmp(cfg.arch, "amlp") ? SGU(cfg)->tiny_attn_dim : 0);
    scalar(&tf, "config.sgu_toeplitz", SGU(cfg)->toeplitz);
    scalar(&tf, "config.num_classes", cfg.num_classes);
    scalar(&tf, "config.label_smoothing", smoothing);
    int idims[4] = {B, cfg.channels, cfg.image_size, cfg.image_size}, ldims[1] = {B};
    tf_add(&tf, "input.images", TF_F32, 4, idims, model_images(&m));
    tf_add(&tf, "input.labels", TF_I32, 1, ldims, labels);
    char name[160];
    for (int i = 0; i < m.params.count; i++) {
        const tensor_info *info = &m.params.items[i];
        snprintf(name, sizeof name, "param.%s", info->name);
        tf_add(&tf, name, TF_F32, info->ndim, info->shape, m.param + info->offset);
        snprintf(name, sizeof name, "grad.%s", info->name);
        tf_add(&tf, name, TF_F32, info->ndim, info->shape, m.grad + info->offset);
    }
    int one[1] = {1}, lg[2] = {B, cfg.num_classes};
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    tf_add(&tf, "output.logits", TF_F32, 2, lg, model_forward(&m, B, 0, model_loss_rng));
    test_python_check(dir, "tests/torch_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    free(labels);
    supervised_free(&obj);
    model_free(&m);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-gmlp-oracle.XXXXXX";
    if (!test_torch_dir("oracle gmlp", dir)) return;
    model_config g = {.arch = "gmlp", .channels = 3, .image_size = 8, .patch = 2, .dim = 24, .depth = 2, .heads = 3,
                      .mlp_ratio = 2, .cls = 1, .pe_kind = "none", .num_classes = 7};
    SGU(g)->tiny_attn_dim = 16;
    oracle_case(dir, "gmlp-cls", g, 4, 0.1f);
    model_config t1 = g, t2 = g, a = g, at = g;
    SGU(t1)->toeplitz = 1, t1.cls = 0, t1.pe_kind = "abs";
    oracle_case(dir, "gmlp-meanpool-abs-toeplitz1d", t1, 3, 0.0f);
    SGU(t2)->toeplitz = 2;
    oracle_case(dir, "gmlp-cls-toeplitz2d", t2, 3, 0.1f);
    a.arch = "amlp";
    oracle_case(dir, "amlp-cls", a, 3, 0.1f);
    at.arch = "amlp", SGU(at)->toeplitz = 2, at.pe_kind = "sin2d";
    oracle_case(dir, "amlp-cls-sin2d-toeplitz2d", at, 3, 0.1f);
    test_torch_dir_remove(dir); // runs the queued checks first
}

int main(void) {
    posbench_set_threads(2);
    test_token_mix();
    test_gate();
    test_model_gradients();
    test_init_is_ffn();
    test_toeplitz();
    test_resampling();
    test_refusals();
    test_ablations();
    test_torch_oracle();
    return test_exit_code();
}
