#!/usr/bin/python3
"""PyTorch oracle for posbench's ViT: checks one forward/backward pass dumped by the C side.

Usage (Debian's Python, PyTorch 1.13 CPU):
  /usr/bin/python3 tests/torch_oracle.py DUMP
  /usr/bin/python3 tests/torch_oracle.py --make-test-dump PATH [--seed N] [--cls 0|1] [--pos-abs 0|1]

DUMP is a tensorfile (core/tensorfile.h) holding config.* (f64 scalars: channels, image_size,
patch, dim, depth, heads, mlp_ratio, cls, pos_abs, num_classes, label_smoothing; optional,
default 0: relbias, pos_head, sin1d, sin2d, rope (0, 1 or 2 dims), rope_base; arch (0 ViT,
1 gMLP, 2 aMLP: tests/torch_gmlp.py), tiny_attn_dim, sgu_toeplitz (0 dense, 1 1D, 2 2D), features (> 0: a
sequence, input.images f32 (B,S,features)), cape1d (with input.cape_t f32 (B,N): 1D CAPE's positions)),
input.images f32 (B,Cin,S,S), input.labels i32 (B), optional
input.context i32 (B,M) (MP3 context token indices: masked attention), optional config.gvp with
input.gvp_groups i32 (B,N) (GVP's two streams: the group of every patch; output.logits
(B,T+N,Cin*p*p), loss: torch_vit.gvp_loss), optional input.refs
i32 (B,R) (MP3 reference tokens: only they get pos_abs / sin1d / sin2d), optional config.mae with
config.mae_keep, config.decoder_depth, config.decoder_dim and input.mae_shuffle i32 (B,N) (MAE:
each image's shuffle; output.logits the decoder's predictions (B,T,Cin*p*p), loss:
torch_vit.mae_loss), param.<name> and
grad.<name> for every parameter, output.loss f32 (1), output.logits f32 (B,K) or, with
pos_head, (B,T,N) (loss: MP3's mean position cross entropy over patch tokens).

The model (tests/torch_vit.py) is rebuilt from param.* in float64 -- the reference every
check compares against -- and in float32 (its deviation from the reference is shown in each
line's detail, as a yardstick of what float32 rounding alone gives).

Output: one line per check, `PASS <name>: <detail>` or `FAIL <name>: <detail>`:
  oracle loss            |loss_pb - loss_ref|          <= 1e-5 * max(1, |loss_ref|)
  oracle logits          max |logits_pb - logits_ref|  <= 1e-4
  oracle grad <name>     max |g_pb - g_ref|            <= 1e-5 + 1e-3 * max |g_ref|   (one per parameter)
A non-finite value, a missing entry or a wrong shape fails that check.
Exit status: 0 all checks pass, 1 some check fails, 2 the input is unreadable or malformed
(not a tensorfile, missing/invalid config, inputs or parameters; message on stderr).

--make-test-dump writes a random small-config dump whose output.* and grad.* are the float32
torch model's own, for self-testing this comparison: checking that file must PASS, and
checking it with one grad.* entry perturbed must FAIL.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorfile  # noqa: E402

LOSS_RTOL = 1e-5      # loss: |diff| <= LOSS_RTOL * max(1, |loss_ref|)
LOGITS_ATOL = 1e-4    # logits: max |diff| <= LOGITS_ATOL
GRAD_ATOL = 1e-5      # grads: max |diff| <= GRAD_ATOL + GRAD_RTOL * max |g_ref|
GRAD_RTOL = 1e-3

CONFIG_KEYS = ("channels", "image_size", "patch", "dim", "depth", "heads", "mlp_ratio",
               "cls", "pos_abs", "num_classes", "label_smoothing")
INT_KEYS = ("channels", "image_size", "patch", "dim", "depth", "heads", "cls", "pos_abs", "num_classes",
            "relbias", "pos_head", "sin1d", "sin2d", "rope", "arch", "tiny_attn_dim", "sgu_toeplitz", "gvp",
            "features", "cape1d", "mae", "mae_keep", "decoder_depth", "decoder_dim")
OPTIONAL_KEYS = ("relbias", "pos_head", "sin1d", "sin2d", "rope", "rope_base", "content_scale",
                 "arch", "tiny_attn_dim", "sgu_toeplitz", "gvp", "features", "cape1d", "mae", "mae_keep",
                 "decoder_depth", "decoder_dim")  # absent = 0


class BadInput(Exception):
    pass


def _torch():
    import torch
    import torch_vit
    return torch, torch_vit


def build_model(cfg):
    """The torch twin of the dumped model: ViT (tests/torch_vit.py), or with config.arch 1 / 2
    gMLP / aMLP (tests/torch_gmlp.py)."""
    _, torch_vit = _torch()
    if cfg.arch:
        import torch_gmlp
        return torch_gmlp.GMLP(cfg)
    return torch_vit.ViT(cfg)


def param_names(cfg):
    _, torch_vit = _torch()
    if cfg.arch:
        import torch_gmlp
        return torch_gmlp.param_names(cfg)
    return torch_vit.param_names(cfg)


def parse_config(tf, torch_vit):
    vals = {}
    for k in CONFIG_KEYS + OPTIONAL_KEYS:
        name = f"config.{k}"
        if name not in tf and k in OPTIONAL_KEYS:
            continue
        if name not in tf:
            raise BadInput(f"missing {name}")
        a = tf[name]
        if a.size != 1:
            raise BadInput(f"{name} has shape {a.shape}, expected a scalar")
        v = float(a.reshape(-1)[0])
        if not np.isfinite(v):
            raise BadInput(f"{name} = {v}")
        if k in INT_KEYS:
            if v != round(v):
                raise BadInput(f"{name} = {v} is not an integer")
            v = int(round(v))
        vals[k] = v
    cfg = torch_vit.ViTConfig(**vals)
    try:
        cfg.validate()
    except ValueError as e:
        raise BadInput(f"invalid config: {e}") from None
    return cfg


def parse_inputs(tf, cfg, torch_vit):
    imgs = tf.get("input.images")
    labels = tf.get("input.labels")
    if imgs is None or labels is None:
        raise BadInput("missing input.images or input.labels")
    S, C = cfg.image_size, cfg.channels
    if cfg.features and (imgs.ndim != 3 or imgs.shape[1:] != (S, cfg.features)):
        raise BadInput(f"input.images has shape {imgs.shape}, expected a sequence (B, {S}, {cfg.features})")
    if not cfg.features and (imgs.ndim != 4 or imgs.shape[1:] != (C, S, S)):
        raise BadInput(f"input.images has shape {imgs.shape}, expected (B, {C}, {S}, {S})")
    B = imgs.shape[0]
    if labels.shape != (B,):
        raise BadInput(f"input.labels has shape {labels.shape}, expected ({B},)")
    if labels.dtype.kind not in "iuf" or np.any(labels != np.round(labels)):
        raise BadInput("input.labels are not integers")
    labels = labels.astype(np.int64)
    if labels.min() < 0 or labels.max() >= cfg.num_classes:
        raise BadInput(f"input.labels outside [0, {cfg.num_classes})")
    params = {}
    names = param_names(cfg)
    model = build_model(cfg)
    shapes = {n: tuple(p.shape) for n, p in model.named_parameters()}
    assert set(shapes) == set(names), "torch_vit.param_names out of sync with the model"
    for n in names:
        key = f"param.{n}"
        if key not in tf:
            raise BadInput(f"missing {key}")
        a = tf[key]
        if a.shape != shapes[n]:
            raise BadInput(f"{key} has shape {a.shape}, expected {shapes[n]}")
        if a.dtype.kind != "f":
            raise BadInput(f"{key} has dtype {a.dtype}, expected float")
        params[n] = a
    extra = sorted(k for k in tf if k.startswith("param.") and k[6:] not in shapes)
    if extra:
        raise BadInput(f"unexpected parameter entries (architecture mismatch?): {', '.join(extra)}")
    groups = tf.get("input.gvp_groups")
    if cfg.gvp and (groups is None or groups.shape != (B, cfg.num_patches) or np.any(groups < 0)):
        raise BadInput(f"config.gvp needs input.gvp_groups (B, {cfg.num_patches}) of groups >= 0")
    if cfg.gvp:
        labels = groups.astype(np.int64)  # GVP has no labels: the groups travel in their place
    shuffle = tf.get("input.mae_shuffle")
    if cfg.mae and (shuffle is None or shuffle.shape != (B, cfg.num_patches) or
                    any(sorted(row.tolist()) != list(range(cfg.num_patches)) for row in shuffle)):
        raise BadInput(f"config.mae needs input.mae_shuffle (B, {cfg.num_patches}), a permutation per image")
    if cfg.mae:
        labels = shuffle.astype(np.int64)  # MAE has no labels: the shuffles travel in their place
    return imgs, labels, params, _token_lists(tf, "input.context", B, cfg), _token_lists(tf, "input.refs", B, cfg)


def _token_lists(tf, key, B, cfg):
    """Optional (B, K) token indices per image (MP3 context or reference tokens), int64."""
    idx = tf.get(key)
    if idx is None:
        return None
    if idx.ndim != 2 or idx.shape[0] != B or np.any(idx < 0) or np.any(idx >= cfg.tokens):
        raise BadInput(f"{key} has shape {idx.shape} or values outside [0, {cfg.tokens})")
    if any(len(set(row.tolist())) != len(row) for row in idx):
        raise BadInput(f"{key} repeats a token within an image")
    return idx.astype(np.int64)


def positions_input(tf, cfg, B):
    """input.cape_t (B, N) float: 1D CAPE's frame positions in seconds (config.cape1d only)."""
    t = tf.get("input.cape_t")
    if not cfg.cape1d:
        return None
    if t is None or t.shape != (B, cfg.num_patches) or t.dtype.kind != "f" or not np.all(np.isfinite(t)):
        raise BadInput(f"config.cape1d needs input.cape_t (B, {cfg.num_patches}) of finite positions")
    return t


