#!/usr/bin/python3
"""PyTorch oracle for posbench's bicubic resizing (core/resize.c, core/cpu/resize_cpu.c).

Usage (Debian's Python, PyTorch 1.13 CPU):
  /usr/bin/python3 tests/resize_oracle.py DUMP

DUMP is a tensorfile (core/tensorfile.h) written by tests/test_resize.c. Each case LABEL has
  resize.LABEL.in   f32 (P, H, W, C)    input grids, channels last
  resize.LABEL.out  f32 (P, OH, OW, C)  posbench's ops_cpu.resize2d_forward(in, wy, wx)
  resize.LABEL.wy   f32 (OH, H)         resize_bicubic_weights(OH, H)
  resize.LABEL.wx   f32 (OW, W)         resize_bicubic_weights(OW, W)

and optionally a sweep of weight matrices:
  sweep.pairs       i32 (n, 2)          (in_size, out_size) of each matrix
  sweep.weights     f32 (Σ out·in)      resize_bicubic_weights(out, in) of each, concatenated

Checks, one line each (`PASS <name>: <detail>` or `FAIL <name>: <detail>`):
  oracle weights LABEL  max |w - torch's| <= 1e-6 for wy and wx; torch's weight matrix is
                        F.interpolate of the one-hot rows of the identity along that axis.
  oracle weights sweep  the same bound over every matrix of the sweep (worst pair named).
  oracle resize LABEL   max |out - F.interpolate(in as (P, C, H, W), (OH, OW), bicubic,
                        align_corners=False)| <= 1e-5 (float32 torch, the same arithmetic as
                        training code that would use torch).
A non-finite value or a wrong shape fails that check. Without torch every check prints SKIP.
Exit status: 0 no check failed, 1 some check failed, 2 the dump is unreadable or malformed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402

WEIGHT_ATOL = 1e-6
OUT_ATOL = 1e-5


def torch_bicubic(torch, x_pchw, oh, ow):
    import torch.nn.functional as F
    return F.interpolate(x_pchw, size=(oh, ow), mode="bicubic", align_corners=False)


def torch_weights(torch, out_size, in_size):
    """(out_size, in_size): column k is torch's resize of the k-th one-hot signal along H."""
    eye = torch.eye(in_size, dtype=torch.float32).reshape(in_size, 1, in_size, 1)
    res = torch_bicubic(torch, eye, out_size, 1)  # (in, 1, out, 1); W: 1 -> 1 is the identity
    return res.reshape(in_size, out_size).T.numpy()


def check_sweep(torch, pairs, weights):
    if pairs.ndim != 2 or pairs.shape[1] != 2 or weights.ndim != 1:
        raise ValueError(f"sweep: pairs {pairs.shape} / weights {weights.shape} malformed")
    if int((pairs[:, 0].astype(np.int64) * pairs[:, 1]).sum()) != weights.size:
        raise ValueError(f"sweep: {weights.size} weights do not match the pairs")
    worst, where, pos = -1.0, None, 0
    for inn, out in pairs.tolist():
        w = weights[pos:pos + inn * out].reshape(out, inn)
        pos += inn * out
        err = float(np.abs(w - torch_weights(torch, out, inn)).max()) if np.isfinite(w).all() else float("inf")
        if err > worst:
            worst, where = err, (inn, out)
    ok = worst <= WEIGHT_ATOL
    print(f"{'PASS' if ok else 'FAIL'} oracle weights sweep: {len(pairs)} matrices, max |w - torch| "
          f"{worst:.3g} at {where[0]}->{where[1]} (tol {WEIGHT_ATOL:g})")
    return 0 if ok else 1


def cases(tf):
    labels = []
    for name in tf:
        parts = name.split(".")
        if parts[0] == "sweep" and name in ("sweep.pairs", "sweep.weights"):
            continue
        if len(parts) != 3 or parts[0] != "resize":
            raise ValueError(f"unexpected entry {name!r}")
        if parts[1] not in labels:
            labels.append(parts[1])
    for label in labels:
        try:
            yield label, {k: tf[f"resize.{label}.{k}"] for k in ("in", "out", "wy", "wx")}
        except KeyError as e:
            raise ValueError(f"case {label}: missing entry {e}") from None


def check_case(torch, label, c):
    x, out, wy, wx = c["in"], c["out"], c["wy"], c["wx"]
    if x.ndim != 4 or out.ndim != 4:
        raise ValueError(f"case {label}: in {x.shape} / out {out.shape} are not (P, H, W, C)")
    P, H, W, C = x.shape
    _, OH, OW, _ = out.shape
    if out.shape != (P, OH, OW, C) or wy.shape != (OH, H) or wx.shape != (OW, W):
        raise ValueError(f"case {label}: shapes in {x.shape} out {out.shape} wy {wy.shape} wx {wx.shape} disagree")
    failed = 0
    ty, tx = torch_weights(torch, OH, H), torch_weights(torch, OW, W)
    werr = max(float(np.abs(wy - ty).max()), float(np.abs(wx - tx).max()))
    ok = np.isfinite(wy).all() and np.isfinite(wx).all() and werr <= WEIGHT_ATOL
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} oracle weights {label}: {H}->{OH}, {W}->{OW}: "
          f"max |w - torch| {werr:.3g} (tol {WEIGHT_ATOL:g})")
    ref = torch_bicubic(torch, torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(), OH, OW)
    ref = ref.permute(0, 2, 3, 1).numpy()
    err = float(np.abs(out - ref).max())
    scale = float(np.abs(ref).max())
    ok = np.isfinite(out).all() and err <= OUT_ATOL
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'} oracle resize {label}: (P={P}, {H}x{W} -> {OH}x{OW}, C={C}): "
          f"max |out - torch| {err:.3g} (tol {OUT_ATOL:g}, max |torch| {scale:.3g})")
    return failed


def main(argv):
    if len(argv) != 2:
        print(f"usage: /usr/bin/python3 {argv[0]} DUMP", file=sys.stderr)
        return 2
    try:
        tf = tensorfile.read(argv[1])
        all_cases = list(cases(tf))
    except (tensorfile.TensorfileError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sweep = ("sweep.pairs" in tf) + ("sweep.weights" in tf)
    if sweep == 1:
        print(f"error: {argv[1]}: sweep.pairs and sweep.weights come together", file=sys.stderr)
        return 2
    if not all_cases and not sweep:
        print(f"error: {argv[1]}: no resize.* cases and no sweep", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        for name in [f"resize {label}" for label, _ in all_cases] + (["weights sweep"] if sweep else []):
            print(f"SKIP oracle {name}: torch is not importable ({e})")
        return 0
    torch.set_num_threads(1)
    failed = 0
    try:
        if sweep:
            failed += check_sweep(torch, tf["sweep.pairs"], tf["sweep.weights"])
        for label, c in all_cases:
            failed += check_case(torch, label, c)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
