#!/usr/bin/python3
"""tests/embed_init_check.py — model.embed_init against PyTorch's own initialisers, and the /init
content RMS against an independent computation (tests/e2e_embed_init.sh calls it).

  embed_init_check.py dist PLAN RULE
      PLAN: a crosscheck plan (posbench train --plan) whose param.patch_embed.{weight,bias} are
      posbench's initial patch projection (d, C·p·p). RULE: timm | xavier | normal002. Draws the
      same shapes from torch's initialisers (10 generator seeds, pooled):
        timm       torch.nn.Conv2d(C, d, p, stride=p) as constructed (PyTorch's default reset:
                   kaiming_uniform(a=√5) weight, U(±1/√fan_in) bias; timm/DeiT keep it)
        xavier     torch.nn.init.xavier_uniform_ on the (d, C·p·p) view (MAE), bias as Conv2d's default
        normal002  torch.nn.init.trunc_normal_(std=0.02, a=-0.04, b=0.04), bias 0
      and prints one line per tensor: "weight|bias D=<two-sample KS statistic> max=<ours> <torch's>".
      Exit 0 when every KS statistic is below the 0.01% critical value, else 1 (a wrong rule
      misses by 10x: normal002 against timm gives D ≈ 0.4 where the critical value is ≈ 0.04).
  embed_init_check.py rms PLAN
      The first training batch's patches (no augmentation: run with data.crop_pad=0
      data.hflip=false), normalised as posbench does, times the initial projection: prints the
      content RMS, to compare with the run's /init content_rms.
"""
import math
import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import tensorfile  # noqa: E402


def ks_statistic(a, b):
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def ks_critical(n, m, alpha=1e-4):
    c = math.sqrt(-0.5 * math.log(alpha / 2))
    return c * math.sqrt((n + m) / (n * m))


def torch_draw(rule, d, channels, patch, seed):
    torch.manual_seed(seed)  # nn.Conv2d's constructor draws from the global generator
    conv = torch.nn.Conv2d(channels, d, patch, stride=patch)
    w = conv.weight.detach().reshape(d, -1).clone()
    b = conv.bias.detach().clone()
    if rule == "xavier":
        torch.nn.init.xavier_uniform_(w)
    elif rule == "normal002":
        torch.nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)
        b.zero_()
    return w.numpy(), b.numpy()


def dist(plan_path, rule):
    plan = tensorfile.read(plan_path)
    w = plan["param.patch_embed.weight"]
    b = plan["param.patch_embed.bias"]
    d, fan_in = w.shape
    channels = int(plan["config.channels"].ravel()[0])
    patch = int(plan["config.patch"].ravel()[0])
    if channels * patch * patch != fan_in:
        print(f"shape mismatch: weight {w.shape}, channels {channels}, patch {patch}")
        return 1
    draws = [torch_draw(rule, d, channels, patch, seed) for seed in range(10)]
    tw = np.concatenate([x[0].ravel() for x in draws])
    tb = np.concatenate([x[1].ravel() for x in draws])
    ok = True
    for name, ours, theirs in (("weight", w, tw), ("bias", b, tb)):
        if np.all(ours == 0) and np.all(theirs == 0):
            print(f"{name} D=0 (both zero)")
            continue
        stat = ks_statistic(ours, theirs)
        crit = ks_critical(ours.size, theirs.size)
        print(f"{name} D={stat:.4f} (critical {crit:.4f}) max={np.abs(ours).max():.5f} {np.abs(theirs).max():.5f}")
        ok &= stat < crit
    return 0 if ok else 1


def rms(plan_path):
    plan = tensorfile.read(plan_path)
    w = plan["param.patch_embed.weight"].astype(np.float64)
    b = plan["param.patch_embed.bias"].astype(np.float64)
    pixels = plan["data.train.pixels"]
    mean = plan["data.mean"].astype(np.float64)
    std = plan["data.std"].astype(np.float64)
    rows = plan["order"][0]
    patch = int(plan["config.patch"].ravel()[0])
    x = pixels[rows].astype(np.float64) / 255.0  # (B, C, H, W)
    x = (x - mean[None, :, None, None]) / std[None, :, None, None]
    B, C, H, W = x.shape
    g = H // patch
    patches = x.reshape(B, C, g, patch, g, patch).transpose(0, 2, 4, 1, 3, 5).reshape(B, g * g, C * patch * patch)
    content = patches @ w.T + b
    print(f"{math.sqrt(np.mean(content ** 2)):.6f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "dist":
        sys.exit(dist(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "rms":
        sys.exit(rms(sys.argv[2]))
    print(__doc__)
    sys.exit(2)
