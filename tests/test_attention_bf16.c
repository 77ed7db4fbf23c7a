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
// The compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16: q16 (B, T, C), kv16
// (B, M, 2C), MP3 under train.activations=bf16), for T in {1, 7, 65}, M < T (M = T for T = 1), head
// sizes 32 and 64, kept probabilities too:
//  - equal bit for bit (output, saved state, dq16, dkv16 written over garbage) to the fp32 masked
//    attention under MATMUL_BF16 on a packed qkv whose drawn context rows kv_index[b][m] hold the
//    same keys (the other rows' k|v channels are garbage it must not read), outputs rounded once;
//  - cpu-guarded = cpu bit for bit;
//  - its backward against central differences of the fp32 op (MATMUL_FP32) on the widened inputs;
//  - it refuses a kv_index, a group mask and M > T (exit 1, naming the op).
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

// ---------------------------------------------------------------- the compact layout
typedef struct {
    int B, T, M, H, hs, keep_probs;
    unsigned tag;
} kv_case;

// Host outputs of one run: out16 (B, T, C), dq16 (B, T, C), dkv16 (B, M, 2C), the saved state.
typedef struct {
    size_t n_q, n_kv, n_state;
    bfloat16 *out16, *dq16, *dkv16;
    float *state;
} kv_outputs;

static void *kv_up(const ops_backend *ops, const void *host, size_t bytes) {
    void *d = ops->alloc(bytes, "compact attention test buffer");
    ops->upload(d, host, bytes);
    return d;
}
static void *kv_down(const ops_backend *ops, const void *dev, size_t bytes) {
    void *h = xmalloc(bytes, "compact attention test host buffer");
    ops->download(h, dev, bytes);
    return h;
}
static bfloat16 *kv_round(const float *x, size_t n) {
    bfloat16 *h = xmalloc(n * sizeof(bfloat16), "rounded");
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float(x[i]);
    return h;
}

// The case's inputs: q (B, T, C), kv (B, M, 2C) in ±2 and dout (B, T, C) in ±1, bf16-exact (the bits
// in *16), and a context of M distinct tokens per image (B, M), drawn from the case's tag.
typedef struct {
    float *q, *kv, *dout;
    bfloat16 *q16, *kv16, *dout16;
    int *ctx;
} kv_inputs;

static kv_inputs kv_inputs_of(const kv_case *c) {
    const int B = c->B, T = c->T, M = c->M, C = c->H * c->hs;
    const size_t n_q = (size_t)B * T * C, n_kv = (size_t)B * M * 2 * C;
    kv_inputs in = {test_rnd(n_q, -2.0f, 2.0f, c->tag), test_rnd(n_kv, -2.0f, 2.0f, c->tag + 1),
                    test_rnd(n_q, -1.0f, 1.0f, c->tag + 2), NULL, NULL, NULL, NULL};
    in.q16 = kv_round(in.q, n_q), in.kv16 = kv_round(in.kv, n_kv), in.dout16 = kv_round(in.dout, n_q);
    for (size_t i = 0; i < n_q; i++) in.q[i] = bf16_to_float(in.q16[i]), in.dout[i] = bf16_to_float(in.dout16[i]);
    for (size_t i = 0; i < n_kv; i++) in.kv[i] = bf16_to_float(in.kv16[i]);
    in.ctx = xmalloc((size_t)B * M * sizeof(int), "context");
    float *draw = test_rnd((size_t)B * T, 0.0f, 1.0f, c->tag + 3);
    int *perm = xmalloc((size_t)T * sizeof(int), "permutation");
    for (int b = 0; b < B; b++) { // a drawn permutation's first M tokens (Fisher-Yates)
        for (int t = 0; t < T; t++) perm[t] = t;
        for (int t = T - 1; t > 0; t--) {
            int j = (int)(draw[(size_t)b * T + t] * (float)(t + 1));
            j = j > t ? t : j;
            int x = perm[t];
            perm[t] = perm[j], perm[j] = x;
        }
        memcpy(in.ctx + (size_t)b * M, perm, (size_t)M * sizeof(int));
    }
    free(draw), free(perm);
    return in;
}

static void kv_inputs_free(kv_inputs *in) {
    free(in->q), free(in->kv), free(in->dout), free(in->q16), free(in->kv16), free(in->dout16), free(in->ctx);
}

