#!/usr/bin/python3
"""bench/crosscheck/torch_train.py — the independent side of `posbench crosscheck`: trains the
configuration of a crosscheck plan (bench/train/train_plan.c: data, per-step batch rows and
augmentation draws, initial weights, config) with PyTorch and writes its results.

What is shared with posbench (from the plan): the training and test rows, every step's batch
rows, the crop/flip draws, the initial weights (--init ours, the default; with --init torch the
model is initialised here by timm's rules from a torch.Generator of its own, seeded from the
plan's seed: bench/crosscheck/torch_init.py, the patch projection by --embed-init, the run's
model.embed_init; with --init timm timm's own VisionTransformer, its init functions seeded by the
plan's seed, copied into the twin: bench/crosscheck/torch_timm_init.py; in both the plan's weights
are then only compared against), the hyperparameters.
What is PyTorch's own: the
model (tests/torch_vit.py, the torch twin written from docs/methods.md), the loss
(F.cross_entropy with label smoothing), torch.optim.AdamW (decay on the tensors the plan marks),
torch's clip_grad_norm_, the schedule (linear warmup to lr over warmup_steps, then cosine to
min_lr, the formula of core/optimizer.c), drop path (per sample, rate drop_path·l/(L−1) in
block l, one draw per residual branch) and CAPE's position augmentation, written here from the
paper (per image: x' = λ(x + Δx + εx), y' = λ(y + Δy + εy), Δ ~ U(−Δmax, Δmax) per axis,
ε ~ U(−εmax, εmax) per token and axis, log λ ~ U(−log λmax, log λmax); at evaluation the
plain grid). Its random draws (drop path, CAPE) come from a torch.Generator seeded from the
plan's seed: independent of posbench's Philox draws, as the statistical comparison wants;
with drop_path 0 and no CAPE the two trainers see identical inputs, and their first steps'
losses must agree to float32 rounding (the parity check).

Image sizes (the plan's sizes, one per step: data.resolution, or UniViT's per-batch draw from
data.resolutions): each batch is cropped, flipped and normalised at the dataset's size, then
resized with F.interpolate(bicubic, align_corners=False, no antialiasing) when the size differs,
as posbench's datasets/resize_batch.c + core/resize.c do; the patch grid follows the size.
sin2d and CAPE place any grid on [-1, 1] (CAPE's default local shift, config.cape_local_default,
is 1/grid of that batch's grid, as posbench's); abs resizes the patch rows of its table to the
grid with the same bicubic interpolation (cls row kept; the gradient flows through the resize);
relbias, rope and sin1d are tied to the training grid (UniViT with them is refused by the plan).
Evaluated at the training size (config.image_size: top1) and at every eval_sizes entry
(top1@S), the test images resized the same way; relbias, rope and sin1d at the training size only.

MP3 (config.mp3 = 1; docs/methods.md "MP3"): no position encoding, the position head, every
step's context tokens from the plan (keys and values of every layer: the same draws as
posbench's, so with drop path 0 the two trainers' first losses agree), the loss torch's
cross entropy of every patch token against its index (tests/torch_vit.py mp3_loss). Evaluated
as posbench reports it (objectives/mp3 position_accuracy at test η 0): every token is context,
so no draw is involved; position top-1 on the first position_limit test images, over all patches
and over non-blank ones (a patch is blank when each channel is constant over it in the
normalised image at the training size, the model's input), computed here from the plan's pixels.

Output (--out FILE), one "key value..." line each:
  top1 <test top-1 at the training size after the last step> (supervised)   loss <test loss>
  top1@S <test top-1 at S px> for each eval size (supervised; not for relbias, rope, sin1d
         at a size other than the training size)
  pos_top1_eta0, pos_top1_nonblank_eta0 <position top-1 at test η 0> (MP3)
  init ours|torch|timm, embed_init <rule> (--init torch, timm)   what started it (posbench crosscheck
         reuses a result only for the same init and embed_init)
  init_max_abs_diff <the largest |initial weight - the plan's|> (0 with --init ours)
  content_rms, posenc_rms <the first training batch's embedded content and what the position
         encoding added to the patch rows, RMS per value, as posbench's /init records them>
  seconds <training time>
  step_losses <the training loss of every step, in order>
Exit 0; 2 for a bad plan (message on stderr). Run with Debian's /usr/bin/python3 (PyTorch 1.13).
"""
import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
sys.path.insert(0, HERE)
import tensorfile  # noqa: E402


