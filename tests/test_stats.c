// tests/test_stats.c — the statistics behind the findings' verdicts and the regression
// benchmarks (bench/report/significance.h) against known answers:
//   - I_x(a, b) against closed forms (x^a, 1 − (1 − x)^b, (2/π)·asin√x, the symmetry
//     I_x(a,b) = 1 − I_{1−x}(b,a)) and against 40-digit mpmath values (relative 1e-12);
//   - Student t tails against the closed forms for df 1 (Cauchy) and 2, and mpmath values
//     (relative 1e-10, down to p = 2e-11); quantiles against published table values
//     (t_{0.975,1} = 12.706, t_{0.975,10} = 2.228, t_{0.95,2} = 2.920, t_{0.80,5} = 0.920,
//     t_{0.025,30} = −2.042, t_{0.999,3} = 10.215; to the table's 3 decimals) and mpmath (1e-9);
//   - Welch's test on Student's sleep data (R: t.test(extra ~ group, data = sleep): t = −1.8608,
//     df = 17.776, two-sided p = 0.07939, 95% CI [−3.3654832, 0.2054832]) and the one-sample
//     test on its first group (R: t = 1.3257, df = 9, p = 0.2176, CI [−0.5297804, 2.0297804]);
//   - the OLS slope test against an mpmath computation;
//   - edges: fewer than 2 values (not computable), zero variance (p 0 / 0.5 / 1, point CI);
//   - sample sizes for 80% power against an mpmath search over the same definition.
// mpmath values: 40 digits, mpmath.betainc(..., regularized=True) and findroot on it.
#include "testing.h"
#include "../bench/report/significance.h"
#include <math.h>
#include <stdio.h>

static int close_rel(double got, double want, double rel) { return fabs(got - want) <= rel * fabs(want) + 1e-300; }

static void test_betainc(void) {
    int bad = 0;
    char worst[200] = "";
    for (double x = 0.01; x < 1.0; x += 0.07)
        for (double a = 0.3; a < 40; a *= 2.3) {
            double pairs[4][2] = {{sig_betainc(a, 1, x), pow(x, a)},
                                  {sig_betainc(1, a, x), 1 - pow(1 - x, a)},
                                  {sig_betainc(0.5, 0.5, x), 2 / M_PI * asin(sqrt(x))},
                                  {sig_betainc(a, a + 1.7, x), 1 - sig_betainc(a + 1.7, a, 1 - x)}};
            for (int k = 0; k < 4; k++)
                if (!close_rel(pairs[k][0], pairs[k][1], 1e-11) && fabs(pairs[k][0] - pairs[k][1]) > 1e-15)
                    bad++, snprintf(worst, sizeof worst, "form %d a=%g x=%g: %.17g vs %.17g", k, a, x, pairs[k][0], pairs[k][1]);
        }
    test_check("betainc closed forms and symmetry", bad == 0, "%d off; %s", bad, worst);
    static const double ref[][4] = {{0.5, 0.5, 0.3, 0.36901011956554538},  {2, 3, 0.4, 0.52480000000000004},
                                    {5, 0.5, 0.9, 0.31664291502001231},    {10, 20, 0.2, 0.049263517304212517},
                                    {0.5, 7.5, 0.01, 0.29743811184486535}, {100, 100, 0.55, 0.9216120672877797},
                                    {1.5, 0.5, 0.999, 0.9597433418849682}};
    bad = 0;
    for (int i = 0; i < 7; i++) {
        double got = sig_betainc(ref[i][0], ref[i][1], ref[i][2]);
        if (!close_rel(got, ref[i][3], 1e-12)) bad++, snprintf(worst, sizeof worst, "I_%g(%g,%g) = %.17g, want %.17g", ref[i][2], ref[i][0], ref[i][1], got, ref[i][3]);
    }
    test_check("betainc against mpmath (40 digits)", bad == 0, "%d of 7 off; %s", bad, worst);
    test_check("betainc edges", sig_betainc(2, 3, 0) == 0 && sig_betainc(2, 3, 1) == 1 && isnan(sig_betainc(0, 1, 0.5)) &&
               isnan(sig_betainc(1, 1, 1.5)), "x = 0, 1; a = 0 and x > 1 are NAN");
}