def run_model(cfg, imgs, labels, params, dtype, context=None, refs=None, positions=None):
    """Builds the model in `dtype`, loads params, runs forward+backward (MP3 with context).
    Returns (loss float, logits ndarray, {name: grad ndarray}, model)."""
    torch, torch_vit = _torch()
    model = build_model(cfg).to(dtype)
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(torch.from_numpy(np.ascontiguousarray(params[n])).to(dtype))
    x = torch.from_numpy(np.ascontiguousarray(imgs)).to(dtype)
    y = torch.from_numpy(labels.astype(np.int64))
    if cfg.mae:
        logits = model.forward_mae(x, y)
        loss = torch_vit.mae_loss(logits, x, y, cfg)
    elif cfg.gvp:
        logits = model.forward_gvp(x, y)
        loss = torch_vit.gvp_loss(logits, x, y, cfg)
    elif cfg.pos_head:
        ctx = None if context is None else torch.from_numpy(context)
        logits = model(x, ctx, None if refs is None else torch.from_numpy(refs))
        loss = torch_vit.mp3_loss(logits, cfg.cls)
    else:
        logits = model(x) if positions is None else model(x, positions=torch.from_numpy(np.ascontiguousarray(positions)))
        loss = torch_vit.vit_loss(logits, y, cfg.label_smoothing)
    model.zero_grad(set_to_none=True)
    loss.backward()
    grads = {n: p.grad.detach().cpu().numpy().copy() for n, p in model.named_parameters()}
    return float(loss.item()), logits.detach().cpu().numpy().copy(), grads, model


