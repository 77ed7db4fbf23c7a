// tests/test_dino.c — DINO (objectives/dino): the PyTorch oracle (tests/dino_oracle.py) for the
// loss with centring and sharpening and its gradient wrt the student outputs, the centre
// update, the collapse diagnostics, the L2 normalisation and the weight norm with its gain
// fixed at 1 (forward and backward), the whole head on a model (its parameters' gradients and
// the backbone's), the EMA update (bitwise in float), the momentum, weight-decay and teacher
// temperature schedules; multi-crop shapes (view set, token counts, staged views); the
// grouped forward/backward of a training step (train_views) against finite differences of the
// whole step's loss; the config refusals, each naming its key.
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include "../datasets/views.h"
#include "../models/model.h"
#include "../objectives/objective.h"
#include "../objectives/dino/dino.h"
#include "../objectives/dino/head.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define scalar test_tf_scalar

static objective_settings settings(int locals, int local_size, float center_momentum) {
    objective_settings s;
    memset(&s, 0, sizeof s);
    s.name = "dino", s.pe_kind = "sin2d", s.data_name = "fashion-mnist";
    s.train_size = 12, s.patch = 3, s.heads = 2, s.cls = 1, s.seed = 3;
    s.steps_per_epoch = 4, s.total_steps = 40;
    dino_settings d = {.hidden_dim = 12, .bottleneck_dim = 6, .out_dim = 10, .local_crops = locals, .local_size = local_size,
                         .freeze_last_layer = 1, .teacher_temp_warmup = 3, .momentum = 0.996f, .student_temp = 0.1f,
                         .teacher_temp = 0.07f, .warmup_teacher_temp = 0.04f, .center_momentum = center_momentum,
                         .weight_decay = 0.04f, .weight_decay_end = 0.4f};
    memcpy(s.own, &d, sizeof d); // bytes into the own area (no aliased stores the copy below could skip)
    return s;
}

static void add(tensorfile *tf, const char *name, const float *x, int d0, int d1) {
    int dims[2] = {d0, d1};
    tf_add(tf, name, TF_F32, d1 > 0 ? 2 : 1, dims, x);
}

// --- the loss, centre and diagnostics (host math) ---
static void oracle_loss(const char *dir, const char *label, int B, int K, int locals, double tau_t, double tau_s, double cm) {
    int V = 2 + locals, pairs = dino_pairs(2, V);
    float *t = test_rnd((size_t)2 * B * K, -3, 3, 1), *c = test_rnd((size_t)K, -0.5f, 0.5f, 2);
    float *s = test_rnd((size_t)V * B * K, -2, 2, 3), *ds = test_zeros((size_t)V * B * K), *q = test_zeros((size_t)2 * B * K);
    float *c_new = xmalloc((size_t)K * sizeof(float), "centre");
    ops_cpu.dino_teacher_probs(q, t, c, 2 * B, K, &tau_t); // the CPU backend's memory is the host's
    double scale = 1.0 / pairs, sums[2] = {0.0, 0.0};
    ops_cpu.dino_loss_group(sums, ds, q, 2, s, 0, 2, B, K, tau_s, scale); // the global group
    for (int first = 2; first < V; first += 2) { // local views two at a time, as the objective runs them
        int n = V - first < 2 ? V - first : 2;
        ops_cpu.dino_loss_group(sums, ds + (size_t)first * B * K, q, 2, s + (size_t)first * B * K, first, n, B, K, tau_s,
                                scale);
    }
    float loss = (float)sums[1];
    memcpy(c_new, c, (size_t)K * sizeof(float));
    ops_cpu.dino_center_update(c_new, t, 2 * B, K, cm);
    double H, KL;
    dino_diagnostics(q, s, 2 * B, K, tau_s, &H, &KL); // the global student views against their own teacher view
    tensorfile tf;
    tf_init(&tf);
    scalar(&tf, "config.case", 1);
    scalar(&tf, "config.B", B), scalar(&tf, "config.views", V), scalar(&tf, "config.tau_t", tau_t);
    scalar(&tf, "config.tau_s", tau_s), scalar(&tf, "config.center_momentum", cm);
    add(&tf, "input.teacher", t, 2 * B, K), add(&tf, "input.center", c, K, 0), add(&tf, "input.student", s, V * B, K);
    add(&tf, "output.loss", &loss, 1, 0), add(&tf, "output.dstudent", ds, V * B, K), add(&tf, "output.center", c_new, K, 0);
    add(&tf, "output.teacher_probs", q, 2 * B, K);
    scalar(&tf, "output.entropy", H), scalar(&tf, "output.kl", KL);
    test_python_check(dir, "tests/dino_oracle.py", "dino oracle", label, &tf);
    tf_free(&tf);
    free(t), free(c), free(s), free(ds), free(q), free(c_new);
}

