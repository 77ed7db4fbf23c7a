#!/usr/bin/python3
"""Independent double-precision reference for posbench's linear probe (objectives/linear_probe.c).

Usage: /usr/bin/python3 tests/linear_probe_reference.py DUMP
DUMP is a tensorfile with input.X f64 (n, d), input.y i32 (n), config.K, config.lambda (f64
scalars) and output.W f64 (K, d), output.b f64 (K), output.objective f64 (1): posbench's fit.
The reference minimises the same objective, (1/n) sum -log softmax(W x + b)[y] + lambda/2 |W|^2
(bias not penalised), with torch.optim.LBFGS in float64 (strong Wolfe line search) -- another
algorithm, another implementation -- and prints one line per check:
  PASS/FAIL probe-ref objective: |f_posbench - f_ref| <= 1e-9 * max(1, |f_ref|) (and f_posbench
                                 evaluated here equals the dumped value to 1e-12)
  PASS/FAIL probe-ref weights:   max |W - W_ref|, |b - b_ref| <= 1e-3 * max(1, max |W_ref|) (posbench
                                 stops at a largest gradient entry of 1e-7: the weights are within
                                 about that over the curvature, 1e-4 at lambda 1e-3)
  PASS/FAIL probe-ref predictions: identical argmax on the training rows
Exit status 0 when all pass, 1 otherwise, 2 on a malformed dump.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402


def objective(torch, X, y, W, b, lam):
    z = X @ W.T + b
    return torch.nn.functional.cross_entropy(z, y) + 0.5 * lam * (W * W).sum()


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        tf = tensorfile.read(argv[1])
        X, y = tf["input.X"].astype(np.float64), tf["input.y"].astype(np.int64)
        K, lam = int(tf["config.K"].reshape(-1)[0]), float(tf["config.lambda"].reshape(-1)[0])
        Wp, bp, fp = tf["output.W"], tf["output.b"], float(tf["output.objective"].reshape(-1)[0])
    except (KeyError, tensorfile.TensorfileError) as e:
        print(f"error: {argv[1]}: {e}", file=sys.stderr)
        return 2
    import torch
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    W = torch.zeros(K, X.shape[1], dtype=torch.float64, requires_grad=True)
    b = torch.zeros(K, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([W, b], lr=1, max_iter=5000, tolerance_grad=1e-13, tolerance_change=1e-16,
                            history_size=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        f = objective(torch, Xt, yt, W, b, lam)
        f.backward()
        return f
    for _ in range(5):
        opt.step(closure)
    with torch.no_grad():
        f_ref = float(objective(torch, Xt, yt, W, b, lam))
        f_pb = float(objective(torch, Xt, yt, torch.from_numpy(Wp), torch.from_numpy(bp), lam))
        W_ref, b_ref = W.numpy(), b.numpy()
    ok = []

    def check(name, good, detail):
        print(f"{'PASS' if good else 'FAIL'} {name}: {detail}", flush=True)
        ok.append(good)
    check("probe-ref objective", abs(fp - f_ref) <= 1e-9 * max(1.0, abs(f_ref)) and abs(f_pb - fp) <= 1e-12 * max(1.0, abs(fp)),
          f"posbench {fp:.15g} (recomputed {f_pb:.15g}) reference {f_ref:.15g} diff {fp - f_ref:.3g}")
    scale = max(1.0, float(np.abs(W_ref).max()))
    dW, db = float(np.abs(Wp - W_ref).max()), float(np.abs(bp - b_ref).max())
    check("probe-ref weights", max(dW, db) <= 1e-3 * scale, f"max|dW| {dW:.3g} max|db| {db:.3g} (max|W_ref| {scale:.3g})")
    pred_pb, pred_ref = np.argmax(X @ Wp.T + bp, axis=1), np.argmax(X @ W_ref.T + b_ref, axis=1)
    check("probe-ref predictions", bool(np.all(pred_pb == pred_ref)), f"{int(np.sum(pred_pb != pred_ref))} of {len(y)} differ")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
