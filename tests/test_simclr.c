// tests/test_simclr.c — SimCLR (objectives/simclr/): the NT-Xent ops (core/ops_list.h
// ntxent_forward / ntxent_backward) against central finite differences and their contract
// (each row a softmax over the other views, the loss -log of the positive's share); ReLU; the
// PyTorch oracle (tests/simclr_oracle.py) for the loss and its gradient on fixed embeddings and
// for the projection head + loss through a whole training step of the objective (its own views
// of a synthetic dataset, the backbone, g, NT-Xent, the backward); a gradient check of every
// parameter through that step; the step's determinism (same address, same bits) and the
// refusals of config_error, each naming its key.
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../core/tensorfile.h"
#include "../models/model.h"
#include "../objectives/objective.h"
#include "../objectives/simclr/simclr.h"
#include "../objectives/simclr/projection.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ops_backend *cpu = &ops_cpu;

// ---------------------------------------------------------------- the ops
typedef struct {
    int N, D;
    float tau, scale;
    float *z, *zn, *probs, *loss;
} ntxent_case;

static ntxent_case ntxent_make(int N, int D, float tau, unsigned tag) {
    ntxent_case c = {.N = N, .D = D, .tau = tau, .scale = 1.0f / (float)N};
    c.z = test_rnd((size_t)N * D, -1, 1, tag);
    c.zn = test_zeros((size_t)N * D), c.probs = test_zeros((size_t)N * N), c.loss = test_zeros((size_t)N);
    return c;
}

static void ntxent_free(ntxent_case *c) { free(c->z), free(c->zn), free(c->probs), free(c->loss); }

static double ntxent_loss(void *p) { // scale · Σ_i loss_i
    ntxent_case *c = p;
    cpu->ntxent_forward(c->loss, c->zn, c->probs, c->z, c->N, c->D, c->tau);
    double s = 0.0;
    for (int i = 0; i < c->N; i++) s += c->loss[i];
    return c->scale * s;
}

static void test_ntxent_gradcheck(int N, int D, float tau, unsigned tag) {
    ntxent_case c = ntxent_make(N, D, tau, tag);
    float *g = test_zeros((size_t)N * D);
    ntxent_loss(&c);
    cpu->ntxent_backward(g, c.z, c.zn, c.probs, N, D, tau, c.scale);
    char name[128];
    snprintf(name, sizeof name, "ntxent backward = finite differences (N %d, D %d, tau %g)", N, D, tau);
    gradcheck(name, &c, ntxent_loss, c.z, g, (size_t)N * D, (gradcheck_tol){1e-3, 1e-4, 1e-2, 256});
    // accumulation: a second backward (from the unperturbed forward again) adds the same
    ntxent_loss(&c);
    float *g2 = test_zeros((size_t)N * D);
    for (size_t i = 0; i < (size_t)N * D; i++) g2[i] = g[i];
    cpu->ntxent_backward(g2, c.z, c.zn, c.probs, N, D, tau, c.scale);
    double worst = 0.0;
    for (size_t i = 0; i < (size_t)N * D; i++) worst = fmax(worst, fabs(g2[i] - 2.0 * g[i]));
    snprintf(name, sizeof name, "ntxent backward accumulates (N %d, D %d)", N, D);
    test_check(name, worst <= 1e-6, "max |g2 - 2g| = %.3g", worst);
    free(g), free(g2);
    ntxent_free(&c);
}