// --- L2 normalisation and the weight norm (host math) ---
static void oracle_norms(const char *dir) {
    enum { R = 5, P = 7, K = 9 };
    float *x = test_rnd(R * P, -2, 2, 11), *dy = test_rnd(R * P, -1, 1, 12), *y = test_zeros(R * P), *dx = test_zeros(R * P);
    float *v = test_rnd(K * P, -1, 1, 13), *dW = test_rnd(K * P, -1, 1, 14), *W = test_zeros(K * P), *dv = test_zeros(K * P);
    float norms[R], wnorms[K];
    ops_cpu.unit_rows_forward(y, norms, x, R, P, 1); // F.normalize
    ops_cpu.unit_rows_backward(dx, dy, y, norms, R, P);
    ops_cpu.unit_rows_forward(W, wnorms, v, K, P, 0); // the weight norm
    ops_cpu.unit_rows_backward(dv, dW, W, wnorms, K, P);
    tensorfile tf;
    tf_init(&tf);
    scalar(&tf, "config.case", 2);
    add(&tf, "input.x", x, R, P), add(&tf, "input.dy", dy, R, P), add(&tf, "input.v", v, K, P), add(&tf, "input.dW", dW, K, P);
    add(&tf, "output.y", y, R, P), add(&tf, "output.dx", dx, R, P), add(&tf, "output.W", W, K, P), add(&tf, "output.dv", dv, K, P);
    test_python_check(dir, "tests/dino_oracle.py", "dino oracle", "norms", &tf);
    tf_free(&tf);
    free(x), free(dy), free(y), free(dx), free(v), free(dW), free(W), free(dv);
}

// --- the head on a model: forward, and the backward into its parameters and the backbone ---
static void oracle_head(const char *dir) {
    const int B = 3;
    objective_settings s = settings(0, 6, 0.9f);
    objective_case c;
    objective_case_create(&c, &objective_dino, &s, "sin2d", B, 2 * B);
    model *m = &c.m;
    dino_head h;
    dino_head_init(&h, m, B);
    dino_head_weights(&h);
    const float *a0 = model_forward(m, B, 0, objective_case_rng);
    const float *out = dino_head_forward(&h, a0, B);
    int H = h.H, P = h.P, K = h.K;
    float *dout = test_rnd((size_t)B * K, -1, 1, 21);
    ops_cpu.zero(m->grad, m->params.total);
    model_zero_act_grads(m);
    dino_head_zero_dW(&h);
    memcpy(h.dout, dout, (size_t)B * K * sizeof(float)); // the CPU backend's memory is the host's
    dino_head_backward(&h, B);
    const float gate[2] = {1.0f, 1.0f}; // not frozen
    dino_head_finish_dW(&h, gate);
    tensorfile tf;
    tf_init(&tf);
    scalar(&tf, "config.case", 3);
    add(&tf, "input.a0", a0, B, H), add(&tf, "input.dout", dout, B, K);
    add(&tf, "param.w1", m->param + h.w1, H, H), add(&tf, "param.b1", m->param + h.b1, H, 0);
    add(&tf, "param.w2", m->param + h.w2, P, H), add(&tf, "param.b2", m->param + h.b2, P, 0);
    add(&tf, "param.v", m->param + h.v, K, P);
    add(&tf, "output.out", out, B, K), add(&tf, "output.da0", model_dlogits(m), B, H);
    add(&tf, "grad.w1", m->grad + h.w1, H, H), add(&tf, "grad.b1", m->grad + h.b1, H, 0);
    add(&tf, "grad.w2", m->grad + h.w2, P, H), add(&tf, "grad.b2", m->grad + h.b2, P, 0);
    add(&tf, "grad.v", m->grad + h.v, K, P);
    test_python_check(dir, "tests/dino_oracle.py", "dino oracle", "head", &tf);
    tf_free(&tf);
    free(dout);
    dino_head_free(&h);
    objective_case_free(&c);
}

