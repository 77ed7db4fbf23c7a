#!/usr/bin/python3
"""torchvision oracle for posbench's augmented views (datasets/views*.c).

Usage (Debian's Python, python3-torchvision 0.14 on PyTorch 1.13 CPU):
  /usr/bin/python3 tests/views_oracle.py DUMP

DUMP is a tensorfile (core/tensorfile.h) written by tests/test_views.c. Entries:
  KIND.LABEL.in    f32 (C, H, W)  an image in [0, 1]
  KIND.LABEL.out   f32            posbench's transform of it with fixed parameters
  KIND.LABEL.args  f64 (n)        the parameters, by KIND:
    crop        top, left, h, w, S   F.resized_crop(img, top, left, h, w, [S, S], BILINEAR, antialias=False)
    hflip       (unused)            F.hflip
    brightness  factor              F.adjust_brightness
    contrast    factor              F.adjust_contrast
    saturation  factor              F.adjust_saturation
    hue         factor              F.adjust_hue
    grayscale   (unused)            F.rgb_to_grayscale(img, num_output_channels=C)
    blur        kernel, sigma       F.gaussian_blur(img, [k, k], [sigma, sigma])
    solarize    threshold           F.solarize
    pipeline    top, left, h, w, S, flip, jitter, o0, o1, o2, o3, brightness, contrast,
                saturation, hue, grayscale, blur, kernel, sigma, solarize, threshold,
                b_on, c_on, s_on, h_on
                the whole view (views_batch.c view_apply) composed of the calls above in
                torchvision's order: crop, flip, ColorJitter's four in order o (those *_on),
                grayscale, blur, solarize
  cropdraw.LABEL.trace     f32 (n, 20)  per draw, the (scale, log aspect) each attempt drew
  cropdraw.LABEL.attempts  i32 (n)      attempts made (11: all 10 failed, the fallback)
  cropdraw.LABEL.box       i32 (n, 4)   posbench's (top, left, h, w)
  cropdraw.LABEL.args      f64 (6)      H, W, scale min, max, ratio min, max
    torchvision's own RandomResizedCrop.get_params runs with its torch.empty(1).uniform_ and
    torch.randint replaced by a replay of posbench's draws (uniform_ returns the recorded value,
    after checking it lies in the range torchvision asks for; randint returns posbench's offset
    after checking it lies in [low, high)); the box it returns must equal posbench's, and it
    must have consumed exactly the recorded attempts.

One line per check: `PASS oracle KIND LABEL: ...` or `FAIL ...`, max |posbench - torchvision|
against the tolerance of TOL (0 means bitwise). Without torchvision (or torch) one SKIP line
says how many cases went unchecked. Exit status: 0 no check failed, 1 some check failed, 2 the dump is malformed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402

# Tolerances in pixel units ([0, 1]). Exact elementwise ops do the same float32 arithmetic as
# torch: expected 0; 1e-5 leaves room for a compiler's reassociation. Resize and blur sum a
# few products in a fixed but possibly different order than torch's kernels: 1e-6.
TOL = {"crop": 1e-6, "hflip": 0.0, "brightness": 1e-5, "contrast": 1e-5, "saturation": 1e-5,
       "hue": 1e-5, "grayscale": 1e-5, "blur": 1e-6, "solarize": 0.0, "pipeline": 1e-5}


def report(ok, name, detail):
    print(f"{'PASS' if ok else 'FAIL'} oracle {name}: {detail}")
    return 0 if ok else 1


def apply(F, IM, torch, kind, x, a):
    if kind == "crop":
        top, left, h, w, S = (int(v) for v in a[:5])
        return F.resized_crop(x, top, left, h, w, [S, S], IM.BILINEAR, antialias=False)
    if kind == "hflip":
        return F.hflip(x)
    if kind == "brightness":
        return F.adjust_brightness(x, float(a[0]))
    if kind == "contrast":
        return F.adjust_contrast(x, float(a[0]))
    if kind == "saturation":
        return F.adjust_saturation(x, float(a[0]))
    if kind == "hue":
        return F.adjust_hue(x, float(a[0]))
    if kind == "grayscale":
        return F.rgb_to_grayscale(x, num_output_channels=x.shape[0])
    if kind == "blur":
        k = int(a[0])
        return F.gaussian_blur(x, [k, k], [float(a[1]), float(a[1])])
    if kind == "solarize":
        return F.solarize(x, float(a[0]))
    if kind == "pipeline":
        if len(a) != 25:
            raise ValueError(f"pipeline args have {len(a)} values, want 25")
        top, left, h, w, S, flip, jitter = (int(v) for v in a[:7])
        order = [int(v) for v in a[7:11]]
        factors = [float(v) for v in a[11:15]]
        gray, blur, k = int(a[15]), int(a[16]), int(a[17])
        sigma, solar, thr = float(a[18]), int(a[19]), float(a[20])
        on = [int(v) for v in a[21:25]]
        y = F.resized_crop(x, top, left, h, w, [S, S], IM.BILINEAR, antialias=False)
        if flip:
            y = F.hflip(y)
        if jitter:
            fns = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue]
            for fn_id in order:
                if on[fn_id]:
                    y = fns[fn_id](y, factors[fn_id])
        if gray:
            y = F.rgb_to_grayscale(y, num_output_channels=y.shape[0])
        if blur:
            y = F.gaussian_blur(y, [k, k], [sigma, sigma])
        if solar:
            y = F.solarize(y, thr)
        return y
    raise ValueError(f"unknown kind {kind!r}")


class _Replay:
    """Stands in for the torch module inside torchvision.transforms.transforms: empty(1).uniform_
    and randint return posbench's recorded draws; everything else is torch's."""

    def __init__(self, torch, values, offsets):
        self._torch, self._values, self._offsets = torch, list(values), list(offsets)
        self.errors = []

    def __getattr__(self, name):
        return getattr(self._torch, name)

    def empty(self, *args, **kwargs):
        replay = self

        class _Uniform:
            def uniform_(self, lo, hi):
                if not replay._values:
                    replay.errors.append("get_params drew more uniforms than posbench")
                    return replay._torch.tensor([0.5])
                v = replay._values.pop(0)
                lo, hi = float(lo), float(hi)
                if not (lo - 1e-6 <= v <= hi + 1e-6):
                    replay.errors.append(f"posbench drew {v} outside uniform_({lo}, {hi})")
                return replay._torch.tensor([v], dtype=replay._torch.float32)
        return _Uniform()

    def randint(self, low, high, size=None, **kwargs):
        if not self._offsets:
            self.errors.append("get_params drew an offset posbench did not")
            return self._torch.tensor([low])
        v = self._offsets.pop(0)
        if not (low <= v < high):
            self.errors.append(f"posbench offset {v} outside randint({low}, {high})")
        return self._torch.tensor([v])


def check_cropdraw(torch, label, e):
    import torchvision.transforms.transforms as TT
    trace, attempts, box, args = e["trace"], e["attempts"], e["box"], e["args"]
    n = attempts.shape[0]
    if trace.shape != (n, 20) or box.shape != (n, 4) or args.shape != (6,):
        raise ValueError(f"cropdraw {label}: shapes trace {trace.shape} box {box.shape} args {args.shape}")
    H, W = int(args[0]), int(args[1])
    scale, ratio = [float(args[2]), float(args[3])], [float(args[4]), float(args[5])]
    img = torch.zeros(1, H, W)
    bad, fallbacks, first = 0, 0, None
    saved = TT.torch
    try:
        for d in range(n):
            used = min(int(attempts[d]), 10)
            fallbacks += int(attempts[d]) == 11
            values = [float(v) for v in trace[d, :2 * used]]
            offsets = [] if attempts[d] == 11 else [int(box[d, 0]), int(box[d, 1])]
            rep = _Replay(torch, values, offsets)
            TT.torch = rep
            got = TT.RandomResizedCrop.get_params(img, scale, ratio)
            TT.torch = saved
            if rep._values:
                rep.errors.append(f"get_params stopped with {len(rep._values)} recorded uniforms unused")
            if rep._offsets:
                rep.errors.append("get_params did not draw posbench's offsets")
            if tuple(int(v) for v in got) != tuple(int(v) for v in box[d]):
                rep.errors.append(f"torchvision box {tuple(got)} vs posbench {tuple(box[d])}")
            if rep.errors:
                bad += 1
                if first is None:
                    first = f"draw {d}: " + "; ".join(rep.errors)
    finally:
        TT.torch = saved
    return report(bad == 0, f"cropdraw {label}",
                  f"{n} draws ({fallbacks} fallbacks) on {H}x{W}, scale {scale}, ratio "
                  f"[{ratio[0]:.4g}, {ratio[1]:.4g}]: {bad} differ from torchvision's get_params"
                  + (f" (first: {first})" if first else ""))


def main(argv):
    if len(argv) != 2:
        print(f"usage: /usr/bin/python3 {argv[0]} DUMP", file=sys.stderr)
        return 2
    try:
        tf = tensorfile.read(argv[1])
    except tensorfile.TensorfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cases = {}
    for name, arr in tf.items():
        parts = name.split(".")  # KIND.LABEL.FIELD; LABEL may hold dots (e.g. a factor 0.3)
        if len(parts) < 3:
            print(f"error: unexpected entry {name!r}", file=sys.stderr)
            return 2
        cases.setdefault((parts[0], ".".join(parts[1:-1])), {})[parts[-1]] = arr
    if not cases:
        print(f"error: {argv[1]} holds no cases", file=sys.stderr)
        return 2
    try:
        import torch
        import torchvision
        import torchvision.transforms.functional as F
        from torchvision.transforms import InterpolationMode as IM
    except ImportError as e:
        print(f"SKIP oracle views: {len(cases)} cases not checked, torchvision is not importable ({e}; "
              f"make deps installs python3-torchvision)")
        return 0
    torch.set_num_threads(1)
    failed = 0
    try:
        for (kind, label), e in cases.items():
            if kind == "cropdraw":
                failed += check_cropdraw(torch, label, e)
                continue
            if kind not in TOL or not {"in", "out", "args"} <= set(e):
                raise ValueError(f"case {kind}.{label}: unknown kind or missing in/out/args")
            x, out = e["in"], e["out"]
            if x.ndim != 3:
                raise ValueError(f"case {kind}.{label}: in {x.shape} is not (C, H, W)")
            ref = apply(F, IM, torch, kind, torch.from_numpy(x.copy()), e["args"]).numpy()
            if ref.shape != out.shape:
                failed += report(False, f"{kind} {label}", f"shape {out.shape} vs torchvision {ref.shape}")
                continue
            err = float(np.abs(out.astype(np.float64) - ref).max()) if np.isfinite(out).all() else float("inf")
            failed += report(err <= TOL[kind], f"{kind} {label}",
                             f"{tuple(x.shape)} -> {tuple(out.shape)}: max |posbench - torchvision "
                             f"{torchvision.__version__}| {err:.3g} (tol {TOL[kind]:g})")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
