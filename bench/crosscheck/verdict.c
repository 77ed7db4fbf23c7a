// bench/crosscheck/verdict.c — the verdict lines of `posbench crosscheck` (crosscheck.h): paired
// (--init ours: seed k of both trainers starts from the same weights, a one-sample t-test on the
// per-seed differences) and unpaired (--init torch: each side starts from weights of its own
// generator, a Welch test of the two sides' seeds). Both use bench/report/significance.h.
#include "crosscheck.h"
#include "../report/significance.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CC_ALPHA 0.05

// The TOST p at ±margin of a test of effect (the larger of the two one-sided p-values: effect >
// −margin and effect < margin) and the two-sided p of effect ≠ 0.
static double tost_p(sig_test t, double margin) {
    return fmax(sig_shifted(t, margin).p, 1.0 - sig_shifted(t, -margin).p);
}
static double two_sided_p(sig_test t) { return t.p < 0.5 ? 2 * t.p : 2 * (1 - t.p); }

void crosscheck_verdict(const double *a, const double *b, int n, double margin, char *out, size_t len) {
    if (n < 2) {
        snprintf(out, len, "inconclusive (1 seed)");
        return;
    }
    // Paired: seed k of both trainers starts from the same weights and sees the same batches
    // and augmentation draws (the plan), so the unit is the per-seed difference a_k − b_k.
    double *d = xmalloc((size_t)n * sizeof *d, "crosscheck differences");
    for (int k = 0; k < n; k++) d[k] = a[k] - b[k];
    sig_test t = sig_one_sample(d, n, 0.0);
    free(d);
    double p_two = two_sided_p(t), p_tost = tost_p(t, margin);
    char head[256];
    snprintf(head, sizeof head, "Δ %+.2f points, 95%% CI [%+.2f, %+.2f], paired t p = %.3f (two-sided), TOST p = %.3f at ±%.2f",
             100 * t.effect, 100 * t.lo, 100 * t.hi, p_two, p_tost, 100 * margin);
    if (p_tost < CC_ALPHA) snprintf(out, len, "%s: **agree** (within ±%.2f points)", head, 100 * margin);
    else if (p_two < CC_ALPHA) snprintf(out, len, "%s: **disagree** (significant difference)", head);
    else {
        int need = fabs(t.effect) < margin ? sig_n_one_sample(margin - fabs(t.effect), t.va) : -1;
        if (need > 0) snprintf(out, len, "%s: **inconclusive** (needs %d seeds)", head, need);
        else snprintf(out, len, "%s: **inconclusive** (the difference is outside the margin but not significant)", head);
    }
}

void crosscheck_verdict_unpaired(const double *a, int na, const double *b, int nb, double margin, char *out, size_t len) {
    if (na < 2 || nb < 2) {
        snprintf(out, len, "inconclusive (1 seed)");
        return;
    }
    // Unpaired: seed k of each side starts from its own generator's weights, so the seeds of one
    // side are not matched to the other's; the spread over seeds is part of the comparison.
    sig_test t = sig_welch(a, na, b, nb);
    double p_two = two_sided_p(t), p_tost = tost_p(t, margin);
    // The 90% interval matches the TOST (two one-sided tests at 5%): inside ±margin ⇔ agree; the
    // 95% one matches the two-sided test: excluding 0 ⇔ disagree.
    double h90 = t.se > 0 ? sig_t_quantile(0.95, t.df) * t.se : 0.0;
    char head[320];
    snprintf(head, sizeof head,
             "Δ %+.2f points, 95%% CI [%+.2f, %+.2f], 90%% CI [%+.2f, %+.2f], Welch t p = %.3f (two-sided, df %.1f), "
             "TOST p = %.3f at ±%.2f",
             100 * t.effect, 100 * t.lo, 100 * t.hi, 100 * (t.effect - h90), 100 * (t.effect + h90), p_two, t.df, p_tost,
             100 * margin);
    if (p_tost < CC_ALPHA) {
        snprintf(out, len, "%s: **agree** (the 90%% CI is inside ±%.2f points)", head, 100 * margin);
    } else if (p_two < CC_ALPHA) {
        snprintf(out, len, "%s: **disagree** (the 95%% CI excludes 0)", head);
    } else {
        // Seeds per side for the TOST to show agreement at ±margin when the true difference is 0
        // (the stated effect: the margin, not the observed difference), at the observed variances.
        int need = sig_n_welch(margin, t.va, t.vb), have = na > nb ? na : nb;
        if (need > have)
            snprintf(out, len, "%s: **inconclusive** (needs %d seeds per side to show agreement at ±%.2f if the true "
                     "difference is 0)", head, need, 100 * margin);
        else if (need > 0)
            snprintf(out, len, "%s: **inconclusive** (the difference is near or outside the margin, not significant: "
                     "more seeds would decide)", head);
        else
            snprintf(out, len, "%s: **inconclusive** (needs more than %d seeds per side)", head, SIG_N_MAX);
    }
}