// --- the EMA (CPU backend) and the schedules ---
static void oracle_ema_schedules(const char *dir) {
    enum { N = 1000, STEPS = 7 };
    float *t = test_rnd(N, -1, 1, 31), *s = test_rnd(N, -1, 1, 32), *t0 = xmalloc(N * sizeof(float), "teacher");
    memcpy(t0, t, N * sizeof(float));
    long total = 40;
    double m = dino_cosine(0.996, 1.0, 13, total);
    float coef[2] = {(float)m, (float)(1.0 - m)};
    ops_cpu.ema_update(t, s, N, coef, NULL);
    // schedules at steps 0..total and epochs 0..STEPS-1 (warmup 3 epochs)
    double mom[41], wd[41], temps[STEPS], temps1[STEPS], temps0[STEPS];
    for (long i = 0; i <= total; i++) mom[i] = dino_cosine(0.996, 1.0, i, total), wd[i] = dino_cosine(0.04, 0.4, i, total);
    for (int e = 0; e < STEPS; e++)
        temps[e] = dino_teacher_temp(0.04, 0.07, 3, e), temps1[e] = dino_teacher_temp(0.04, 0.07, 1, e),
        temps0[e] = dino_teacher_temp(0.04, 0.07, 0, e);
    tensorfile tf;
    tf_init(&tf);
    scalar(&tf, "config.case", 4);
    scalar(&tf, "config.momentum", m), scalar(&tf, "config.total", total);
    add(&tf, "input.teacher", t0, N, 0), add(&tf, "input.student", s, N, 0), add(&tf, "output.teacher", t, N, 0);
    int d1[1] = {(int)total + 1}, d2[1] = {STEPS};
    tf_add(&tf, "output.momentum", TF_F64, 1, d1, mom), tf_add(&tf, "output.weight_decay", TF_F64, 1, d1, wd);
    tf_add(&tf, "output.teacher_temp", TF_F64, 1, d2, temps), tf_add(&tf, "output.teacher_temp_w1", TF_F64, 1, d2, temps1);
    tf_add(&tf, "output.teacher_temp_w0", TF_F64, 1, d2, temps0);
    test_python_check(dir, "tests/dino_oracle.py", "dino oracle", "ema-schedules", &tf);
    tf_free(&tf);
    free(t), free(s), free(t0);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-dino-oracle.XXXXXX";
    if (!test_torch_dir("dino oracle", dir)) return;
    oracle_loss(dir, "loss-2global-4local", 3, 10, 4, 0.04, 0.1, 0.9);
    oracle_loss(dir, "loss-2global-3local-warm", 2, 7, 3, 0.07, 0.1, 0.0);
    oracle_loss(dir, "loss-2global-only", 4, 5, 0, 0.05, 0.2, 0.9);
    oracle_norms(dir);
    oracle_head(dir);
    oracle_ema_schedules(dir);
    test_torch_dir_remove(dir);
}

