// objectives/mae/mae.c — MAE's random masking (see mae.h).
#include "mae.h"
#include "../../core/rng.h"
#include <math.h>
#include <stdio.h>

int mae_kept_patches(int N, double eta) { return (int)lround((1.0 - eta) * N); }

const char *mae_ratio_error(int N, double eta) {
    static char msg[256];
    int K = mae_kept_patches(N, eta);
    if (eta > 0.0 && eta < 1.0 && K >= 1 && K <= N - 1) return NULL;
    double lo = 0.5 / N, hi = 1.0 - 0.5 / N; // round((1-eta)N) in [1, N-1]
    snprintf(msg, sizeof msg, "objective.eta=%g: objective.name=mae keeps round((1-eta)*N) = %d of the N = %d patches "
             "and predicts the others, so at least one must be kept and one masked (valid: eta in (%.4f, %.4f])", eta, K, N,
             lo, hi);
    return msg;
}

void mae_shuffle(int *shuffle, int *restore, float *noise, int N, uint32_t seed, uint32_t epoch, uint32_t step,
                 uint32_t index) {
    rng_stream s = rng_stream_make(seed, RNG_MAE, epoch, step, index);
    for (int n = 0; n < N; n++) noise[n] = rng_uniform(&s);
    for (int n = 0; n < N; n++) { // insertion sort by (noise, index): stable, O(N^2) on a few hundred patches
        int j = n;
        while (j > 0 && noise[shuffle[j - 1]] > noise[n]) shuffle[j] = shuffle[j - 1], j--;
        shuffle[j] = n;
    }
    for (int j = 0; j < N; j++) restore[shuffle[j]] = j;
}