// The case on ops under MATMUL_BF16: the compact ops (twin 0), or (twin 1) the fp32 masked attention
// on the packed qkv (B, T, 3C) with kv_index = the context, its outputs rounded once.
static kv_outputs kv_run(const ops_backend *ops, const kv_case *c, const kv_inputs *in, int twin) {
    const int B = c->B, T = c->T, M = c->M, H = c->H, C = H * c->hs;
    kv_outputs o = {.n_q = (size_t)B * T * C, .n_kv = (size_t)B * M * 2 * C};
    ops->set_matmul_precision(MATMUL_BF16);
    // the twin's masked attention takes the context as a key subset (kv_index), the compact ops do not
    o.n_state = c->keep_probs ? (size_t)B * H * T * M : ops->attention_state_floats(B, H, T, M, C, twin ? ATTN_USES_KEY_SUBSET : 0);
    float *d_state = ops->alloc(o.n_state * sizeof(float), "state");
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = M, .keep_probs = c->keep_probs};
    if (twin) {
        const size_t n_qkv = 3 * o.n_q;
        float *qkv = test_rnd(n_qkv, -50.0f, 50.0f, c->tag + 4); // garbage in the rows no key reads
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++) memcpy(qkv + ((size_t)b * T + t) * 3 * C, in->q + ((size_t)b * T + t) * C, C * 4);
            for (int m = 0; m < M; m++)
                memcpy(qkv + ((size_t)b * T + in->ctx[b * M + m]) * 3 * C + C, in->kv + ((size_t)b * M + m) * 2 * C, 2 * C * 4);
        }
        int *d_ctx = kv_up(ops, in->ctx, (size_t)B * M * sizeof(int));
        d.kv_index = d_ctx;
        float *d_qkv = kv_up(ops, qkv, n_qkv * 4), *d_dout = kv_up(ops, in->dout, o.n_q * 4);
        float *d_out = ops->alloc(o.n_q * 4, "out"), *d_dqkv = ops->alloc(n_qkv * 4, "dqkv (zeroed)");
        ops->attention_forward(d_out, d_state, d_qkv, &d);
        float *out = kv_down(ops, d_out, o.n_q * 4);
        o.out16 = kv_round(out, o.n_q);
        for (size_t i = 0; i < o.n_q; i++) out[i] = bf16_to_float(o.out16[i]); // the backward reads the rounded output
        ops->upload(d_out, out, o.n_q * 4);
        ops->attention_backward(d_dqkv, NULL, NULL, d_dout, d_qkv, d_out, d_state, &d);
        float *dqkv = kv_down(ops, d_dqkv, n_qkv * 4);
        o.dq16 = xmalloc(o.n_q * 2, "dq16"), o.dkv16 = xmalloc(o.n_kv * 2, "dkv16");
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++)
                for (int ch = 0; ch < C; ch++)
                    o.dq16[((size_t)b * T + t) * C + ch] = bf16_from_float(dqkv[((size_t)b * T + t) * 3 * C + ch]);
            for (int m = 0; m < M; m++)
                for (int ch = 0; ch < 2 * C; ch++)
                    o.dkv16[((size_t)b * M + m) * 2 * C + ch] =
                        bf16_from_float(dqkv[((size_t)b * T + in->ctx[b * M + m]) * 3 * C + C + ch]);
        }
        free(qkv), free(out), free(dqkv);
        ops->free(d_ctx), ops->free(d_qkv), ops->free(d_dout), ops->free(d_out), ops->free(d_dqkv);
    } else {
        bfloat16 *garbage = xmalloc(o.n_kv > o.n_q ? o.n_kv * 2 : o.n_q * 2, "garbage");
        for (size_t i = 0; i < (o.n_kv > o.n_q ? o.n_kv : o.n_q); i++) garbage[i] = 0x7f7f; // an accumulating op would show
        bfloat16 *d_q16 = kv_up(ops, in->q16, o.n_q * 2), *d_kv16 = kv_up(ops, in->kv16, o.n_kv * 2);
        bfloat16 *d_dout16 = kv_up(ops, in->dout16, o.n_q * 2), *d_out16 = ops->alloc(o.n_q * 2, "out16");
        bfloat16 *d_dq16 = kv_up(ops, garbage, o.n_q * 2), *d_dkv16 = kv_up(ops, garbage, o.n_kv * 2);
        ops->attention_kv_forward_bf16(d_out16, d_state, d_q16, d_kv16, &d);
        ops->attention_kv_backward_bf16(d_dq16, d_dkv16, d_dout16, d_q16, d_kv16, d_out16, d_state, &d);
        o.out16 = kv_down(ops, d_out16, o.n_q * 2);
        o.dq16 = kv_down(ops, d_dq16, o.n_q * 2);
        o.dkv16 = kv_down(ops, d_dkv16, o.n_kv * 2);
        free(garbage);
        ops->free(d_q16), ops->free(d_kv16), ops->free(d_dout16), ops->free(d_out16), ops->free(d_dq16), ops->free(d_dkv16);
    }
    o.state = kv_down(ops, d_state, o.n_state * 4);
    ops->free(d_state);
    ops->set_matmul_precision(MATMUL_FP32);
    return o;
}

