// tests/test_attention_route.c — the CUDA attention route as a pure function (core/attention_route.c),
// on the CPU: which calls cuDNN can express (plain bf16 attention; a key subset, group mask, bias,
// kept probabilities, fp32 or an odd head size refused, each with its reason), the route of every
// desc variant under each setting (cuDNN only when set, expressible and ready; otherwise the AUTO
// size rule, fp32 fused, keep_probs the probabilities), and the state size each setting reserves
// (under CUDNN large enough for its fallback); the settings by name and which need bf16.
#include "testing.h"
#include "../core/attention_route.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <string.h>

static const int dummy_ints[4] = {0, 1, 2, 3};
static const float dummy_bias[1] = {0.0f};

static attention_desc plain(int B, int T, int C, int H) {
    attention_desc d;
    memset(&d, 0, sizeof d);
    d.B = B, d.T = T, d.C = C, d.H = H, d.M = T;
    return d;
}

static void expressible(void) {
    char why[160];
    attention_desc d = plain(2, 197, 768, 12); // ViT-B/16: hs 64
    int ok = attention_cudnn_expressible(&d, MATMUL_BF16, why, sizeof why);
    test_check("cudnn expressible: plain bf16 attention, hs=64", ok == 1 && why[0] == '\0', "got %d '%s'", ok, why);
    struct { const char *name; int field; const char *want; } refusals[] = {
        {"keep_probs", 0, "keep_probs"}, {"fp32", 1, "fp32"},      {"kv_index", 2, "kv_index"},
        {"group LT", 3, "group mask"},   {"bias", 4, "bias"},        {"hs=12", 5, "head size 12"},
        {"hs=256", 6, "head size 256"},
    };
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++) {
        attention_desc e = plain(2, 65, 128, 2);
        int precision = MATMUL_BF16;
        switch (refusals[k].field) {
        case 0: e.keep_probs = 1; break;
        case 1: precision = MATMUL_FP32; break;
        case 2: e.kv_index = dummy_ints, e.M = 4; break;
        case 3: e.group = dummy_ints, e.mask_mode = ATTN_MASK_LT; break;
        case 4: e.bias = dummy_bias; break;
        case 5: e.C = 24, e.H = 2; break;
        case 6: e.C = 512, e.H = 2; break;
        }
        why[0] = '\0';
        int r = attention_cudnn_expressible(&e, precision, why, sizeof why);
        char name[120];
        snprintf(name, sizeof name, "cudnn refuses %s and says why", refusals[k].name);
        test_check(name, r == 0 && strstr(why, refusals[k].want) != NULL, "got %d '%s' (want '%s')", r, why,
                   refusals[k].want);
    }
    attention_desc hs8 = plain(1, 7, 16, 2), hs128 = plain(1, 7, 256, 2);
    test_check("cudnn expressible: head sizes 8 and 128 (the ends of its range)",
               attention_cudnn_expressible(&hs8, MATMUL_BF16, NULL, 0) &&
                   attention_cudnn_expressible(&hs128, MATMUL_BF16, NULL, 0),
               "hs 8 %d, hs 128 %d", attention_cudnn_expressible(&hs8, MATMUL_BF16, NULL, 0),
               attention_cudnn_expressible(&hs128, MATMUL_BF16, NULL, 0));
}

