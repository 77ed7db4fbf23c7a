#!/usr/bin/python3
"""tests/crosscheck_welch_reference.py — the known answers of tests/test_crosscheck.c's unpaired
(--init torch) cases, computed independently of bench/report/significance.c with mpmath at 30
digits: the Welch difference, its df, Student t CDF by the regularized incomplete beta (mpmath
betainc), quantiles by bisection, the two-sided and TOST p-values, the 95% and 90% CIs, and the
seeds per side sig_n_welch would need for the margin (smallest n with margin/sqrt((va + vb)/n)
>= t_0.95 + t_0.80 at df (n - 1)(va + vb)^2/(va^2 + vb^2)). Run: /usr/bin/python3 this file."""
import mpmath as mp

mp.mp.dps = 30


def cdf(t, df):
    t, df = mp.mpf(t), mp.mpf(df)
    tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
    return 1 - tail if t > 0 else tail


def quantile(p, df):
    lo, hi = mp.mpf(-1000), mp.mpf(1000)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def welch(a, b, margin):
    a, b = [mp.mpf(x) for x in a], [mp.mpf(x) for x in b]
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va, vb = sum((x - ma) ** 2 for x in a) / (na - 1), sum((x - mb) ** 2 for x in b) / (nb - 1)
    ua, ub = va / na, vb / nb
    se, df = mp.sqrt(ua + ub), (ua + ub) ** 2 / (ua ** 2 / (na - 1) + ub ** 2 / (nb - 1))
    e = ma - mb
    p1 = 1 - cdf(e / se, df)
    tost = max(1 - cdf((e + margin) / se, df), cdf((e - margin) / se, df))
    q95, q975 = quantile(0.95, df), quantile(0.975, df)
    w = (va + vb) ** 2 / (va ** 2 + vb ** 2)
    need = next((n for n in range(2, 1001)
                 if margin / mp.sqrt((va + vb) / n) >= quantile(0.95, w * (n - 1)) + quantile(0.80, w * (n - 1))), None)
    print(f"a={[float(x) for x in a]} b={[float(x) for x in b]} margin {margin}: effect {float(e) * 100:+.4f} points, "
          f"df {float(df):.4f}, p two-sided {float(2 * min(p1, 1 - p1)):.6f}, TOST p {float(tost):.6f}, "
          f"95% CI [{float(e - q975 * se) * 100:+.4f}, {float(e + q975 * se) * 100:+.4f}], "
          f"90% CI [{float(e - q95 * se) * 100:+.4f}, {float(e + q95 * se) * 100:+.4f}], seeds per side {need}")


if __name__ == "__main__":
    welch([0.800, 0.805, 0.810, 0.795], [0.802, 0.798, 0.807, 0.801], 0.02)
    welch([0.80, 0.81, 0.79], [0.70, 0.72, 0.71], 0.02)
    welch([0.70, 0.80, 0.90], [0.72, 0.85, 0.78], 0.02)
    welch([0.70, 0.80, 0.90], [0.701, 0.798, 0.901], 0.02)
    welch([0.80, 0.81, 0.79], [0.79, 0.795, 0.80, 0.805, 0.785], 0.02)
    welch([0.80, 0.81, 0.79], [0.79, 0.795, 0.80, 0.805, 0.785], 0.01999)