// Each row of probs: 0 on the diagonal, a distribution over the others, and loss = -log of
// the positive's share; zn unit rows.
static void test_ntxent_contract(void) {
    int N = 10, D = 7;
    ntxent_case c = ntxent_make(N, D, 0.2f, 31);
    ntxent_loss(&c);
    double worst_sum = 0.0, worst_loss = 0.0, worst_norm = 0.0, diag = 0.0;
    for (int i = 0; i < N; i++) {
        double s = 0.0, nn = 0.0;
        for (int k = 0; k < N; k++) s += c.probs[(size_t)i * N + k];
        for (int d = 0; d < D; d++) nn += (double)c.zn[(size_t)i * D + d] * c.zn[(size_t)i * D + d];
        diag = fmax(diag, fabs(c.probs[(size_t)i * N + i]));
        worst_sum = fmax(worst_sum, fabs(s - 1.0));
        worst_norm = fmax(worst_norm, fabs(sqrt(nn) - 1.0));
        worst_loss = fmax(worst_loss, fabs(c.loss[i] + log(c.probs[(size_t)i * N + (i + N / 2) % N])));
    }
    test_check("ntxent rows: probs sum to 1 over k != i, 0 on the diagonal", worst_sum <= 1e-6 && diag == 0.0,
               "max |row sum - 1| %.3g, max |diagonal| %g", worst_sum, diag);
    test_check("ntxent loss = -log probs[i][(i + N/2) mod N]", worst_loss <= 1e-5, "max error %.3g", worst_loss);
    test_check("ntxent zn rows have unit norm", worst_norm <= 1e-6, "max |norm - 1| %.3g", worst_norm);
    // Identical views of well-separated images: the positive takes nearly all the mass.
    for (int i = 0; i < N; i++)
        for (int d = 0; d < D; d++) c.z[(size_t)i * D + d] = (d == (i % (N / 2)) % D) ? 3.0f : 0.0f;
    double mean = ntxent_loss(&c);
    // rows i and i + N/2 are the same one-hot; others differ unless (i mod N/2) collide mod D (N/2 = 5 <= D = 7: none)
    test_check("ntxent of identical positive pairs, orthogonal negatives: log(1 + (N-2) e^{-1/tau})",
               fabs(mean - log(1.0 + (N - 2) * exp(-1.0 / 0.2))) <= 1e-5, "loss %.8f expected %.8f", mean,
               log(1.0 + (N - 2) * exp(-1.0 / 0.2)));
    ntxent_free(&c);
}

static void test_relu(void) {
    size_t n = 1001;
    float *x = test_rnd(n, -1, 1, 41), *y = test_zeros(n), *dy = test_rnd(n, -1, 1, 42), *dx = test_rnd(n, -1, 1, 43);
    float *dx0 = test_zeros(n);
    memcpy(dx0, dx, n * sizeof(float));
    x[7] = NAN, x[8] = -0.0f; // a NaN stays NaN (torch.relu): a ReLU that made it 0 hid a poisoned model from the loss
    cpu->relu_forward(y, x, n);
    cpu->relu_backward(dx, dy, x, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 7) continue;
        bad += memcmp(&y[i], &(float){x[i] > 0 ? x[i] : 0.0f}, sizeof(float)) != 0; // bits: -0 gives +0
        bad += dx[i] != (x[i] > 0 ? dx0[i] + dy[i] : dx0[i]);
    }
    test_check("relu forward max(x, 0); backward adds dout where x > 0", bad == 0, "%d wrong of %zu", bad, 2 * n);
    test_check("relu keeps a NaN (no gradient through it)", isnan(y[7]) && dx[7] == dx0[7], "relu(NaN) = %g, dx %g (was %g)",
               y[7], dx[7], dx0[7]);
    free(x), free(y), free(dy), free(dx), free(dx0);
}

// ---------------------------------------------------------------- the objective's step
static dataset synthetic(int n, int C, int S, unsigned tag) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = n, ds.channels = C, ds.height = S, ds.width = S, ds.num_classes = 10;
    size_t row = (size_t)C * S * S;
    ds.pixels = xmalloc((size_t)n * row, "test pixels");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "test labels");
    rng_stream s = rng_stream_make(tag, RNG_TEST, 0, 0, 7);
    for (size_t i = 0; i < (size_t)n * row; i++) ds.pixels[i] = (uint8_t)rng_below(&s, 256);
    for (int i = 0; i < n; i++) ds.labels[i] = i % 10;
    for (int c = 0; c < 3; c++) ds.mean[c] = 0.3f, ds.std[c] = 0.35f;
    return ds;
}

typedef struct {
    objective_case oc;
    dataset ds;
    int idx[8];
    objective_batch batch;
} step_case;

