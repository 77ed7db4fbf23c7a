// tests/test_crosscheck.c — the verdict of `posbench crosscheck` (bench/crosscheck/crosscheck.h)
// at its edges, with known answers (mpmath; for df 2, P(T ≥ t) = 1/2 − t/(2√(t² + 2))). The
// test is paired (seed k of both trainers shares its plan), so every case spreads the seeds
// widely (a = 0.70, 0.80, 0.90) and sets the per-seed differences d = a − b:
//   d = {−0.001, +0.002, −0.001} (mean 0, SE 0.001, df 2), margin 2 points: TOST p = 0.00125,
//     agree (an unpaired Welch test could not: the seeds' spread is 10 points); at margin
//     t_{0.95,2}·SE = 0.00291999 the edge: just below inconclusive, just above agree;
//   d = {0.050, 0.048, 0.052}: two-sided p = 0.000533, disagree;
//   d = {0.03, −0.01, 0.01}: two-sided p = 0.478, TOST p = 0.239, inconclusive with the seeds
//     it needs; one seed: inconclusive (1 seed). Under a second.
#include "testing.h"
#include "../bench/crosscheck/crosscheck.h"
#include <stdio.h>
#include <string.h>

static void expect(const char *name, const double *d, int n, double margin, const char *want1, const char *want2) {
    double a[3] = {0.70, 0.80, 0.90}, b[3];
    for (int k = 0; k < n; k++) b[k] = a[k] - d[k];
    char out[1024];
    crosscheck_verdict(a, b, n, margin, out, sizeof out);
    test_check(name, strstr(out, want1) && (!want2 || strstr(out, want2)), "got '%s'", out);
}

int main(void) {
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
    return test_exit_code();
}
