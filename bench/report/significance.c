// bench/report/significance.c — Student's t distribution via the regularized incomplete beta
// function, Welch / one-sample / regression-slope t-tests, and power-based sample sizes
// (definitions in significance.h).
#include "significance.h"
#include <math.h>

// Continued fraction for I_x(a, b) (Numerical Recipes §6.4, modified Lentz); converges fast
// for x < (a + 1) / (a + b + 2).
static double betacf(double a, double b, double x) {
    const double eps = 1e-16, tiny = 1e-300;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0, c = 1.0, d = 1.0 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < eps) break;
    }
    return h;
}

double sig_betainc(double a, double b, double x) {
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) return NAN;
    if (x == 0 || x == 1) return x;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0)) return exp(lbt) * betacf(a, b, x) / a;
    return 1.0 - exp(lbt) * betacf(b, a, 1.0 - x) / b;
}

// P(|T| ≥ |t|) / 2 = I_{df/(df+t²)}(df/2, 1/2) / 2: the tail beyond |t|.
static double t_tail(double t, double df) {
    if (isinf(t)) return 0.0;
    return 0.5 * sig_betainc(0.5 * df, 0.5, df / (df + t * t));
}

double sig_t_cdf(double t, double df) {
    if (isnan(t) || !(df > 0)) return NAN;
    return t > 0 ? 1.0 - t_tail(t, df) : t_tail(t, df);
}

double sig_t_sf(double t, double df) {
    if (isnan(t) || !(df > 0)) return NAN;
    return t > 0 ? t_tail(t, df) : 1.0 - t_tail(t, df);
}

double sig_t_quantile(double p, double df) {
    if (!(p > 0) || !(p < 1) || !(df > 0)) return NAN;
    if (p == 0.5) return 0.0;
    double lo = 0.0, hi = 1.0, target = p > 0.5 ? 1.0 - p : p; // solve the upper tail for |q|
    while (t_tail(hi, df) > target && hi < 1e300) hi *= 2.0;
    for (int i = 0; i < 2000 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_tail(mid, df) > target) lo = mid;
        else hi = mid;
    }
    double q = 0.5 * (lo + hi);
    return p > 0.5 ? q : -q;
}

void sig_mean_var(const double *x, int n, double *mean, double *var) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i];
    double m = n > 0 ? s / n : NAN, ss = 0.0;
    for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n > 1 ? ss / (n - 1) : 0.0;
}

static sig_test not_ok(void) {
    return (sig_test){.ok = 0, .effect = NAN, .se = NAN, .df = NAN, .t = NAN, .p = NAN, .lo = NAN, .hi = NAN,
                      .lo90 = NAN, .hi90 = NAN, .va = NAN, .vb = NAN, .sxx = NAN};
}

// t, p and the 95% CI from effect, se and df.
static void finish(sig_test *r) {
    r->ok = 1;
    if (r->se > 0) {
        r->t = r->effect / r->se;
        r->p = sig_t_sf(r->t, r->df);
        double q = sig_t_quantile(0.975, r->df);
        r->lo = r->effect - q * r->se, r->hi = r->effect + q * r->se;
        double q90 = sig_t_quantile(0.95, r->df);
        r->lo90 = r->effect - q90 * r->se, r->hi90 = r->effect + q90 * r->se;
    } else {
        r->t = r->effect > 0 ? INFINITY : r->effect < 0 ? -INFINITY : 0.0;
        r->p = r->effect > 0 ? 0.0 : r->effect < 0 ? 1.0 : 0.5;
        r->lo = r->hi = r->lo90 = r->hi90 = r->effect;
    }
}

