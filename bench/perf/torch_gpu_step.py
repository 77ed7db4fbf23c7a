#!/usr/bin/env python3
"""Times one ViT (or MP3) training step in PyTorch on a GPU -- the reference for `posbench bench --device cuda`.

  python3 bench/perf/torch_gpu_step.py --config vit-s4-32 [--modes eager,compile]
      [--precision bf16|fp32] [--device cuda|cpu] [--warmup 3] [--iters 20]
  python3 bench/perf/torch_gpu_step.py --config mp3-b16-224 --eta 0.75
  python3 bench/perf/torch_gpu_step.py --config custom --image 32 --channels 3 --patch 4 \
      --dim 192 --depth 12 --heads 3 --mlp-ratio 4 --classes 100 --batch 128 --cls 1 --pos-abs 1

Configs (issue 14 / MP3 Table 2):
  vit-s4-32    ViT-S/4 (d 384, 12 blocks, 6 heads), 32 px, 3 channels, 100 classes, batch 256
  vit-b16-224  ViT-B/16 (d 768, 12 blocks, 12 heads), 224 px, 3 channels, 1000 classes, batch 128
  mp3-b16-224  the ViT-B/16 backbone trained by MP3 at --eta (0.3 / 0.5 / 0.75 / 0.9): per image a
               random context of cls + round((1-eta)·N) tokens gives the keys and values (the
               k|v projection runs on the context only, q on all tokens), no position encoding,
               a position head (N logits per patch token), cross entropy against each patch's index
  tiny, mp3-tiny  d 32, 2 blocks, 16 px, batch 4: the smoke test (`--device cpu --iters 1`)
  custom       dimensions from the flags (what `posbench bench --device cuda` passes)

Step: forward, cross entropy (label smoothing 0.1 for ViT), backward, AdamW(lr 1e-3,
weight_decay 0.05) step, zero_grad(set_to_none=True); one random batch reused (data loading
not timed). Attention: torch.nn.functional.scaled_dot_product_attention when this PyTorch has
it (else the explicit softmax(q kᵀ/√hs) v). Modes: eager, and compile (torch.compile of the
model; skipped with a note where PyTorch has none). --precision bf16: the forward and loss
under torch.autocast(bfloat16), fp32 master weights and AdamW state; fp32: no autocast.
Peak memory: torch.cuda.max_memory_allocated over the timed steps (CUDA), the process's peak
resident set (CPU).

stdout: one line of JSON per mode (everything else goes to stderr):
  {"config": ..., "mode": "eager"|"compile", "precision": ..., "device": ..., "batch": ...,
   "tokens": ..., "context": ..., "median_ms": ..., "min_ms": ..., "images_per_s": ...,
   "peak_mib": ..., "attention": "sdpa"|"explicit", "torch": ..., "gpu": ...}
"""
import argparse
import json
import math
import resource
import statistics
import sys
import time

CONFIGS = {
    # name: (image, channels, patch, dim, depth, heads, mlp_ratio, classes, batch, cls, mp3)
    "vit-s4-32": (32, 3, 4, 384, 12, 6, 4, 100, 256, 1, 0),
    "vit-b16-224": (224, 3, 16, 768, 12, 12, 4, 1000, 128, 1, 0),
    "mp3-b16-224": (224, 3, 16, 768, 12, 12, 4, 0, 128, 1, 1),
    "tiny": (16, 3, 4, 32, 2, 2, 2, 10, 4, 1, 0),
    "mp3-tiny": (16, 3, 4, 32, 2, 2, 2, 0, 4, 1, 1),
}


