#!/usr/bin/python3
"""PyTorch oracle for posbench's SimCLR (objectives/simclr/): NT-Xent and the projection head.

Usage (Debian's Python, PyTorch 1.13 CPU):
  /usr/bin/python3 tests/simclr_oracle.py DUMP

DUMP is a tensorfile (core/tensorfile.h) written by tests/test_simclr.c. Entries:
  config.tau     f64 (1)     NT-Xent temperature
  input.f        f32 (N, d)  the backbone features of the N = 2B views (view 0 of images
                             0..B-1, then view 1: row i's positive is row (i + N/2) mod N)
  param.w1, param.b1, param.w2, param.b2   the projection head Linear(d, H) -> ReLU -> Linear(H, P)
  output.z       f32 (N, P)  posbench's projections
  output.loss    f32 (1)     posbench's mean NT-Xent over the N anchors
  grad.f, grad.w1, grad.b1, grad.w2, grad.b2   posbench's gradients of that loss
With no param.* entries (the loss alone): input.z f32 (N, P) and grad.z instead of input.f.

The reference, in float64 with autograd: z = Linear2(relu(Linear1(f))); zn = F.normalize(z);
logits = zn zn^T / tau with the diagonal at -inf; loss = F.cross_entropy(logits, positives),
the lecture's l_ij = -log exp(sim(z_i, z_j)/tau) / sum_{k != i} exp(sim(z_i, z_k)/tau) averaged
over all 2B anchors.

Output: one line per check, `PASS <name>: <detail>` or `FAIL <name>: <detail>`:
  oracle loss         |loss_pb - loss_ref|        <= 1e-5 * max(1, |loss_ref|)
  oracle z            max |z_pb - z_ref|          <= 1e-5 * max(1, max |z_ref|)
  oracle grad <name>  max |g_pb - g_ref|          <= 1e-6 + 1e-3 * max |g_ref|
Exit status: 0 all pass, 1 some check fails, 2 the input is unreadable or malformed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402


def ntxent(torch, z, tau):
    F = torch.nn.functional
    n = z.shape[0]
    zn = F.normalize(z, dim=1)
    logits = zn @ zn.t() / tau
    logits = logits.masked_fill(torch.eye(n, dtype=torch.bool), float("-inf"))
    positives = (torch.arange(n) + n // 2) % n
    return F.cross_entropy(logits, positives)


def check(name, ok, detail, failures):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    if not ok:
        failures.append(name)


def main(argv):
    if len(argv) != 2:
        print(f"usage: /usr/bin/python3 {argv[0]} DUMP", file=sys.stderr)
        return 2
    try:
        tf = tensorfile.read(argv[1])
    except tensorfile.TensorfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import torch
    head = "param.w1" in tf
    need = ["config.tau", "output.loss"] + (["input.f", "param.w1", "param.b1", "param.w2", "param.b2", "output.z",
                                              "grad.f", "grad.w1", "grad.b1", "grad.w2", "grad.b2"]
                                             if head else ["input.z", "grad.z"])
    missing = [k for k in need if k not in tf]
    if missing:
        print(f"error: {argv[1]} lacks {', '.join(missing)}", file=sys.stderr)
        return 2
    tau = float(tf["config.tau"].reshape(-1)[0])
    t = {k: torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True)
         for k, v in tf.items() if k.startswith(("input.", "param."))}
    if head:
        h = torch.relu(t["input.f"] @ t["param.w1"].t() + t["param.b1"])
        z = h @ t["param.w2"].t() + t["param.b2"]
        names = {"f": "input.f", "w1": "param.w1", "b1": "param.b1", "w2": "param.w2", "b2": "param.b2"}
    else:
        z = t["input.z"]
        names = {"z": "input.z"}
    loss = ntxent(torch, z, tau)
    loss.backward()
    failures = []
    ref = loss.item()
    got = float(tf["output.loss"].reshape(-1)[0])
    check("oracle loss", np.isfinite(got) and abs(got - ref) <= 1e-5 * max(1.0, abs(ref)),
          f"posbench {got:.8f} torch float64 {ref:.8f}", failures)
    if head:
        zr = z.detach().numpy()
        zp = np.asarray(tf["output.z"], dtype=np.float64)
        err = np.max(np.abs(zp - zr)) if zp.shape == zr.shape else np.inf
        check("oracle z", np.isfinite(err) and err <= 1e-5 * max(1.0, np.max(np.abs(zr))),
              f"max |diff| {err:.3g} (shape {zp.shape})", failures)
    for short, key in names.items():
        gr = t[key].grad.numpy()
        gp = np.asarray(tf["grad." + short], dtype=np.float64)
        err = np.max(np.abs(gp - gr)) if gp.shape == gr.shape else np.inf
        scale = np.max(np.abs(gr))
        check(f"oracle grad {short}", np.isfinite(err) and err <= 1e-6 + 1e-3 * scale,
              f"max |diff| {err:.3g}, max |g_ref| {scale:.3g}", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