def _maxabs(a):
    return float(np.max(np.abs(a))) if a.size else 0.0


def check(name, ok, detail, results):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    results.append(ok)


def compare(tf, cfg, imgs, labels, params, context, refs=None):
    positions = positions_input(tf, cfg, imgs.shape[0])
    loss64, logits64, grads64, _ = run_model(cfg, imgs, labels, params, _torch()[0].float64, context, refs, positions)
    loss32, logits32, grads32, _ = run_model(cfg, imgs, labels, params, _torch()[0].float32, context, refs, positions)
    results = []

    # loss
    a = tf.get("output.loss")
    if a is None or a.size != 1:
        check("oracle loss", False, "output.loss missing or not a scalar" if a is None else
              f"output.loss has shape {a.shape}", results)
    else:
        pb = float(a.reshape(-1)[0])
        tol = LOSS_RTOL * max(1.0, abs(loss64))
        diff = abs(pb - loss64)
        ok = np.isfinite(pb) and diff <= tol
        check("oracle loss", ok, f"posbench {pb:.9g} torch {loss64:.9g} |diff| {diff:.3g} tol {tol:.3g} "
              f"(f32 torch |diff| {abs(loss32 - loss64):.3g})", results)

    # logits
    a = tf.get("output.logits")
    if a is None or a.shape != logits64.shape:
        check("oracle logits", False, "output.logits missing" if a is None else
              f"output.logits has shape {a.shape}, expected {logits64.shape}", results)
    else:
        pb = a.astype(np.float64)
        if not np.all(np.isfinite(pb)):
            check("oracle logits", False, f"{int(np.sum(~np.isfinite(pb)))} non-finite values", results)
        else:
            diff = _maxabs(pb - logits64)
            check("oracle logits", diff <= LOGITS_ATOL,
                  f"max|diff| {diff:.3g} tol {LOGITS_ATOL:.3g} max|ref| {_maxabs(logits64):.3g} "
                  f"(f32 torch {_maxabs(logits32 - logits64):.3g})", results)

    # gradients
    for n in param_names(cfg):
        cname = f"oracle grad {n}"
        ref = grads64[n]
        a = tf.get(f"grad.{n}")
        if a is None:
            check(cname, False, f"grad.{n} missing", results)
            continue
        if a.shape != ref.shape:
            check(cname, False, f"grad.{n} has shape {a.shape}, expected {ref.shape}", results)
            continue
        pb = a.astype(np.float64)
        if not np.all(np.isfinite(pb)):
            check(cname, False, f"{int(np.sum(~np.isfinite(pb)))} non-finite values", results)
            continue
        mref = _maxabs(ref)
        tol = GRAD_ATOL + GRAD_RTOL * mref
        d = np.abs(pb - ref)
        diff = float(d.max()) if d.size else 0.0
        where = np.unravel_index(int(np.argmax(d)), d.shape) if d.size else ()
        detail = f"max|diff| {diff:.3g} tol {tol:.3g} max|ref| {mref:.3g} (f32 torch {_maxabs(grads32[n] - ref):.3g})"
        if diff > tol:
            detail += f" worst at {tuple(int(i) for i in where)}: posbench {pb[where]:.7g} ref {ref[where]:.7g}"
        check(cname, diff <= tol, detail, results)
    return all(results), len(results)


