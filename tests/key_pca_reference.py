#!/usr/bin/python3
"""Independent NumPy reference for posbench's key PCA (objectives/key_pca.c).

Usage: /usr/bin/python3 tests/key_pca_reference.py DUMP
DUMP is a tensorfile with input.X f32 (n, d) and posbench's results: output.components f32
(3, d), output.proj f32 (n, 3), output.variance f64 (3). The reference centres X in float64,
decomposes its covariance Xc^T Xc / (n - 1) with numpy.linalg.eigh (and, as a second method, the
right singular vectors of Xc by numpy.linalg.svd), and prints one line per check:
  PASS/FAIL pca-ref components:  each of posbench's three components equals the reference's up to
                                 sign, max |difference| <= 1e-5 (eigh and svd both)
  PASS/FAIL pca-ref sign:        each component's largest-magnitude entry is positive
  PASS/FAIL pca-ref projections: Xc @ component (reference component, posbench's sign) equals
                                 output.proj to 1e-4 * max(1, max |proj|)
  PASS/FAIL pca-ref variance:    each component's share of the total variance to 1e-9
Exit status 0 when all pass, 1 otherwise, 2 on a malformed dump.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'} pca-ref {name}: {detail}")
    return ok


def main(path):
    try:
        t = tensorfile.read(path)
        X = t["input.X"].astype(np.float64)
        comp, proj, var = t["output.components"].astype(np.float64), t["output.proj"].astype(np.float64), t["output.variance"]
    except (tensorfile.TensorfileError, KeyError) as e:
        print(f"FAIL pca-ref dump: {e}")
        return 2
    n, d = X.shape
    xc = X - X.mean(axis=0)
    cov = xc.T @ xc / max(n - 1, 1)
    w, v = np.linalg.eigh(cov)
    ref = v[:, ::-1][:, :3].T  # (3, d), largest eigenvalue first
    _, _, vt = np.linalg.svd(xc, full_matrices=False)
    ok = True
    worst = worst_svd = 0.0
    for k in range(3):
        for other, tag in ((ref[k], "eigh"), (vt[k], "svd")):
            diff = min(np.abs(comp[k] - other).max(), np.abs(comp[k] + other).max())
            if tag == "eigh":
                worst = max(worst, diff)
            else:
                worst_svd = max(worst_svd, diff)
    ok &= check("components", worst <= 1e-5 and worst_svd <= 1e-5,
                f"max |posbench - reference| up to sign {worst:.3g} (eigh), {worst_svd:.3g} (svd); eigenvalues {w[::-1][:3]}")
    signs = [comp[k][np.argmax(np.abs(comp[k]))] > 0 for k in range(3)]
    ok &= check("sign", all(signs), f"largest-magnitude entry positive per component: {signs}")
    aligned = np.array([ref[k] * (1.0 if np.dot(ref[k], comp[k]) >= 0 else -1.0) for k in range(3)])
    p_ref = xc @ aligned.T
    perr = np.abs(p_ref - proj).max()
    ok &= check("projections", perr <= 1e-4 * max(1.0, np.abs(p_ref).max()), f"max |difference| {perr:.3g} (max |proj| {np.abs(p_ref).max():.3g})")
    share = w[::-1][:3] / w.sum()
    verr = np.abs(share - var).max()
    ok &= check("variance", verr <= 1e-9, f"shares {var} vs {share}: max |difference| {verr:.3g}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