// One desc variant under every (precision, setting, cuDNN's answer) against the rule written out.
static void routes(void) {
    const int settings[] = {CUDA_ATTN_AUTO, CUDA_ATTN_MATERIALISED, CUDA_ATTN_FUSED, CUDA_ATTN_CUDNN,
                            CUDA_ATTN_MATERIALISED_INPLACE};
    struct { const char *name; attention_desc d; int cudnn_can; } variants[8];
    int nv = 0;
    variants[nv].name = "plain T=197";         variants[nv].d = plain(2, 197, 768, 12); variants[nv++].cudnn_can = 1;
    variants[nv].name = "plain T=2048";        variants[nv].d = plain(1, 2048, 128, 2); variants[nv++].cudnn_can = 1;
    variants[nv].name = "kv subset (MP3)";     variants[nv].d = plain(2, 65, 128, 2);
    variants[nv].d.kv_index = dummy_ints, variants[nv].d.M = 4; variants[nv++].cudnn_can = 0;
    variants[nv].name = "group LE (GVP)";      variants[nv].d = plain(2, 33, 64, 4);
    variants[nv].d.group = dummy_ints, variants[nv].d.mask_mode = ATTN_MASK_LE; variants[nv++].cudnn_can = 0;
    variants[nv].name = "bias (relbias)";      variants[nv].d = plain(2, 50, 64, 2);
    variants[nv].d.bias = dummy_bias; variants[nv++].cudnn_can = 0;
    variants[nv].name = "keep_probs";          variants[nv].d = plain(2, 17, 32, 4);
    variants[nv].d.keep_probs = 1; variants[nv++].cudnn_can = 0;
    variants[nv].name = "hs=20";               variants[nv].d = plain(2, 65, 40, 2); variants[nv++].cudnn_can = 0;
    int bad = 0, cases = 0;
    char first[200] = "";
    for (int v = 0; v < nv; v++)
        for (int precision = MATMUL_FP32; precision <= MATMUL_BF16; precision++)
            for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++)
                for (int ok = ATTN_CUDNN_ABSENT; ok <= ATTN_CUDNN_NO_GRAPH; ok++) {
                    const attention_desc *d = &variants[v].d;
                    attention_route want;
                    int small = d->T <= 1024 && d->M <= 1024;
                    if (d->keep_probs) want = ATTN_ROUTE_PROBS;
                    else if (precision == MATMUL_FP32) want = ATTN_ROUTE_FUSED;
                    else if (settings[s] == CUDA_ATTN_CUDNN && ok == ATTN_CUDNN_READY && variants[v].cudnn_can) want = ATTN_ROUTE_CUDNN;
                    // loaded without a graph for the shape: the fused kernels (the state was sized for the lse)
                    else if (settings[s] == CUDA_ATTN_CUDNN && ok == ATTN_CUDNN_NO_GRAPH && variants[v].cudnn_can) want = ATTN_ROUTE_FUSED;
                    else if (settings[s] == CUDA_ATTN_FUSED) want = ATTN_ROUTE_FUSED;
                    else if (settings[s] == CUDA_ATTN_MATERIALISED || settings[s] == CUDA_ATTN_MATERIALISED_INPLACE)
                        want = ATTN_ROUTE_MATERIALISED;
                    else want = small ? ATTN_ROUTE_MATERIALISED : ATTN_ROUTE_FUSED;
                    attention_route got = attention_route_for(d, precision, settings[s], ok);
                    cases++;
                    if (got != want) {
                        if (!bad++)
                            snprintf(first, sizeof first, "%s, %s, setting %d, cudnn %d: %s (want %s)", variants[v].name,
                                     precision ? "bf16" : "fp32", settings[s], ok, attention_route_name(got),
                                     attention_route_name(want));
                    }
                }
    test_check("attention route of 7 desc variants x fp32/bf16 x 5 settings x cudnn absent, ready or without a graph", bad == 0,
               "%d of %d cases wrong; first: %s", bad, cases, first);
    // The rule without a desc (what a model sizes its state on) is the desc's rule, option for option.
    int same = 1;
    char uses_detail[200] = "";
    for (int v = 0; v < nv; v++) {
        const attention_desc *d = &variants[v].d;
        for (int precision = MATMUL_FP32; precision <= MATMUL_BF16; precision++) {
            int by_desc = attention_cudnn_expressible(d, precision, NULL, 0);
            int by_uses = !d->keep_probs && attention_cudnn_expressible_uses(attention_desc_uses(d), d->C, d->H, precision, NULL, 0);
            if (by_desc != by_uses && same) {
                same = 0;
                snprintf(uses_detail, sizeof uses_detail, "%s %s: by desc %d, by its uses %#x %d", variants[v].name,
                         precision ? "bf16" : "fp32", by_desc, attention_desc_uses(d), by_uses);
            }
        }
    }
    const attention_desc *kv = &variants[2].d, *gr = &variants[3].d, *bi = &variants[4].d;
    int flags = attention_desc_uses(&variants[0].d) == 0 && attention_desc_uses(kv) == ATTN_USES_KEY_SUBSET &&
                attention_desc_uses(gr) == ATTN_USES_GROUP_MASK && attention_desc_uses(bi) == ATTN_USES_BIAS;
    test_check("attention_desc_uses names each option, and cuDNN's rule on those options is its rule on the desc", same && flags,
               "flags %d; %s", flags, uses_detail);
    attention_desc vit = plain(128, 197, 768, 12);
    test_check("cudnn route: ViT-B/16 bf16 under CUDNN with the library -> cudnn, without -> materialised, loaded "
               "without a graph for the shape -> fused",
               attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_READY) == ATTN_ROUTE_CUDNN &&
                   attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_ABSENT) == ATTN_ROUTE_MATERIALISED &&
                   attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_NO_GRAPH) == ATTN_ROUTE_FUSED &&
                   attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_AUTO, ATTN_CUDNN_READY) == ATTN_ROUTE_MATERIALISED,
               "with %s, without %s, no graph %s, auto %s",
               attention_route_name(attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_READY)),
               attention_route_name(attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_ABSENT)),
               attention_route_name(attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_CUDNN, ATTN_CUDNN_NO_GRAPH)),
               attention_route_name(attention_route_for(&vit, MATMUL_BF16, CUDA_ATTN_AUTO, ATTN_CUDNN_READY)));
}

