// tests/test_crosscheck.c — the verdict of `posbench crosscheck` (bench/crosscheck/crosscheck.h)
// at its edges, with known answers (mpmath): a = {0.80, 0.81, 0.82} against b = a + shift, 3
// seeds a side, Welch SE 0.00816497, df 4. shift 0 at margin 0.02: TOST p = P(T_4 ≥ √6) =
// 0.0352 (agree); at margin 0.0174 (just below t_{0.95,4}·SE = 0.0174065): not agree, not
// significant (inconclusive); shift 0.05: two-sided Welch p = 0.00362 (disagree); shift 0.015:
// TOST p = 0.287, Welch p = 0.140 (inconclusive, with the seeds it needs); one seed:
// inconclusive (1 seed). Under a second.
#include "testing.h"
#include "../bench/crosscheck/crosscheck.h"
#include <stdio.h>
#include <string.h>

static void expect(const char *name, const double *a, const double *b, int n, double margin, const char *want1, const char *want2) {
    char out[1024];
    crosscheck_verdict(a, b, n, margin, out, sizeof out);
    test_check(name, strstr(out, want1) && (!want2 || strstr(out, want2)), "got '%s'", out);
}

int main(void) {
    double a[3] = {0.80, 0.81, 0.82}, b[3];
    for (int k = 0; k < 3; k++) b[k] = a[k];
    expect("crosscheck verdict: equal seeds, margin 2 points: agree (TOST p 0.035)", a, b, 3, 0.02, "TOST p = 0.035 at ±2.00: **agree**", NULL);
    expect("crosscheck verdict: equal seeds, margin just below the edge: inconclusive", a, b, 3, 0.0174064, "**inconclusive** (needs", "TOST p = 0.050");
    expect("crosscheck verdict: equal seeds, margin just above the edge: agree", a, b, 3, 0.0174066, "**agree**", NULL);
    for (int k = 0; k < 3; k++) b[k] = a[k] + 0.05;
    expect("crosscheck verdict: 5 points apart: disagree (Welch p 0.004)", a, b, 3, 0.02, "Welch p = 0.004 (two-sided)", "**disagree**");
    for (int k = 0; k < 3; k++) b[k] = a[k] + 0.015;
    expect("crosscheck verdict: 1.5 points apart, margin 2: inconclusive (TOST p 0.287, Welch p 0.140)", a, b, 3, 0.02,
           "Welch p = 0.140 (two-sided), TOST p = 0.287", "**inconclusive** (needs");
    expect("crosscheck verdict: one seed", a, b, 1, 0.02, "inconclusive (1 seed)", NULL);
    return test_exit_code();
}