static void test_t(void) {
    int bad = 0;
    char worst[200] = "";
    for (double t = -30; t <= 30; t += 0.37) {
        double c1 = 0.5 + atan(t) / M_PI, c2 = 0.5 + t / (2 * sqrt(2 + t * t));
        if (!close_rel(sig_t_cdf(t, 1), c1, 1e-12) || !close_rel(sig_t_cdf(t, 2), c2, 1e-12) ||
            !close_rel(sig_t_sf(t, 1), 1 - c1, 1e-10))
            bad++, snprintf(worst, sizeof worst, "t=%g: %.17g vs %.17g", t, sig_t_cdf(t, 1), c1);
    }
    test_check("t cdf: df 1 (Cauchy) and df 2 closed forms", bad == 0, "%d off; %s", bad, worst);
    static const double sf[][3] = {{1.0, 1, 0.25},
                                   {2.0, 2, 0.091751709536136984},
                                   {-1.5, 3.5, 0.89109090649232738},
                                   {2.5, 10, 0.015723422118304402},
                                   {4.0, 4.2, 0.0073233863851178796},
                                   {10, 30, 2.2876257041148066e-11},
                                   {0.3, 17.776, 0.383828531864525},
                                   {6, 100, 1.5862457514014283e-8}};
    bad = 0;
    for (int i = 0; i < 8; i++) {
        double got = sig_t_sf(sf[i][0], sf[i][1]);
        if (!close_rel(got, sf[i][2], 1e-10)) bad++, snprintf(worst, sizeof worst, "P(T_%g >= %g) = %.17g, want %.17g", sf[i][1], sf[i][0], got, sf[i][2]);
    }
    test_check("t upper tail against mpmath (fractional df, p down to 2e-11)", bad == 0, "%d of 8 off; %s", bad, worst);
    static const double q[][4] = {{0.975, 1, 12.706, 12.706204736174693}, {0.975, 10, 2.228, 2.2281388519862742},
                                  {0.95, 2, 2.920, 2.9199855803537242},   {0.8, 5, 0.920, 0.91954378024082621},
                                  {0.025, 30, -2.042, -2.0422724563012383}, {0.999, 3, 10.215, 10.214531852407383}};
    int bad_table = 0;
    bad = 0;
    for (int i = 0; i < 6; i++) {
        double got = sig_t_quantile(q[i][0], q[i][1]);
        if (fabs(got - q[i][2]) > 0.0005 + 1e-12) bad_table++;
        if (!close_rel(got, q[i][3], 1e-9)) bad++, snprintf(worst, sizeof worst, "t_{%g,%g} = %.12g, want %.12g", q[i][0], q[i][1], got, q[i][3]);
    }
    test_check("t quantiles: published table values (3 decimals)", bad_table == 0, "%d of 6 off", bad_table);
    test_check("t quantiles against mpmath (1e-9)", bad == 0, "%d of 6 off; %s", bad, worst);
}

static const double sleep1[10] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
static const double sleep2[10] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