static void state_sizes(void) {
    // P16's rows are padded to a multiple of 8 keys (route A's 16-byte rows): 197 -> 200, 1 -> 8
    const size_t lse = (size_t)2 * 3 * 197, p16 = ((size_t)2 * 3 * 197 * 200 + 1) / 2;
    const size_t lse1 = (size_t)4 * 2 * 9, p16_1 = ((size_t)4 * 2 * 9 * 8 + 1) / 2; // M = 1: P16 (8 keys a row) > lse
    struct { const char *what; size_t got, want; } c[] = {
        {"fp32 auto", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_FP32, CUDA_ATTN_AUTO, 0), lse},
        {"fp32 cudnn", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_FP32, CUDA_ATTN_CUDNN, 0), lse},
        {"bf16 auto T=197", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_BF16, CUDA_ATTN_AUTO, 0), p16},
        {"bf16 auto T=2048", attention_route_state_floats(1, 1, 2048, 2048, 64, 0, MATMUL_BF16, CUDA_ATTN_AUTO, 0), 2048},
        {"bf16 materialised T=2048", attention_route_state_floats(1, 1, 2048, 2048, 64, 0, MATMUL_BF16, CUDA_ATTN_MATERIALISED, 0),
         (size_t)2048 * 2048 / 2},
        {"bf16 materialised-inplace T=2048 (P16, as materialised)",
         attention_route_state_floats(1, 1, 2048, 2048, 64, 0, MATMUL_BF16, CUDA_ATTN_MATERIALISED_INPLACE, 0), (size_t)2048 * 2048 / 2},
        {"fp32 materialised-inplace (lse)", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_FP32, CUDA_ATTN_MATERIALISED_INPLACE, 0),
         lse},
        {"bf16 fused", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_BF16, CUDA_ATTN_FUSED, 0), lse},
        {"bf16 cudnn T=197 (fallback P16)", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 0), p16},
        {"bf16 cudnn T=2048 (lse)", attention_route_state_floats(1, 1, 2048, 2048, 64, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 0), 2048},
        {"bf16 cudnn M=1 (the larger: padded P16)", attention_route_state_floats(4, 2, 9, 1, 128, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 0),
         p16_1 > lse1 ? p16_1 : lse1},
        {"bf16 auto M=1", attention_route_state_floats(4, 2, 9, 1, 128, 0, MATMUL_BF16, CUDA_ATTN_AUTO, 0), p16_1},
        // cuDNN loaded: the calls it can express keep only the row lse (a shape without a graph takes
        // the fused kernels, whose state it also is); calls it cannot express keep room for the AUTO rule
        {"bf16 cudnn loaded T=197 (lse)", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 1), lse},
        {"bf16 cudnn loaded, key subset (P16)",
         attention_route_state_floats(2, 3, 197, 197, 192, ATTN_USES_KEY_SUBSET, MATMUL_BF16, CUDA_ATTN_CUDNN, 1), p16},
        {"bf16 cudnn loaded, group mask (P16)",
         attention_route_state_floats(2, 3, 197, 197, 192, ATTN_USES_GROUP_MASK, MATMUL_BF16, CUDA_ATTN_CUDNN, 1), p16},
        {"bf16 cudnn loaded, bias (P16)", attention_route_state_floats(2, 3, 197, 197, 192, ATTN_USES_BIAS, MATMUL_BF16, CUDA_ATTN_CUDNN, 1),
         p16},
        {"bf16 cudnn loaded, hs 12 (P16)", attention_route_state_floats(2, 3, 197, 197, 36, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 1), p16},
        {"bf16 cudnn loaded M=1 (lse)", attention_route_state_floats(4, 2, 9, 1, 128, 0, MATMUL_BF16, CUDA_ATTN_CUDNN, 1), lse1},
        {"bf16 auto, cudnn loaded (P16: only the cudnn setting reads it)",
         attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_BF16, CUDA_ATTN_AUTO, 1), p16},
        {"fp32 cudnn loaded (lse)", attention_route_state_floats(2, 3, 197, 197, 192, 0, MATMUL_FP32, CUDA_ATTN_CUDNN, 1), lse},
    };
    int bad = 0;
    char detail[1400] = "";
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        size_t used = strlen(detail);
        snprintf(detail + used, sizeof detail - used, "%s%s %zu", k ? ", " : "", c[k].what, c[k].got);
        if (c[k].got != c[k].want) {
            bad++;
            used = strlen(detail);
            snprintf(detail + used, sizeof detail - used, " (want %zu)", c[k].want);
        }
    }
    test_check("attention state floats per setting (cudnn: the lse where the library loaded and the calls are "
               "expressible, else room for its fallback)", bad == 0, "%s", detail);
}

