"""bench/crosscheck/torch_timm_init.py — `posbench crosscheck --init timm`: the PyTorch twin
(tests/torch_vit.py) starts from the weights timm's own VisionTransformer gets from timm's own
init functions, so the init question is answered by the reference itself, not by our reading of
it (bench/crosscheck/torch_init.py, --init torch).

timm.models.vision_transformer.VisionTransformer(img_size, patch_size, in_chans, num_classes,
embed_dim, depth, num_heads, mlp_ratio, qkv_bias=True, class_token, global_pool 'token' with a
cls token else 'avg', fc_norm=False: the final LayerNorm before pooling as in the twin, pos_embed
'learn' or 'none', weight_init='') is built with torch's global
generator seeded by the run's seed; its constructor runs timm's init_weights (pos_embed and
cls_token by timm's current rules, every Linear by init_weights_vit_timm, LayerNorm and the
patch Conv2d left at PyTorch's reset). Its parameters are then copied into the twin by name:
  patch_embed.proj.weight (d, C, p, p) -> patch_embed.weight (d, C*p*p): the twin flattens a
      patch as (c, py, px), the order of the Conv2d kernel's reshape; patch_embed.proj.bias;
  cls_token (1, 1, d) -> (d); pos_embed (1, T, d) -> (T, d), the cls row first in both;
  blocks.i.{norm1, attn.qkv, attn.proj, norm2, mlp.fc1, mlp.fc2}, norm, head: the same names.
A twin parameter without a timm counterpart, a timm parameter left over, or a shape that
differs raises ValueError naming it (the run does not match what timm builds; posbench
crosscheck refuses such runs before training: bench/crosscheck/timm_match.c).
"""
import torch

# timm's parameter name for a twin parameter whose name differs
RENAMED = {"patch_embed.weight": "patch_embed.proj.weight", "patch_embed.bias": "patch_embed.proj.bias"}


def build_timm_vit(vc):
    """timm's VisionTransformer for a tests/torch_vit.py ViTConfig (its init runs here)."""
    from timm.models.vision_transformer import VisionTransformer
    hidden = int(vc.dim * vc.mlp_ratio)
    return VisionTransformer(img_size=vc.image_size, patch_size=vc.patch, in_chans=vc.channels,
                             num_classes=vc.num_classes, embed_dim=vc.dim, depth=vc.depth, num_heads=vc.heads,
                             mlp_ratio=hidden / vc.dim, qkv_bias=True, class_token=bool(vc.cls),
                             global_pool="token" if vc.cls else "avg", fc_norm=False,
                             pos_embed="learn" if vc.pos_abs else "none", weight_init="")


@torch.no_grad()
def init_model(model, vc, seed):
    """Copies a freshly initialised timm VisionTransformer (global generator seeded by seed) into
    the twin model. Returns (timm version, {twin parameter name: timm parameter name})."""
    import timm
    if vc.relbias or vc.sin1d or vc.sin2d or vc.rope or vc.pos_head or getattr(vc, "mae", 0) or getattr(vc, "gvp", 0):
        raise ValueError("the model has parts timm's VisionTransformer has not (position encoding other than a learned "
                         "table or none, or an objective's head)")
    torch.manual_seed(seed)
    ref = build_timm_vit(vc)
    theirs = dict(ref.named_parameters())
    used = {}
    for name, p in model.named_parameters():
        src = RENAMED.get(name, name)
        if src not in theirs:
            raise ValueError(f"twin parameter {name} {tuple(p.shape)} has no timm counterpart {src}")
        w = theirs[src].detach()
        if w.numel() != p.numel() or (w.dim() == p.dim() and tuple(w.shape) != tuple(p.shape)):
            raise ValueError(f"{name} {tuple(p.shape)} against timm's {src} {tuple(w.shape)}")
        p.copy_(w.reshape(p.shape))  # flattens the Conv2d kernel (d, C, p, p) as (d, C*p*p); drops the leading 1s
        used[name] = src
    left = sorted(set(theirs) - set(used.values()))
    if left:
        raise ValueError(f"timm's model has parameters the twin has not: {', '.join(left)}")
    return timm.__version__, used