def build(torch, nn, F, a):
    """The model (nn.Module: images -> logits) and the loss (logits, target) -> scalar."""
    has_sdpa = hasattr(F, "scaled_dot_product_attention")
    d, H = a.dim, a.heads
    hs = d // H
    grid = a.image // a.patch
    N = grid * grid
    t0 = 1 if a.cls else 0
    T = N + t0

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)

        def forward(self, x, context):  # x (B, T, d); context (B, M) token indices or None
            B = x.shape[0]
            if context is None:
                q, k, v = self.qkv(x).view(B, T, 3, H, hs).permute(2, 0, 3, 1, 4)
            else:  # MP3: q for every token, k|v for the context tokens only
                w, bias = self.qkv.weight, self.qkv.bias
                q = F.linear(x, w[:d], bias[:d]).view(B, T, H, hs).transpose(1, 2)
                xc = x.gather(1, context.unsqueeze(-1).expand(-1, -1, d))  # (B, M, d)
                M = xc.shape[1]
                k, v = F.linear(xc, w[d:], bias[d:]).view(B, M, 2, H, hs).permute(2, 0, 3, 1, 4)
            if has_sdpa:
                y = F.scaled_dot_product_attention(q, k, v)
            else:
                y = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs)), dim=-1) @ v
            return self.proj(y.transpose(1, 2).reshape(B, T, d))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(d, eps=1e-6)
            self.attn = Attention()
            self.norm2 = nn.LayerNorm(d, eps=1e-6)
            self.fc1 = nn.Linear(d, a.mlp_ratio * d)
            self.fc2 = nn.Linear(a.mlp_ratio * d, d)

        def forward(self, x, context):
            x = x + self.attn(self.norm1(x), context)
            return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch_embed = nn.Conv2d(a.channels, d, a.patch, a.patch)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, d)) if a.cls else None
            # MP3 trains without a position encoding (the position head learns them)
            self.pos_embed = nn.Parameter(torch.zeros(1, T, d)) if a.pos_abs and not a.mp3 else None
            self.blocks = nn.ModuleList(Block() for _ in range(a.depth))
            self.norm = nn.LayerNorm(d, eps=1e-6)
            self.head = nn.Linear(d, N if a.mp3 else a.classes)

        def forward(self, images, context=None):
            x = self.patch_embed(images).flatten(2).transpose(1, 2)  # (B, N, d)
            if self.cls_token is not None:
                x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
            if self.pos_embed is not None:
                x = x + self.pos_embed
            for blk in self.blocks:
                x = blk(x, context)
            x = self.norm(x)
            if a.mp3:
                return self.head(x[:, t0:])  # (B, N, N) position logits of the patch tokens
            return self.head(x[:, 0] if a.cls else x.mean(dim=1))

    def loss_fn(logits, target):
        if a.mp3:
            return F.cross_entropy(logits.reshape(-1, N).float(), target.reshape(-1))
        return F.cross_entropy(logits.float(), target, label_smoothing=0.1)

    return ViT(), loss_fn, has_sdpa, N, T


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--config", default="vit-s4-32", choices=sorted(CONFIGS) + ["custom"])
    ap.add_argument("--eta", type=float, default=0.75, help="MP3 masking ratio")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--modes", default="eager,compile")
    ap.add_argument("--precision", default="bf16", choices=("bf16", "fp32"))
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    for k in ("image", "channels", "patch", "dim", "depth", "heads", "mlp-ratio", "classes",
              "batch", "cls", "pos-abs", "mp3"):
        ap.add_argument("--" + k, type=int, default=None)
    a = ap.parse_args(argv[1:])
    if a.config == "custom":
        need = ("image", "channels", "patch", "dim", "depth", "heads", "mlp_ratio", "classes", "batch")
        missing = [k for k in need if getattr(a, k) is None]
        if missing:
            ap.error("--config custom needs --" + ", --".join(m.replace("_", "-") for m in missing))
        a.cls = 1 if a.cls is None else a.cls
        a.mp3 = 1 if a.mp3 else 0  # --mp3 1: the MP3 step at --eta (posbench bench's mp3 configs)
    else:
        (image, channels, patch, dim, depth, heads, mlp, classes, batch, cls, mp3) = CONFIGS[a.config]
        for k, v in (("image", image), ("channels", channels), ("patch", patch), ("dim", dim),
                     ("depth", depth), ("heads", heads), ("mlp_ratio", mlp), ("classes", classes),
                     ("batch", batch), ("cls", cls)):
            if getattr(a, k) is None:
                setattr(a, k, v)
        a.mp3 = mp3
    a.pos_abs = 1 if a.pos_abs is None else a.pos_abs
    if a.iters < 1 or a.warmup < 0 or a.batch < 1 or a.dim % a.heads or a.image % a.patch:
        ap.error("need --iters >= 1, --warmup >= 0, --batch >= 1, heads | dim, patch | image")
    if a.mp3 and not 0.0 <= a.eta < 1.0:
        ap.error("--eta must be in [0, 1)")
    modes = [m for m in a.modes.split(",") if m]
    if not modes or any(m not in ("eager", "compile") for m in modes):
        ap.error("--modes: a comma-separated subset of eager,compile")

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        print("torch_gpu_step: CUDA is not available to this PyTorch", file=sys.stderr)
        return 2
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 (posbench uses no TF32)
        torch.backends.cudnn.allow_tf32 = False
    gpu = torch.cuda.get_device_name(dev) if cuda else None

    for mode in modes:
        if mode == "compile" and not hasattr(torch, "compile"):
            print(f"torch_gpu_step: torch {torch.__version__} has no torch.compile; mode skipped",
                  file=sys.stderr)
            continue
        torch.manual_seed(a.seed)
        model, loss_fn, has_sdpa, N, T = build(torch, nn, F, a)
        model = model.to(dev).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
        step_model = torch.compile(model) if mode == "compile" else model
        x = torch.randn(a.batch, a.channels, a.image, a.image, device=dev)
        context = None
        M = T
        if a.mp3:
            Mp = int(math.floor((1.0 - a.eta) * N + 0.5))  # posbench's lround
            t0 = 1 if a.cls else 0
            keys = torch.rand(a.batch, N, device=dev).argsort(dim=1)[:, :Mp] + t0
            if t0:
                keys = torch.cat([torch.zeros(a.batch, 1, dtype=keys.dtype, device=dev), keys], 1)
            context, M = keys, keys.shape[1]
            target = torch.arange(N, device=dev).expand(a.batch, N).contiguous()
        else:
            target = torch.randint(0, a.classes, (a.batch,), device=dev)
        autocast = (torch.autocast(device_type=dev.type, dtype=torch.bfloat16)
                    if a.precision == "bf16" else None)

        def step():
            if autocast is not None:
                with autocast:
                    loss = loss_fn(step_model(x, context), target)
            else:
                loss = loss_fn(step_model(x, context), target)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss

        def sync():
            if cuda:
                torch.cuda.synchronize(dev)

        for i in range(a.warmup):
            loss = step()
            print(f"{a.config} {mode} warmup {i}: loss {loss.item():.4f}", file=sys.stderr)
        sync()
        if cuda:
            torch.cuda.reset_peak_memory_stats(dev)
        times = []
        for i in range(a.iters):
            t0 = time.perf_counter()
            loss = step()
            sync()
            dt = (time.perf_counter() - t0) * 1e3
            times.append(dt)
            print(f"{a.config} {mode} iter {i}: {dt:.2f} ms loss {loss.item():.4f}", file=sys.stderr)
        if cuda:
            peak = torch.cuda.max_memory_allocated(dev) / 2**20
        else:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
        med = statistics.median(times)
        print(json.dumps({
            "config": a.config, "mode": mode, "precision": a.precision, "device": str(dev),
            "batch": a.batch, "tokens": T, "context": M, "eta": a.eta if a.mp3 else None,
            "median_ms": round(med, 3), "min_ms": round(min(times), 3),
            "images_per_s": round(a.batch / (med / 1e3), 2), "peak_mib": round(peak, 1),
            "attention": "sdpa" if has_sdpa else "explicit", "torch": torch.__version__, "gpu": gpu,
        }), flush=True)
        del model, step_model, opt
        if cuda:
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