// --- multi-crop shapes ---
static void test_multicrop_shapes(void) {
    view_set vs;
    view_set_dino(&vs, 28, 12, 6);
    int ok = vs.count == 8;
    for (int v = 0; v < vs.count && ok; v++) {
        const view_config *c = &vs.config[v];
        int global = v < 2;
        ok = c->size == (global ? 28 : 12) && c->scale[0] == (global ? 0.4f : 0.05f) && c->scale[1] == (global ? 1.0f : 0.4f);
    }
    test_check("dino multi-crop: 2 global views (28 px, scale 0.4-1) then 6 local ones (12 px, scale 0.05-0.4)", ok,
               "count %d", vs.count);
    objective_settings s = settings(3, 6, 0.9f);
    objective_case c;
    objective_case_create(&c, &objective_dino, &s, "sin2d", 2, 4);
    model *m = &c.m;
    model_set_resolution(m, 6);
    int T_local = m->T, N_local = m->N;
    model_set_resolution(m, 12);
    test_check("dino multi-crop: the same backbone at 12 px (16 patches + cls) and at 6 px (4 patches + cls)",
               m->T == 17 && T_local == 5 && N_local == 4, "T %d at 12 px, T %d N %d at 6 px", m->T, T_local, N_local);
    // staged local views: (B, 1, 6, 6) each, finite, and the floats after them untouched
    dataset ds;
    memset(&ds, 0, sizeof ds);
    uint8_t pixels[8 * 16 * 16];
    for (size_t i = 0; i < sizeof pixels; i++) pixels[i] = (uint8_t)((i * 37 + 11) % 251);
    ds.n = 8, ds.channels = 1, ds.height = ds.width = 16, ds.num_classes = 2, ds.pixels = pixels;
    ds.mean[0] = 0.5f, ds.std[0] = 0.25f;
    view_set set;
    view_set_dino(&set, 12, 6, 3);
    int idx[2] = {3, 5};
    float buf[2 * 36 + 8];
    for (int i = 0; i < 2 * 36 + 8; i++) buf[i] = 1234.5f;
    views_make_batch(&ds, idx, 2, &set, 2, 3, 0, 0, buf, NULL);
    int finite = 1, canary = 1;
    for (int i = 0; i < 72; i++) finite &= isfinite(buf[i]) && buf[i] != 1234.5f;
    for (int i = 72; i < 80; i++) canary &= buf[i] == 1234.5f;
    test_check("dino multi-crop: a local view of B images is (B, C, 6, 6), nothing written past it", finite && canary,
               "finite %d, canary %d", finite, canary);
    objective_case_free(&c);
}

// --- the grouped step against finite differences of the whole step's loss ---
typedef struct {
    objective_case *c;
    objective_batch bt;
} step_case;

static double step_loss(void *p) {
    step_case *sc = p;
    ops_cpu.zero(sc->c->m.grad, sc->c->m.params.total);
    return objective_dino.train_views(&sc->c->o, &sc->bt);
}

