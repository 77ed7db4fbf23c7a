// tests/test_arena_plan.c — `posbench bench --arena-only` (bench/perf/arena_plan.c): the arena
// predicted from the tensor tables equals, byte for byte, the arena one timed step measures on
// the CPU backend (ops memory_peak), for the CI ViT at fp32 and at bf16 with bf16 activations and
// for the small MP3 step (masked attention, the objective's own buffers) at fp32 and at bf16 with
// bf16 activations, which free the bytes counted here by hand; the parts add up to the
// total; the CUDA rules change only the attention state, to the sizes core/ops_list.h states
// (B·H·T per layer for the fused route, ⌈B·H·T·ld / 2⌉ for the materialised bf16 one), and add
// route A's workspace where that route serves (not under --attention cudnn with the library
// counted as loaded: the lse, as the fused route); train.recompute=gelu saves (depth - 1)·B·T·hd bf16
// values of activations and nothing else; all computed here by hand for the CI config.
#include "testing.h"
#include "../bench/perf/arena_plan.h"
#include "../bench/perf/perf.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <stdio.h>

#define CI "vit-d64-L2-p4-28px-ci" // d 64, 2 blocks, 2 heads, 28 px, patch 4 (49 patches + cls), batch 32

static size_t parts_sum(const arena_plan *a) {
    return a->params + a->grads + a->adamw + a->acts + a->attn_state + a->act_grads + a->inputs + a->objective +
           a->workspace;
}

static void check_measured(const char *name, int bf16, int bf16_acts, int recompute, const char *label) {
    arena_plan plan;
    size_t measured = 0;
    if (perf_arena_check(name, bf16, bf16_acts, recompute, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &plan, &measured) != 0) {
        test_fail(label, "%s is not a bench config", name);
        return;
    }
    test_check(label, plan.total == measured && measured > 0,
               "predicted %zu bytes, a timed step on the CPU measured %zu (difference %+lld)", plan.total, measured,
               (long long)plan.total - (long long)measured);
    test_check("arena plan: the parts add up to the total", parts_sum(&plan) == plan.total, "%s: parts %zu, total %zu",
               name, parts_sum(&plan), plan.total);
}

