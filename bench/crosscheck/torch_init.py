"""bench/crosscheck/torch_init.py — `posbench crosscheck --init torch`: the PyTorch side
initialises the twin model (tests/torch_vit.py) itself, by timm's rules for the ViT as DeiT
trained it, from a torch.Generator of its own, so the cross-check no longer shares the thing an
init defect would be in (with --init ours it copies posbench's initial weights).

The rules (timm/models/vision_transformer.py: VisionTransformer.init_weights and
init_weights_vit_timm, read 2026-11; written here, not copied):
  every nn.Linear of the blocks and heads (attn.qkv, attn.proj, mlp.fc1, mlp.fc2, head, MP3's
      pos_head): weight trunc_normal(std 0.02), bias 0. timm's trunc_normal_ keeps its default
      bounds a = -2, b = 2 in absolute units, i.e. +-100 std: in effect an untruncated
      N(0, 0.02^2) (posbench's default model.trunc_normal=timm does the same; its legacy std2
      cut at +-2 std, std 0.88 * 0.02: a difference this side keeps);
  LayerNorm: weight 1, bias 0 (PyTorch's reset, which timm leaves);
  pos_embed (abs): trunc_normal(0.02) (bounds +-2 as above);
  cls_token: trunc_normal(0.02) (bounds +-2): the rule of timm up to February 2022 (commit
      372ad5fa changed it to N(0, 1e-6)), which DeiT used and MP3 and CAPE build on;
  rel_bias tables: 0 (relbias starts as no bias);
  patch_embed (timm: a Conv2d that init_weights_vit_timm does not touch, so PyTorch's default
      reset; our twin has the equivalent Linear on flattened patches, fan_in = C*p*p) follows
      model.embed_init (docs/cape.md, docs/methods.md):
        timm      weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (kaiming_uniform_ with
                  a = sqrt(5) gives that weight bound)
        xavier    MAE: weight xavier_uniform_ on the flattened (d, fan_in) weight,
                  U(+-sqrt(6/(fan_in + d))); the bias keeps PyTorch's default U(+-1/sqrt(fan_in))
        normal002 posbench before issue 27: weight trunc-normal std 0.02 cut at +-2 std, bias 0
Every draw comes from the generator given (uniform doubles; normals by the inverse CDF, the
method of timm's trunc_normal_), parameters in named_parameters() order. A parameter none of the
rules covers raises ValueError (a new tensor must get a stated rule, not a silent default).
"""
import math

import torch
import torch.nn as nn

EMBED_INITS = ("timm", "xavier", "normal002")
STD = 0.02


def _uniform(t, bound, gen):
    u = torch.rand(t.shape, generator=gen, dtype=torch.float64)
    t.copy_(((2.0 * u - 1.0) * bound).to(t.dtype))


def _trunc_normal(t, std, lo, hi, gen):
    """N(0, std^2) truncated to [lo, hi] by the inverse CDF of a uniform on [cdf(lo), cdf(hi)]."""
    cdf = lambda x: 0.5 * (1.0 + math.erf(x / (std * math.sqrt(2.0))))  # noqa: E731
    c_lo, c_hi = cdf(lo), cdf(hi)
    u = c_lo + (c_hi - c_lo) * torch.rand(t.shape, generator=gen, dtype=torch.float64)
    v = torch.erfinv(2.0 * u - 1.0) * (std * math.sqrt(2.0))
    t.copy_(v.clamp_(lo, hi).to(t.dtype))


def timm_trunc_normal(t, gen):
    """timm's trunc_normal_(t, std=.02): bounds -2, 2 absolute."""
    _trunc_normal(t, STD, -2.0, 2.0, gen)


@torch.no_grad()
def init_model(model, embed_init, gen):
    """Initialises every parameter of a tests/torch_vit.py ViT by the rules above. Returns
    {parameter name: rule} (what each got)."""
    if embed_init not in EMBED_INITS:
        raise ValueError(f"embed_init '{embed_init}' (valid: {', '.join(EMBED_INITS)})")
    rule = {}
    modules = dict(model.named_modules())
    for name, p in model.named_parameters():
        owner, _, leaf = name.rpartition(".")
        mod = modules.get(owner)
        if owner == "patch_embed":
            fan_in = p.shape[-1] if leaf == "weight" else model.patch_embed.weight.shape[1]
            d = model.patch_embed.weight.shape[0]
            if embed_init == "normal002":
                if leaf == "weight":
                    _trunc_normal(p, STD, -2 * STD, 2 * STD, gen)
                else:
                    p.zero_()
            elif embed_init == "xavier" and leaf == "weight":
                _uniform(p, math.sqrt(6.0 / (fan_in + d)), gen)
            else:  # timm's weight and bias, xavier's bias
                _uniform(p, 1.0 / math.sqrt(fan_in), gen)
            rule[name] = f"patch_embed {embed_init}"
        elif isinstance(mod, nn.Linear):
            if leaf == "weight":
                timm_trunc_normal(p, gen)
            else:
                p.zero_()
            rule[name] = "linear"
        elif isinstance(mod, nn.LayerNorm):
            p.fill_(1.0 if leaf == "weight" else 0.0)
            rule[name] = "layernorm"
        elif name in ("pos_embed", "cls_token"):
            timm_trunc_normal(p, gen)
            rule[name] = "trunc_normal"
        elif leaf == "rel_bias":
            p.zero_()
            rule[name] = "zero"
        else:
            raise ValueError(f"no initialisation rule for parameter {name} {tuple(p.shape)}")
    return rule
