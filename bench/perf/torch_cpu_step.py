#!/usr/bin/python3
"""Times one ViT training step in PyTorch on the CPU -- the reference for posbench's C step.

  /usr/bin/python3 bench/perf/torch_cpu_step.py --image 28 --channels 1 --patch 4 --dim 128 \
      --depth 6 --heads 4 --mlp-ratio 4 --classes 10 --batch 128 --threads 2 --warmup 3 --iters 10 \
      [--cls 0|1] [--pos-abs 0|1] [--arch 0|1|2] [--label-smoothing 0.1] [--seed 0] [--compile 0|1]

Any Python with PyTorch runs it: posbench bench calls Debian's /usr/bin/python3 (PyTorch 1.13,
eager) and, when `make deps-anchors` has made it, build/venv-anchors/bin/python (current
PyTorch) twice: eager and --compile 1 (the model wrapped in torch.compile, Inductor's C++ code
for the CPU; its compilation happens in the warmup steps, which are not timed).

Step (float32): forward (tests/torch_vit.py, same model as the C side; --arch 1 gMLP, 2 aMLP:
tests/torch_gmlp.py, dense spatial W), cross-entropy with
label smoothing 0.1, backward, torch.optim.AdamW(lr 1e-3, weight_decay 0.05) step,
zero_grad(set_to_none=True). Input is one random batch, reused every step (data loading is not timed).
torch.set_num_threads(threads) (intra-op) and set_num_interop_threads(1).

stdout: exactly one line of JSON, last:
  {"median_ms": ..., "min_ms": ..., "images_per_s": ..., "threads": ..., "torch": "<version>", "mode": "eager"|"compile"}
images_per_s = batch / median step time. Everything else goes to stderr.
"""
import argparse
import json
import os
import statistics
import sys
import time

# the model is the torch twin the tests check posbench against (tests/torch_vit.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--image", type=int, default=28)
    ap.add_argument("--channels", type=int, default=1)
    ap.add_argument("--patch", type=int, default=4)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--mlp-ratio", type=float, default=4)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--cls", type=int, choices=(0, 1), default=0)
    ap.add_argument("--pos-abs", type=int, choices=(0, 1), default=0)
    ap.add_argument("--arch", type=int, choices=(0, 1, 2), default=0, help="0 ViT, 1 gMLP, 2 aMLP")
    ap.add_argument("--tiny-attn-dim", type=int, default=64, help="aMLP's tiny attention width")
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compile", type=int, choices=(0, 1), default=0, help="1: torch.compile the model (PyTorch 2 or later)")
    args = ap.parse_args(argv[1:])
    if args.iters < 1 or args.warmup < 0 or args.threads < 1 or args.batch < 1:
        ap.error("need --iters >= 1, --warmup >= 0, --threads >= 1, --batch >= 1")
    if args.compile and args.warmup < 1:
        ap.error("--compile 1 needs --warmup >= 1 (the first step compiles)")

    import torch
    import torch_vit

    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set (only possible before any parallel work)
    torch.manual_seed(args.seed)

    cfg = torch_vit.ViTConfig(channels=args.channels, image_size=args.image, patch=args.patch,
                              dim=args.dim, depth=args.depth, heads=args.heads,
                              mlp_ratio=args.mlp_ratio, cls=args.cls, pos_abs=args.pos_abs,
                              num_classes=args.classes, label_smoothing=args.label_smoothing,
                              arch=args.arch, tiny_attn_dim=args.tiny_attn_dim if args.arch == 2 else 0)
    try:
        cfg.validate()
    except ValueError as e:
        ap.error(str(e))
    if args.arch:
        import torch_gmlp
        model = torch_gmlp.GMLP(cfg).float().train()
    else:
        model = torch_vit.ViT(cfg).float().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    if args.compile:
        if not hasattr(torch, "compile"):
            print(f"torch_cpu_step.py: --compile 1 needs torch.compile (PyTorch 2 or later; this is {torch.__version__})",
                  file=sys.stderr)
            return 2
        forward = torch.compile(model)
    else:
        forward = model
    x = torch.randn(args.batch, cfg.channels, cfg.image_size, cfg.image_size)
    y = torch.randint(0, cfg.num_classes, (args.batch,))
    nparams = sum(p.numel() for p in model.parameters())
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, params {nparams}, "
          f"tokens {cfg.tokens}, batch {args.batch}", file=sys.stderr)

    def step():
        logits = forward(x)
        loss = torch_vit.vit_loss(logits, y, cfg.label_smoothing)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for i in range(args.warmup):
        loss = step()
        print(f"warmup {i}: loss {loss.item():.4f}", file=sys.stderr)
    times = []
    for i in range(args.iters):
        t0 = time.perf_counter()
        loss = step()
        dt = time.perf_counter() - t0
        times.append(dt * 1e3)
        print(f"iter {i}: {dt * 1e3:.1f} ms loss {loss.item():.4f}", file=sys.stderr)
    med = statistics.median(times)
    result = {
        "median_ms": round(med, 3),
        "min_ms": round(min(times), 3),
        "images_per_s": round(args.batch / (med / 1e3), 2),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "mode": "compile" if args.compile else "eager",
    }
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