int main(void) {
    check_measured(CI, 0, 0, 0, "arena plan: " CI " fp32 predicted = measured on the CPU (bytes)");
    check_measured(CI, 1, 1, 0, "arena plan: " CI " bf16 + bf16 activations predicted = measured on the CPU (bytes)");
    check_measured(CI, 1, 1, 1, "arena plan: " CI " bf16 activations + recompute gelu predicted = measured on the CPU (bytes)");
    check_measured("mp3-d64-L2-p4-28px-e75", 0, 0, 0, "arena plan: the small MP3 step predicted = measured on the CPU (bytes)");
    check_measured("mp3-d64-L2-p4-28px-e75", 1, 1, 0,
                   "arena plan: the small MP3 step, bf16 + bf16 activations, predicted = measured on the CPU (bytes)");

    // MP3's masked blocks under bf16 activations (the compact layout), by hand: B 32, T 50, d 64,
    // hidden 128, 2 blocks, M = 1 + round(0.25·49) = 13 context tokens. Each block halves LN1, q
    // (B, T, d) with the context's k|v (B, M, 2d), the attention output, proj's output, LN2, the
    // hidden and GELU: (5·B·T·d + 2·B·M·d + 2·B·T·hd) / 2 floats; the shared packed qkv (B, T, 3d)
    // goes (3·B·T·d) and the shared LN1 context halves (B·M·d / 2). The one set of activation
    // gradients halves LN1, the attention output, LN2, the hidden and GELU (the attention output's
    // gradient was fp32 with fp32 masked attention), loses the shared (B, T, 3d) qkv, q (B, T, d)
    // and k|v (B, M, 2d) gradients and gains the block's bf16 dq|dk|v ((B·T·d + 2·B·M·d) / 2):
    // 5·B·T·d + B·T·hd + B·M·d floats.
    arena_plan m32, m16;
    perf_arena_check("mp3-d64-L2-p4-28px-e75", 1, 0, 0, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &m32, NULL);
    perf_arena_check("mp3-d64-L2-p4-28px-e75", 1, 1, 0, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &m16, NULL);
    const size_t mB = 32, mT = 50, md = 64, mhd = 128, mM = 13, mL = 2;
    const size_t BTd = mB * mT * md, BThd = mB * mT * mhd, BMd = mB * mM * md;
    const size_t mp3_acts = (mL * (5 * BTd + 2 * BMd + 2 * BThd) / 2 + 3 * BTd + BMd / 2) * 4;
    const size_t mp3_grads = (5 * BTd + BThd + BMd) * 4;
    test_check("arena plan: MP3 bf16 activations (compact q, k|v) free (L·(5·BTd + 2·BMd + 2·BThd)/2 + 3·BTd + BMd/2)·4 "
               "activation and (5·BTd + BThd + BMd)·4 gradient bytes",
               m32.acts - m16.acts == mp3_acts && m32.act_grads - m16.act_grads == mp3_grads &&
                   m32.total - m16.total == mp3_acts + mp3_grads,
               "activations %zu -> %zu (expected -%zu), gradients %zu -> %zu (expected -%zu), total %zu -> %zu", m32.acts,
               m16.acts, mp3_acts, m32.act_grads, m16.act_grads, mp3_grads, m32.total, m16.total);

    // bf16 activations shrink the activation arena (the linear layers' inputs in half the bytes)
    arena_plan f32, b16;
    perf_arena_check(CI, 0, 0, 0, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &f32, NULL);
    perf_arena_check(CI, 1, 1, 0, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &b16, NULL);
    test_check("arena plan: bf16 activations shrink the activations, parameters unchanged",
               b16.acts < f32.acts && b16.params == f32.params && b16.adamw == 2 * b16.params,
               "fp32 acts %zu, bf16 acts %zu, params %zu / %zu", f32.acts, b16.acts, f32.params, b16.params);

    // train.recompute=gelu: one shared bf16 GELU output (B, T, hd) in place of depth of them, so the
    // activations shrink by (depth - 1)·B·T·hd·2 bytes = 1·32·50·128·2 (d 64, mlp_ratio 2), nothing else moves.
    arena_plan rec, crec, c16auto;
    perf_arena_check(CI, 1, 1, 1, ARENA_RULES_CPU, CUDA_ATTN_AUTO, &rec, NULL);
    const size_t gelu_saved = (size_t)(2 - 1) * 32 * 50 * 128 * 2;
    test_check("arena plan: recompute gelu shrinks the activations by (depth - 1)·B·T·hd bf16 values, nothing else",
               b16.acts - rec.acts == gelu_saved && b16.total - rec.total == gelu_saved && rec.act_grads == b16.act_grads &&
                   rec.attn_state == b16.attn_state,
               "acts %zu -> %zu (saved %zu, expected %zu), total %zu -> %zu", b16.acts, rec.acts, b16.acts - rec.acts,
               gelu_saved, b16.total, rec.total);
    perf_arena_check(CI, 1, 1, 0, ARENA_RULES_CUDA, CUDA_ATTN_AUTO, &c16auto, NULL);
    perf_arena_check(CI, 1, 1, 1, ARENA_RULES_CUDA, CUDA_ATTN_AUTO, &crec, NULL);
    test_check("arena plan: recompute gelu saves the same bytes under the CUDA rules", c16auto.total - crec.total == gelu_saved,
               "cuda total %zu -> %zu, expected a saving of %zu", c16auto.total, crec.total, gelu_saved);

    // Attention state by hand: B 32, H 2, T = M = 50, 2 layers; ld = 56 (50 rounded up to 8).
    const size_t B = 32, H = 2, T = 50, L = 2, ld = 56;
    const size_t cpu_state = B * H * T * T * L * 4, fused_state = B * H * T * L * 4;
    const size_t gemm_state = (B * H * T * ld + 1) / 2 * L * 4;
    test_check("arena plan: CPU attention state = B·H·T·M floats per layer", f32.attn_state == cpu_state,
               "%zu bytes, expected %zu", f32.attn_state, cpu_state);
    arena_plan c32, c16, cfused;
    perf_arena_check(CI, 0, 0, 0, ARENA_RULES_CUDA, CUDA_ATTN_AUTO, &c32, NULL);
    perf_arena_check(CI, 1, 1, 0, ARENA_RULES_CUDA, CUDA_ATTN_AUTO, &c16, NULL);
    perf_arena_check(CI, 1, 1, 0, ARENA_RULES_CUDA, CUDA_ATTN_FUSED, &cfused, NULL);
    test_check("arena plan: CUDA fp32 attention state = B·H·T floats per layer (row log-sum-exp)",
               c32.attn_state == fused_state, "%zu bytes, expected %zu", c32.attn_state, fused_state);
    test_check("arena plan: CUDA bf16 auto attention state = ⌈B·H·T·ld / 2⌉ floats per layer (P16, route A)",
               c16.attn_state == gemm_state, "%zu bytes, expected %zu", c16.attn_state, gemm_state);
    test_check("arena plan: CUDA bf16 --attention fused state = B·H·T floats per layer", cfused.attn_state == fused_state,
               "%zu bytes, expected %zu", cfused.attn_state, fused_state);
    // Route A's backward workspace by hand (core/attention_gemm_layout.h): B·H = 64 pairs, hs 32;
    // bf16 q, k, v, dO heads 64·50·32·2 = 204800 B each, fp32 O/dQ, dK, dV 409600 B each, the fp32
    // (T, ld) matrix 64·50·56·4 = 716800 B and its bf16 copy 358400 B (all multiples of 256).
    const size_t route_a_ws = 4 * 204800 + 3 * 409600 + 716800 + 358400;
    test_check("arena plan: workspace 0 on the CPU (its ops allocate none through the meter), 0 on CUDA's fused route",
               f32.workspace == 0 && b16.workspace == 0 && c32.workspace == 0 && cfused.workspace == 0,
               "cpu fp32 %zu, cpu bf16 %zu, cuda fp32 %zu, cuda fused %zu", f32.workspace, b16.workspace, c32.workspace,
               cfused.workspace);
    test_check("arena plan: CUDA bf16 auto workspace = route A's backward workspace", c16.workspace == route_a_ws,
               "%zu bytes, expected %zu", c16.workspace, route_a_ws);
    // --attention cudnn, the library counted as loaded: the ViT's plain attention is what cuDNN can
    // express (hs 32), so the state is the row lse (the fused kernels', a shape's fallback) and
    // no route-A workspace is planned: the plan equals --attention fused's.
    arena_plan ccudnn;
    perf_arena_check(CI, 1, 1, 0, ARENA_RULES_CUDA, CUDA_ATTN_CUDNN, &ccudnn, NULL);
    test_check("arena plan: CUDA bf16 --attention cudnn (loaded) state = B·H·T floats per layer, no route-A workspace",
               ccudnn.attn_state == fused_state && ccudnn.workspace == 0 && ccudnn.total == cfused.total,
               "state %zu bytes (expected %zu), workspace %zu, total %zu (fused %zu)", ccudnn.attn_state, fused_state,
               ccudnn.workspace, ccudnn.total, cfused.total);
    test_check("arena plan: the CUDA rules change only the attention state and the workspace",
               c32.total - c32.attn_state - c32.workspace == f32.total - f32.attn_state &&
                   c16.total - c16.attn_state - c16.workspace == b16.total - b16.attn_state,
               "fp32: cpu %zu vs cuda %zu without them; bf16: %zu vs %zu", f32.total - f32.attn_state,
               c32.total - c32.attn_state - c32.workspace, b16.total - b16.attn_state,
               c16.total - c16.attn_state - c16.workspace);
    return test_exit_code();
}
