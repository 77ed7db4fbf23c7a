// tests/test_crosscheck.c — the verdict of `posbench crosscheck` (bench/crosscheck/crosscheck.h)
// at its edges, with known answers (mpmath; for df 2, P(T ≥ t) = 1/2 − t/(2√(t² + 2))). The
// test is paired (seed k of both trainers shares its plan), so every case spreads the seeds
// widely (a = 0.70, 0.80, 0.90) and sets the per-seed differences d = a − b:
//   d = {−0.001, +0.002, −0.001} (mean 0, SE 0.001, df 2), margin 2 points: TOST p = 0.00125,
//     agree (an unpaired Welch test could not: the seeds' spread is 10 points); at margin
//     t_{0.95,2}·SE = 0.00291999 the edge: just below inconclusive, just above agree;
//   d = {0.050, 0.048, 0.052}: two-sided p = 0.000533, disagree;
//   d = {0.03, −0.01, 0.01}: two-sided p = 0.478, TOST p = 0.239, inconclusive with the seeds
//     it needs; one seed: inconclusive (1 seed).
// The unpaired verdict of --init torch (Welch; crosscheck_verdict_unpaired), known answers from
// mpmath 1.2.1 at 30 digits (Student t CDF by betainc at the Welch df, quantiles by bisection,
// seeds per side by the same power rule searched in mpmath: tests/crosscheck_welch_reference.py):
//   a = {.800,.805,.810,.795}, b = {.802,.798,.807,.801}: Δ +0.05 points, df 4.81, 95% CI
//     [−0.92, +1.02], 90% CI [−0.71, +0.81], p 0.899, TOST p 0.0019 at ±2: agree;
//   a = {.80,.81,.79}, b = {.70,.72,.71}: Δ +9.00, df 4.0, 95% CI [+6.73, +11.27], p 0.000385:
//     disagree;
//   a = {.70,.80,.90}, b = {.72,.85,.78}: Δ +1.67, df 3.4, p 0.823, TOST p 0.482: inconclusive,
//     needs 221 seeds per side (the margin as the effect);
//   the paired "close" case above, unpaired (a = {.70,.80,.90}, b = {.701,.798,.901}): TOST p
//     0.409, needs 310 seeds per side: the seeds' 10-point spread counts once unpaired;
//   unequal n (3 and 5 seeds), df 3.53: 90% CI [−0.9999, +1.9999] points, TOST p 0.049991 at
//     ±2 (agree) and 0.050068 at ±1.999 (inconclusive, needs only 4 ≤ 5 seeds: the observed
//     difference is near the margin); a side with 1 seed: inconclusive (1 seed). Under a second.
#include "testing.h"
#include "../bench/crosscheck/crosscheck.h"
#include <stdio.h>
#include <math.h>
#include <string.h>

static void expect(const char *name, const double *d, int n, double margin, const char *want1, const char *want2) {
    double a[3] = {0.70, 0.80, 0.90}, b[3];
    for (int k = 0; k < n; k++) b[k] = a[k] - d[k];
    char out[1024];
    crosscheck_verdict(a, b, n, margin, out, sizeof out);
    test_check(name, strstr(out, want1) && (!want2 || strstr(out, want2)), "got '%s'", out);
}

static void expect_unpaired(const char *name, const double *a, int na, const double *b, int nb, double margin,
                            const char *want1, const char *want2, const char *want3) {
    char out[1024];
    crosscheck_verdict_unpaired(a, na, b, nb, margin, out, sizeof out);
    test_check(name, strstr(out, want1) && (!want2 || strstr(out, want2)) && (!want3 || strstr(out, want3)), "got '%s'", out);
}

