// tests/test_attention_stats.c — attention statistics on probabilities with known answers:
// uniform attention (entropy log T, relative map 1/T), attention to self (entropy 0, distance
// 0, relative map 1 at the centre), and attention to the right neighbour (offset (0, +1)).
#include "testing.h"
#include "../core/common.h"
#include "../objectives/attention_stats.h"
#include <math.h>
#include <stdlib.h>

int main(void) {
    int B = 2, H = 2, gh = 3, gw = 4, t0 = 1, N = gh * gw, T = N + t0, rh = 2 * gh - 1, rw = 2 * gw - 1;
    float *probs = xcalloc((size_t)B * H * T * T, sizeof(float), "probs");
    // head 0: uniform over all T keys; head 1: each patch attends to itself, cls to patch 5
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            float *row0 = probs + (((size_t)b * H + 0) * T + i) * T, *row1 = probs + (((size_t)b * H + 1) * T + i) * T;
            for (int j = 0; j < T; j++) row0[j] = 1.0f / T;
            row1[i == 0 ? t0 + 5 : i] = 1.0f;
        }
    float entropy[2], distance[2], relmap[2 * 5 * 7], cls_map[2 * 12];
    attention_stats s = {H, gh, gw, t0, entropy, distance, relmap, cls_map};
    attention_stats_layer(&s, probs, B);
    test_check("uniform attention: entropy log T", fabsf(entropy[0] - logf((float)T)) < 1e-5f, "%.6f vs %.6f", entropy[0], logf((float)T));
    test_check("uniform attention: relative map 1/T at every offset",
               fabsf(relmap[0] - 1.0f / T) < 1e-6f && fabsf(relmap[rh * rw - 1] - 1.0f / T) < 1e-6f && fabsf(relmap[(gh - 1) * rw + gw - 1] - 1.0f / T) < 1e-6f,
               "corner %.5f centre %.5f (1/T = %.5f)", relmap[0], relmap[(gh - 1) * rw + gw - 1], 1.0f / T);
    const float *rel1 = relmap + rh * rw;
    test_check("self attention: entropy 0, distance 0, relative map peaked at the centre",
               entropy[1] == 0.0f && distance[1] == 0.0f && rel1[(gh - 1) * rw + gw - 1] == 1.0f && rel1[0] == 0.0f,
               "entropy %g distance %g centre %g", entropy[1], distance[1], rel1[(gh - 1) * rw + gw - 1]);
    test_check("cls map: the cls query's attention per patch", cls_map[12 + 5] == 1.0f && cls_map[12 + 4] == 0.0f &&
               fabsf(cls_map[3] - 1.0f / T) < 1e-6f, "head1 patch5 %g", cls_map[12 + 5]);
    // head 1 again: attend to the right neighbour (the last column attends to itself)
    for (int b = 0; b < B; b++)
        for (int i = 0; i < N; i++) {
            float *row = probs + (((size_t)b * H + 1) * T + t0 + i) * T;
            for (int j = 0; j < T; j++) row[j] = 0.0f;
            row[t0 + (i % gw < gw - 1 ? i + 1 : i)] = 1.0f;
        }
    attention_stats_layer(&s, probs, B);
    // offset (0,+1) exists for gh*(gw-1) queries, all of which use it: mean = 1
    test_check("right-neighbour attention: offset (0,+1) has mean 1, distance 3/4",
               fabsf(rel1[(gh - 1) * rw + gw] - 1.0f) < 1e-6f && fabsf(distance[1] - 0.75f) < 1e-6f,
               "rel(0,+1) %g distance %g", rel1[(gh - 1) * rw + gw], distance[1]);
    // head 1, one NaN row (a NaN model's attention): its entropy and distance must be NaN, not the
    // finite values a `p > 0` skip and a `mass > 0 ? : 0` guard made of it; head 0 stays finite
    float *nan_row = probs + (((size_t)0 * H + 1) * T + t0) * T;
    for (int j = 0; j < T; j++) nan_row[j] = NAN;
    attention_stats_layer(&s, probs, B);
    test_check("a NaN attention row: entropy and distance NaN, the other head finite",
               isnan(entropy[1]) && isnan(distance[1]) && isfinite(entropy[0]) && isfinite(distance[0]),
               "head 1 entropy %g distance %g, head 0 entropy %g distance %g", entropy[1], distance[1], entropy[0],
               distance[0]);
    free(probs);
    return test_exit_code();
}
