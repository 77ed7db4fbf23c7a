// tests/attention_bf16_cases.c — the bf16-storage attention ops' outputs for the tests
// (attention_bf16_cases.h).
#include "attention_bf16_cases.h"
#include "attention_cases.h"
#include "testing.h"
#include "../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *up(const ops_backend *ops, const void *host, size_t bytes) {
    void *d = ops->alloc(bytes ? bytes : 1, "attention bf16 test buffer");
    if (bytes) ops->upload(d, host, bytes);
    return d;
}
static void *down(const ops_backend *ops, const void *dev, size_t bytes) {
    void *h = xmalloc(bytes ? bytes : 1, "attention bf16 test host buffer");
    if (bytes) ops->download(h, dev, bytes);
    return h;
}

// x (n) drawn uniform in ±range at tag, rounded to bf16: the stored bits, and x made their exact values.
static bfloat16 *bf16_exact(float *x, size_t n, float range, unsigned tag) {
    test_fill_uniform(x, n, -range, range, tag);
    bfloat16 *h = xmalloc(n * sizeof(bfloat16), "bf16 values");
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float(x[i]), x[i] = bf16_to_float(h[i]);
    return h;
}

static bfloat16 *rounded(const float *x, size_t n) {
    bfloat16 *h = xmalloc(n * sizeof(bfloat16), "rounded outputs");
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float(x[i]);
    return h;
}

attention_bf16_outputs attention_bf16_run(const ops_backend *ops, const attention_bf16_case *c, int use_twins) {
    const int B = c->B, T = c->T, H = c->H, C = c->H * c->hs;
    attention_bf16_outputs o = {.n_out = (size_t)B * T * C, .n_qkv = (size_t)B * T * 3 * C};
    ops->set_matmul_precision(MATMUL_BF16); // before sizing the state (CUDA reads it)
    o.n_state = c->keep_probs ? (size_t)B * H * T * T
                              : ops->attention_state_floats(B, H, T, T, C, c->mask_mode != ATTN_MASK_NONE ? ATTN_USES_GROUP_MASK : 0);
    float *qkv = xmalloc(o.n_qkv * sizeof(float), "test qkv"), *dout = xmalloc(o.n_out * sizeof(float), "test dout");
    bfloat16 *qkv16 = bf16_exact(qkv, o.n_qkv, 2.0f, c->tag), *dout16 = bf16_exact(dout, o.n_out, 1.0f, c->tag + 1);
    attention_case ac = {.B = B, .T = T, .C = C, .H = H, .M = T, .mode = c->mask_mode, .tag = c->tag + 2};
    int *group = c->mask_mode != ATTN_MASK_NONE ? attention_case_groups(&ac, 7u) : NULL;
    int *d_group = group ? up(ops, group, (size_t)B * T * sizeof(int)) : NULL;
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = T, .group = d_group, .mask_mode = c->mask_mode,
                        .keep_probs = c->keep_probs};
    float *d_state = ops->alloc((o.n_state ? o.n_state : 1) * sizeof(float), "attention bf16 test state");
    bfloat16 *garbage = xmalloc(o.n_qkv * sizeof(bfloat16), "garbage");
    for (size_t i = 0; i < o.n_qkv; i++) garbage[i] = 0x7f7f; // large: an accumulating dqkv16 would show
    if (use_twins) {
        float *d_qkv = up(ops, qkv, o.n_qkv * 4), *d_dout = up(ops, dout, o.n_out * 4);
        float *d_out = ops->alloc(o.n_out * 4, "out"), *d_dqkv = ops->alloc(o.n_qkv * 4, "dqkv (zeroed)");
        ops->attention_forward(d_out, d_state, d_qkv, &d);
        // the twin's backward reads the output the bf16 op's backward reads: the rounded one
        float *out = down(ops, d_out, o.n_out * 4);
        o.out16 = rounded(out, o.n_out);
        for (size_t i = 0; i < o.n_out; i++) out[i] = bf16_to_float(o.out16[i]);
        ops->upload(d_out, out, o.n_out * 4);
        ops->attention_backward(d_dqkv, NULL, NULL, d_dout, d_qkv, d_out, d_state, &d);
        float *dqkv = down(ops, d_dqkv, o.n_qkv * 4);
        o.dqkv16 = rounded(dqkv, o.n_qkv);
        free(out), free(dqkv);
        ops->free(d_qkv), ops->free(d_dout), ops->free(d_out), ops->free(d_dqkv);
    } else {
        bfloat16 *d_qkv16 = up(ops, qkv16, o.n_qkv * 2), *d_dout16 = up(ops, dout16, o.n_out * 2);
        bfloat16 *d_out16 = ops->alloc(o.n_out * 2, "out16"), *d_dqkv16 = up(ops, garbage, o.n_qkv * 2);
        ops->attention_forward_bf16(d_out16, d_state, d_qkv16, &d);
        ops->attention_backward_bf16(d_dqkv16, d_dout16, d_qkv16, d_out16, d_state, &d);
        o.out16 = down(ops, d_out16, o.n_out * 2);
        o.dqkv16 = down(ops, d_dqkv16, o.n_qkv * 2);
        ops->free(d_qkv16), ops->free(d_dout16), ops->free(d_out16), ops->free(d_dqkv16);
    }
    o.state = down(ops, d_state, o.n_state * 4);
    ops->set_matmul_precision(MATMUL_FP32);
    ops->free(d_state), ops->free(d_group);
    free(qkv), free(dout), free(qkv16), free(dout16), free(group), free(garbage);
    return o;
}

void attention_bf16_outputs_free(attention_bf16_outputs *o) { free(o->out16), free(o->dqkv16), free(o->state); }

size_t attention_bf16_compare(const attention_bf16_outputs *a, const attention_bf16_outputs *b, double atol, double rtol,
                              char *why, size_t len) {
    double worst = 0;
    size_t bad[3] = {test_bf16_differ(a->out16, b->out16, a->n_out, atol, rtol, &worst),
                     test_bf16_differ(a->dqkv16, b->dqkv16, a->n_qkv, atol, rtol, &worst), 0};
    if (atol < 0) {
        if (a->n_state != b->n_state) bad[2] = a->n_state > b->n_state ? a->n_state : b->n_state;
        else
            for (size_t i = 0; i < a->n_state; i++) bad[2] += memcmp(&a->state[i], &b->state[i], sizeof(float)) != 0;
    }
    static const char *names[3] = {"out16", "dqkv16", "saved state"};
    size_t total = 0;
    snprintf(why, len, "every output equal");
    for (int i = 0; i < 3; i++) {
        if (bad[i] && !total) snprintf(why, len, "%s: %zu differ (worst excess %.3g)", names[i], bad[i], worst);
        total += bad[i];
    }
    return total;
}