static void kv_outputs_free(kv_outputs *o) { free(o->out16), free(o->dq16), free(o->dkv16), free(o->state); }

// Elements that differ bit for bit; the first differing output named in why.
static size_t kv_compare(const kv_outputs *a, const kv_outputs *b, char *why, size_t len) {
    double worst = 0;
    size_t bad[4] = {test_bf16_differ(a->out16, b->out16, a->n_q, -1, 0, &worst),
                     test_bf16_differ(a->dq16, b->dq16, a->n_q, -1, 0, &worst),
                     test_bf16_differ(a->dkv16, b->dkv16, a->n_kv, -1, 0, &worst), 0};
    for (size_t i = 0; i < a->n_state; i++) bad[3] += memcmp(&a->state[i], &b->state[i], sizeof(float)) != 0;
    static const char *names[4] = {"out16", "dq16", "dkv16", "saved state"};
    size_t total = 0;
    snprintf(why, len, "every output equal");
    for (int i = 0; i < 4; i++) {
        if (bad[i] && !total) snprintf(why, len, "%s: %zu of its elements differ", names[i], bad[i]);
        total += bad[i];
    }
    return total;
}

static const kv_case kv_cases[] = {
    {2, 1, 1, 2, 32, 0, 300},  {2, 7, 3, 2, 32, 0, 310},  {2, 65, 17, 2, 32, 0, 320}, {2, 1, 1, 2, 64, 0, 330},
    {2, 7, 2, 2, 64, 0, 340},  {2, 65, 49, 2, 64, 0, 350}, {2, 7, 7, 2, 32, 0, 360},  {2, 65, 17, 2, 32, 1, 370},
};

static void kv_exact_rule(void) {
    char name[240], why[200];
    for (size_t k = 0; k < sizeof kv_cases / sizeof kv_cases[0]; k++) {
        const kv_case *c = &kv_cases[k];
        char shape[120];
        snprintf(shape, sizeof shape, "B %d, T %d, M %d, H %d, hs %d%s", c->B, c->T, c->M, c->H, c->hs,
                 c->keep_probs ? ", keep_probs 1" : "");
        kv_inputs in = kv_inputs_of(c);
        kv_outputs twin = kv_run(&ops_cpu, c, &in, 1), cpu = kv_run(&ops_cpu, c, &in, 0);
        kv_outputs guarded = kv_run(&ops_cpu_guarded, c, &in, 0);
        size_t bad = kv_compare(&cpu, &twin, why, sizeof why);
        snprintf(name, sizeof name,
                 "cpu: attention_kv_forward/backward_bf16 = bf16(fp32 masked attention on the packed context rows), bit for bit (%s)",
                 shape);
        test_check(name, bad == 0, "%s", why);
        bad = kv_compare(&guarded, &cpu, why, sizeof why);
        snprintf(name, sizeof name, "cpu-guarded = cpu bit for bit: attention_kv bf16 ops (%s)", shape);
        test_check(name, bad == 0, "%s", why);
        kv_outputs_free(&twin), kv_outputs_free(&cpu), kv_outputs_free(&guarded);
        kv_inputs_free(&in);
    }
}

// Σ out·g of the fp32 masked attention (MATMUL_FP32) on q and kv packed with kv_index = 0..M-1.
static double kv_loss_fp32(const float *q, const float *kv, const float *g, const attention_desc *d, float *qkv, float *out,
                           float *probs) {
    const int B = d->B, T = d->T, M = d->M, C = d->C;
    memset(qkv, 0, (size_t)B * T * 3 * C * sizeof(float));
    int *idx = xmalloc((size_t)B * M * sizeof(int), "identity");
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) memcpy(qkv + ((size_t)b * T + t) * 3 * C, q + ((size_t)b * T + t) * C, C * 4);
        for (int m = 0; m < M; m++) {
            memcpy(qkv + ((size_t)b * T + m) * 3 * C + C, kv + ((size_t)b * M + m) * 2 * C, 2 * C * 4);
            idx[b * M + m] = m;
        }
    }
    attention_desc p = *d;
    p.kv_index = idx;
    ops_cpu.attention_forward(out, probs, qkv, &p);
    free(idx);
    double s = 0;
    for (size_t i = 0; i < (size_t)B * T * C; i++) s += (double)out[i] * g[i];
    return s;
}

