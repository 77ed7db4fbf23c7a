// objectives/gvp/gvp.c — GVP's order and segmentation draws and group ids (see gvp.h for the
// definitions).
#include "gvp.h"
#include "../../core/rng.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int gvp_segmentation_parse(const char *name) {
    if (!name) return -1;
    if (!strcmp(name, "fixed")) return GVP_SEG_FIXED;
    if (!strcmp(name, "random")) return GVP_SEG_RANDOM;
    if (!strcmp(name, "mixed")) return GVP_SEG_MIXED;
    return -1;
}

int gvp_order_parse(const char *name) {
    if (!name) return -1;
    if (!strcmp(name, "random")) return GVP_ORDER_RANDOM;
    if (!strcmp(name, "raster")) return GVP_ORDER_RASTER;
    return -1;
}

static int mixed_mean_cut(int N) { return (int)nearbyint(0.5 * N); }

const char *gvp_groups_error(int seg, int K, int N) {
    static char msg[320];
    int most = seg == GVP_SEG_FIXED ? N : seg == GVP_SEG_RANDOM ? N - 1 : mixed_mean_cut(N);
    if (most > N - 1 && seg == GVP_SEG_MIXED) most = N - 1;
    if (K >= 1 && K <= most) return NULL;
    const char *why = seg == GVP_SEG_FIXED    ? "fixed segmentation cuts the N patches into K + 1 groups"
                      : seg == GVP_SEG_RANDOM ? "random segmentation draws K distinct cut points from [1, N - 1]"
                                              : "mixed segmentation needs K - 1 cut points below n_{K-1} = round(p*N) "
                                                "at the mean p = 0.5";
    snprintf(msg, sizeof msg, "objective.groups=%d cannot be cut from %d patches: %s (valid: 1 to %d)", K, N, why, most);
    return msg;
}

// K - k distinct values of [lo, hi] uniform, sorted, into cuts[k..K) (the App. B code: the
// first of a random permutation, sorted).
static void distinct_sorted(rng_stream *s, int *cuts, int count, int lo, int hi, int *scratch) {
    rng_sorted_subset(s, hi - lo + 1, count, scratch);
    for (int i = 0; i < count; i++) cuts[i] = lo + scratch[i];
}

void gvp_draw(int *order, int *cuts, int *group, int seg, int ord, int K, int N, uint32_t seed, uint32_t epoch,
              uint32_t step, uint32_t index, int *scratch) {
    rng_stream s = rng_stream_make(seed, RNG_GVP, epoch, step, index);
    if (ord == GVP_ORDER_RANDOM) rng_permutation(&s, N, order);
    else for (int n = 0; n < N; n++) order[n] = n;
    if (seg == GVP_SEG_FIXED) {
        for (int i = 0; i < K; i++) cuts[i] = (int)((long)(i + 1) * N / (K + 1));
    } else if (seg == GVP_SEG_RANDOM) {
        distinct_sorted(&s, cuts, K, 1, N - 1, scratch);
    } else {
        double p = 0.5 + 0.1 * (double)rng_normal(&s);
        double last = nearbyint(p * N);
        if (last < K) last = K;
        if (last > N - 1) last = N - 1;
        cuts[K - 1] = (int)last;
        distinct_sorted(&s, cuts, K - 1, 1, cuts[K - 1] - 1, scratch);
    }
    cuts[K] = N;
    for (int k = 0, g = 0; k < N; k++) { // position k of z is in the group whose range holds it
        while (g < K && k >= cuts[g]) g++;
        group[order[k]] = g;
    }
}

void gvp_stream_ids(int *ids, const int *group, int N, int t0) {
    int T = t0 + N;
    gvp_content_ids(ids, group, N, t0);
    for (int n = 0; n < N; n++) ids[T + n] = group[n] > 0 ? 2 * group[n] - 1 : 0;
}

void gvp_content_ids(int *ids, const int *group, int N, int t0) {
    if (t0) ids[0] = 0;
    for (int n = 0; n < N; n++) ids[t0 + n] = 2 * group[n];
}
