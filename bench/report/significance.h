// bench/report/significance.h — the statistical tests behind the findings' verdicts
// (findings.c) and the regression benchmarks (bench/perf/regress.c). Student's t
// distribution from the regularized incomplete beta function (continued fraction, as in
// Numerical Recipes §6.4 / Cephes incbet), and three t-tests whose one-sided p-value is for
// the alternative "effect > 0":
//   welch      effect = mean(a) − mean(b); SE = sqrt(va/na + vb/nb) (sample variances, n−1);
//              Welch–Satterthwaite df = SE⁴ / ((va/na)²/(na−1) + (vb/nb)²/(nb−1))
//   one_sample effect = mean(a) − value; SE = s/√n; df = n − 1
//   slope      effect = OLS slope of y on x; SE = sqrt(RSS/(n−2) / Sxx); df = n − 2
// t = effect / SE; p = P(T_df ≥ t). The 95% CI is two-sided: effect ± t_{0.975,df}·SE; the
// 90% one, effect ± t_{0.95,df}·SE, is the interval a one-sided 5% test matches (findings.h).
// SE = 0 (every value equal): p = 0 when effect > 0, 1 when < 0, 0.5 when 0; the CIs are the
// point. A test that cannot be computed (a side with fewer than 2 values; slope: fewer than
// 3 points or all x equal) has ok = 0.
// Sample sizes for 80% power at one-sided α = 0.05 (the normal-theory approximation with t
// quantiles: the smallest n with |effect|/SE(n) ≥ t_{0.95,df(n)} + t_{0.80,df(n)}), with the
// effect given (findings: a stated one, never the observed) and the observed variances: -1 when the effect is 0 or n would exceed
// SIG_N_MAX.
#pragma once

#define SIG_N_MAX 1000

// Regularized incomplete beta I_x(a, b) for a, b > 0, 0 ≤ x ≤ 1 (NAN otherwise); |error|
// about 1e-14 relative.
double sig_betainc(double a, double b, double x);
// Student t with df > 0 degrees of freedom (df may be fractional): P(T ≤ t), P(T ≥ t), and
// the quantile q with P(T ≤ q) = p (0 < p < 1; bisection to 1e-12 relative).
double sig_t_cdf(double t, double df);
double sig_t_sf(double t, double df);
double sig_t_quantile(double p, double df);

typedef struct {
    int ok;                 // 0: not computable (see above); the fields below are then NAN
    double effect, se, df, t;
    double p;               // one-sided, alternative effect > 0 (use 1 − p for effect < 0)
    double lo, hi;          // two-sided 95% confidence interval of effect
    double lo90, hi90;      // two-sided 90% interval: lo90 is the one-sided 95% lower bound (the
                            // interval a one-sided 5% test matches: p < 0.05 iff lo90 > 0)
    double va, vb;          // sample variances of a and b (welch), of a (one_sample), residual (slope)
    double sxx;             // slope: Σ(x − x̄)²
} sig_test;

// Mean and sample variance (n−1; 0 when n < 2).
void sig_mean_var(const double *x, int n, double *mean, double *var);
sig_test sig_welch(const double *a, int na, const double *b, int nb);
sig_test sig_one_sample(const double *a, int n, double value);
sig_test sig_slope(const double *x, const double *y, int n);
// The same test of effect + delta > 0: effect, CI and t moved by delta (se, df kept), p
// recomputed (the SE = 0 rule above included). Non-inferiority and TOST (findings.h) test a
// Welch difference against a margin this way. A test with ok = 0 is returned as it is.
sig_test sig_shifted(sig_test t, double delta);

// Seeds per side for welch (equal n per side), seeds for one_sample, and replicates per x
// value for slope (k distinct x values with Σ over them of (x − x̄)² = sxx1 for one replicate
// each, residual variance var): see the header comment. -1: effect 0 or more than SIG_N_MAX.
int sig_n_welch(double effect, double va, double vb);
int sig_n_one_sample(double effect, double var);
int sig_n_slope(double slope, double var, double sxx1, int k);
// Holm's step-down adjustment of the n p-values p (NaN entries are not tests: left NaN and not
// counted): with the m finite p sorted ascending, adj_(i) = max_{j<=i} min(1, (m − j + 1)·p_(j)).
// Returns m.
int sig_holm(const double *p, int n, double *adj);