def make_test_dump(path, seed, cls, pos_abs):
    torch, torch_vit = _torch()
    cfg = torch_vit.ViTConfig(channels=3, image_size=8, patch=4, dim=16, depth=2, heads=2,
                              mlp_ratio=4, cls=cls, pos_abs=pos_abs, num_classes=5,
                              label_smoothing=0.1).validate()
    B = 3
    g = torch.Generator().manual_seed(seed)
    model = torch_vit.ViT(cfg)
    with torch.no_grad():
        # Larger, non-trivial values everywhere (LayerNorm affine included) so every path matters.
        for n, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g)
            if n.endswith(("norm1.weight", "norm2.weight")) or n == "norm.weight":
                p.copy_(1.0 + 0.2 * r)
            elif n.endswith(".bias"):
                p.copy_(0.1 * r)
            else:
                p.copy_(r / max(1.0, p.shape[-1]) ** 0.5 if p.dim() == 2 and n != "pos_embed" else 0.5 * r)
    params = {n: p.detach().numpy().astype(np.float32) for n, p in model.named_parameters()}
    imgs = torch.randn(B, cfg.channels, cfg.image_size, cfg.image_size, generator=g).numpy().astype(np.float32)
    labels = torch.randint(0, cfg.num_classes, (B,), generator=g).numpy().astype(np.int32)
    loss, logits, grads, _ = run_model(cfg, imgs, labels.astype(np.int64), params, torch.float32)
    out = {}
    for k in CONFIG_KEYS:
        out[f"config.{k}"] = np.array([getattr(cfg, k)], dtype=np.float64)
    out["input.images"] = imgs
    out["input.labels"] = labels
    for n in torch_vit.param_names(cfg):
        out[f"param.{n}"] = params[n]
    for n in torch_vit.param_names(cfg):
        out[f"grad.{n}"] = grads[n].astype(np.float32)
    out["output.loss"] = np.array([loss], dtype=np.float32)
    out["output.logits"] = logits.astype(np.float32)
    tensorfile.write(path, out)
    print(f"wrote {path}: B={B} cls={cls} pos_abs={pos_abs} loss {loss:.7g}, {len(out)} entries",
          file=sys.stderr)


def main(argv):
    ap = argparse.ArgumentParser(description="Compare a posbench ViT oracle dump against PyTorch.")
    ap.add_argument("dump", nargs="?", help="tensorfile written by posbench")
    ap.add_argument("--make-test-dump", metavar="PATH", help="write a random self-test dump and exit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cls", type=int, choices=(0, 1), default=1)
    ap.add_argument("--pos-abs", type=int, choices=(0, 1), default=1)
    args = ap.parse_args(argv[1:])

    if args.make_test_dump:
        try:
            make_test_dump(args.make_test_dump, args.seed, args.cls, args.pos_abs)
        except OSError as e:
            print(f"error: cannot write {args.make_test_dump}: {e}", file=sys.stderr)
            return 2
        return 0
    if not args.dump:
        ap.print_usage(sys.stderr)
        return 2

    try:
        tf = tensorfile.read(args.dump)
        _, torch_vit = _torch()
        cfg = parse_config(tf, torch_vit)
        imgs, labels, params, context, refs = parse_inputs(tf, cfg, torch_vit)
    except (tensorfile.TensorfileError, BadInput) as e:
        print(f"error: {args.dump}: {e}" if isinstance(e, BadInput) else f"error: {e}", file=sys.stderr)
        return 2
    ok, n = compare(tf, cfg, imgs, labels, params, context, refs)
    print(f"torch_oracle: {'all' if ok else 'NOT all'} {n} checks passed "
          f"(B={imgs.shape[0]} cls={cfg.cls} pos_abs={cfg.pos_abs} relbias={cfg.relbias} sin1d={cfg.sin1d} "
          f"sin2d={cfg.sin2d} rope={cfg.rope} pos_head={cfg.pos_head} arch={cfg.arch} "
          f"sgu_toeplitz={cfg.sgu_toeplitz} tiny_attn_dim={cfg.tiny_attn_dim} "
          f"context={'none' if context is None else context.shape[1]} "
          f"refs={'none' if refs is None else refs.shape[1]})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
