// core/attention_route.c — the CUDA attention route as a pure function (core/attention_route.h).
#include "attention_route.h"
#include "ops_cuda.h"
#include "attention_gemm_layout.h"
#include <stdio.h>
#include <string.h>

static int refuse(char *why, size_t len, const char *reason) {
    if (why && len) snprintf(why, len, "%s", reason);
    return 0;
}

int attention_cudnn_expressible(const attention_desc *d, int precision, char *why, size_t len) {
    if (d->keep_probs) return refuse(why, len, "the caller reads the probabilities (keep_probs)");
    return attention_cudnn_expressible_uses(attention_desc_uses(d), d->C, d->H, precision, why, len);
}

int attention_cudnn_expressible_uses(unsigned uses, int C, int H, int precision, char *why, size_t len) {
    if (precision != MATMUL_BF16) return refuse(why, len, "train.precision is fp32 (the cuDNN route is bf16)");
    if (uses & ATTN_USES_KEY_SUBSET) return refuse(why, len, "a key subset (kv_index, MP3 context)");
    if (uses & ATTN_USES_GROUP_MASK) return refuse(why, len, "a group mask (GVP)");
    if (uses & ATTN_USES_BIAS) return refuse(why, len, "an additive bias (relbias)");
    if (H <= 0 || C % H) return refuse(why, len, "heads do not divide the width");
    int hs = C / H;
    if (hs % 8 || hs > 128) {
        if (why && len) snprintf(why, len, "head size %d (the cuDNN route takes multiples of 8 up to 128)", hs);
        return 0;
    }
    if (why && len) why[0] = '\0';
    return 1;
}

static int auto_rule_materialised(int T, int M) { return T <= ATTN_GEMM_MAX_KEYS && M <= ATTN_GEMM_MAX_KEYS; }

attention_route attention_route_for(const attention_desc *d, int precision, int setting, int cudnn) {
    if (d->keep_probs) return ATTN_ROUTE_PROBS;
    if (precision != MATMUL_BF16 || d->T <= 0 || d->M <= 0) return ATTN_ROUTE_FUSED;
    if (setting == CUDA_ATTN_CUDNN && cudnn != ATTN_CUDNN_ABSENT && attention_cudnn_expressible(d, precision, NULL, 0))
        return cudnn == ATTN_CUDNN_READY ? ATTN_ROUTE_CUDNN : ATTN_ROUTE_FUSED;
    if (setting == CUDA_ATTN_FUSED) return ATTN_ROUTE_FUSED;
    if (setting == CUDA_ATTN_MATERIALISED || setting == CUDA_ATTN_MATERIALISED_INPLACE) return ATTN_ROUTE_MATERIALISED;
    return auto_rule_materialised(d->T, d->M) ? ATTN_ROUTE_MATERIALISED : ATTN_ROUTE_FUSED;
}

size_t attention_route_state_floats(int B, int H, int T, int M, int C, unsigned uses, int precision, int setting,
                                    int cudnn_loaded) {
    const size_t lse = (size_t)B * H * T, p16 = attn_gemm_state_floats(B, H, T, M); // rows padded to 8 keys
    if (precision != MATMUL_BF16 || T <= 0 || M <= 0 || setting == CUDA_ATTN_FUSED) return lse;
    if (setting == CUDA_ATTN_MATERIALISED || setting == CUDA_ATTN_MATERIALISED_INPLACE) return p16;
    size_t auto_state = auto_rule_materialised(T, M) ? p16 : lse;
    if (setting == CUDA_ATTN_CUDNN) {
        if (cudnn_loaded && attention_cudnn_expressible_uses(uses, C, H, precision, NULL, 0)) return lse;
        return auto_state > lse ? auto_state : lse;
    }
    return auto_state;
}

const char *attention_route_name(attention_route r) {
    switch (r) {
    case ATTN_ROUTE_PROBS: return "probs";
    case ATTN_ROUTE_FUSED: return "fused";
    case ATTN_ROUTE_MATERIALISED: return "materialised";
    case ATTN_ROUTE_CUDNN: return "cudnn";
    }
    return "unknown";
}

int attention_route_setting_named(const char *name) {
    if (!strcmp(name, "auto")) return CUDA_ATTN_AUTO;
    if (!strcmp(name, "materialised")) return CUDA_ATTN_MATERIALISED;
    if (!strcmp(name, "fused")) return CUDA_ATTN_FUSED;
    if (!strcmp(name, "cudnn")) return CUDA_ATTN_CUDNN;
    if (!strcmp(name, "materialised-inplace")) return CUDA_ATTN_MATERIALISED_INPLACE;
    return -1;
}

int attention_route_setting_needs_bf16(int setting) {
    return setting == CUDA_ATTN_MATERIALISED || setting == CUDA_ATTN_CUDNN || setting == CUDA_ATTN_MATERIALISED_INPLACE;
}