class BadPlan(Exception):
    pass


def cfg(plan, key):
    name = f"config.{key}"
    if name not in plan:
        raise BadPlan(f"missing {name}")
    return float(plan[name].reshape(-1)[0])


def sin2d_at(x, y, d):
    """CAPE eq. 3-4 at positions x, y (..., N) on [-1, 1]: (..., N, d) = [cos(phase) | sin(phase)],
    phase_k = π·10^(2k/d)·(cos k·x + sin k·y), k = 1..d/2."""
    import torch
    k = torch.arange(1, d // 2 + 1, dtype=torch.float64)
    w = 10.0 ** (2.0 * k / d)
    phase = math.pi * (w * torch.cos(k) * x.unsqueeze(-1) + w * torch.sin(k) * y.unsqueeze(-1))
    return torch.cat([torch.cos(phase), torch.sin(phase)], dim=-1)


def grid_positions(g):
    import torch
    axis = torch.linspace(-1.0, 1.0, g, dtype=torch.float64) if g > 1 else torch.zeros(1, dtype=torch.float64)
    y, x = torch.meshgrid(axis, axis, indexing="ij")  # row, column
    return x.reshape(-1), y.reshape(-1)


def cape_positions(B, g, shift, local, scale, gen):
    """Per-image augmented patch centres (B, N) x', y' = λ(x + Δ + ε) (the paper's order)."""
    import torch
    x, y = grid_positions(g)
    N = x.numel()
    u = lambda *shape: torch.rand(*shape, generator=gen, dtype=torch.float64)  # noqa: E731
    dx, dy = (2 * u(B, 1) - 1) * shift, (2 * u(B, 1) - 1) * shift
    ex, ey = (2 * u(B, N) - 1) * local, (2 * u(B, N) - 1) * local
    lam = torch.exp((2 * u(B, 1) - 1) * math.log(scale)) if scale > 1 else torch.ones(B, 1, dtype=torch.float64)
    return lam * (x.unsqueeze(0) + dx + ex), lam * (y.unsqueeze(0) + dy + ey)


class Trainer:
    def __init__(self, plan, init="ours", embed_init="timm"):
        import torch
        import torch_vit
        self.torch = torch
        self.plan = plan
        c = lambda k: cfg(plan, k)  # noqa: E731
        self.cape = int(c("pe_cape"))
        self.mp3 = int(c("mp3")) if "config.mp3" in plan else 0
        self.vc = torch_vit.ViTConfig(
            channels=int(c("channels")), image_size=int(c("image_size")), patch=int(c("patch")), dim=int(c("dim")),
            depth=int(c("depth")), heads=int(c("heads")), mlp_ratio=c("mlp_ratio"), cls=int(c("cls")),
            pos_abs=int(c("pe_abs")), relbias=int(c("pe_relbias")), sin1d=int(c("pe_sin1d")),
            sin2d=int(c("pe_sin2d")) or self.cape, rope=int(c("pe_rope")) * (int(c("rope_dims")) if "config.rope_dims" in plan else 1), rope_base=c("rope_base"),
            num_classes=int(c("num_classes")), label_smoothing=c("label_smoothing"), content_scale=c("content_scale"),
            pos_head=self.mp3)
        self.model = torch_vit.ViT(self.vc).float()
        names = dict(self.model.named_parameters())
        decay, no_decay = [], []
        self.init, self.embed_init = init, embed_init
        if init == "torch":  # our own init (bench/crosscheck/torch_init.py), from a stream of our own
            import torch_init
            init_gen = torch.Generator().manual_seed(int(c("seed")) * 104729 + 0x1417)
            try:
                torch_init.init_model(self.model, embed_init, init_gen)
            except ValueError as e:
                raise BadPlan(f"--init torch: {e}")
        elif init == "timm":  # timm's own VisionTransformer and init functions (bench/crosscheck/torch_timm_init.py)
            import torch_timm_init
            try:
                version, _ = torch_timm_init.init_model(self.model, self.vc, int(c("seed")))
            except (ImportError, ValueError) as e:
                raise BadPlan(f"--init timm: {e}")
            print(f"--init timm: weights of timm {version}'s VisionTransformer (torch {torch.__version__})", flush=True)
        elif init != "ours":
            raise BadPlan(f"--init {init} (valid: ours, torch, timm)")
        self.init_diff = 0.0  # the largest |initial weight - the plan's (posbench's)|: 0 with --init ours
        with torch.no_grad():
            for n, p in names.items():
                key = f"param.{n}"
                if key not in plan:
                    raise BadPlan(f"the plan has no {key}")
                w = plan[key]
                if tuple(w.shape) != tuple(p.shape):
                    raise BadPlan(f"{key} has shape {w.shape}, the model's is {tuple(p.shape)}")
                w = torch.from_numpy(np.ascontiguousarray(w, dtype=np.float32))
                if init == "ours":
                    p.copy_(w)
                self.init_diff = max(self.init_diff, float((p - w).abs().max()) if p.numel() else 0.0)
                if f"decay.{n}" not in plan:
                    raise BadPlan(f"the plan has no decay.{n}")
                (decay if float(plan[f"decay.{n}"].reshape(-1)[0]) else no_decay).append(p)
        self.lr, self.min_lr = c("lr"), c("min_lr")
        self.warmup, self.total = int(c("warmup_steps")), int(c("total_steps"))
        self.opt = torch.optim.AdamW([{"params": decay, "weight_decay": c("weight_decay")},
                                      {"params": no_decay, "weight_decay": 0.0}],
                                     lr=self.lr, betas=(c("beta1"), c("beta2")), eps=c("eps"))
        self.clip, self.drop_path = c("clip"), c("drop_path")
        self.cape_bounds = (c("cape_global_shift"), c("cape_local_shift"), c("cape_scale"))
        self.cape_local_default = int(c("cape_local_default")) if "config.cape_local_default" in plan else 0
        self.native = int(plan["data.train.pixels"].shape[-1])
        self.train_size = int(c("image_size"))
        self.gen = torch.Generator().manual_seed(int(c("seed")) * 7919 + 17)
        self.measure, self.content_rms, self.posenc_rms = False, float("nan"), float("nan")
        mean, std = plan["data.mean"].astype(np.float32), plan["data.std"].astype(np.float32)
        self.mean, self.std = mean.reshape(1, -1, 1, 1), std.reshape(1, -1, 1, 1)

    def lr_at(self, step):
        """core/optimizer.c's schedule: linear warmup (step + 1)/warmup, then cosine to min_lr."""
        if self.warmup > 0 and step < self.warmup:
            return self.lr * (step + 1) / self.warmup
        decay = self.total - self.warmup
        if decay <= 0:
            return self.lr
        progress = (step - self.warmup) / decay
        return self.min_lr + 0.5 * (self.lr - self.min_lr) * (1.0 + math.cos(math.pi * progress))

    def images(self, pixels, rows, draws=None, size=None):
        """(B, C, S, S) float32: (pixel/255 − mean)/std in float32, with the plan's crop and flip,
        resized bicubically to size (default: the training size) when it differs from the native."""
        pix = pixels[rows]  # (B, C, H, W) uint8
        if draws is not None:
            B, C, H, W = pix.shape
            dy, dx, flip = draws[:, 0], draws[:, 1], draws[:, 2].astype(bool)
            ys = np.arange(H)[None, :] + dy[:, None]  # (B, H) source rows
            xs = np.where(flip[:, None], W - 1 - np.arange(W)[None, :], np.arange(W)[None, :]) + dx[:, None]
            valid = ((ys >= 0) & (ys < H))[:, None, :, None] & ((xs >= 0) & (xs < W))[:, None, None, :]
            yc, xc = np.clip(ys, 0, H - 1), np.clip(xs, 0, W - 1)
            pix = pix[np.arange(B)[:, None, None, None], np.arange(C)[None, :, None, None], yc[:, None, :, None],
                      xc[:, None, None, :]]
            pix = np.where(valid, pix, 0)  # black: pixel 0 before normalisation
        x = (pix.astype(np.float32) / np.float32(255.0) - self.mean) / self.std
        x = self.torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
        size = self.train_size if size is None else int(size)
        if size != x.shape[-1]:
            x = self.torch.nn.functional.interpolate(x, size=(size, size), mode="bicubic", align_corners=False)
        return x

    def drop(self, branch, rate, training):
        if not training or rate <= 0:
            return branch
        keep = (self.torch.rand(branch.shape[0], generator=self.gen) >= rate).float() / (1.0 - rate)
        return branch * keep.view(-1, 1, 1)

    def forward(self, x, training, context=None):
        """The twin's forward with drop path, CAPE and the batch's grid (x's size; abs resized):
        logits (B, K); MP3: position logits
        (B, T, N) with keys and values from the context tokens (B, M), or from all tokens."""
        import torch_vit
        torch, m, vc = self.torch, self.model, self.vc
        t = m.patch_embed(torch_vit.extract_patches(x, vc.patch)) * vc.content_scale
        content = t
        B = t.shape[0]
        if vc.cls:
            t = torch.cat([m.cls_token.view(1, 1, -1).expand(B, 1, -1), t], dim=1)
        t0 = 1 if vc.cls else 0
        g = x.shape[-1] // vc.patch  # this batch's grid
        if g != vc.grid and (vc.relbias or vc.rope or vc.sin1d):
            raise BadPlan(f"a {g}x{g} grid with an encoding tied to the {vc.grid}x{vc.grid} training grid")
        if vc.pos_abs and g != vc.grid:  # the patch rows resized bicubically, cls row kept (differentiable)
            G, d = vc.grid, vc.dim
            table = m.pos_embed[t0:].t().reshape(1, d, G, G)  # (1, d, G, G)
            table = torch.nn.functional.interpolate(table, size=(g, g), mode="bicubic", align_corners=False)
            t = t + torch.cat([m.pos_embed[:t0], table.reshape(d, g * g).t()], dim=0).unsqueeze(0)
        elif vc.pos_abs:
            t = t + m.pos_embed.unsqueeze(0)
        if self.cape and training:
            shift, local, scale = self.cape_bounds
            if self.cape_local_default:
                local = 1.0 / g
            px, py = cape_positions(B, g, shift, local, scale, self.gen)
            t = torch.cat([t[:, :t0], t[:, t0:] + sin2d_at(px, py, vc.dim).float()], dim=1)
        elif vc.sin2d and g != vc.grid:
            px, py = grid_positions(g)
            t = torch.cat([t[:, :t0], t[:, t0:] + sin2d_at(px, py, vc.dim).float()], dim=1)
        elif vc.sin1d or vc.sin2d:
            t = torch.cat([t[:, :t0], t[:, t0:] + m.pos_fixed.float()], dim=1)
        if self.measure:  # posbench's /init: RMS of the content and of what the encoding added to the patch rows
            with torch.no_grad():
                self.content_rms = float(content.double().pow(2).mean().sqrt())
                self.posenc_rms = float((t[:, t0:] - content).double().pow(2).mean().sqrt())
            self.measure = False
        rel_index = m.rel_index if vc.relbias else None
        rope = (m.rope_cos.float(), m.rope_sin.float(), t0) if vc.rope else None
        L = vc.depth
        for l, blk in enumerate(m.blocks):
            rate = self.drop_path * l / (L - 1) if L > 1 else self.drop_path
            t = t + self.drop(blk.attn(blk.norm1(t), context, rel_index, rope), rate, training)
            t = t + self.drop(blk.mlp(blk.norm2(t)), rate, training)
        t = m.norm(t)
        if self.mp3:
            return m.pos_head(t)
        return m.head(t[:, 0] if vc.cls else t.mean(dim=1))

    def train(self, log_every):
        torch, plan = self.torch, self.plan
        order, draws = plan["order"], plan["augment"]
        pixels, labels = plan["data.train.pixels"], plan["data.train.labels"]
        if order.shape[0] != self.total or draws.shape[:2] != order.shape:
            raise BadPlan(f"order {order.shape} and augment {draws.shape} do not match total_steps {self.total}")
        sizes = plan.get("sizes")
        if sizes is not None and sizes.shape[0] != self.total:
            raise BadPlan(f"sizes {sizes.shape} does not match total_steps {self.total}")
        contexts = plan.get("context") if self.mp3 else None
        if self.mp3 and (contexts is None or contexts.shape[:2] != order.shape):
            raise BadPlan(f"an MP3 plan needs context (steps, B, M) matching order {order.shape}")
        losses = []
        self.model.train()
        t_start = time.time()
        for step in range(self.total):
            rows = order[step].astype(np.int64)
            x = self.images(pixels, rows, draws[step], None if sizes is None else sizes[step])
            y = torch.from_numpy(labels[rows].astype(np.int64))
            for g in self.opt.param_groups:
                g["lr"] = self.lr_at(step)
            self.measure = step == 0
            if self.mp3:
                import torch_vit
                context = torch.from_numpy(contexts[step].astype(np.int64))
                loss = torch_vit.mp3_loss(self.forward(x, True, context), self.vc.cls)
            else:
                loss = torch.nn.functional.cross_entropy(self.forward(x, True), y, label_smoothing=self.vc.label_smoothing)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if self.clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.opt.step()
            losses.append(float(loss.item()))
            if log_every and (step + 1) % log_every == 0:
                print(f"step {step + 1}/{self.total} loss {losses[-1]:.4f} {time.time() - t_start:.0f}s", flush=True)
        return losses, time.time() - t_start

    def evaluate_positions(self):
        """MP3: position top-1 at test η 0 over all and over non-blank patches."""
        torch, plan, vc = self.torch, self.plan, self.vc
        pixels = plan["data.test.pixels"]
        limit = int(cfg(plan, "position_limit"))
        n = pixels.shape[0] if limit <= 0 else min(limit, pixels.shape[0])
        eb, p, t0 = int(cfg(plan, "eval_batch")), vc.patch, 1 if vc.cls else 0
        self.model.eval()
        correct = total = correct_nb = total_nb = 0
        with torch.no_grad():
            for first in range(0, n, eb):
                rows = np.arange(first, min(n, first + eb))
                x = self.images(pixels, rows)  # (B, C, S, S) at the training size, as the model sees them
                pred = self.forward(x, False)[:, t0:].argmax(dim=-1).numpy()  # (B, N)
                pix = x.numpy()
                B, C, H, W = pix.shape
                patches = pix.reshape(B, C, H // p, p, W // p, p).transpose(0, 2, 4, 1, 3, 5).reshape(B, -1, C, p * p)
                blank = (patches == patches[..., :1]).all(axis=-1).all(axis=-1)  # (B, N): every channel constant
                ok = pred == np.arange(pred.shape[1])[None, :]
                correct += int(ok.sum()); total += ok.size
                correct_nb += int((ok & ~blank).sum()); total_nb += int((~blank).sum())
        return correct / total, (correct_nb / total_nb if total_nb else float("nan"))

    def evaluate(self, size=None):
        """Test top-1 and loss at size px (default: the training size)."""
        torch, plan = self.torch, self.plan
        pixels, labels = plan["data.test.pixels"], plan["data.test.labels"]
        n, eb = pixels.shape[0], int(cfg(plan, "eval_batch"))
        self.model.eval()
        correct, loss_sum = 0, 0.0
        with torch.no_grad():
            for first in range(0, n, eb):
                rows = np.arange(first, min(n, first + eb))
                logits = self.forward(self.images(pixels, rows, size=size), False)
                y = torch.from_numpy(labels[rows].astype(np.int64))
                loss_sum += float(torch.nn.functional.cross_entropy(logits, y, reduction="sum",
                                                                    label_smoothing=self.vc.label_smoothing))
                finite = torch.isfinite(logits).all(dim=1)
                correct += int(((logits.argmax(dim=1) == y) & finite).sum())
        return correct / n, loss_sum / n


def main(argv):
    ap = argparse.ArgumentParser(description="Train a posbench crosscheck plan with PyTorch.")
    ap.add_argument("plan", help="tensorfile written by posbench (bench/train/train_plan.c)")
    ap.add_argument("--out", required=True, help="results file to write")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--init", choices=("ours", "torch", "timm"), default="ours",
                    help="ours: copy the plan's initial weights (posbench's); torch: initialise by timm's rules from "
                         "a generator of our own (bench/crosscheck/torch_init.py); timm: timm's own VisionTransformer "
                         "(bench/crosscheck/torch_timm_init.py)")
    ap.add_argument("--embed-init", choices=("timm", "xavier", "normal002"), default="timm",
                    help="--init torch: the patch projection's rule (the run's model.embed_init; --init timm: timm)")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError as e:
        print(f"torch_train.py: PyTorch is not importable: {e}", file=sys.stderr)
        return 2
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    try:
        plan = tensorfile.read(args.plan)
        trainer = Trainer(plan, args.init, args.embed_init)
        losses, seconds = trainer.train(args.log_every)
    except (tensorfile.TensorfileError, BadPlan, KeyError, ValueError) as e:
        print(f"torch_train.py: {args.plan}: {e}", file=sys.stderr)
        return 2
    if trainer.mp3:
        pos, pos_nb = trainer.evaluate_positions()
        lines = f"pos_top1_eta0 {pos:.17g}\npos_top1_nonblank_eta0 {pos_nb:.17g}\n"
        summary = f"pos_top1_eta0={pos:.4f} pos_top1_nonblank_eta0={pos_nb:.4f}"
    else:
        top1, loss = trainer.evaluate()
        lines = f"top1 {top1:.17g}\nloss {loss:.17g}\n"
        summary = f"top1={top1:.4f} loss={loss:.4f}"
        vc = trainer.vc
        grid_free = not (vc.relbias or vc.rope or vc.sin1d)  # abs is resized to the grid
        for S in (plan.get("eval_sizes") if plan.get("eval_sizes") is not None else []):
            S = int(S)
            if S != trainer.train_size and not grid_free:
                print(f"top1@{S}: not measured (the encoding is tied to the training grid)", flush=True)
                continue
            top1_s = trainer.evaluate(S)[0] if S != trainer.train_size else top1
            lines += f"top1@{S} {top1_s:.17g}\n"
            summary += f" top1@{S}={top1_s:.4f}"
    # what started it: the init (checked by posbench crosscheck before it reuses this file), how far
    # its weights are from the plan's, and the first batch's embedding RMS (posbench's /init)
    lines += f"init {args.init}\n"
    if args.init != "ours":
        lines += f"embed_init {args.embed_init}\n"
    lines += f"init_max_abs_diff {trainer.init_diff:.9g}\n"
    lines += f"content_rms {trainer.content_rms:.9g}\nposenc_rms {trainer.posenc_rms:.9g}\n"
    tmp = args.out + ".partial"
    with open(tmp, "w") as f:
        f.write(f"{lines}seconds {seconds:.3f}\n")
        f.write("step_losses " + " ".join(f"{v:.9g}" for v in losses) + "\n")
    os.replace(tmp, args.out)
    print(f"final: {summary} time={seconds:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
