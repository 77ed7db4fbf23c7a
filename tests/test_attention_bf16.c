// tests/test_attention_bf16.c — attention on bf16 storage (attention_forward_bf16,
// attention_backward_bf16; tests/attention_bf16_cases.c) on the CPU and guarded backends:
//  - on bf16-exact q/k/v and output gradient, the bf16 ops equal their fp32 twins under
//    MATMUL_BF16 (output and input gradient rounded once, the gradient from zero) bit for bit,
//    saved state included, for T in {1, 7, 64, 65} (an 8x8 grid without and with a cls token),
//    head sizes 32 and 64, GVP's group mask, and kept probabilities; dqkv16 is written over
//    garbage, never accumulated;
//  - cpu-guarded = cpu bit for bit;
//  - the bf16 backward is the gradient of the bf16 forward: Σ out·g's gradient against central
//    differences of the fp32 op (MATMUL_FP32, no rounding) on the widened inputs, within a
//    stated bf16 tolerance;
//  - the ops refuse a kv_index or a bias (exit 1, naming the op).
#include "attention_bf16_cases.h"
#include "testing.h"
#include "../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const attention_bf16_case cases[] = {
    {2, 1, 2, 32, ATTN_MASK_NONE, 0, 100},  {2, 7, 2, 32, ATTN_MASK_NONE, 0, 110},
    {2, 65, 2, 32, ATTN_MASK_NONE, 0, 120}, {1, 64, 2, 32, ATTN_MASK_NONE, 0, 130},
    {2, 1, 2, 64, ATTN_MASK_NONE, 0, 140},  {2, 7, 2, 64, ATTN_MASK_NONE, 0, 150},
    {2, 65, 2, 64, ATTN_MASK_NONE, 0, 160}, {1, 64, 2, 64, ATTN_MASK_NONE, 0, 170},
    {2, 7, 2, 32, ATTN_MASK_LT, 0, 180},    {2, 7, 2, 32, ATTN_MASK_NONE, 1, 190},
};

static void exact_rule(void) {
    const ops_backend *backends[2] = {&ops_cpu, &ops_cpu_guarded};
    const char *labels[2] = {"cpu", "cpu-guarded"};
    char name[240], why[200];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const attention_bf16_case *c = &cases[k];
        char shape[120];
        snprintf(shape, sizeof shape, "B %d, T %d, H %d, hs %d%s%s", c->B, c->T, c->H, c->hs,
                 c->mask_mode ? ", group mask LT" : "", c->keep_probs ? ", keep_probs 1" : "");
        attention_bf16_outputs cpu = attention_bf16_run(&ops_cpu, c, 0);
        for (int b = 0; b < 2; b++) {
            attention_bf16_outputs twin = attention_bf16_run(backends[b], c, 1);
            attention_bf16_outputs got = b == 0 ? cpu : attention_bf16_run(backends[b], c, 0);
            size_t bad = attention_bf16_compare(&got, &twin, -1, 0, why, sizeof why);
            snprintf(name, sizeof name, "%s: attention_forward/backward_bf16 = bf16(fp32 attention under bf16), bit for bit (%s)",
                     labels[b], shape);
            test_check(name, bad == 0, "%s", why);
            if (b == 1) {
                bad = attention_bf16_compare(&got, &cpu, -1, 0, why, sizeof why);
                snprintf(name, sizeof name, "cpu-guarded = cpu bit for bit: attention bf16 ops (%s)", shape);
                test_check(name, bad == 0, "%s", why);
                attention_bf16_outputs_free(&got);
            }
            attention_bf16_outputs_free(&twin);
        }
        attention_bf16_outputs_free(&cpu);
    }
}

// L(qkv) = Σ out·g (double) of the fp32 op under MATMUL_FP32 (no rounding points).
static double loss_fp32(const float *qkv, const float *g, const attention_desc *d, float *out, float *probs) {
    ops_cpu.attention_forward(out, probs, qkv, d);
    double s = 0;
    for (size_t i = 0; i < (size_t)d->B * d->T * d->C; i++) s += (double)out[i] * g[i];
    return s;
}