sig_test sig_welch(const double *a, int na, const double *b, int nb) {
    if (na < 2 || nb < 2) return not_ok();
    sig_test r = not_ok();
    double ma, mb;
    sig_mean_var(a, na, &ma, &r.va);
    sig_mean_var(b, nb, &mb, &r.vb);
    double ua = r.va / na, ub = r.vb / nb;
    r.effect = ma - mb;
    r.se = sqrt(ua + ub);
    r.df = ua + ub > 0 ? (ua + ub) * (ua + ub) / (ua * ua / (na - 1) + ub * ub / (nb - 1)) : na + nb - 2;
    finish(&r);
    return r;
}

sig_test sig_one_sample(const double *a, int n, double value) {
    if (n < 2) return not_ok();
    sig_test r = not_ok();
    double m;
    sig_mean_var(a, n, &m, &r.va);
    r.effect = m - value;
    r.se = sqrt(r.va / n);
    r.df = n - 1;
    finish(&r);
    return r;
}

sig_test sig_slope(const double *x, const double *y, int n) {
    if (n < 3) return not_ok();
    double mx, my, vx, vy;
    sig_mean_var(x, n, &mx, &vx);
    sig_mean_var(y, n, &my, &vy);
    double sxx = 0.0, sxy = 0.0;
    for (int i = 0; i < n; i++) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    if (!(sxx > 0)) return not_ok();
    sig_test r = not_ok();
    r.effect = sxy / sxx;
    double rss = 0.0;
    for (int i = 0; i < n; i++) {
        double e = y[i] - my - r.effect * (x[i] - mx);
        rss += e * e;
    }
    r.df = n - 2;
    r.va = rss / r.df;
    r.sxx = sxx;
    r.se = sqrt(r.va / sxx);
    finish(&r);
    return r;
}

sig_test sig_shifted(sig_test t, double delta) {
    if (!t.ok) return t;
    t.effect += delta;
    finish(&t); // t and p from the moved effect; the CI is recomputed around it
    return t;
}

// The smallest n ≥ n_min with |effect| / se(n) ≥ t_{0.95,df(n)} + t_{0.80,df(n)}, where
// se(n) = sqrt(var_unit / (n·unit)) and df(n) = df_a·n + df_b; -1 above SIG_N_MAX.
static int power_n(double effect, double var_unit, double unit, double df_a, double df_b, int n_min) {
    if (!(fabs(effect) > 0) || !isfinite(effect)) return -1;
    if (!(var_unit > 0)) return n_min;
    for (int n = n_min; n <= SIG_N_MAX; n++) {
        double df = df_a * n + df_b;
        if (!(df > 0)) continue;
        double se = sqrt(var_unit / (n * unit));
        if (fabs(effect) / se >= sig_t_quantile(0.95, df) + sig_t_quantile(0.80, df)) return n;
    }
    return -1;
}

int sig_n_welch(double effect, double va, double vb) {
    // equal n per side: SE² = (va + vb)/n; Welch df = (n − 1)(va + vb)² / (va² + vb²)
    double w = va * va + vb * vb > 0 ? (va + vb) * (va + vb) / (va * va + vb * vb) : 2.0;
    return power_n(effect, va + vb, 1.0, w, -w, 2);
}

int sig_n_one_sample(double effect, double var) { return power_n(effect, var, 1.0, 1.0, -1.0, 2); }

int sig_n_slope(double slope, double var, double sxx1, int k) {
    if (!(sxx1 > 0) || k < 2) return -1;
    return power_n(slope, var, sxx1, (double)k, -2.0, k > 2 ? 1 : 2);
}

int sig_holm(const double *p, int n, double *adj) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        adj[i] = NAN;
        if (isfinite(p[i])) m++;
    }
    double prev = 0.0;
    for (int rank = 0; rank < m; rank++) { // selection of the next smallest p: n is a report's findings
        int best = -1;
        for (int i = 0; i < n; i++)
            if (isfinite(p[i]) && isnan(adj[i]) && (best < 0 || p[i] < p[best])) best = i;
        double a = (m - rank) * p[best];
        a = a > 1.0 ? 1.0 : a;
        prev = a > prev ? a : prev;
        adj[best] = prev;
    }
    return m;
}