static void test_grouped_gradient(void) {
    // centre momentum 1: the centre stays put between the repeated steps of the check
    objective_settings s = settings(3, 6, 1.0f);
    objective_case c;
    objective_case_create(&c, &objective_dino, &s, "sin2d", 2, 4);
    model *m = &c.m;
    dataset ds;
    memset(&ds, 0, sizeof ds);
    uint8_t *pixels = xmalloc(8 * 16 * 16, "pixels");
    for (int i = 0; i < 8 * 16 * 16; i++) pixels[i] = (uint8_t)((i * 37 + 11) % 251);
    ds.n = 8, ds.channels = 1, ds.height = ds.width = 16, ds.num_classes = 2, ds.pixels = pixels;
    ds.mean[0] = 0.5f, ds.std[0] = 0.25f;
    int idx[2] = {1, 6};
    step_case sc = {&c, {.data = &ds, .indices = idx, .B = 2, .rng = {.seed = 3, .epoch = 1, .step = 2}}};
    double loss = step_loss(&sc);
    float *grad = xmalloc(m->params.total * sizeof(float), "grads");
    memcpy(grad, m->grad, m->params.total * sizeof(float));
    test_check("dino step: a finite loss of 2 global + 3 local views", isfinite(loss), "loss %.6f", loss);
    gradcheck_tol tol = {1e-3, 3e-3, 5e-2, 48};
    int failed = 0;
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        char name[160];
        snprintf(name, sizeof name, "dino step (grouped forward/backward) %s", info->name);
        failed += gradcheck(name, &sc, step_loss, m->param + info->offset, grad + info->offset, info->numel, tol) != 0;
    }
    (void)failed;
    // epoch 0 < dino.freeze_last_layer: the prototypes' weights get no gradient, the rest do
    sc.bt.rng.epoch = 0, sc.bt.rng.step = 1;
    step_loss(&sc);
    int v = tensor_table_find(&m->params, "dino_head.last_layer.weight_v"), w = tensor_table_find(&m->params, "dino_head.mlp2.weight");
    double v_sq = ops_cpu.sum_squares(m->grad + m->params.items[v].offset, m->params.items[v].numel);
    double w_sq = ops_cpu.sum_squares(m->grad + m->params.items[w].offset, m->params.items[w].numel);
    test_check("dino: the prototypes' weights frozen during the first dino.freeze_last_layer epochs", v_sq == 0.0 && w_sq > 0.0,
               "epoch 0: |grad v|^2 %g, |grad mlp2.weight|^2 %g", v_sq, w_sq);
    free(grad);
    free(pixels);
    objective_case_free(&c);
}

// --- refusals ---
static void test_refusals(void) {
    objective_settings s = settings(2, 7, 0.9f);
    const char *why = objective_config_error(&s);
    test_check("dino refuses dino.local_size not a multiple of model.patch", why && strstr(why, "dino.local_size=7"), "%s",
               why ? why : "(accepted)");
    s = settings(2, 15, 0.9f);
    why = objective_config_error(&s);
    test_check("dino refuses local crops larger than the training size", why && strstr(why, "dino.local_size=15"), "%s",
               why ? why : "(accepted)");
    s = settings(2, 6, 0.9f);
    s.data_name = "speech-commands", s.data_audio = 1; // as the settings fill them from the dataset registry
    why = objective_config_error(&s);
    test_check("dino refuses data that is not images", why && strstr(why, "data.name=speech-commands"), "%s", why ? why : "(accepted)");
    s = settings(2, 6, 0.9f);
    s.n_eval_sizes = 1;
    why = objective_config_error(&s);
    test_check("dino refuses eval.resolutions", why && strstr(why, "eval.resolutions"), "%s", why ? why : "(accepted)");
    s = settings(2, 6, 0.9f);
    why = objective_config_error(&s);
    test_check("dino accepts its defaults at this size", why == NULL, "%s", why ? why : "ok");
}

// A NaN teacher row: the entropy must be NaN, not 0 (a `p > 0` skip made it 0, which
// dino_collapse_kind reads as a one-hot collapse instead of a NaN model).
static void test_nan_diagnostics(void) {
    enum { K = 4, R = 2 };
    float q[R * K] = {0.25f, 0.25f, 0.25f, 0.25f, NAN, NAN, NAN, NAN}, st[R * K] = {0.1f, 0.2f, 0.3f, 0.4f, 0.1f, 0.2f, 0.3f, 0.4f};
    double H = 0.0, KL = 0.0;
    dino_diagnostics(q, st, R, K, 0.1, &H, &KL);
    test_check("dino diagnostics of a NaN teacher row: entropy and KL NaN", isnan(H) && isnan(KL), "entropy %g KL %g", H, KL);
    dino_diagnostics(q, st, 1, K, 0.1, &H, &KL);
    test_check("dino diagnostics of a uniform teacher row: entropy log K", fabs(H - log((double)K)) < 1e-12, "entropy %.15g vs %.15g", H, log((double)K));
}

int main(void) {
    test_nan_diagnostics();
    test_refusals();
    test_multicrop_shapes();
    test_grouped_gradient();
    test_torch_oracle();
    return test_exit_code();
}