static void test_tests(void) {
    sig_test w = sig_welch(sleep1, 10, sleep2, 10);
    test_check("welch: Student's sleep data as R prints it", w.ok && fabs(w.t + 1.8608) < 5e-5 && fabs(w.df - 17.776) < 5e-4 &&
               fabs(2 * w.p - (2 - 0.07939)) < 5e-6 && fabs(w.lo + 3.3654832) < 5e-8 && fabs(w.hi - 0.2054832) < 5e-8 &&
               fabs(w.effect + 1.58) < 1e-12,
               "t %.5f df %.4f two-sided p %.6f CI [%.7f, %.7f] (R: -1.8608, 17.776, 0.07939, [-3.3654832, 0.2054832])", w.t, w.df,
               2 * (1 - w.p), w.lo, w.hi);
    sig_test o = sig_one_sample(sleep1, 10, 0.0);
    test_check("one-sample: sleep group 1 as R prints it", o.ok && fabs(o.t - 1.3257) < 5e-5 && o.df == 9 &&
               fabs(2 * o.p - 0.2176) < 5e-5 && fabs(o.lo + 0.5297804) < 5e-8 && fabs(o.hi - 2.0297804) < 5e-8,
               "t %.5f p %.5f CI [%.7f, %.7f]", o.t, 2 * o.p, o.lo, o.hi);
    sig_test o2 = sig_one_sample(sleep1, 10, 0.75 + 0.1);
    test_check("one-sample against a value: effect = mean - value, p for effect > 0", o2.ok && fabs(o2.effect + 0.1) < 1e-12 && o2.p > 0.5,
               "effect %.3g p %.3g", o2.effect, o2.p);
    const double x[8] = {0, 0, 0.5, 0.5, 0.75, 0.75, 1, 1}, y[8] = {0.70, 0.72, 0.75, 0.74, 0.78, 0.79, 0.80, 0.83};
    sig_test s = sig_slope(x, y, 8);
    test_check("slope test against mpmath", s.ok && close_rel(s.effect, 0.10571428571428576, 1e-12) && close_rel(s.se, 0.013319720942512054, 1e-10) &&
               close_rel(s.p, 0.00010631614090671952, 1e-8) && s.df == 6,
               "slope %.17g se %.17g p %.17g", s.effect, s.se, s.p);

    double one[1] = {1.0}, flat[3] = {2, 2, 2}, flat2[3] = {1, 1, 1};
    test_check("a side with one value is not computable", !sig_welch(one, 1, sleep2, 10).ok && !sig_welch(sleep1, 10, one, 1).ok &&
               !sig_one_sample(one, 1, 0).ok && !sig_slope(x, y, 2).ok && !sig_slope(flat, y, 3).ok, "welch, one-sample, slope");
    sig_test z1 = sig_welch(flat, 3, flat2, 3), z2 = sig_welch(flat2, 3, flat, 3), z3 = sig_welch(flat, 3, flat, 3);
    test_check("zero variance: p 0, 1, 0.5 and a point CI", z1.ok && z1.p == 0 && z2.p == 1 && z3.p == 0.5 && z1.lo == 1 && z1.hi == 1,
               "p %g %g %g", z1.p, z2.p, z3.p);
}

static void test_sizes(void) {
    // mpmath: smallest n with |d|/sqrt(V/n) >= t_{.95,df} + t_{.80,df}
    int a = sig_n_welch(1, 1, 1), b = sig_n_welch(0.5, 1, 4), c = sig_n_welch(0.02, 0.0004, 0.0001), d = sig_n_welch(-1, 1, 1);
    test_check("seeds per side for 80% power (welch) against mpmath", a == 14 && b == 125 && c == 9 && d == 14, "%d %d %d %d (want 14 125 9 14)", a, b, c, d);
    int e = sig_n_one_sample(1, 1), f = sig_n_one_sample(0.1, 0.05);
    test_check("seeds for 80% power (one-sample) against mpmath", e == 8 && f == 33, "%d %d (want 8 33)", e, f);
    test_check("sample size: zero effect or beyond the cap is -1", sig_n_welch(0, 1, 1) == -1 && sig_n_welch(1e-3, 1, 1) == -1 &&
               sig_n_one_sample(0, 1) == -1, "effect 0, effect 1e-3 at variance 2");
    // slope: n replicates at k x values; n·sxx1 with df = n·k − 2 must match the one-sample style rule
    int g = sig_n_slope(0.1, 0.01, 0.5, 4), ok = g > 0;
    if (ok) {
        double se = sqrt(0.01 / (g * 0.5)), dfg = g * 4 - 2;
        ok = 0.1 / se >= sig_t_quantile(0.95, dfg) + sig_t_quantile(0.8, dfg);
        if (g > 1) {
            double se1 = sqrt(0.01 / ((g - 1) * 0.5)), df1 = (g - 1) * 4 - 2;
            ok = ok && (df1 <= 0 || 0.1 / se1 < sig_t_quantile(0.95, df1) + sig_t_quantile(0.8, df1));
        }
    }
    test_check("replicates per x value for a slope: the smallest that reaches the power rule", ok, "n = %d", g);
}

int main(void) {
    test_betainc();
    test_t();
    test_tests();
    test_sizes();
    return test_exit_code();
}
