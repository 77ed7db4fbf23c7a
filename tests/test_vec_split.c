// tests/test_vec_split.c — the vector body / scalar tail split of the vectorised elementwise
// kernels (core/vec_plan.h's vec_split_for, used by core/cuda/bf16_convert_cuda.cu), on the CPU: for every n in
// 0..40 and every pair of operand offsets 0..15 bytes, the body is whole groups of 8 only when both
// operands are 16-byte aligned, the tail covers the rest, together every element exactly once.
#include "testing.h"
#include "../core/vec_plan.h"
#include <stdio.h>

int main(void) {
    size_t cases = 0, bad = 0;
    char first[200] = "";
    for (size_t n = 0; n <= 40; n++)
        for (uintptr_t oa = 0; oa < 16; oa += 2) // bf16 operands: 2-byte steps
            for (uintptr_t ob = 0; ob < 16; ob += 4) { // fp32 operands: 4-byte steps
                uintptr_t a = 4096 + oa, b = 8192 + ob;
                vec_split s = vec_split_for(n, 8, a, b, 16);
                int aligned = oa == 0 && ob == 0;
                size_t want_groups = aligned ? n / 8 : 0;
                int covered = 1;
                int count[48] = {0};
                for (size_t g = 0; g < s.groups; g++)
                    for (size_t k = 0; k < 8; k++) if (g * 8 + k < 48) count[g * 8 + k]++;
                for (size_t e = s.tail_start; e < n; e++) count[e]++;
                for (size_t e = 0; e < n; e++) covered &= count[e] == 1;
                for (size_t e = n; e < 48; e++) covered &= count[e] == 0;
                cases++;
                if (s.groups != want_groups || s.tail_start != s.groups * 8 || !covered) {
                    if (!bad++)
                        snprintf(first, sizeof first, "n %zu offsets %u/%u: %zu groups (want %zu), tail from %zu, covered %d", n,
                                 (unsigned)oa, (unsigned)ob, s.groups, want_groups, s.tail_start, covered);
                }
            }
    test_check("vec split: 8-wide body only when both operands are 16-byte aligned, tail covers the rest", bad == 0,
               "%zu of %zu cases wrong; first: %s", bad, cases, first);
    vec_split big = vec_split_for((size_t)3 * 128 * 197 * 768 + 5, 8, 0, 0, 16);
    test_check("vec split: a ViT-B/16 qkv (58 M elements) + 5 leaves a tail of 5", big.tail_start + 5 == (size_t)3 * 128 * 197 * 768 + 5 &&
                   big.groups == (size_t)3 * 128 * 197 * 768 / 8,
               "%zu groups, tail from %zu", big.groups, big.tail_start);
    return test_exit_code();
}