static objective_settings simclr_settings_of(double tau, int pool_mean) {
    objective_settings s;
    memset(&s, 0, sizeof s);
    s.name = "simclr", s.pe_kind = "abs", s.cls = !pool_mean, s.batch = 4, s.train_size = 12, s.patch = 3;
    simclr_settings *own = OBJECTIVE_OWN(&s, simclr_settings);
    own->temperature = tau, own->color_strength = 0.5, own->hidden_dim = 12, own->proj_dim = 6;
    own->pool = pool_mean ? SIMCLR_POOL_MEAN : SIMCLR_POOL_CLS;
    return s;
}

static void step_create(step_case *c, double tau) {
    objective_settings s = simclr_settings_of(tau, 0);
    const int B = 4;
    objective_case_create(&c->oc, &objective_simclr, &s, "abs", B, 2 * B); // its model has cls: simclr.pool=cls
    c->ds = synthetic(16, 1, 12, 5);
    for (int b = 0; b < B; b++) c->idx[b] = 3 * b + 1;
    c->batch = (objective_batch){.data = &c->ds, .indices = c->idx, .B = B, .rng = objective_case_rng};
}

static void step_free(step_case *c) {
    objective_case_free(&c->oc);
    free(c->ds.pixels), free(c->ds.labels);
}

static double step_run(step_case *c) { // zeroed gradients, then the objective's step
    model *m = &c->oc.m;
    cpu->zero(m->grad, m->params.total);
    return c->oc.o.kind->train_views(&c->oc.o, &c->batch);
}

static double step_loss(void *p) { return step_run(p); }

static const float *param_of(const model *m, const float *arena, const char *name) {
    int i = tensor_table_find(&m->params, name);
    if (i < 0) die_fail("internal: no parameter %s", name);
    return arena + m->params.items[i].offset;
}

static void add_param(tensorfile *tf, const char *key, const model *m, const float *arena, const char *name) {
    int i = tensor_table_find(&m->params, name);
    const tensor_info *info = &m->params.items[i];
    tf_add(tf, key, TF_F32, info->ndim, info->shape, param_of(m, arena, name));
}

