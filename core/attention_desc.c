// core/attention_desc.c — the backend-independent checks of an attention_desc (core/ops.h),
// shared by the CPU and CUDA attention ops.
#include "ops.h"
#include "common.h"

void attention_desc_check(const attention_desc *d, const char *who) {
    if (d->B < 1 || d->T < 1 || d->C < 1 || d->H < 1 || d->C % d->H != 0)
        die_fail("%s: bad shape B=%d T=%d C=%d H=%d", who, d->B, d->T, d->C, d->H);
    if (d->kv_index == NULL && d->M != d->T)
        die_fail("%s: M=%d must equal T=%d without kv_index", who, d->M, d->T);
    if (d->M < 0) die_fail("%s: M=%d", who, d->M);
    if (d->mask_mode != ATTN_MASK_NONE && d->mask_mode != ATTN_MASK_LT &&
        d->mask_mode != ATTN_MASK_LE)
        die_fail("%s: unknown mask mode %d", who, d->mask_mode);
    if (d->mask_mode != ATTN_MASK_NONE && d->group == NULL)
        die_fail("%s: mask mode %d needs group ids", who, d->mask_mode);
}

void attention_desc_check_bf16(const attention_desc *d, const char *who) {
    attention_desc_check(d, who);
    if (d->kv_index) die_fail("%s: bf16 attention takes no kv_index (masked attention keeps the fp32 op)", who);
    if (d->bias) die_fail("%s: bf16 attention takes no bias (relbias keeps the fp32 op)", who);
}

void attention_desc_check_kv_bf16(const attention_desc *d, const char *who) {
    if (d->B < 1 || d->T < 1 || d->C < 1 || d->H < 1 || d->C % d->H != 0)
        die_fail("%s: bad shape B=%d T=%d C=%d H=%d", who, d->B, d->T, d->C, d->H);
    if (d->M < 1 || d->M > d->T) die_fail("%s: M=%d key slots must be in [1, T=%d]", who, d->M, d->T);
    if (d->kv_index) die_fail("%s: the compact layout takes no kv_index (its k|v rows are the keys)", who);
    if (d->bias) die_fail("%s: bf16 attention takes no bias (relbias keeps the fp32 op)", who);
    if (d->group || d->mask_mode != ATTN_MASK_NONE)
        die_fail("%s: the compact layout takes no group mask (GVP keeps the fp32 op)", who);
}
