#!/usr/bin/python3
"""tests/views_check.py RUN.h5 — the /views of a run (docs/views.md) checked against each other and
against /attention, independently of bench/train/train_views.c, reading through h5dump
(tests/runs_close.py's values()). Prints one PASS/FAIL line per check; exit 0 when all pass.
  finite:       every /views dataset is finite
  mask:         /views/foreground_mask is 1 exactly where some pixel of the patch in
                /views/images, times 255, is >= 0.5
  rows:         each [CLS] map sums to at most 1 (the cls key's own share left out) and more than 0
  cls_map:      the mean over the first K view images of /views/cls_attention equals the last
                block's /attention/cls_map (K: /attention's images, the first K test images) to 1e-5
  foreground:   /views/foreground_attention per head and the /views attribute recomputed from the
                maps and the mask (renormalised over patches, mean over images, then heads) to 1e-5
  key_pca:      every block's colours lie in [0, 1] with each channel spanning exactly [0, 1]
"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runs_close import values  # noqa: E402


def shape(path, dataset):
    out = subprocess.run(['h5dump', '-H', '-d', dataset, path], capture_output=True, text=True).stdout
    return tuple(int(x) for x in re.search(r'SIMPLE \{ \( ([0-9, ]+) \)', out).group(1).split(','))


def arr(path, dataset):
    return np.array(values(path, dataset), dtype=np.float64).reshape(shape(path, dataset))


def attr(path, group, name):
    out = subprocess.run(['h5dump', '-m', '%.17g', '-a', f'{group}/{name}', path], capture_output=True, text=True).stdout
    return float(re.search(r'\(0\): ([-0-9.eE+naif]+)', out).group(1))


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'} views-check {name}: {detail}")
    return ok


def main(path):
    images, mask = arr(path, '/views/images'), arr(path, '/views/foreground_mask')
    cls, pca = arr(path, '/views/cls_attention'), arr(path, '/views/key_pca')
    share = arr(path, '/views/foreground_attention')
    ok = check("finite", all(np.isfinite(a).all() for a in (images, mask, cls, pca, share)), "every /views dataset")
    N, C, S, _ = images.shape
    g = mask.shape[1]
    p = S // g
    blocks = (images[:, :, :g * p, :g * p] * 255.0 >= 0.5).reshape(N, C, g, p, g, p).any(axis=(1, 3, 5))
    ok &= check("mask", (blocks == (mask > 0)).all(), f"{int(mask.sum())} of {mask.size} patches non-blank")
    sums = cls.sum(axis=(2, 3))
    ok &= check("rows", (sums <= 1 + 1e-5).all() and (sums > 0).all(), f"[CLS] mass on patches {sums.min():.4f}..{sums.max():.4f}")
    last = arr(path, '/attention/cls_map')[-1]
    k = int(attr(path, '/attention', 'images'))  # /attention's first k test images: the first k view images
    err = np.abs(cls[:k].mean(axis=0) - last).max() if k <= N else float('inf')
    ok &= check("cls_map", err <= 1e-5, f"max |mean over the first {k} images - /attention/cls_map[last]| {err:.3g}")
    m = mask.reshape(N, 1, -1)
    flat = cls.reshape(N, cls.shape[1], -1)
    per = ((flat * m).sum(axis=2) / flat.sum(axis=2)).mean(axis=0)
    mean = attr(path, '/views', 'foreground_attention')
    final = attr(path, '/final', 'foreground_attention')
    err = max(np.abs(per - share).max(), abs(per.mean() - mean), abs(mean - final))
    ok &= check("foreground", err <= 1e-5, f"per head {np.round(per, 4)}, mean {mean:.4f} (/final {final:.4f}); max |difference| {err:.3g}")
    lo = pca.min(axis=(1, 2, 3))
    hi = pca.max(axis=(1, 2, 3))
    ok &= check("key_pca", (pca >= 0).all() and (pca <= 1).all() and (lo == 0).all() and (hi == 1).all(),
                f"{pca.shape[0]} blocks, each channel spans [{lo.min():g}, {hi.max():g}]")
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