static void test_step_oracle(const char *dir, double tau) {
    step_case c;
    step_create(&c, tau);
    model *m = &c.oc.m;
    float loss = (float)step_run(&c);
    int N = 2 * c.batch.B, d = m->cfg.dim, P = 6;
    tensorfile tf;
    tf_init(&tf);
    test_tf_scalar(&tf, "config.tau", tau);
    int fd[2] = {N, d}, zd[2] = {N, P}, one[1] = {1};
    tf_add(&tf, "input.f", TF_F32, 2, fd, m->activations.features);
    tf_add(&tf, "grad.f", TF_F32, 2, fd, m->activation_grads.features);
    add_param(&tf, "param.w1", m, m->param, "proj.0.weight");
    add_param(&tf, "param.b1", m, m->param, "proj.0.bias");
    add_param(&tf, "param.w2", m, m->param, "proj.2.weight");
    add_param(&tf, "param.b2", m, m->param, "proj.2.bias");
    add_param(&tf, "grad.w1", m, m->grad, "proj.0.weight");
    add_param(&tf, "grad.b1", m, m->grad, "proj.0.bias");
    add_param(&tf, "grad.w2", m, m->grad, "proj.2.weight");
    add_param(&tf, "grad.b2", m, m->grad, "proj.2.bias");
    tf_add(&tf, "output.z", TF_F32, 2, zd, simclr_projection_forward(m, N)); // the same z again (logits unchanged)
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    char label[64];
    snprintf(label, sizeof label, "head-tau%g", tau);
    test_python_check(dir, "tests/simclr_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    step_free(&c);
}

static void test_loss_oracle(const char *dir, int N, int D, float tau, unsigned tag) {
    ntxent_case c = ntxent_make(N, D, tau, tag);
    float loss = (float)ntxent_loss(&c);
    float *g = test_zeros((size_t)N * D);
    cpu->ntxent_backward(g, c.z, c.zn, c.probs, N, D, tau, c.scale);
    tensorfile tf;
    tf_init(&tf);
    test_tf_scalar(&tf, "config.tau", tau);
    int zd[2] = {N, D}, one[1] = {1};
    tf_add(&tf, "input.z", TF_F32, 2, zd, c.z);
    tf_add(&tf, "grad.z", TF_F32, 2, zd, g);
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    char label[64];
    snprintf(label, sizeof label, "ntxent-N%d-D%d-tau%g", N, D, tau);
    test_python_check(dir, "tests/simclr_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    free(g);
    ntxent_free(&c);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-simclr-oracle.XXXXXX";
    if (!test_torch_dir("oracle simclr", dir)) return;
    test_loss_oracle(dir, 8, 5, 0.1f, 51);
    test_loss_oracle(dir, 16, 32, 0.5f, 52);
    test_step_oracle(dir, 0.1);
    test_step_oracle(dir, 0.5);
    test_torch_dir_remove(dir);
}

// Every parameter's gradient from the step against finite differences of the step's loss.
static void test_step_gradcheck(void) {
    step_case c;
    step_create(&c, 0.5);
    model *m = &c.oc.m;
    step_run(&c);
    float *g = xmalloc(m->params.total * sizeof(float), "analytic gradients");
    memcpy(g, m->grad, m->params.total * sizeof(float));
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        char name[160];
        snprintf(name, sizeof name, "simclr step gradient %s", info->name);
        gradcheck(name, &c, step_loss, m->param + info->offset, g + info->offset, info->numel,
                          (gradcheck_tol){1e-2, 2e-3, 3e-2, 8});
    }
    free(g);
    step_free(&c);
}

// The step at one address gives the same bits twice; another step (other views) another loss.
static void test_step_determinism(void) {
    step_case c;
    step_create(&c, 0.1);
    model *m = &c.oc.m;
    size_t n = m->params.total;
    double l1 = step_run(&c);
    float *g1 = xmalloc(n * sizeof(float), "gradients");
    memcpy(g1, m->grad, n * sizeof(float));
    double l2 = step_run(&c);
    test_check("simclr step: same (seed, epoch, step), same loss and gradient bits",
               l1 == l2 && memcmp(g1, m->grad, n * sizeof(float)) == 0, "loss %.9g then %.9g", l1, l2);
    c.batch.rng.step++;
    double l3 = step_run(&c);
    test_check("simclr step: the next step draws other views", l3 != l1 && isfinite(l3), "loss %.9g vs %.9g", l3, l1);
    test_check("simclr step: loss of the first step near log(2B - 1) at start", fabs(l1 - log(7.0)) < 1.0,
               "loss %.4f, log 7 = %.4f", l1, log(7.0));
    free(g1);
    step_free(&c);
}

static void refusal(const char *name, objective_settings s, const char *key) {
    const char *why = objective_config_error(&s);
    test_check(name, why && strstr(why, key), "%s", why ? why : "(accepted)");
}

static void test_refusals(void) {
    objective_settings ok = simclr_settings_of(0.1, 0);
    const char *why = objective_config_error(&ok);
    test_check("simclr config: the default settings are accepted", why == NULL, "%s", why ? why : "accepted");
    objective_settings s = ok;
    s.cls = 0;
    refusal("simclr config: pool=cls without a cls token refused", s, "simclr.pool");
    s = simclr_settings_of(0.1, 1);
    s.cls = 1;
    refusal("simclr config: pool=mean with a cls token refused", s, "simclr.pool");
    s = simclr_settings_of(0.1, 1);
    why = objective_config_error(&s);
    test_check("simclr config: pool=mean without cls accepted", why == NULL, "%s", why ? why : "accepted");
    s = ok, s.batch = 1;
    refusal("simclr config: train.batch=1 refused", s, "train.batch");
    s = ok, s.text_data = 1, s.data_name = "text";
    refusal("simclr config: text data refused", s, "data.name");
    s = ok, s.data_audio = 1, s.data_name = "speech-commands";
    refusal("simclr config: speech data refused", s, "data.name");
    s = ok, s.ref_fraction = 0.25;
    refusal("simclr config: reference tokens refused", s, "objective.ref_fraction");
    s = ok, s.train_sizes = 2;
    refusal("simclr config: data.resolutions refused", s, "data.resolutions");
}

int main(void) {
    test_refusals();
    test_relu();
    test_ntxent_contract();
    test_ntxent_gradcheck(8, 5, 0.5f, 21);
    test_ntxent_gradcheck(12, 16, 0.1f, 22);
    test_step_determinism();
    test_step_gradcheck();
    test_torch_oracle();
    return test_exit_code();
}