static void unpaired(void) {
    double a1[4] = {0.800, 0.805, 0.810, 0.795}, b1[4] = {0.802, 0.798, 0.807, 0.801};
    expect_unpaired("crosscheck unpaired: close means, small spread: agree (TOST p 0.002, df 4.8)", a1, 4, b1, 4, 0.02,
                    "Δ +0.05 points, 95% CI [-0.92, +1.02], 90% CI [-0.71, +0.81], Welch t p = 0.899 (two-sided, df 4.8)",
                    "TOST p = 0.002 at ±2.00: **agree**", NULL);
    double a2[3] = {0.80, 0.81, 0.79}, b2[3] = {0.70, 0.72, 0.71};
    expect_unpaired("crosscheck unpaired: 9 points apart: disagree (Welch p 0.0004, df 4)", a2, 3, b2, 3, 0.02,
                    "Δ +9.00 points, 95% CI [+6.73, +11.27], 90% CI [+7.26, +10.74], Welch t p = 0.000 (two-sided, df 4.0)",
                    "TOST p = 0.999", "**disagree**");
    double a3[3] = {0.70, 0.80, 0.90}, b3[3] = {0.72, 0.85, 0.78};
    expect_unpaired("crosscheck unpaired: wide spread: inconclusive, needs 221 seeds per side", a3, 3, b3, 3, 0.02,
                    "Δ +1.67 points, 95% CI [-18.76, +22.09], 90% CI [-13.74, +17.07], Welch t p = 0.823 (two-sided, df 3.4)",
                    "TOST p = 0.482", "**inconclusive** (needs 221 seeds per side");
    double b4[3] = {0.701, 0.798, 0.901};
    expect_unpaired("crosscheck unpaired: the paired 'agree' case is inconclusive unpaired (needs 310 seeds per side)", a3, 3,
                    b4, 3, 0.02, "Welch t p = 1.000 (two-sided, df 4.0), TOST p = 0.409", "**inconclusive** (needs 310 seeds per side",
                    NULL);
    double b5[5] = {0.79, 0.795, 0.80, 0.805, 0.785};
    expect_unpaired("crosscheck unpaired: 3 vs 5 seeds, 90% CI upper bound 1.9999 < margin 2: agree (TOST p 0.04999)", a2, 3, b5,
                    5, 0.02, "Δ +0.50 points, 95% CI [-1.48, +2.48], 90% CI [-1.00, +2.00], Welch t p = 0.506 (two-sided, df 3.5)",
                    "TOST p = 0.050 at ±2.00: **agree**", NULL);
    expect_unpaired("crosscheck unpaired: the same at margin 1.999: inconclusive (near the margin, needs only 4 of 5)", a2, 3, b5,
                    5, 0.01999, "TOST p = 0.050 at ±2.00: **inconclusive** (the difference is near or outside the margin", NULL,
                    NULL);
    expect_unpaired("crosscheck unpaired: one seed on a side", a2, 1, b5, 5, 0.02, "inconclusive (1 seed)", NULL, NULL);
}

// The loss-parity note never reports a largest difference that skipped a diverged step.
static void parity_summary(void) {
    double ours[3] = {2.30, 2.10, 1.90}, theirs[3] = {2.30, 2.12, 1.90}, nan_theirs[3] = {2.30, NAN, 1.90};
    double inf_ours[3] = {2.30, 2.10, INFINITY};
    char out[128];
    crosscheck_parity_summary(ours, theirs, 3, out, sizeof out);
    test_check("crosscheck loss parity: finite losses give the largest relative difference", !strcmp(out, "max 0.0094"),
               "got '%s'", out);
    crosscheck_parity_summary(ours, nan_theirs, 3, out, sizeof out);
    test_check("crosscheck loss parity: a NaN PyTorch loss is not comparable, never 'max 0'",
               !strcmp(out, "not comparable: step 2's loss is nan on PyTorch"), "got '%s'", out);
    crosscheck_parity_summary(inf_ours, theirs, 3, out, sizeof out);
    test_check("crosscheck loss parity: an infinite posbench loss is named with its step",
               !strcmp(out, "not comparable: step 3's loss is infinite on posbench"), "got '%s'", out);
    crosscheck_parity_summary(nan_theirs, nan_theirs, 3, out, sizeof out);
    test_check("crosscheck loss parity: both sides diverged", !strcmp(out, "not comparable: step 2's loss is nan on both sides"),
               "got '%s'", out);
    crosscheck_parity_summary(ours, theirs, 0, out, sizeof out);
    test_check("crosscheck loss parity: no steps", !strcmp(out, "no steps to compare"), "got '%s'", out);
}

int main(void) {
    parity_summary();
    double close[3] = {-0.001, 0.002, -0.001}, apart[3] = {0.050, 0.048, 0.052}, between[3] = {0.03, -0.01, 0.01};
    expect("crosscheck verdict: paired differences near 0, seeds 10 points apart: agree (TOST p 0.001)", close, 3, 0.02,
           "TOST p = 0.001 at ±2.00: **agree**", "paired t p = 1.000");
    expect("crosscheck verdict: margin just below the edge t_{0.95,2}·SE: inconclusive", close, 3, 0.0029199, "**inconclusive** (needs",
           "TOST p = 0.050");
    expect("crosscheck verdict: margin just above the edge: agree", close, 3, 0.0029201, "**agree**", NULL);
    expect("crosscheck verdict: 5 points apart: disagree (paired p 0.0005)", apart, 3, 0.02, "paired t p = 0.001 (two-sided)",
           "**disagree**");
    expect("crosscheck verdict: 1 point apart with spread, margin 2: inconclusive (TOST p 0.239, paired p 0.478)", between, 3, 0.02,
           "paired t p = 0.478 (two-sided), TOST p = 0.239", "**inconclusive** (needs");
    expect("crosscheck verdict: one seed", close, 1, 0.02, "inconclusive (1 seed)", NULL);
    unpaired();
    return test_exit_code();
}