static void kv_gradient_check(void) {
    const kv_case c = {2, 7, 3, 2, 32, 0, 400};
    const int B = c.B, T = c.T, M = c.M, H = c.H, C = H * c.hs;
    kv_inputs in = kv_inputs_of(&c);
    kv_outputs an = kv_run(&ops_cpu, &c, &in, 0);
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = M};
    float *qkv = xmalloc((size_t)B * T * 3 * C * 4, "qkv"), *out = xmalloc(an.n_q * 4, "out");
    float *probs = xmalloc((size_t)B * H * T * M * 4, "probs");
    const float h = 1e-2f;
    double worst = 0, largest = 0;
    int checked = 0;
    for (int which = 0; which < 2; which++) { // every 7th element of q, then of k|v
        float *x = which ? in.kv : in.q;
        const bfloat16 *grad = which ? an.dkv16 : an.dq16;
        size_t n = which ? an.n_kv : an.n_q;
        for (size_t e = 3; e < n; e += 7) {
            float keep = x[e];
            x[e] = keep + h;
            double lp = kv_loss_fp32(in.q, in.kv, in.dout, &d, qkv, out, probs);
            x[e] = keep - h;
            double lm = kv_loss_fp32(in.q, in.kv, in.dout, &d, qkv, out, probs);
            x[e] = keep;
            double fd = (lp - lm) / (2.0 * h), g = bf16_to_float(grad[e]);
            worst = fmax(worst, fabs(g - fd));
            largest = fmax(largest, fabs(fd));
            checked++;
        }
    }
    // the same bf16 rounding points as the packed op's check above: 1% of the largest gradient
    double tol = 0.01 * largest;
    test_check("attention_kv_backward_bf16 = the gradient of the fp32 masked attention (central differences, h 1e-2) "
               "within 1% of the largest",
               worst <= tol && largest > 0, "%d elements of q and k|v, worst |analytic - numeric| %.3g, largest gradient %.3g, "
               "tolerance %.3g", checked, worst, largest, tol);
    free(qkv), free(out), free(probs);
    kv_outputs_free(&an), kv_inputs_free(&in);
}

typedef struct {
    int what; // 0 a kv_index, 1 a group mask, 2 M > T
} kv_refuse_ctx;

static void kv_call_refused(void *p) {
    const kv_refuse_ctx *r = p;
    static int kv[3] = {0, 1, 2}, group[3] = {0, 1, 2};
    bfloat16 q16[12] = {0}, kv16[32] = {0}, out16[12];
    float probs[16];
    attention_desc d = {.B = 1, .T = 3, .C = 4, .H = 1, .M = 2};
    if (r->what == 0) d.kv_index = kv;
    if (r->what == 1) d.group = group, d.mask_mode = ATTN_MASK_LT;
    if (r->what == 2) d.M = 4;
    ops_cpu.attention_kv_forward_bf16(out16, probs, q16, kv16, &d);
}

static void kv_refusals(void) {
    static const char *const wants[3] = {"takes no kv_index", "takes no group mask", "must be in [1, T=3]"};
    static const char *const labels[3] = {"a kv_index", "a group mask", "M > T"};
    char err[600], name[160];
    for (int w = 0; w < 3; w++) {
        kv_refuse_ctx r = {w};
        int st = test_child_stderr(kv_call_refused, &r, err, sizeof err);
        int rc = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        snprintf(name, sizeof name, "attention_kv_forward_bf16 refuses %s (exit 1, naming the op)", labels[w]);
        test_check(name, rc == 1 && strstr(err, "attention_kv_forward_bf16") && strstr(err, wants[w]), "exit %d: %.200s", rc,
                   err);
    }
}

int main(void) {
    refusals(); // first: the children fork before OpenMP starts its pool
    kv_refusals();
    exact_rule();
    gradient_check();
    kv_exact_rule();
    kv_gradient_check();
    return test_exit_code();
}
