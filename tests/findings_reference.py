#!/usr/bin/python3
"""tests/findings_reference.py — the statistics behind the findings' verdicts, computed
independently with SciPy for tests/test_findings_rules.c (the C side: bench/report/significance.c).
Reads one request a line on stdin, writes one answer a line (numbers as %.17g, space-separated):
  welch A B          one-sided p (mean A > mean B), 90% CI lo hi, 95% CI lo hi   (Welch)
  one A VALUE        one-sided p (mean A > VALUE), 90% CI lo hi                  (one-sample t)
  slope X Y          one-sided p (slope > 0), slope, 90% CI lo hi                (OLS)
  holm P             Holm-adjusted p's, in input order                           (step-down)
  family PC PA F K   one experiment's family: finding i is judged on PA[i] when F[i] is 1 (a
                     significant-against verdict), else PC[i]; findings with equal K[i] enter
                     once; the Holm-adjusted p of each finding, in input order
  nwelch E VA VB     the smallest n per side with E/sqrt((VA+VB)/n) >= t95(df)+t80(df),
                     df the Welch df at n per side                             (-1 beyond 1000)
  none E V           the same for a one-sample test, df = n - 1
Lists are comma-separated. Exits 3 when SciPy is missing (the C test then skips)."""
import sys
try:
    import numpy as np
    from scipy import stats
except ImportError:
    print("scipy missing", file=sys.stderr)
    sys.exit(3)


def nums(s):
    return [float(v) for v in s.split(",")]


def ci(effect, se, df, level):
    q = stats.t.ppf(0.5 + level / 2, df)
    return effect - q * se, effect + q * se


def welch(a, b):
    a, b = np.array(a), np.array(b)
    r = stats.ttest_ind(a, b, equal_var=False, alternative="greater")
    ua, ub = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = np.sqrt(ua + ub)
    df = (ua + ub) ** 2 / (ua ** 2 / (len(a) - 1) + ub ** 2 / (len(b) - 1))
    e = a.mean() - b.mean()
    return [r.pvalue, *ci(e, se, df, 0.90), *ci(e, se, df, 0.95)]


def one(a, value):
    a = np.array(a)
    r = stats.ttest_1samp(a, value, alternative="greater")
    se = a.std(ddof=1) / np.sqrt(len(a))
    return [r.pvalue, *ci(a.mean() - value, se, len(a) - 1, 0.90)]


def slope(x, y):
    r = stats.linregress(x, y)
    df = len(x) - 2
    p = stats.t.sf(r.slope / r.stderr, df)
    return [p, r.slope, *ci(r.slope, r.stderr, df, 0.90)]


def holm(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    m, adj, prev = len(p), [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        prev = max(prev, min(1.0, (m - rank) * p[i]))
        adj[i] = prev
    return adj


def power_n(effect, var, df_of_n):
    for n in range(2, 1001):
        df = df_of_n(n)
        if df <= 0:
            continue
        if abs(effect) / np.sqrt(var / n) >= stats.t.ppf(0.95, df) + stats.t.ppf(0.80, df):
            return [n]
    return [-1]


for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "welch":
        out = welch(nums(w[1]), nums(w[2]))
    elif w[0] == "one":
        out = one(nums(w[1]), float(w[2]))
    elif w[0] == "slope":
        out = slope(nums(w[1]), nums(w[2]))
    elif w[0] == "holm":
        out = holm(nums(w[1]))
    elif w[0] == "family":
        pc, pa, fails, keys = nums(w[1]), nums(w[2]), [int(v) for v in w[3].split(",")], w[4].split(",")
        judged = [pa[i] if fails[i] else pc[i] for i in range(len(pc))]
        firsts = {}
        for i, k in enumerate(keys):
            firsts.setdefault(k, i)
        uniq = sorted(set(firsts.values()))
        adj = holm([judged[i] for i in uniq])
        by_key = {keys[i]: adj[j] for j, i in enumerate(uniq)}
        out = [by_key[k] for k in keys]
    elif w[0] == "nwelch":
        e, va, vb = map(float, w[1:4])
        k = (va + vb) ** 2 / (va * va + vb * vb)
        out = power_n(e, va + vb, lambda n: k * (n - 1))
    elif w[0] == "none":
        e, v = map(float, w[1:3])
        out = power_n(e, v, lambda n: n - 1)
    else:
        sys.exit("unknown request " + w[0])
    print(" ".join("%.17g" % v for v in out))
