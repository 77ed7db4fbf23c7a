// tests/test_guarded.c — the guarded CPU backend (core/cpu/ops_cpu_guarded.c, `--device
// cpu-guarded`): a host read or write of its memory outside an op dies by SIGSEGV with a message
// naming the arena (checked in a child process); its memory calls round-trip and start zeroed;
// and whole models give bit-identical logits and gradients to ops_cpu: a supervised ViT with
// relbias, dropout and drop path in training, and an MP3 model with masked attention over a
// context, RoPE and a position head. The trainer and the smoke experiments run through it in
// tests/e2e_reproduce.sh and tests/e2e_cape.sh.
#include "testing.h"
#include "model_testing.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../models/model.h"
#include "../objectives/supervised/supervised.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Reads (*write 0) or writes a guarded arena from the host: dies by SIGSEGV.
static void touch(void *write) {
    float *p = ops_cpu_guarded.alloc(4096, "test arena");
    if (*(const int *)write) p[3] = 1.0f;
    else {
        volatile float x = p[3];
        (void)x;
    }
}

// Runs touch(write) in a child; returns 1 when the child died by SIGSEGV and its stderr names
// the arena and the byte.
static int child_faults(int write, char *err, size_t len) {
    int status = test_child_stderr(touch, &write, err, len);
    return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV && strstr(err, "'test arena' at byte 12") != NULL;
}

static void test_faults(void) {
    char err[4096];
    int ok = child_faults(0, err, sizeof err);
    test_check("guarded: a host read of backend memory dies by SIGSEGV naming the arena", ok, "%.120s", err);
    ok = child_faults(1, err, sizeof err);
    test_check("guarded: a host write of backend memory dies by SIGSEGV naming the arena", ok, "%.120s", err);
}

static void test_memory(void) {
    const ops_backend *g = &ops_cpu_guarded;
    enum { N = 3000 };
    float *a = g->alloc(N * sizeof(float), "a"), *b = g->alloc(N * sizeof(float), "b");
    float host[N], back[N];
    g->download(back, a, sizeof back);
    int zeroed = 1;
    for (int i = 0; i < N; i++) zeroed &= back[i] == 0.0f;
    test_fill_uniform(host, N, -1, 1, 1);
    g->upload(a, host, sizeof host);
    g->copy(b + 10, a + 10, (N - 10) * sizeof(float));
    g->zero(b, 10);
    g->download(back, b, sizeof back);
    int same = !memcmp(back + 10, host + 10, (N - 10) * sizeof(float));
    for (int i = 0; i < 10; i++) same &= back[i] == 0.0f;
    double s = g->sum(a, N), want = ops_cpu.sum(host, N);
    test_check("guarded: alloc zeroed, upload / copy / zero / download round trip, sum", zeroed && same && s == want,
               "zeroed %d, round trip %d, sum %.9g vs %.9g", zeroed, same, s, want);
    g->free(a);
    g->free(b);
}

// One training step's forward and backward of cfg on ops_cpu and on the guarded backend from
// the same images, parameters and dlogits; 1 when logits and every gradient are bit-identical.
static int same_step(const char *label, model_config cfg, int B, int training, int context) {
    model cpu, guarded;
    model_create(&cpu, &cfg, &ops_cpu, B, 7);
    model_create(&guarded, &cfg, &ops_cpu_guarded, B, 7);
    size_t n_img = (size_t)B * cfg.channels * cfg.image_size * cfg.image_size;
    test_fill_uniform(model_images(&cpu), n_img, -1, 1, 2);
    memcpy(model_images(&guarded), model_images(&cpu), n_img * sizeof(float));
    if (context) { // cls and every other patch
        int M = 1 + (cpu.T - 1) / 2;
        for (int b = 0; b < B; b++)
            for (int k = 0; k < M; k++) model_context(&cpu)[b * M + k] = model_context(&guarded)[b * M + k] = k == 0 ? 0 : 2 * k - 1;
        model_set_context(&cpu, M);
        model_set_context(&guarded, M);
    }
    rng_addr rng = {.seed = 3, .epoch = 1, .step = 4};
    const float *lc = model_forward(&cpu, B, training, rng), *lg = model_forward(&guarded, B, training, rng);
    size_t n_logits = cfg.request.token_head ? (size_t)B * cpu.T * cpu.N : (size_t)B * cfg.num_classes;
    float *logits = xmalloc(n_logits * sizeof(float), "logits"), *dlogits = xmalloc(n_logits * sizeof(float), "dlogits");
    guarded.ops->download(logits, lg, n_logits * sizeof(float));
    int ok = !memcmp(logits, lc, n_logits * sizeof(float));
    test_fill_uniform(dlogits, n_logits, -0.1f, 0.1f, 3);
    model_zero_act_grads(&cpu);
    model_zero_act_grads(&guarded);
    memcpy(model_dlogits(&cpu), dlogits, n_logits * sizeof(float));
    guarded.ops->upload(model_dlogits(&guarded), dlogits, n_logits * sizeof(float));
    model_backward(&cpu, B);
    model_backward(&guarded, B);
    size_t n_param = cpu.params.total;
    float *grads = xmalloc(n_param * sizeof(float), "gradients");
    guarded.ops->download(grads, guarded.grad, n_param * sizeof(float));
    int grads_same = !memcmp(grads, cpu.grad, n_param * sizeof(float));
    double norm = ops_cpu.sum_squares(cpu.grad, n_param);
    test_check(label, ok && grads_same && norm > 0, "logits %s, %zu gradient floats %s (|g|² %.3g)", ok ? "identical" : "DIFFER",
               n_param, grads_same ? "identical" : "DIFFER", norm);
    free(logits);
    free(dlogits);
    free(grads);
    model_free(&cpu);
    model_free(&guarded);
    return ok && grads_same;
}

int main(void) {
    posbench_set_threads(2);
    test_faults();
    test_memory();
    model_config sup = {.channels = 1, .image_size = 12, .patch = 4, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "relbias", .num_classes = 5, .dropout = 0.1f, .drop_path = 0.2f};
    same_step("guarded = cpu: supervised ViT, relbias, dropout and drop path in training", sup, 3, 1, 0);
    model_config cape = sup;
    test_model_set_pe(&cape, "cape", NULL); // the keys' defaults: shifts 0.5 and 1/grid, scale 1.4
    cape.cls = 0;
    same_step("guarded = cpu: mean-pooled ViT, CAPE positions drawn in training", cape, 3, 1, 0);
    model_config mp3 = {.channels = 1, .image_size = 16, .patch = 4, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .num_classes = 5, .request.token_head = 1,
                        .request.head_name = "pos_head", .request.context_tokens = 9};
    test_model_set_pe(&mp3, "rope", "pe.rope_dims=2", NULL);
    same_step("guarded = cpu: MP3 masked attention over a context, RoPE 2D, position head", mp3, 2, 1, 1);
    return test_exit_code();
}
