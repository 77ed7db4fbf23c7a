#!/usr/bin/python3
"""PyTorch twin of posbench's gMLP and aMLP blocks (models/backbones/gmlp.c), written from
docs/methods.md "gMLP / aMLP" on its own; the test oracle (tests/torch_oracle.py) checks posbench's
loss, logits and every gradient against it in float64, and bench/perf can time it.

The model is torch_vit.ViT (patch embedding, cls, pos_abs / sin1d / sin2d, final norm, head)
with its Transformer blocks replaced by gMLP blocks. Parameter names match posbench's:
  blocks.{l}.norm.weight/.bias (d)
  blocks.{l}.proj_in.weight (2e, d), .bias (2e)   rows [0, e) give u, rows [e, 2e) give v
  blocks.{l}.sgu.norm.weight/.bias (e)
  blocks.{l}.sgu.spatial.weight (T, T)            dense W; or
  blocks.{l}.sgu.spatial.toeplitz (K)             Toeplitz: 1D W[i, j] = w[i - j + T - 1]
                                                  (K = 2T - 1), 2D w[relbias index] (K = (2g-1)^2 + 3 cls)
  blocks.{l}.sgu.spatial.bias (T)
  blocks.{l}.tiny_attn.qkv.weight (3a, d), .bias; tiny_attn.proj.weight (e, a), .bias (e)  [aMLP]
  blocks.{l}.proj_out.weight (d, e), .bias (d)
Block: h = LN(x); u, v = split(GELU(proj_in(h))); f = W @ LN(v) + b (along tokens);
aMLP: f += proj(softmax(q k^T / sqrt(a)) v) with q, k, v = split(qkv(h)); out = x + proj_out(u * f).
e = mlp_ratio * d / 2. Run with Debian's Python: /usr/bin/python3 (PyTorch 1.13).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_vit


class Spatial(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        T, g, cls = cfg.tokens, cfg.grid, cfg.cls
        self.kind = cfg.sgu_toeplitz
        if self.kind == 1:
            i = torch.arange(T)
            self.register_buffer("index", (i.view(-1, 1) - i.view(1, -1) + T - 1), persistent=False)
            self.toeplitz = nn.Parameter(torch.zeros(2 * T - 1))
        elif self.kind == 2:
            index, K = torch_vit.relbias_index(g, cls)
            self.register_buffer("index", index, persistent=False)
            self.toeplitz = nn.Parameter(torch.zeros(K))
        else:
            self.weight = nn.Parameter(torch.zeros(T, T))
        self.bias = nn.Parameter(torch.ones(T))

    def W(self):
        return self.toeplitz[self.index] if self.kind else self.weight

    def forward(self, v):  # (B, T, e) -> (B, T, e)
        return torch.einsum("ij,bjc->bic", self.W(), v) + self.bias.view(1, -1, 1)


class TinyAttention(nn.Module):
    def __init__(self, d, a, e):
        super().__init__()
        self.a = a
        self.qkv = nn.Linear(d, 3 * a)
        self.proj = nn.Linear(a, e)

    def forward(self, h):
        q, k, v = self.qkv(h).split(self.a, dim=-1)
        w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.a), dim=-1)
        return self.proj(w @ v)


class SGU(nn.Module):
    def __init__(self, cfg, e):
        super().__init__()
        self.norm = nn.LayerNorm(e, eps=torch_vit.LN_EPS)
        self.spatial = Spatial(cfg)


class GBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg.dim
        self.e = cfg.hidden // 2
        self.norm = nn.LayerNorm(d, eps=torch_vit.LN_EPS)
        self.proj_in = nn.Linear(d, 2 * self.e)
        self.sgu = SGU(cfg, self.e)
        if cfg.arch == 2:
            self.tiny_attn = TinyAttention(d, cfg.tiny_attn_dim, self.e)
        self.proj_out = nn.Linear(self.e, d)
        self.amlp = cfg.arch == 2

    def forward(self, x, context=None, rel_index=None, rope=None):
        h = self.norm(x)
        u, v = F.gelu(self.proj_in(h)).split(self.e, dim=-1)
        f = self.sgu.spatial(self.sgu.norm(v))
        if self.amlp:
            f = f + self.tiny_attn(h)
        return x + self.proj_out(u * f)


class GMLP(torch_vit.ViT):
    """cfg.arch 1 = gMLP, 2 = aMLP; the embedding, encodings and head are the ViT's."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.blocks = nn.ModuleList(GBlock(cfg) for _ in range(cfg.depth))


def spatial_name(cfg, l):
    return f"blocks.{l}.sgu.spatial.toeplitz" if cfg.sgu_toeplitz else f"blocks.{l}.sgu.spatial.weight"


def param_names(cfg):
    """posbench's names in its declaration order."""
    names = ["patch_embed.weight", "patch_embed.bias"]
    if cfg.cls:
        names.append("cls_token")
    if cfg.pos_abs:
        names.append("pos_embed")
    for l in range(cfg.depth):
        names += [f"blocks.{l}.norm.weight", f"blocks.{l}.norm.bias", f"blocks.{l}.proj_in.weight",
                  f"blocks.{l}.proj_in.bias", f"blocks.{l}.sgu.norm.weight", f"blocks.{l}.sgu.norm.bias",
                  spatial_name(cfg, l), f"blocks.{l}.sgu.spatial.bias"]
        if cfg.arch == 2:
            names += [f"blocks.{l}.tiny_attn.{s}.{p}" for s in ("qkv", "proj") for p in ("weight", "bias")]
        names += [f"blocks.{l}.proj_out.weight", f"blocks.{l}.proj_out.bias"]
    names += ["norm.weight", "norm.bias", "head.weight", "head.bias"]
    return names