static void setting_names(void) {
    int ok = attention_route_setting_named("auto") == CUDA_ATTN_AUTO &&
             attention_route_setting_named("materialised") == CUDA_ATTN_MATERIALISED &&
             attention_route_setting_named("fused") == CUDA_ATTN_FUSED &&
             attention_route_setting_named("cudnn") == CUDA_ATTN_CUDNN &&
             attention_route_setting_named("materialised-inplace") == CUDA_ATTN_MATERIALISED_INPLACE &&
             attention_route_setting_named("inplace") == -1 &&
             attention_route_setting_named("cuDNN") == -1 && attention_route_setting_named("") == -1 &&
             strcmp(ATTENTION_ROUTE_SETTINGS, "auto|materialised|fused|cudnn|materialised-inplace") == 0;
    int bf16 = !attention_route_setting_needs_bf16(CUDA_ATTN_AUTO) && attention_route_setting_needs_bf16(CUDA_ATTN_MATERIALISED) &&
               !attention_route_setting_needs_bf16(CUDA_ATTN_FUSED) && attention_route_setting_needs_bf16(CUDA_ATTN_CUDNN) &&
               attention_route_setting_needs_bf16(CUDA_ATTN_MATERIALISED_INPLACE);
    test_check("attention route settings by name (train.attention, bench --attention); materialised, cudnn and "
               "materialised-inplace need bf16",
               ok && bf16, "names %d, bf16 rule %d", ok, bf16);
}

int main(void) {
    setting_names();
    expressible();
    routes();
    state_sizes();
    return test_exit_code();
}