static void gradient_check(void) {
    const int B = 2, T = 7, H = 2, hs = 32, C = H * hs;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C, n_probs = (size_t)B * H * T * T;
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = T};
    float *qkv = test_rnd(n_qkv, -1.0f, 1.0f, 900), *g = test_rnd(n_out, -1.0f, 1.0f, 901);
    bfloat16 *qkv16 = xmalloc(n_qkv * 2, "qkv16"), *g16 = xmalloc(n_out * 2, "g16");
    for (size_t i = 0; i < n_qkv; i++) qkv16[i] = bf16_from_float(qkv[i]), qkv[i] = bf16_to_float(qkv16[i]);
    for (size_t i = 0; i < n_out; i++) g16[i] = bf16_from_float(g[i]), g[i] = bf16_to_float(g16[i]);
    bfloat16 *out16 = xmalloc(n_out * 2, "out16"), *dqkv16 = xmalloc(n_qkv * 2, "dqkv16");
    float *probs = xmalloc(n_probs * 4, "probs"), *out = xmalloc(n_out * 4, "out");
    ops_cpu.set_matmul_precision(MATMUL_BF16);
    ops_cpu.attention_forward_bf16(out16, probs, qkv16, &d);
    ops_cpu.attention_backward_bf16(dqkv16, g16, qkv16, out16, probs, &d);
    ops_cpu.set_matmul_precision(MATMUL_FP32);
    // Every 7th element of q, k and v; h = 1e-2 (the loss is smooth; fp32 noise / h stays ~1e-5).
    const float h = 1e-2f;
    double worst = 0, largest = 0;
    int checked = 0;
    for (size_t e = 3; e < n_qkv; e += 7) {
        float keep = qkv[e];
        qkv[e] = keep + h;
        double lp = loss_fp32(qkv, g, &d, out, probs);
        qkv[e] = keep - h;
        double lm = loss_fp32(qkv, g, &d, out, probs);
        qkv[e] = keep;
        double fd = (lp - lm) / (2.0 * h), an = bf16_to_float(dqkv16[e]);
        worst = fmax(worst, fabs(an - fd));
        largest = fmax(largest, fabs(fd));
        checked++;
    }
    // bf16 rounds q, k, v (exact here), P, dS, dout (exact) and dqkv: a few 2^-9 relative steps
    // of terms of the gradient's size; measured 0.26% of the largest gradient here, so 1% leaves a 4x margin.
    double tol = 0.01 * largest;
    test_check("attention_backward_bf16 = the gradient of the fp32 attention (central differences, h 1e-2) within 1% of the largest",
               worst <= tol && largest > 0, "%d elements, worst |analytic - numeric| %.3g, largest gradient %.3g, tolerance %.3g",
               checked, worst, largest, tol);
    free(qkv), free(g), free(qkv16), free(g16), free(out16), free(dqkv16), free(probs), free(out);
}

typedef struct {
    int with_bias;
} refuse_ctx;

static void call_refused(void *p) {
    const refuse_ctx *r = p;
    const int B = 1, T = 3, C = 4, H = 1;
    static int kv[3] = {0, 1, 2};
    static float bias[9];
    bfloat16 qkv16[36] = {0}, out16[12];
    float probs[9];
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = T};
    if (r->with_bias) d.bias = bias;
    else d.kv_index = kv;
    ops_cpu.attention_forward_bf16(out16, probs, qkv16, &d);
}

static void refusals(void) {
    char err[600];
    for (int b = 0; b < 2; b++) {
        refuse_ctx r = {b};
        int st = test_child_stderr(call_refused, &r, err, sizeof err);
        int rc = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        const char *want = b ? "takes no bias" : "takes no kv_index";
        char name[160];
        snprintf(name, sizeof name, "attention_forward_bf16 refuses a %s (exit 1, naming the op)", b ? "bias" : "kv_index");
        test_check(name, rc == 1 && strstr(err, "attention_forward_bf16") && strstr(err, want), "exit %d: %.200s", rc, err);
    }
}

int main(void) {
    refusals(); // first: the children fork before OpenMP starts its pool
    exact_rule();
    gradient_check();
    return test_exit_code();
}
