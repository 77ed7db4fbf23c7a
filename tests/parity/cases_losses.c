// tests/parity/cases_losses.c — parity cases of the losses (core/cpu/losses_cpu.c,
// core/cuda/losses_cuda.cu): softmax cross entropy with label smoothing and ignored rows (their
// loss 0 and gradient untouched), MSE, and SimCLR's NT-Xent (N = 2·37 views of D = 45; 2·300
// views, more than a block of threads). The kernels sum in the CPU's order, so only expf / log
// differ: PARITY_EW; NT-Xent's forward and backward bitwise run to run.
#include "parity.h"

// p: N, K
static void softmax_xent_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], K = p[1];
    size_t n = (size_t)N * K;
    int *target = pr_host(r, (size_t)N * sizeof(int));
    for (int i = 0; i < N; i++) target[i] = i % 5 == 3 ? -1 : (i * 7919) % K; // some rows ignored
    float *logits = pr_in(r, n, -8, 8), *dl = pr_in(r, n, -1, 1);
    int *t = pr_in_ints(r, target, (size_t)N);
    float *loss = pr_buf(r, (size_t)N * sizeof(float)), *probs = pr_buf(r, n * sizeof(float));
    o->softmax_xent_forward(loss, probs, logits, t, N, K, 0.1f);
    o->softmax_xent_backward(dl, probs, t, N, K, 0.1f, 1.0f / N);
    pr_out(r, "probs", probs, n, PARITY_EW);
    pr_out(r, "loss, ignored rows 0", loss, N, PARITY_EW);
    pr_out(r, "dlogits +=, ignored rows untouched", dl, n, PARITY_EW);
}

static void mse_case(parity_run *r, const int *p) {
    int N = p[0], D = p[1];
    size_t n = (size_t)N * D;
    float *pred = pr_in(r, n, -1, 1), *target = pr_in(r, n, -1, 1), *dpred = pr_in(r, n, -1, 1);
    float *loss = pr_buf(r, (size_t)N * sizeof(float));
    pr_ops(r)->mse_forward(loss, pred, target, N, D);
    pr_ops(r)->mse_backward(dpred, pred, target, N, D, 1.0f / N);
    pr_out(r, "loss", loss, N, PARITY_EW);
    pr_out(r, "dpred +=", dpred, n, PARITY_EW);
}

// p: N, D, tau·100
static void ntxent_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], D = p[1];
    float tau = (float)p[2] / 100.0f;
    size_t nz = (size_t)N * D, np = (size_t)N * N;
    float *z = pr_in(r, nz, -1, 1), *dz = pr_in(r, nz, -1, 1);
    float *zn = pr_buf(r, nz * sizeof(float)), *probs = pr_buf(r, np * sizeof(float));
    float *loss = pr_buf(r, (size_t)N * sizeof(float));
    o->ntxent_forward(loss, zn, probs, z, N, D, tau);
    o->ntxent_backward(dz, z, zn, probs, N, D, tau, 1.0f / N);
    pr_out(r, "normalised rows", zn, nz, PARITY_EW);
    pr_out(r, "softmax over the other views", probs, np, PARITY_EW);
    pr_out(r, "per-view loss", loss, N, PARITY_EW);
    pr_out(r, "dz +=", dz, nz, PARITY_EW);
}

const parity_case parity_cases_losses[] = {
    {"softmax_xent_forward softmax_xent_backward", "37x19, smoothing 0.1", softmax_xent_case, {37, 19}, .repeat = 0},
    {"softmax_xent_forward softmax_xent_backward", "37x1000, smoothing 0.1", softmax_xent_case, {37, 1000}, .repeat = 0},
    {"mse_forward mse_backward", "37x589", mse_case, {37, 589}, .repeat = 0},
    {"ntxent_forward ntxent_backward", "N 74, D 45, tau 0.1", ntxent_case, {74, 45, 10}, .repeat = 1},
    {"ntxent_forward ntxent_backward", "N 600, D 64, tau 0.5", ntxent_case, {600, 64, 50}, .repeat = 1},
};
const int parity_cases_losses_count = (int)(sizeof parity_cases_losses / sizeof parity_cases_losses[0]);
