#!/usr/bin/python3
"""PyTorch oracle for DINO (objectives/dino): checks a dump written by tests/test_dino.c.

Usage: /usr/bin/python3 tests/dino_oracle.py DUMP   (Debian's Python with PyTorch 1.13, CPU)

DUMP is a tensorfile (core/tensorfile.h); config.case says what it holds:
  1 the loss: input.teacher (2B,K) teacher outputs, input.center (K), input.student (V*B,K)
    (view v of image b at row v*B+b, views 0 and 1 the global ones), config.tau_t, tau_s,
    center_momentum; output.loss, output.dstudent (the loss's gradient wrt the student
    outputs), output.center (after the update), output.teacher_probs, output.entropy and
    output.kl (the collapse diagnostics of the global views: mean H(P_t), mean KL(P_t||P_s)).
    The reference is DINO's DINOLoss written here from the paper / main_dino.py: centring and
    sharpening of the teacher, softmax(s/tau_s) of the student, the mean over pairs (a, v != a)
    of the batch-mean cross entropy, the centre EMA of the teacher's batch mean.
  2 the normalisations: F.normalize rows of input.x and its backward with input.dy
    (output.y, output.dx); torch.nn.utils.weight_norm on a Linear with weight_v = input.v and
    weight_g fixed at 1, its weight (output.W) and weight_v's gradient for dL/dW = input.dW
    (output.dv).
  3 the head: input.a0 (B,H) the classifier output, param.w1 b1 w2 b2 v, input.dout (B,K):
    GELU, Linear, GELU, Linear, F.normalize, weight-normed Linear (g = 1, no bias);
    output.out, output.da0 and grad.* for the loss sum(out * dout).
  4 EMA and schedules: input.teacher, input.student, config.momentum, output.teacher (float32
    param_k.mul_(m).add_((1 - m) * param_q), compared bit for bit); output.momentum and
    output.weight_decay (steps 0..config.total) against main_dino.py's cosine_scheduler,
    output.teacher_temp (warmup 3 epochs), _w1 (1 epoch), _w0 (none) against its
    np.concatenate((np.linspace(warmup, temp, W), np.ones(epochs - W) * temp)).
The reference runs in float64. Output: `PASS dino oracle <what>: <detail>` or `FAIL ...`, one
per check; exit 0 when all pass, 1 when one fails, 2 when the dump is unreadable.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorfile  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

failed = 0


def check(name, ok, detail):
    global failed
    print(f"{'PASS' if ok else 'FAIL'} dino oracle {name}: {detail}")
    if not ok:
        failed += 1


def close(name, got, ref, atol, rtol=1e-4):
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        check(name, False, f"shape {got.shape}, reference {ref.shape}")
        return
    err = float(np.max(np.abs(got - ref))) if got.size else 0.0
    bound = atol + rtol * float(np.max(np.abs(ref))) if ref.size else atol
    check(name, bool(np.all(np.isfinite(got))) and err <= bound, f"max |diff| {err:.3g} (bound {bound:.3g})")


def scalar(tf, name):
    return float(tf[name].reshape(-1)[0])


def t64(a):
    return torch.tensor(np.asarray(a, dtype=np.float64))


def case_loss(tf):
    B, V = int(scalar(tf, "config.B")), int(scalar(tf, "config.views"))
    tau_t, tau_s, cm = scalar(tf, "config.tau_t"), scalar(tf, "config.tau_s"), scalar(tf, "config.center_momentum")
    teacher, center = t64(tf["input.teacher"]), t64(tf["input.center"])
    student = t64(tf["input.student"]).requires_grad_(True)
    # DINOLoss.forward: student_out / tau_s chunked into V views; teacher softmax((t - c)/tau_t) into 2
    s_chunks = (student / tau_s).chunk(V)
    q = F.softmax((teacher - center) / tau_t, dim=-1)
    t_chunks = q.detach().chunk(2)
    total, terms = 0.0, 0
    for a, qa in enumerate(t_chunks):
        for v in range(V):
            if v == a:
                continue
            loss = torch.sum(-qa * F.log_softmax(s_chunks[v], dim=-1), dim=-1)
            total = total + loss.mean()
            terms += 1
    total = total / terms
    total.backward()
    close("loss", tf["output.loss"], [total.item()], 1e-5, 1e-5)
    close("dloss/dstudent", tf["output.dstudent"], student.grad.numpy(), 1e-6, 1e-4)
    close("teacher probabilities (centred, sharpened)", tf["output.teacher_probs"], q.numpy(), 1e-6, 1e-4)
    batch_center = teacher.sum(dim=0, keepdim=True) / teacher.shape[0]
    new_center = center * cm + batch_center.reshape(-1) * (1 - cm)
    close("centre update", tf["output.center"], new_center.numpy(), 1e-6, 1e-5)
    ps = F.log_softmax(student.detach()[: 2 * B] / tau_s, dim=-1)
    ent = -(q * torch.log(q.clamp_min(1e-300))).sum(-1)
    kl = (q * (torch.log(q.clamp_min(1e-300)) - ps)).sum(-1)
    close("teacher entropy", [scalar(tf, "output.entropy")], [ent.mean().item()], 1e-6, 1e-5)
    close("KL(P_t || P_s)", [scalar(tf, "output.kl")], [kl.mean().item()], 1e-6, 1e-5)


def case_norms(tf):
    x = t64(tf["input.x"]).requires_grad_(True)
    y = F.normalize(x, dim=-1, p=2)
    y.backward(t64(tf["input.dy"]))
    close("L2 normalise forward", tf["output.y"], y.detach().numpy(), 1e-6)
    close("L2 normalise backward", tf["output.dx"], x.grad.numpy(), 1e-6)
    v = np.asarray(tf["input.v"], dtype=np.float64)
    K, P = v.shape
    layer = torch.nn.utils.weight_norm(torch.nn.Linear(P, K, bias=False).double())
    layer.weight_g.data.fill_(1)
    layer.weight_g.requires_grad = False
    layer.weight_v.data.copy_(torch.from_numpy(v))
    # the weight the layer uses: recomputed by its forward pre-hook
    z = torch.eye(P, dtype=torch.float64)
    W = layer(z).t()  # (K, P): row k = W[k]
    W.backward(t64(tf["input.dW"]))
    close("weight norm (gain fixed at 1) forward", tf["output.W"], W.detach().numpy(), 1e-6)
    close("weight norm backward (dL/dv)", tf["output.dv"], layer.weight_v.grad.numpy(), 1e-6)
    check("weight norm: the gain gets no gradient", layer.weight_g.grad is None, "weight_g.requires_grad = False")


def case_head(tf):
    a0 = t64(tf["input.a0"]).requires_grad_(True)
    p = {k: t64(tf[f"param.{k}"]).requires_grad_(True) for k in ("w1", "b1", "w2", "b2", "v")}
    x = F.linear(F.gelu(a0), p["w1"], p["b1"])
    x = F.linear(F.gelu(x), p["w2"], p["b2"])
    x = F.normalize(x, dim=-1, p=2)
    W = torch._weight_norm(p["v"], torch.ones(p["v"].shape[0], 1, dtype=torch.float64), 0)
    out = F.linear(x, W)
    (out * t64(tf["input.dout"])).sum().backward()
    close("head forward (GELU, Linear, GELU, Linear, L2, weight-normed prototypes)", tf["output.out"], out.detach().numpy(),
          1e-5, 1e-4)
    close("head backward into the backbone (dL/da0)", tf["output.da0"], a0.grad.numpy(), 1e-6, 1e-3)
    for k in ("w1", "b1", "w2", "b2", "v"):
        close(f"head grad {k}", tf[f"grad.{k}"], p[k].grad.numpy(), 1e-6, 1e-3)


def cosine_scheduler(base, final, epochs, niter):  # main_dino.py's (no warmup), from its definition
    iters = np.arange(epochs * niter)
    return final + 0.5 * (base - final) * (1 + np.cos(np.pi * iters / len(iters)))


def case_ema(tf):
    m = scalar(tf, "config.momentum")
    tk = torch.tensor(np.asarray(tf["input.teacher"], dtype=np.float32))
    sq = torch.tensor(np.asarray(tf["input.student"], dtype=np.float32))
    tk.mul_(m).add_((1 - m) * sq)
    diff = np.asarray(tf["output.teacher"], dtype=np.float32) != tk.numpy()
    check("EMA update, float32 bit for bit", not diff.any(), f"{int(diff.sum())} of {diff.size} differ")
    total = int(scalar(tf, "config.total"))
    sched = cosine_scheduler(0.996, 1.0, 1, total)
    close("momentum schedule (cosine 0.996 -> 1)", tf["output.momentum"][:total], sched, 1e-12, 0)
    close("weight decay schedule (cosine 0.04 -> 0.4)", tf["output.weight_decay"][:total], cosine_scheduler(0.04, 0.4, 1, total),
          1e-12, 0)
    E = len(tf["output.teacher_temp"])
    for W, name in ((3, "output.teacher_temp"), (1, "output.teacher_temp_w1"), (0, "output.teacher_temp_w0")):
        ref = np.concatenate((np.linspace(0.04, 0.07, W), np.ones(E - W) * 0.07))
        close(f"teacher temperature warmup over {W} epochs", tf[name], ref, 1e-12, 0)


def main():
    if len(sys.argv) != 2:
        print("usage: dino_oracle.py DUMP", file=sys.stderr)
        return 2
    try:
        tf = tensorfile.read(sys.argv[1])
        case = int(scalar(tf, "config.case"))
    except (tensorfile.TensorfileError, KeyError) as e:
        print(f"dino_oracle.py: {e}", file=sys.stderr)
        return 2
    cases = {1: case_loss, 2: case_norms, 3: case_head, 4: case_ema}
    if case not in cases:
        print(f"dino_oracle.py: config.case={case} (valid: 1..4)", file=sys.stderr)
        return 2
    cases[case](tf)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
